"""Shared training plumbing: configs on the command line, atomic writes, safe checkpoints."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch

from boardgym import BoardgymError
from boardgym.config import config_from_argv, config_from_dict, config_to_dict, option
from boardgym.runs import atomic_write_text, load_checkpoint, run_dir, save_checkpoint


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


def test_run_dir_layout(tmp_path) -> None:
    path = run_dir("nim", "qlearning", "first", root=tmp_path)
    assert path == tmp_path / "nim" / "qlearning" / "first" and path.is_dir()


def test_atomic_write_leaves_no_temporary_files(tmp_path) -> None:
    target = tmp_path / "config.json"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


def test_checkpoint_round_trip(tmp_path) -> None:
    path = save_checkpoint(tmp_path / "final.pt", {"weights": torch.arange(3), "config": {"episodes": 3}})
    payload = load_checkpoint(path)
    assert payload["config"] == {"episodes": 3} and payload["weights"].tolist() == [0, 1, 2]


def test_missing_and_corrupt_checkpoints_get_one_clear_error(tmp_path) -> None:
    with pytest.raises(BoardgymError, match="does not exist"):
        load_checkpoint(tmp_path / "nope.pt")
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a checkpoint")
    with pytest.raises(BoardgymError, match="corrupt"):
        load_checkpoint(corrupt)


def test_checkpoints_with_arbitrary_objects_are_refused(tmp_path) -> None:
    path = tmp_path / "evil.pt"
    torch.save({"object": ToyConfig()}, path)
    with pytest.raises(BoardgymError, match="cannot be read"):
        load_checkpoint(path)


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
