"""What every training method promises, checked for each one in ``METHODS`` with a tiny budget:
a run writes config.json, TensorBoard events, checkpoint.pt and final.pt; final.pt is an agent
that ``make_agent`` loads and that plays a legal move; ``--resume`` goes on past the first run;
an existing run is never overwritten; and a second process on the same folder is refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from boardgym import make_agent, make_game
from boardgym.registry import load
from boardgym.runs import RunLock
from boardgym.train import METHODS

# Per method: the game (name, params), the tiny options, and the option whose larger value
# gives --resume more to do.
TINY: dict[str, tuple[str, dict, list[str], tuple[str, int, int]]] = {
    "qlearning": (
        "tictactoe",
        {},
        ["--eval-every", "100", "--eval-games", "4", "--checkpoint-every", "100"],
        ("--episodes", 200, 300),
    ),
    "montecarlo": (
        "nim",
        {"heaps": (2, 3)},
        ["-p", "heaps=2,3", "--eval-every", "100", "--eval-games", "4", "--checkpoint-every", "100"],
        ("--episodes", 200, 300),
    ),
    "ppo": (
        "tictactoe",
        {},
        [
            *("--n-envs", "2", "--n-steps", "32", "--batch-size", "32", "--n-epochs", "1", "--net-arch", "8"),
            *("--eval-every", "64", "--checkpoint-every", "64", "--eval-games", "2"),
        ],
        ("--timesteps", 64, 128),
    ),
    "es": (
        "nim",
        {},
        ["--mu", "2", "--offspring", "4", "--games", "2", "--eval-every", "1", "--eval-games", "4"],
        ("--generations", 1, 2),
    ),
    "coevolve": (
        "rastros",
        {},
        ["--population", "2", "--depths", "1", "--pairs", "1", "--eval-every", "1", "--eval-games", "2"],
        ("--generations", 1, 2),
    ),
    "neat": (
        "quixo",
        {"size": 3},
        [
            *("-p", "size=3", "--population", "4", "--games-random", "1", "--games-minimax", "1"),
            *("--games-peers", "0", "--playoff-size", "2", "--playoff-games", "1", "--eval-every", "1"),
            *("--eval-games", "2"),
        ],
        ("--generations", 1, 2),
    ),
    "alphazero": (
        "tictactoe",
        {},
        [
            *("--games-per-iteration", "2", "--parallel-games", "2", "--simulations", "2", "--blocks", "1"),
            *("--channels", "4", "--value-hidden", "4", "--buffer-size", "200", "--batch-size", "8"),
            *("--train-steps", "1", "--eval-every", "1", "--eval-games", "2", "--eval-simulations", "2"),
            *("--eval-opponents", "random", "--device", "cpu", "--threads", "1"),
        ],
        ("--iterations", 1, 2),
    ),
}


def test_every_method_has_a_contract_case() -> None:
    assert set(TINY) == set(METHODS)


@pytest.fixture(params=sorted(METHODS))
def method(request: pytest.FixtureRequest) -> str:
    return request.param


def _argv(method: str, root: Path, budget: int, *extra: str) -> list[str]:
    name, _, options, (flag, _, _) = TINY[method]
    return [
        "--game",
        name,
        *options,
        flag,
        str(budget),
        "--root",
        str(root),
        "--run-name",
        "c",
        "--no-progress",
        *extra,
    ]


def _step(path: Path) -> int:
    return int(torch.load(path, weights_only=True)["step"])


def test_training_run_contract(
    method: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], hparams_table: Callable[[Path], Any]
) -> None:
    name, params, _, (_, first, second) = TINY[method]
    main = load(METHODS[method].target)
    prog = f"boardgym train {method}"

    assert main(_argv(method, tmp_path, first), prog=prog) == 0
    folder = tmp_path / name / method / "c"
    assert json.loads((folder / "config.json").read_text())["method"] == method
    assert list(folder.glob("events.out.tfevents.*"))
    table = hparams_table(tmp_path)  # the HParams tab: config and final metrics
    hparams, values, status = table.rows[f"{name}/{method}/c"]
    assert hparams["method"] == method and hparams["game"] == name and status == "STATUS_SUCCESS"
    assert {"eval/win_rate_vs_random", "progress/games"} <= table.metrics and set(values) == table.metrics
    assert values["progress/games"] > 0
    assert (folder / "checkpoint.pt").is_file() and (folder / "final.pt").is_file()
    said = capsys.readouterr().out
    assert f"{METHODS[method].agent}:checkpoint={folder / 'final.pt'}" in said
    assert said.rstrip().endswith(f"tensorboard --logdir {tmp_path}")  # the charts, named last

    game = make_game(name, **params)
    agent = make_agent(f"{METHODS[method].agent}:checkpoint={folder / 'final.pt'}", game, seed=0)
    state = game.initial_state()
    assert agent.act(game, state) in game.legal_actions(state)
    done = _step(folder / "checkpoint.pt")
    assert done == first

    # An existing run is never overwritten.
    before = (folder / "final.pt").read_bytes()
    assert main(_argv(method, tmp_path, second), prog=prog) == 2
    error = capsys.readouterr().err.strip()
    assert "already holds a run; pass --resume" in error and "\n" not in error
    assert (folder / "final.pt").read_bytes() == before

    # A second process on the same folder is refused while the first holds it.
    with RunLock(folder):
        assert main(_argv(method, tmp_path, second, "--resume"), prog=prog) == 2
        error = capsys.readouterr().err.strip()
        assert "is in use by process" in error and "\n" not in error
    assert _step(folder / "checkpoint.pt") == done

    # --resume goes on from the checkpoint.
    assert main(_argv(method, tmp_path, second, "--resume"), prog=prog) == 0
    assert _step(folder / "checkpoint.pt") == second > done
    assert _step(folder / "final.pt") == second
    resumed = make_agent(f"{METHODS[method].agent}:checkpoint={folder / 'final.pt'}", game, seed=0)
    assert resumed.act(game, state) in game.legal_actions(state)


def test_resume_without_a_checkpoint_is_refused(method: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    main = load(METHODS[method].target)
    _, _, _, (_, first, _) = TINY[method]
    assert main(_argv(method, tmp_path, first, "--resume"), prog=f"boardgym train {method}") == 2
    error = capsys.readouterr().err.strip()
    assert "--resume: there is no checkpoint.pt" in error and "\n" not in error
