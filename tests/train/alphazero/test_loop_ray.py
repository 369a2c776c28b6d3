"""AlphaZero with self-play on Ray (``--backend ray --actors N``): the same loop as the local
trainer, so the same files, TensorBoard tags, checkpoints and --resume; with the local
``--workers N`` seeds, the same network; and (slow) Tic-Tac-Toe learned to perfect play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from boardgym import make_game
from boardgym.agents.alphazero.agent import AlphaZeroAgent
from boardgym.checkpoints import load_checkpoint
from boardgym.evaluate.match import play_games
from boardgym.train.alphazero import Config, main, train
from boardgym.types import BoardgymError

TINY = dict(
    iterations=1,
    games_per_iteration=4,
    parallel_games=4,
    simulations=4,
    blocks=1,
    channels=8,
    value_hidden=8,
    buffer_size=500,
    batch_size=16,
    train_steps=2,
    eval_every=1,
    eval_games=2,
    eval_simulations=2,
    eval_opponents="random",
    device="cpu",
    progress=False,
)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def tags(folder: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder))
    events.Reload()
    return set(events.Tags()["scalars"])


def test_a_ray_run_writes_the_files_and_tags_of_a_local_one_and_resumes(ray_local, in_tmp: Path) -> None:
    local = train(Config(**TINY, run_name="local"))
    on_ray = train(Config(**TINY, run_name="ray", backend="ray", actors=2))
    names = sorted(p.name for p in on_ray.parent.iterdir() if not p.name.startswith("events."))
    assert names == sorted(p.name for p in local.parent.iterdir() if not p.name.startswith("events."))
    assert tags(on_ray.parent) == tags(local.parent)
    assert "perf/selfplay_positions_per_s" in tags(on_ray.parent)
    settings = json.loads((on_ray.parent / "config.json").read_text())
    assert (settings["backend"], settings["actors"], settings["address"]) == ("ray", 2, None)
    assert set(load_checkpoint(on_ray)) == set(load_checkpoint(local))
    resumed = train(Config(**{**TINY, "iterations": 2}, run_name="ray", backend="ray", actors=2, resume=True))
    assert load_checkpoint(resumed)["step"] == 2
    assert torch.load(resumed.parent / "replay-2.pt", weights_only=True)["step"] == 2
    game = make_game("tictactoe")
    assert play_games(game, AlphaZeroAgent(game, checkpoint=resumed, simulations=4), "random", 2, seed=0).games == 2


def test_one_batched_ray_actor_plays_the_iteration_and_resumes(ray_local, in_tmp: Path) -> None:
    """``--backend ray --actors 1 --search batched``: the actor runs the batched search over all
    the iteration's games; the run folder, tags and --resume are the local run's."""
    batched = {**TINY, "search": "batched"}
    on_ray = train(Config(**batched, run_name="ray-batched", backend="ray", actors=1))
    assert "perf/network_batch" in tags(on_ray.parent)
    assert json.loads((on_ray.parent / "config.json").read_text())["search"] == "batched"
    resumed = train(
        Config(**{**batched, "iterations": 2}, run_name="ray-batched", backend="ray", actors=1, resume=True)
    )
    assert load_checkpoint(resumed)["step"] == 2


def test_the_command_line_takes_backend_actors_and_address(ray_local, in_tmp: Path, capsys) -> None:
    argv = ["--run-name", "cli", "--backend", "ray", "--actors", "1"]
    for key, value in TINY.items():
        if key == "progress":
            continue
        argv += [f"--{key.replace('_', '-')}", str(value)]
    assert main([*argv, "--no-progress"]) == 0
    assert "runs/tictactoe/alphazero/cli/final.pt" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option in ("--backend", "--actors", "--address", "docs/cluster.md"):
        assert option in text


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"backend": "spark"}, "unknown --backend 'spark'; choose one of: local, ray"),
        ({"backend": "ray", "actors": 0}, "--actors 0 must be at least 1"),
        ({"backend": "ray", "address": ""}, "--address is empty; give a value (with --backend ray"),
        ({"backend": "ray", "address": "head:port"}, "--address 'head:port' is not a Ray address"),
        ({"address": "auto"}, "--address 'auto' is for --backend ray"),
    ],
)
def test_backend_mistakes_are_one_sentence(in_tmp: Path, changes: dict, message: str) -> None:
    with pytest.raises(BoardgymError, match=message.replace("(", r"\(")):
        train(Config(**TINY, run_name="bad", **changes))


@pytest.mark.slow
def test_ray_actors_train_the_same_network_as_local_worker_processes(ray_local, in_tmp: Path) -> None:
    """Same split, same seed words, same merge: two actors and ``--workers 2`` give one network."""
    local = load_checkpoint(train(Config(**TINY, run_name="w2", workers=2)))
    on_ray = load_checkpoint(train(Config(**TINY, run_name="a2", backend="ray", actors=2)))
    for name, tensor in local["state_dict"].items():
        assert torch.equal(tensor, on_ray["state_dict"][name]), name


@pytest.mark.slow
def test_two_ray_actors_train_tictactoe_to_perfect_play(ray_local, in_tmp: Path) -> None:
    """Acceptance, as the local trainer's: no loss against `perfect` in 200 games."""
    path = train(Config(run_name="perfect", device="cpu", eval_every=0, backend="ray", actors=2, progress=False))
    game = make_game("tictactoe")
    agent = AlphaZeroAgent(game, checkpoint=path, seed=0)
    summary = play_games(game, agent, "perfect", 200, seed=1)
    assert summary.losses == 0, str(summary)
