"""Speed benchmarks against peer libraries, run side by side in one process (``boardgym bench``)."""

from __future__ import annotations

import importlib
from typing import Any


def optional_import(module: str) -> Any:
    """The module, or None where it (or something it needs) is not installed: benchmarks skip
    a peer library that is missing and say so."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
