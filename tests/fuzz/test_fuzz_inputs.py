"""Fuzzed text a user types: agent specs, game parameters (``make_game`` and ``-p``) and whole
command lines (``boardgym.cli.main`` in process). Each either works or is refused in one
sentence (a ``BoardgymError``, or argparse's one line and exit status 2); never another
exception, a traceback or a hang; and a NaN, an infinity, a float where an integer belongs or
a word that is no boolean is never taken."""

from __future__ import annotations

import builtins
import inspect
import math
import typing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardgym.agents.registry import AGENTS, agent_class, make_agent, spec_parameters
from boardgym.cli import main
from boardgym.games import GAMES, game_class, make_game, parse_game_params
from boardgym.types import BoardgymError

FAST = settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
CLI = settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
HEAVY = settings(max_examples=3000, deadline=None, database=None, suppress_health_check=list(HealthCheck))

WORDS = ["0", "1", "-1", "2", "3", "7", "1e9", "99999999999999999999", "0.5", "-0.0", "nan", "NaN", "inf", "-inf"]
WORDS += ["true", "false", "yes", "no", "on", "off", "maybe", "", " ", "none", "None", "x", "1,2", "3,4,5", "1/2"]
WORDS += ["0/-1/1/0", "random", "../x", "/dev/null", "a=b", "Ω", "9" * 40, "0x10", "1_000", "  5  "]
GAME_NAMES = list(GAMES)
NOT_FINITE = {"nan", "inf", "-inf"}


def words() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(WORDS), st.text(max_size=6))


# -- agent specs ---------------------------------------------------------------------------------
@st.composite
def specs(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(st.sampled_from([n for n in AGENTS if n != "human"] + ["", "nope", "MCTS"]))
    keys = list(spec_parameters(agent_class(name))) if name in AGENTS else []
    pairs = draw(
        st.lists(st.tuples(st.sampled_from([*keys, "x", "seed", ""] if keys else ["x", ""]), words()), max_size=3)
    )
    text = name + (":" + ",".join(f"{k}={v}" for k, v in pairs) if pairs else "")
    return draw(st.sampled_from(GAME_NAMES)), text


def check_spec(game_name: str, spec: str) -> None:
    game = make_game(game_name, **({"size": 5} if game_name == "hex" else {}))
    try:
        make_agent(spec, game, seed=0)
    except BoardgymError as error:
        assert "\n" not in str(error)
        return
    _, _, rest = spec.partition(":")
    for item in filter(None, rest.split(",")):
        value = item.partition("=")[2].strip().lower()
        assert value not in NOT_FINITE, f"{spec!r} took {value}"


@FAST
@given(case=specs())
def test_agent_specs(case: tuple[str, str]) -> None:
    check_spec(*case)


@pytest.mark.slow
@HEAVY
@given(case=specs())
def test_agent_specs_heavy(case: tuple[str, str]) -> None:
    check_spec(*case)


# -- game parameters -------------------------------------------------------------------------------
VALUES: list[Any] = [0, 1, -1, 3, 5, 7, 2.5, 3.0, float("nan"), float("inf"), True, False, None, "3", "true", "no"]
VALUES += ["maybe", "1,2", (1, 2), [3, 4, 5], (1.5,), (True,), np.int64(4), np.float64(0.3), np.bool_(True), 10**9]
VALUES += [(), "0 1;1 2", [[0, 1], [1, 2]], [[0.5]], "1e9", -(10**20), 10**5, (10**4,), object()]


@st.composite
def game_params(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(GAME_NAMES))
    keys = list(inspect.signature(game_class(name).__init__).parameters)[1:]
    params = draw(st.dictionaries(st.sampled_from([*keys, "bogus"]), st.sampled_from(VALUES), max_size=3))
    return name, params


def check_game(name: str, params: dict[str, Any]) -> None:
    try:
        game = make_game(name, **params)
    except BoardgymError as error:
        assert "\n" not in str(error)
        return
    hints = typing.get_type_hints(game_class(name).__init__)
    for key, value in params.items():  # what was built took nothing of the wrong type
        if isinstance(value, float) and not math.isfinite(value):
            pytest.fail(f"{name} took {key}={value}")
        if hints.get(key) is bool:
            assert isinstance(value, (bool, np.bool_)) or str(value).lower() in (
                "true",
                "false",
                "yes",
                "no",
                "0",
                "1",
            ), (key, value)
        if hints.get(key) is int:
            assert not isinstance(value, float), (key, value)
    state = game.initial_state()
    assert game.legal_actions(state) or game.is_terminal(state)


@FAST
@given(case=game_params())
def test_make_game(case: tuple[str, dict[str, Any]]) -> None:
    check_game(*case)


@FAST
@given(
    name=st.sampled_from(GAME_NAMES),
    items=st.lists(
        st.builds(
            "{}={}".format,
            st.sampled_from(
                [
                    "size",
                    "heaps",
                    "misere",
                    "k",
                    "swap",
                    "max_moves",
                    "density",
                    "seed",
                    "sets",
                    "problem_size",
                    "num_sets",
                    "instance",
                    "genome_length",
                    "x",
                ]
            ),
            words(),
        ),
        max_size=3,
    ),
)
def test_command_line_game_parameters(name: str, items: list[str]) -> None:
    try:
        params = parse_game_params(items, name)
        make_game(name, **params)
    except BoardgymError as error:
        assert "\n" not in str(error)
        return
    assert not any(item.partition("=")[2].strip().lower() in NOT_FINITE for item in items), items


@pytest.mark.slow
@HEAVY
@given(case=game_params())
def test_make_game_heavy(case: tuple[str, dict[str, Any]]) -> None:
    check_game(*case)


# -- whole command lines ----------------------------------------------------------------------------
BASES = {
    "list": [],
    "play": ["GAME"],
    "render": ["GAME", "-o", "OUT.svg"],
    "replay": ["OUT.json"],
    "evaluate": ["GAME", "--agents", "random", "random", "--games", "1", "--workers", "1", "--no-plots"],
    "train": ["qlearning", "--root", "ROOT", "--episodes", "3", "--eval-games", "1", "--no-progress"],
    "solve": ["setcover", "--problem-size", "6", "--num-sets", "8", "--max-nodes", "200", "--time-limit", "2"],
}
FLAGS = ["--seed", "-p", "--param", "--opponent", "--seat", "--moves", "--scale", "--game", "--run-name", "--resume"]
FLAGS += ["--agents", "--games", "--gauntlet", "--backend", "--save-games", "--episodes", "--alpha", "--root", "--help"]
FLAGS += ["--eval-every", "--opponent", "--sets", "--density", "--no-progress", "--bogus", "-x", "--"]


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(list(BASES)))
    game = draw(st.sampled_from([*GAME_NAMES, "chess"]))
    argv = [command, *(game if part == "GAME" else part for part in BASES[command])]
    extra = draw(st.lists(st.one_of(st.sampled_from(FLAGS), words(), st.sampled_from(GAME_NAMES)), max_size=5))
    if command == "train" and "--episodes" in extra:
        extra.remove("--episodes")
    return argv + [word for word in extra if word != "--help" or command != "solve"]


def run_cli(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    argv = [word.replace("ROOT", str(tmp / "runs")).replace("OUT", str(tmp / "out")) for word in argv]

    def closed(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr(builtins, "input", closed)
    monkeypatch.chdir(tmp)
    try:
        code = main(argv)
    except SystemExit as exit_info:
        code = exit_info.code
    assert code in (0, 2, None), (argv, code)
    err = capsys.readouterr().err
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        errors = [line for line in err.splitlines() if "error:" in line]
        assert len(errors) == 1, (argv, err)


@CLI
@given(argv=command_lines())
def test_command_lines(argv: list[str], tmp_path_factory: pytest.TempPathFactory, capsys, monkeypatch) -> None:
    with monkeypatch.context() as patch:
        run_cli(argv, tmp_path_factory.mktemp("cli"), capsys, patch)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(argv=command_lines())
def test_command_lines_heavy(argv: list[str], tmp_path_factory: pytest.TempPathFactory, capsys, monkeypatch) -> None:
    with monkeypatch.context() as patch:
        run_cli(argv, tmp_path_factory.mktemp("cli"), capsys, patch)
