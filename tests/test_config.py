"""Configs on the command line: one option per field, JSON round trips, -p for game parameters."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from boardgym import BoardgymError
from boardgym.config import config_from_argv, config_from_dict, config_to_dict, option


@dataclass(frozen=True)
class ToyConfig:
    game: str = option("tictactoe", "game to train on")
    episodes: int = option(10, "episodes")
    lr: float = option(0.1, "learning rate")
    resume: bool = option(False, "resume")
    heaps: tuple[int, ...] = option((1, 3), "heap sizes")
    run_name: str | None = option(None, "run folder name")


def test_config_from_argv() -> None:
    config = config_from_argv(ToyConfig, ["--episodes", "5", "--lr", "0.5", "--resume", "--heaps", "3,4,5"], "toy")
    assert config == ToyConfig(episodes=5, lr=0.5, resume=True, heaps=(3, 4, 5))
    assert config_from_argv(ToyConfig, [], "toy") == ToyConfig()


def test_config_round_trips_through_json_values() -> None:
    config = ToyConfig(heaps=(2, 2))
    assert config_from_dict(ToyConfig, config_to_dict(config)) == config
    with pytest.raises(BoardgymError, match="unknown config key.*epochs"):
        config_from_dict(ToyConfig, {"epochs": 3}, source="config.json")


@dataclass(frozen=True)
class GameConfig:
    game: str = option("quixo", "game")
    game_params: str = option("", "game parameters, space separated KEY=VALUE")


def test_game_params_take_the_same_p_option_as_play_and_evaluate() -> None:
    assert (
        config_from_argv(GameConfig, ["-p", "size=3", "-p", "max_moves=40"], "toy").game_params == "size=3 max_moves=40"
    )
    assert (
        config_from_argv(GameConfig, ["--game-params", "size=3 max_moves=40"], "toy").game_params
        == "size=3 max_moves=40"
    )
    assert config_from_argv(GameConfig, [], "toy").game_params == ""
