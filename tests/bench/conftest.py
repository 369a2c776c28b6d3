"""Shared by the benchmark tests: a script of benchmarks/ loaded as a module."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # where dataclasses look up the module's annotations
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def benchmark_script() -> Callable[[str], ModuleType]:
    """``benchmark_script("worker_device_speed")``: benchmarks/worker_device_speed.py as a module."""
    return _load
