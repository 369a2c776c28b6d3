"""Every option of every command refuses a bad value (wrong type, out of range, NaN, empty, an
unknown choice) with one sentence naming the option, before the command does anything: the
values below are typed on the command line of each command that ``command_options`` lists
(the CLI's own commands and every entry of ``train``, ``bench`` and ``solve``), and the test
fails if the options holding a bad value are ever built."""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from pathlib import Path
from typing import Any

import pytest

import boardgym.config as config
from boardgym.cli import command_options, main
from boardgym.config import REQUIRED, flag_of, rules_of

VALID: dict[str, list[str]] = {
    "game": ["tictactoe"],
    "agents": ["random", "random"],
    "agent": ["random"],
    "agent_a": ["random"],
    "agent_b": ["random"],
    "output": ["board.svg"],
    "file": ["game.json"],
}
"""A good value of each option a command cannot run without."""

AGENT_OPTIONS = {"agents", "agent", "agent_a", "agent_b", "opponent"}


class Accepted(Exception):
    """The options were built: every value passed its checks."""


def base_argv(words: list[str], options: type) -> list[str]:
    """The command with a good value for each option it cannot run without."""
    argv = list(words)
    for field in dataclasses.fields(options):
        if field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING:
            continue
        meta = rules_of(options, field)
        argv += VALID[field.name] if meta.get("positional") else [flag_of(field, meta), *VALID[field.name]]
    return argv


def bad_values(options: type, field: dataclasses.Field[Any]) -> list[str]:
    """Values no option of this field's type and rules may take."""
    meta = rules_of(options, field)
    annotation = typing.get_type_hints(options)[field.name]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):  # X | None: X's values
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    base = annotation
    if typing.get_origin(base) is tuple:
        item = typing.get_args(base)[0]
        values = [""]
        if item in (int, float):
            values.append("one,two")
        values += _out_of_range(meta, item)
    elif base is int:
        values = ["", "abc", "1.5", *_out_of_range(meta, int)]
    elif base is float:
        values = ["", "abc", "nan", "inf", "-inf", *_out_of_range(meta, float)]
    else:  # text, a path, or text or a number
        values = ["", "   "]
    if meta.get("choices"):
        values.append("no-such-choice")
    if field.name in AGENT_OPTIONS:
        values += ["no_such_agent", "random:depth=2"]
    return values


def _out_of_range(meta: typing.Mapping[str, Any], kind: type) -> list[str]:
    values = []
    step = 1 if kind is int else 0.5
    if meta.get("minimum") is not None:
        values.append(str(kind(meta["minimum"] - step)))
    if meta.get("above") is not None:
        values.append(str(kind(meta["above"])))
    if meta.get("maximum") is not None and math.isfinite(meta["maximum"]):
        values.append(str(kind(meta["maximum"] + step)))
    return values


CASES = [
    pytest.param(words, options, field, value, id=f"{' '.join(words)} {flag_of(field)} {value!r}")
    for words, options in command_options()
    for field in dataclasses.fields(options)
    if not rules_of(options, field).get("game_params") and typing.get_type_hints(options)[field.name] is not bool
    for value in bad_values(options, field)
]


@pytest.fixture()
def refusing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Options that pass their checks raise ``Accepted`` instead of running their command, in
    an empty folder that must stay empty."""
    check = config.validate

    def validate(options: Any) -> None:
        check(options)
        raise Accepted(type(options).__name__)

    monkeypatch.setattr(config, "validate", validate)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_command_lists_its_options_and_a_good_command_line_is_accepted(refusing: Path) -> None:
    commands = {" ".join(words) for words, _ in command_options()}
    assert {"evaluate", "grade", "ladder", "serve", "play", "render", "replay", "list"} <= commands
    assert {"train alphazero", "bench envs", "bench search", "solve setcover", "solve blackbox"} <= commands
    for words, options in command_options():
        if words == ["ladder"]:
            continue  # tictactoe has a ladder, but the base command line is the same as grade's
        with pytest.raises(Accepted):
            main(base_argv(words, options))
    assert list(refusing.iterdir()) == []


@pytest.mark.parametrize(("words", "options", "field", "value"), CASES)
def test_a_bad_value_is_one_sentence_naming_its_option(
    words: list[str], options: type, field: dataclasses.Field[Any], value: str, refusing: Path, capsys
) -> None:
    meta = rules_of(options, field)
    argv = base_argv(words, options)
    flag = flag_of(field, meta)
    if meta.get("positional") and field.name not in VALID:  # an argument that may be left out
        argv.append(value)
    elif meta.get("positional"):
        position = argv.index(VALID[field.name][0])
        argv[position : position + len(VALID[field.name])] = [value]
    elif field.default is REQUIRED:
        position = argv.index(flag)
        argv[position + 1 : position + 1 + len(VALID[field.name])] = [value]
    else:
        argv += [flag, value]
    try:
        status = main(argv)
    except Accepted:
        pytest.fail(f"`boardgym {' '.join(argv)}` was accepted")
    except SystemExit as exit_info:  # argparse: an option's value that looks like an option
        assert exit_info.code == 2 and value.startswith("-")
        return
    error = capsys.readouterr().err
    assert status == 2, error
    lines = error.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in error, error
    named = (flag, field.name.replace("_", " "), field.name, "spec", "agent")
    assert any(name in lines[0] for name in named), lines[0]
    assert list(refusing.iterdir()) == []
