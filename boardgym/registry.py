"""The one way boardgym names things by strings: tables of ``Entry("module:attr", summary)``
loaded on first use, and ``parse_value`` for the text a user types after ``key=``.

Every table (games, agents, evaluations, training methods, solvers) is a ``dict[str, Entry]``
(or a subclass of ``Entry``) and is read through ``lookup``, so an unknown name always gets
the same kind of sentence: the bad name and the names that exist. ``parse_value`` reads the
values of game parameters (``-p size=7``), agent specs (``mcts:c=1.4``) and configs
(``--heaps 3,4,5``) by the annotation of the parameter they are for.
"""

from __future__ import annotations

import importlib
import math
import os
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from boardgym.types import BoardgymError

E = TypeVar("E", bound="Entry")

TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
FALSE_WORDS = frozenset({"false", "no", "off", "0"})
NONE_WORDS = frozenset({"none", "null"})


@dataclass(frozen=True)
class Entry:
    """``target``: ``"package.module:attribute"``, imported only when ``load``ed;
    ``summary``: one line for ``boardgym list``."""

    target: str
    summary: str

    def load(self) -> Any:
        return load(self.target)


@dataclass(frozen=True)
class CommandEntry(Entry):
    """An entry that runs as a command (``boardgym train METHOD``, ``bench NAME``, ``solve
    NAME``): ``target`` is its ``main(argv, prog)``, ``options`` its options class, which
    declares every option once (``boardgym.config``)."""

    options: str = ""


def load(target: str) -> Any:
    """The attribute that ``"package.module:attribute"`` names."""
    module, sep, attribute = target.partition(":")
    if not sep or not module or not attribute:
        raise BoardgymError(f"cannot load {target!r}: write it as 'package.module:attribute'")
    value: Any = importlib.import_module(module)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


def lookup(table: Mapping[str, E], name: str, kind: str) -> E:
    """``table[name]``, or one sentence naming the unknown ``kind`` and the known names."""
    try:
        return table[name]
    except (KeyError, TypeError):
        raise BoardgymError(f"unknown {kind} {name!r}; known {kind}s: {', '.join(table)}") from None


def read_pairs(items: Iterable[str], *, what: str, example: str, form: str = "KEY=VALUE") -> dict[str, str]:
    """The one reader of ``KEY=VALUE`` text (game parameters, agent spec keys, named
    checkpoints): ``["size=7", "swap=true"]`` -> ``{"size": "7", "swap": "true"}``, keys and
    values stripped. An item without ``=`` or without a key, or a key given twice, is one
    sentence naming the item and ``what`` holds it (``-p``, ``agent spec 'mcts:c=1'``), with
    ``example`` of the right ``form``."""
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise BoardgymError(f"cannot read {item!r} in {what}; write {form}, e.g. {example}")
        if key in pairs:
            raise BoardgymError(f"{what} gives {key!r} twice; give it once")
        pairs[key] = value.strip()
    return pairs


def parse_value(text: str, annotation: Any = None, *, name: str = "value", joiner: str = "=") -> Any:
    """Read ``text`` as a value of ``annotation`` (int, float, bool, str, Path, a tuple or
    sequence of those, ``X | None``, a union tried in order). Without an annotation the value
    is guessed: a comma list, a strict boolean word, ``none``, an int, a float, else the text.

    Booleans are strict (``true``/``false``/``yes``/``no``/``on``/``off``/``1``/``0``) and
    numbers must be finite: anything else is one ``BoardgymError`` naming ``name`` (``size='x'
    must be an integer``; with ``joiner=" "``, as options are named: ``--size 'x' must be ...``).
    """
    text = text.strip()
    if annotation is None or annotation is Any:
        return _guess(text)
    try:
        return _convert(text, annotation)
    except _Mismatch:
        raise BoardgymError(f"{name}{joiner}{text!r} must be {describe(annotation)}") from None


def check_value(value: Any, annotation: Any = None, *, name: str = "value", joiner: str = "=") -> Any:
    """``value`` (given in code, not typed as text) if it is of ``annotation``, as the plain
    Python type: a numpy integer becomes an ``int``, a list a tuple. The rules are those of
    ``parse_value``: an ``int`` is no bool and no float (``3.5`` is not truncated), a ``bool``
    is a bool (``2`` is not true), a ``float`` is a finite number; anything else is one
    ``BoardgymError`` naming ``name``. Text values go through ``parse_value`` instead."""
    if annotation is None or annotation is Any:
        return value
    try:
        return _check(value, annotation)
    except _Mismatch:
        text = repr(value)
        text = text if len(text) <= 60 else text[:57] + "..."
        raise BoardgymError(f"{name}{joiner}{text} must be {describe(annotation)}") from None


def _check(value: Any, annotation: Any) -> Any:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        for option in args:
            try:
                return _check(value, option)
            except _Mismatch:
                continue
        raise _Mismatch
    if origin in (tuple, list, Sequence, typing.Sequence) or annotation in (tuple, list):
        if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, np.ndarray)):
            raise _Mismatch
        item = args[0] if args else Any
        return tuple(value if item is Any else _check(part, item) for part in value)
    if annotation is bool:
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise _Mismatch
    if annotation is int:
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return int(value)
        raise _Mismatch
    if annotation is float:
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
            if math.isfinite(value):
                return float(value)
        raise _Mismatch
    if annotation is str:
        if isinstance(value, str):
            return value
        raise _Mismatch
    if annotation is Path:
        if isinstance(value, (str, os.PathLike)) and str(value):
            return Path(value)
        raise _Mismatch
    if annotation is type(None):
        if value is None:
            return None
        raise _Mismatch
    return value  # an annotation we do not check: the constructor checks the value itself


def describe(annotation: Any) -> str:
    """How ``parse_value`` names what it wanted: ``an integer``, ``true or false``, ..."""
    if annotation in _NAMES:
        return _NAMES[annotation]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [describe(a) for a in args if a is not type(None)]
        text = " or ".join(dict.fromkeys(options))
        return text + (" (or none)" if type(None) in args else "")
    if origin in (tuple, list, Sequence, typing.Sequence) or annotation in (tuple, list):
        item = args[0] if args else str
        return f"a comma-separated list of {_plural(describe(item))}"
    return getattr(annotation, "__name__", str(annotation))


class _Mismatch(Exception):
    pass


_NAMES: dict[Any, str] = {
    int: "an integer",
    float: "a finite number",
    bool: "true or false",
    str: "text",
    Path: "a path",
    type(None): "none",
}


def _plural(text: str) -> str:
    return {"an integer": "integers", "a finite number": "numbers", "true or false": "booleans"}.get(text, text)


def _convert(text: str, annotation: Any) -> Any:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        if type(None) in args and text.lower() in NONE_WORDS:
            return None
        for option in args:
            if option is type(None):
                continue
            try:
                return _convert(text, option)
            except _Mismatch:
                continue
        raise _Mismatch
    if origin in (tuple, list, Sequence, typing.Sequence) or annotation in (tuple, list):
        item = args[0] if args else str
        parts = [part.strip() for part in text.split(",")]
        if parts and not parts[-1]:
            parts.pop()  # "3," is a one-item list
        if not parts or any(not part for part in parts):
            raise _Mismatch
        return tuple(_convert(part, item) for part in parts)
    if annotation is bool:
        lowered = text.lower()
        if lowered in TRUE_WORDS:
            return True
        if lowered in FALSE_WORDS:
            return False
        raise _Mismatch
    if annotation is int:
        try:
            return int(text, 10)
        except ValueError:
            raise _Mismatch from None
    if annotation is float:
        try:
            value = float(text)
        except ValueError:
            raise _Mismatch from None
        if not math.isfinite(value):
            raise _Mismatch
        return value
    if annotation is str:
        return text
    if annotation is Path:
        if not text:
            raise _Mismatch
        return Path(text)
    if annotation is type(None):
        if text.lower() in NONE_WORDS:
            return None
        raise _Mismatch
    return text  # an annotation we do not read: the constructor checks the text itself


def _guess(text: str) -> Any:
    if "," in text:
        return tuple(_guess(part) for part in text.split(",") if part.strip())
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in NONE_WORDS:
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
