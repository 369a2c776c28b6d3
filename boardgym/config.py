"""Configs on the command line: a frozen dataclass whose fields are declared with
``option(default, help)`` becomes one ``--field-name`` option per field::

    @dataclass(frozen=True)
    class Config:
        game: str = option("tictactoe", "game to train on (boardgym list games)")
        episodes: int = option(100_000, "training episodes")

``config_from_argv(Config, argv, prog)`` builds one from ``--game nim --episodes 500``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

from boardgym.registry import parse_value
from boardgym.runs import atomic_write_text
from boardgym.types import BoardgymError

C = TypeVar("C")
GAME_PARAMS = "game_params"  # the config field that holds a game's KEY=VALUE parameters
SEED = "seed"  # the config field read by ``seed_value``
MAX_SEED = 2**32 - 1
"""The largest seed: every generator a run seeds (numpy, torch, Python's, Stable-Baselines3's)
takes 0 .. 2**32 - 1."""


def check_seed(seed: Any, flag: str = "--seed") -> int:
    """``seed`` if it is an int from 0 to ``MAX_SEED``; else one sentence naming ``flag``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise BoardgymError(f"{flag} {seed!r} must be a whole number from 0 to {MAX_SEED}")
    return seed


def seed_value(text: str) -> int:
    """An argparse ``type`` for ``--seed``: the refusal is argparse's one line with our sentence."""
    try:
        return check_seed(parse_value(text, int, name="--seed"))
    except BoardgymError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed: give a whole number from 0 to {MAX_SEED}") from None


def positive_int(text: str) -> int:
    """An argparse ``type`` for a count of 1 or more (rounds, games, cores)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count: give a whole number of 1 or more")
    return value


def positive_number(text: str) -> float:
    """An argparse ``type`` for a finite number above 0 (seconds, rates)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number above 0")
    return value


def option(default: Any, help: str) -> Any:
    """A documented config field (the help text shows in ``--help``)."""
    if isinstance(default, (list, dict, set)):
        raise TypeError("use a tuple for sequence defaults: configs are frozen")
    return dataclasses.field(default=default, metadata={"help": help})


def build_parser(config_cls: type, prog: str, description: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description=description or config_cls.__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    add_config_arguments(parser, config_cls)
    return parser


def add_config_arguments(parser: argparse.ArgumentParser, config_cls: type) -> None:
    """One ``--field-name`` option per dataclass field, typed from its annotation. A
    ``game_params`` field also takes ``-p KEY=VALUE``, repeatable, as ``play`` and ``evaluate`` do."""
    hints = typing.get_type_hints(config_cls)
    for field in dataclasses.fields(config_cls):
        kind = _base_type(hints[field.name])
        flag = "--" + field.name.replace("_", "-")
        help_text = field.metadata.get("help", "")
        if field.name == GAME_PARAMS:
            parser.add_argument(
                "-p",
                flag,
                dest=field.name,
                action="append",
                default=[],
                metavar="KEY=VALUE",
                help=help_text + " (repeatable: -p size=3 -p max_moves=40)",
            )
        elif kind is bool:
            parser.add_argument(
                flag, dest=field.name, action=argparse.BooleanOptionalAction, default=field.default, help=help_text
            )
        elif kind is tuple:
            parser.add_argument(
                flag, dest=field.name, type=str, default=field.default, help=help_text + " (comma separated)"
            )
        elif field.name == SEED and kind is int:
            parser.add_argument(flag, dest=field.name, type=seed_value, default=field.default, help=help_text)
        else:
            parser.add_argument(flag, dest=field.name, type=kind, default=field.default, help=help_text)


def config_from_args(config_cls: type[C], args: argparse.Namespace) -> C:
    hints = typing.get_type_hints(config_cls)
    values = {}
    for field in dataclasses.fields(config_cls):  # type: ignore[arg-type]
        value = getattr(args, field.name)
        if field.name == GAME_PARAMS:
            value = " ".join(value) if value else field.default
        elif _base_type(hints[field.name]) is tuple and isinstance(value, str):
            value = parse_value(value, hints[field.name], name="--" + field.name.replace("_", "-"))
        values[field.name] = value
    return config_cls(**values)


def config_from_argv(config_cls: type[C], argv: list[str] | None, prog: str) -> C:
    return config_from_args(config_cls, build_parser(config_cls, prog).parse_args(argv))


def config_to_dict(config: Any) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(config).items()}


def config_from_dict(config_cls: type[C], values: dict[str, Any], source: str = "config") -> C:
    """Rebuild a config from JSON values, refusing unknown keys with the known ones."""
    names = {f.name for f in dataclasses.fields(config_cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - names)
    if unknown:
        raise BoardgymError(
            f"{source}: unknown config key(s) {', '.join(unknown)}; known keys: {', '.join(sorted(names))}"
        )
    hints = typing.get_type_hints(config_cls)
    fixed = {k: (tuple(v) if _base_type(hints[k]) is tuple and isinstance(v, list) else v) for k, v in values.items()}
    return config_cls(**fixed)


def write_config(path: Path | str, config: Any, **extra: Any) -> None:
    atomic_write_text(path, json.dumps({**config_to_dict(config), **extra}, indent=2) + "\n")


def _base_type(annotation: Any) -> type:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _base_type(options[0])
    if origin is tuple or annotation is tuple:
        return tuple
    return annotation if isinstance(annotation, type) else str
