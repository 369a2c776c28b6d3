"""Options of every command, declared once: a frozen dataclass whose fields are declared with
``option(default, help, <rules>)`` is a command's options, one ``--field-name`` per field::

    @dataclass(frozen=True)
    class Config(Options):
        game: str = option("tictactoe", "game to train on (boardgym list games)")
        episodes: int = option(100_000, "training episodes", minimum=1)
        lr: float = option(0.1, "learning rate", above=0, maximum=1)
        backend: str = option("local", "where games run", choices=("local", "ray"))

**Rules beside each field**, checked when the dataclass is built (so before any command opens a
folder): ``minimum`` and ``maximum`` (inclusive), ``above`` (an exclusive lower bound),
``choices``; and by the annotation: an ``int`` is a whole number (not a bool, not ``3.5``), a
``float`` a finite number (no NaN, no infinity), text is never empty, a tuple holds items of
its type. A rule that ties fields together goes in the class's ``check`` method. A bad value is
one ``BoardgymError`` sentence naming the option: ``--episodes 0 must be at least 1``.

**The command line**: ``options_from_argv(Config, argv, prog)`` reads ``--game nim --episodes
500``; each text is read by its field's annotation (``registry.parse_value``: strict booleans,
finite numbers, comma lists), and a ``game_params`` field takes ``-p KEY=VALUE`` (repeatable),
read by the annotations of the game's constructor, so game parameters stay typed values from the
command line to the rules. ``positional=True`` makes a field an argument (``GAME``);
``many=True`` a space-separated list (``--agents random perfect``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import types
import typing
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from boardgym.games import parse_game_params
from boardgym.registry import check_value, parse_value
from boardgym.runs import atomic_write_text, jsonable
from boardgym.types import BoardgymError

C = TypeVar("C")
GAME_PARAMS = "game_params"  # the field that holds a game's KEY=VALUE parameters
MAX_SEED = 2**32 - 1
"""The largest seed: every generator a run seeds (numpy, torch, Python's, Stable-Baselines3's)
takes 0 .. 2**32 - 1."""

REQUIRED: Any = dataclasses.MISSING
"""The default of an option that has none: an argument, or one the command line must give."""


# -- declaring options --------------------------------------------------------------------------
def option(
    default: Any,
    help: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    above: float | None = None,
    choices: Sequence[str] | None = None,
    positional: bool = False,
    many: bool = False,
    repeat: bool = False,
    required: bool = False,
    short: str | None = None,
    metavar: str | None = None,
    hint: str = "",
) -> Any:
    """A documented option (``help`` shows in ``--help``) with its rules (see the module doc).
    ``hint`` is added to the refusal of a bad value, e.g. ``"e.g. --lr 0.001"``;
    ``required``: an option the command line must give (``--agents``); ``repeat``: a tuple
    given one ``--flag VALUE`` at a time (``--checkpoint a=x --checkpoint b=y``); ``short``: a
    one-letter spelling too (``-o``)."""
    if isinstance(default, (list, dict, set)):
        raise TypeError("use a tuple for sequence defaults: options are frozen")
    metadata = {
        "default": default,
        "help": help,
        "minimum": minimum,
        "maximum": maximum,
        "above": above,
        "choices": tuple(choices) if choices is not None else None,
        "positional": positional,
        "many": many,
        "repeat": repeat,
        "required": required,
        "short": short,
        "metavar": metavar,
        "hint": hint,
    }
    # An option without a default that is not an argument is given by keyword, so it may follow
    # fields that have one (a subclass adding ``--agents`` after its base's ``-p``).
    kw_only = default is dataclasses.MISSING and not positional
    return dataclasses.field(default=default, metadata=metadata, kw_only=kw_only)


PROGRESS_HELP = "show a progress bar (on a terminal only: never in a log file or a pipe)"


def progress_option(help: str = PROGRESS_HELP) -> Any:
    """``--progress/--no-progress``: on by default, and then shown only where stderr is a
    terminal (``progress_bar``)."""
    return option(True, help)


def progress_bar(enabled: bool = True, **settings: Any) -> Any:
    """A tqdm bar on stderr. ``enabled=False`` (``--no-progress``) turns it off, and so does a
    stderr that is not a terminal (a log file, a pipe, CI, a notebook's captured output):
    tqdm's ``disable=None``, so that no log fills with the bar's redraws."""
    from tqdm import tqdm

    settings.setdefault("file", sys.stderr)
    return tqdm(disable=None if enabled else True, **settings)


def seed_option(default: int | None = 0, help: str = "seed of every random choice") -> Any:
    """A seed: a whole number from 0 to ``MAX_SEED`` (None where the default is no seed)."""
    return option(default, help, minimum=0, maximum=MAX_SEED)


def game_params_option(help: str = "game parameter, repeatable (e.g. -p size=7, -p heaps=3,4,5 -p misere=true)") -> Any:
    """The ``game_params`` field: ``-p KEY=VALUE`` on the command line, a dict of typed values
    (``{"size": 7}``) in the options; text given in code (``"size=3 max_moves=40"``) is read the
    same way."""
    return dataclasses.field(default_factory=dict, metadata={"help": help, "game_params": True})


@dataclasses.dataclass(frozen=True)
class Options:
    """Base of every command's options: the rules declared beside the fields are checked when
    an instance is built, then ``check`` (the rules between fields)."""

    def __post_init__(self) -> None:
        validate(self)

    def check(self) -> None:
        """Rules that tie fields together; one ``BoardgymError`` sentence for the first broken."""


def validate(options: Any) -> None:
    """Check every field of ``options`` against its annotation and declared rules, then its
    ``check``; values given in code are normalised as they would be read from text (a list
    becomes a tuple, a numpy integer an ``int``, game parameters as text a dict)."""
    cls = type(options)
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(options):
        value = getattr(options, field.name)
        meta = rules_of(cls, field)
        if meta.get("game_params"):
            fixed: Any = _game_params(options, value)
        else:
            fixed = _checked(value, hints[field.name], meta, flag_of(field, meta))
        if fixed is not value:
            object.__setattr__(options, field.name, fixed)
    check = getattr(options, "check", None)
    if check is not None:
        check()


def flag_of(field: dataclasses.Field[Any], meta: typing.Mapping[str, Any] | None = None) -> str:
    """How a field is named on the command line: ``--run-name``, or ``GAME`` for an argument."""
    meta = field.metadata if meta is None else meta
    if meta.get("positional"):
        return meta.get("metavar") or field.name.upper()
    return "--" + field.name.replace("_", "-")


def rules_of(cls: type, field: dataclasses.Field[Any]) -> dict[str, Any]:
    """The help and rules of ``field`` of ``cls``: a field a subclass redeclares (to change its
    default or help) keeps the rules its bases declared, unless it declares its own."""
    merged: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        declared = getattr(base, "__dataclass_fields__", {}).get(field.name)
        if declared is None:
            continue
        for key, value in declared.metadata.items():
            unset = value is None or value is False or (isinstance(value, str) and not value)
            if not unset or key not in merged:
                merged[key] = value
    return merged


def field_named(cls: type, name: str) -> dataclasses.Field[Any]:
    return next(field for field in dataclasses.fields(cls) if field.name == name)


# -- the command line ---------------------------------------------------------------------------
def build_parser(options_cls: type, prog: str, description: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description or options_cls.__doc__)
    add_options(parser, options_cls)
    return parser


def add_options(parser: argparse.ArgumentParser, options_cls: type) -> None:
    """One argument per field of ``options_cls``, as text: ``options_from_args`` reads it. A
    value not given is ``None`` in the namespace and keeps the field's default."""
    hints = typing.get_type_hints(options_cls)
    for field in dataclasses.fields(options_cls):
        meta = rules_of(options_cls, field)
        help_text = meta.get("help", "") + _default_text(field, meta)
        if _base_type(hints[field.name]) is tuple and not (meta.get("many") or meta.get("repeat")):
            help_text += " (comma separated)"
        if meta.get("choices") and not meta.get("metavar"):
            meta["metavar"] = "{" + ",".join(meta["choices"]) + "}"
        if meta.get("game_params"):
            parser.add_argument(
                "-p",
                "--param",
                "--game-params",
                dest=field.name,
                action="append",
                default=None,
                metavar="KEY=VALUE",
                help=meta.get("help", ""),
            )
        elif meta.get("positional"):
            optional = field.default is not dataclasses.MISSING
            parser.add_argument(
                field.name,
                metavar=flag_of(field, meta),
                nargs="+" if meta.get("many") else "?" if optional else None,
                help=help_text,
            )
        elif _base_type(hints[field.name]) is bool:
            parser.add_argument(
                flag_of(field, meta),
                dest=field.name,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=help_text,
            )
        else:
            names = [meta["short"], flag_of(field, meta)] if meta.get("short") else [flag_of(field, meta)]
            parser.add_argument(
                *names,
                dest=field.name,
                default=None,
                action="append" if meta.get("repeat") else "store",
                nargs="+" if meta.get("many") else None,
                required=bool(meta.get("required")),
                metavar=meta.get("metavar") or ("SPEC" if meta.get("many") else None),
                help=help_text,
            )


def options_from_args(options_cls: type[C], args: argparse.Namespace) -> C:
    """Build ``options_cls`` from a namespace of ``add_options``: every text read by its field's
    annotation, each bad value one sentence naming its option."""
    hints = typing.get_type_hints(options_cls)
    values: dict[str, Any] = {}
    params: list[str] | None = None
    for field in dataclasses.fields(options_cls):  # type: ignore[arg-type]
        raw = getattr(args, field.name, None)
        if raw is None:
            continue
        meta = rules_of(options_cls, field)
        if meta.get("game_params"):
            params = list(raw)
        elif _base_type(hints[field.name]) is bool:
            values[field.name] = raw
        elif meta.get("many") or meta.get("repeat"):
            item = _item_type(hints[field.name])
            values[field.name] = tuple(read_option(text, item, flag_of(field, meta), meta["help"]) for text in raw)
        else:
            values[field.name] = read_option(raw, hints[field.name], flag_of(field, meta), meta["help"])
    if params is not None:
        game = values.get("game", getattr(options_cls, "game", None))
        values[GAME_PARAMS] = parse_game_params(_split_params(params), game if isinstance(game, str) else None)
    return options_cls(**values)


def options_from_argv(options_cls: type[C], argv: list[str] | None, prog: str) -> C:
    return options_from_args(options_cls, build_parser(options_cls, prog).parse_args(argv))


def read_option(text: str, annotation: Any, flag: str, help: str = "") -> Any:
    """``text`` typed at ``flag`` read as ``annotation`` (``parse_value``), or one sentence;
    empty text is refused whatever the type (``--root ''``: ``--root is empty``)."""
    if not text.strip():
        raise BoardgymError(f"{flag} is empty; give {_article(help)}")
    return parse_value(text, annotation, name=flag, joiner=" ")


# -- options as JSON (config.json) --------------------------------------------------------------
def config_to_dict(config: Any) -> dict[str, Any]:
    return {key: jsonable(value) for key, value in dataclasses.asdict(config).items()}


def config_from_dict(config_cls: type[C], values: dict[str, Any], source: str = "config") -> C:
    """Rebuild options from JSON values, refusing unknown keys with the known ones."""
    names = {f.name for f in dataclasses.fields(config_cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - names)
    if unknown:
        raise BoardgymError(
            f"{source}: unknown config key(s) {', '.join(unknown)}; known keys: {', '.join(sorted(names))}"
        )
    return config_cls(**{key: _from_json(value) for key, value in values.items()})


def write_config(path: Path | str, config: Any, **extra: Any) -> None:
    atomic_write_text(path, json.dumps({**config_to_dict(config), **extra}, indent=2) + "\n")


# -- inside ------------------------------------------------------------------------------------
def _checked(value: Any, annotation: Any, meta: typing.Mapping[str, Any], flag: str) -> Any:
    if value is None and _admits_none(annotation):
        return value
    value = check_value(value, annotation, name=flag, joiner=" ")
    items = value if isinstance(value, tuple) else (value,)
    if not items and meta.get("default") != ():
        raise BoardgymError(f"{flag} is empty; give {_article(meta.get('help', ''))}")
    for item in items:
        _check_item(item, meta, flag, value)
    return value


def _check_item(item: Any, meta: typing.Mapping[str, Any], flag: str, whole: Any) -> None:
    hint = f"; {meta['hint']}" if meta.get("hint") else ""
    if isinstance(item, str) and not item.strip():
        raise BoardgymError(f"{flag} is empty; give {_article(meta.get('help', 'a value'))}{hint}")
    choices = meta.get("choices")
    if choices is not None and item not in choices:
        raise BoardgymError(f"unknown {flag} {item!r}; choose one of: {', '.join(choices)}{hint}")
    if isinstance(item, (int, float)) and not isinstance(item, bool):
        low, high, above = meta.get("minimum"), meta.get("maximum"), meta.get("above")
        broken = (
            (low is not None and item < low)
            or (high is not None and item > high)
            or (above is not None and not item > above)
        )
        if broken:
            raise BoardgymError(f"{flag} {_shown(whole)} must be {_range_text(item, low, high, above)}{hint}")


def _range_text(item: float, low: float | None, high: float | None, above: float | None) -> str:
    whole = isinstance(item, int)
    if low is not None and high is not None:
        return f"{'a whole number' if whole else 'a number'} from {_num(low)} to {_num(high)}"
    if above is not None and high is not None:
        return f"above {_num(above)} and at most {_num(high)}"
    if above is not None:
        return f"above {_num(above)}"
    if low is not None:
        return f"at least {_num(low)}"
    return f"at most {_num(high)}"


def _num(value: float | None) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return repr(value) if isinstance(value, str) else str(value)


def _article(help_text: str) -> str:
    """What to give, from the help text's first clause: ``give a value (the runs root ...)``."""
    clause = help_text.split("; ")[0].strip()
    return f"a value ({clause})" if clause else "a value"


def _game_params(options: Any, value: Any) -> dict[str, Any]:
    game = getattr(options, "game", None)
    game = game if isinstance(game, str) else None
    if isinstance(value, str):
        return parse_game_params(_split_params([value]), game)
    if isinstance(value, dict):
        return value
    raise BoardgymError(f"game parameters {value!r} must be KEY=VALUE text or a dict, e.g. {{'size': 7}}")


_NEXT_PARAM = re.compile(r"[;\s]+(?=[A-Za-z_][A-Za-z0-9_]*\s*=)")


def _split_params(items: Iterable[str]) -> list[str]:
    """``["size=3 max_moves=40", "heaps=3, 4, 5", "sets=0 1;2"]`` -> one item per ``KEY=VALUE``:
    a new item starts where the next ``KEY=`` does (after spaces or ``;``), so a value may hold
    spaces and semicolons of its own."""
    parts = (part.strip().rstrip(";").strip() for item in items for part in _NEXT_PARAM.split(item))
    return [part for part in parts if part]


def _default_text(field: dataclasses.Field[Any], meta: typing.Mapping[str, Any]) -> str:
    """`` (default: VALUE)`` for the help, unless the help says its default itself (a default
    computed when the command runs: ``(default: s<seed>-<date>-<time>)``) or there is none to say."""
    default = field.default
    if default is dataclasses.MISSING or default is None or meta.get("required"):
        return ""
    if "(default" in meta.get("help", ""):
        return ""
    if isinstance(default, bool):
        return ""
    if isinstance(default, tuple):
        return f" (default: {','.join(map(str, default))})" if default else ""
    return f" (default: {default})"


def _admits_none(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in typing.get_args(
        annotation
    )


def _item_type(annotation: Any) -> Any:
    """The item type of ``tuple[X, ...]`` (or of ``tuple[X, ...] | None``)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
    return args[0] if args else str


def _from_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_from_json(v) for v in value)
    return value


def _base_type(annotation: Any) -> type:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _base_type(options[0])
    if origin is tuple or annotation is tuple:
        return tuple
    return annotation if isinstance(annotation, type) else str


__all__ = [
    "GAME_PARAMS",
    "MAX_SEED",
    "REQUIRED",
    "Options",
    "add_options",
    "build_parser",
    "config_from_dict",
    "config_to_dict",
    "game_params_option",
    "option",
    "options_from_args",
    "options_from_argv",
    "read_option",
    "seed_option",
    "validate",
    "write_config",
]
