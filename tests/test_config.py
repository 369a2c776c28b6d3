"""Options on the command line: one option per field with its rules beside it, checked when the
options are built; JSON round trips; -p for game parameters, typed by the game's constructor."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from boardgym import BoardgymError, make_game
from boardgym.config import (
    REQUIRED,
    Options,
    build_parser,
    config_from_dict,
    config_to_dict,
    game_params_option,
    option,
    options_from_argv,
    seed_option,
)


@dataclass(frozen=True)
class ToyConfig(Options):
    game: str = option("tictactoe", "game to train on")
    episodes: int = option(10, "episodes", minimum=1)
    lr: float = option(0.1, "learning rate", above=0, maximum=1)
    resume: bool = option(False, "resume")
    heaps: tuple[int, ...] = option((1, 3), "heap sizes", minimum=1)
    run_name: str | None = option(None, "run folder name")
    backend: str = option("local", "where", choices=("local", "ray"))
    seed: int = seed_option(0)


def test_options_from_argv() -> None:
    argv = ["--episodes", "5", "--lr", "0.5", "--resume", "--heaps", "3,4,5", "--backend", "ray"]
    config = options_from_argv(ToyConfig, argv, "toy")
    assert config == ToyConfig(episodes=5, lr=0.5, resume=True, heaps=(3, 4, 5), backend="ray")
    assert options_from_argv(ToyConfig, [], "toy") == ToyConfig()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--episodes", "0"], "--episodes 0 must be at least 1"),
        (["--episodes", "x"], "--episodes 'x' must be an integer"),
        (["--episodes", "2.5"], "--episodes '2.5' must be an integer"),
        (["--episodes", ""], "--episodes is empty"),
        (["--lr", "nan"], "--lr 'nan' must be a finite number"),
        (["--lr", "inf"], "--lr 'inf' must be a finite number"),
        (["--lr", "0"], "--lr 0.0 must be above 0 and at most 1"),
        (["--lr", "2"], "--lr 2.0 must be above 0 and at most 1"),
        (["--heaps", "3,0"], "--heaps 3,0 must be at least 1"),
        (["--heaps", ""], "--heaps is empty"),
        (["--heaps", ","], "--heaps ',' must be a comma-separated list of integers"),
        (["--run-name", " "], "--run-name is empty"),
        (["--backend", "spark"], "unknown --backend 'spark'; choose one of: local, ray"),
        (["--seed", "-1"], "--seed -1 must be a whole number from 0 to 4294967295"),
        (["--seed", str(2**32)], "--seed 4294967296 must be a whole number from 0 to 4294967295"),
    ],
)
def test_a_bad_value_is_one_sentence_naming_its_option(argv: list[str], message: str) -> None:
    with pytest.raises(BoardgymError) as error:
        options_from_argv(ToyConfig, argv, "toy")
    assert message in str(error.value) and "\n" not in str(error.value)


def test_values_given_in_code_are_checked_too() -> None:
    with pytest.raises(BoardgymError, match="--episodes 3.5 must be an integer"):
        ToyConfig(episodes=3.5)  # type: ignore[arg-type]
    with pytest.raises(BoardgymError, match="--lr nan must be a finite number"):
        ToyConfig(lr=float("nan"))
    with pytest.raises(BoardgymError, match="--heaps is empty"):
        ToyConfig(heaps=())
    assert ToyConfig(heaps=[2, 3]).heaps == (2, 3)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Redeclared(ToyConfig):
    episodes: int = option(1_000, "more episodes by default")


def test_a_redeclared_field_keeps_the_rules_of_its_base() -> None:
    assert Redeclared().episodes == 1_000
    with pytest.raises(BoardgymError, match="--episodes 0 must be at least 1"):
        Redeclared(episodes=0)


@dataclass(frozen=True)
class Crossed(Options):
    low: int = option(1, "low")
    high: int = option(2, "high")

    def check(self) -> None:
        if self.low > self.high:
            raise BoardgymError(f"--low {self.low} must not be above --high {self.high}")


def test_rules_between_fields_are_the_check_method() -> None:
    with pytest.raises(BoardgymError, match="--low 3 must not be above --high 2"):
        options_from_argv(Crossed, ["--low", "3"], "toy")


@dataclass(frozen=True)
class Command(Options):
    game: str = option(REQUIRED, "the game", positional=True, metavar="GAME")
    game_params: dict[str, Any] = game_params_option()
    agents: tuple[str, ...] = option(REQUIRED, "agent specs", many=True, required=True)
    output: Path | None = option(None, "the file", short="-o")
    checkpoint: tuple[str, ...] = option((), "NAME=PATH", repeat=True)


def test_arguments_lists_repeats_and_short_flags() -> None:
    argv = ["quixo", "-p", "size=3", "--agents", "random", "perfect", "-o", "x.svg", "--checkpoint", "a=1"]
    command = options_from_argv(Command, argv, "toy")
    assert command.game == "quixo" and command.game_params == {"size": 3}
    assert command.agents == ("random", "perfect") and command.output == Path("x.svg")
    assert command.checkpoint == ("a=1",)
    with pytest.raises(SystemExit):  # argparse: --agents is required
        options_from_argv(Command, ["quixo"], "toy")


def test_config_round_trips_through_json_values() -> None:
    config = ToyConfig(heaps=(2, 2))
    assert config_from_dict(ToyConfig, config_to_dict(config)) == config
    with pytest.raises(BoardgymError, match="unknown config key.*epochs"):
        config_from_dict(ToyConfig, {"epochs": 3}, source="config.json")


@dataclass(frozen=True)
class GameConfig(Options):
    game: str = option("quixo", "game")
    game_params: dict[str, Any] = game_params_option()


def test_game_params_are_typed_by_the_games_constructor() -> None:
    assert options_from_argv(GameConfig, ["-p", "size=3", "-p", "max_moves=40"], "toy").game_params == {
        "size": 3,
        "max_moves": 40,
    }
    assert options_from_argv(GameConfig, ["--game-params", "size=3 max_moves=40"], "toy").game_params == {
        "size": 3,
        "max_moves": 40,
    }
    nim = options_from_argv(GameConfig, ["--game", "nim", "-p", "heaps=3, 4, 5", "-p", "misere=true"], "toy")
    assert nim.game_params["misere"] is True  # heaps admits text: the rules read "3, 4, 5" themselves
    assert make_game("nim", **nim.game_params).heaps == (3, 4, 5)
    assert options_from_argv(GameConfig, [], "toy").game_params == {}
    assert GameConfig(game_params="size=3;max_moves=40").game_params == {"size": 3, "max_moves": 40}  # type: ignore[arg-type]
    with pytest.raises(BoardgymError, match="size='x' must be an integer"):
        options_from_argv(GameConfig, ["-p", "size=x"], "toy")
    with pytest.raises(BoardgymError, match="-p gives 'size' twice"):
        options_from_argv(GameConfig, ["-p", "size=3", "-p", "size=4"], "toy")
    with pytest.raises(BoardgymError, match="cannot read 'size' in -p; write KEY=VALUE"):
        options_from_argv(GameConfig, ["-p", "size"], "toy")


def test_every_option_says_its_default_once() -> None:
    """A help that states its default itself gets no second one, on any command."""
    import re

    from boardgym.cli import command_options

    @dataclass(frozen=True)
    class Stated(Options):
        name: str = option("auto", "run folder name (default: s<seed>-<date>-<time>)")
        count: int = option(3, "games", minimum=1)

    text = " ".join(build_parser(Stated, "stated").format_help().split())
    assert "(default: s<seed>-<date>-<time>) (default" not in text and "games (default: 3)" in text
    for words, options in command_options():
        for action in build_parser(options, " ".join(words))._actions:
            said = re.findall(r"\(default", action.help or "")
            assert len(said) <= 1 and "(default: None)" not in (action.help or ""), (words, action.dest)
