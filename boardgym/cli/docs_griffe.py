"""A griffe extension for the site's API reference (mkdocs.yml names it): the package's
docstrings use reST's ``code``, ``::`` literal blocks and simple tables, which the reference
shows as Markdown (``boardgym.cli.docs_text.rst_to_markdown``). Imported only by mkdocstrings."""

from __future__ import annotations

from typing import Any

import griffe

from boardgym.cli.docs_text import rst_to_markdown


class RstDocstrings(griffe.Extension):
    """Every docstring griffe reads, as Markdown."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and obj.docstring.value:
            obj.docstring.value = rst_to_markdown(obj.docstring.value).rstrip("\n")


__all__ = ["RstDocstrings"]
