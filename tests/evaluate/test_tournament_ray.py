"""Tournaments on the Ray backend: game for game the local result, a killed worker's games
played again (none lost, none twice), --resume, and the command line."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from boardgym import make_game
from boardgym.agents.random_agent import RandomAgent
from boardgym.cli import main
from boardgym.evaluate.tournament import RESULTS_FILE, SETTINGS_FILE, Tournament, run_tournament
from boardgym.game import Game
from boardgym.types import BoardgymError

SPECS = ["random", "perfect", "mcts:simulations=8"]


def first_to_mark(marker: str) -> bool:
    """Create ``marker``; True for the one caller that created it (race-free across processes)."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


class KillsItsWorkerOnce(RandomAgent):
    """Random play that ends its own process at its first move while ``marker`` does not exist
    yet (creating it first): the Ray worker dies mid-game, once in the whole tournament."""

    def __init__(self, game: Game, *, marker: str, seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        self.marker = marker
        self.spec = "random"

    def act(self, game: Game, state: Any) -> int:
        if first_to_mark(self.marker):
            os._exit(1)
        return super().act(game, state)


def by_index(tournament: Tournament) -> dict[int, tuple]:
    """What a game is, timings left out: seats, agents, moves, returns, winner."""
    return {
        g.index: (g.seats, g.record.agents, g.record.moves, g.record.returns, g.record.winner, g.record.num_moves)
        for g in tournament.games
    }


def result_lines(folder: Path) -> list[dict]:
    lines = [json.loads(line) for line in (folder / RESULTS_FILE).read_text().splitlines()]
    for line in lines:
        line.pop("seconds_per_move")
    return sorted(lines, key=lambda line: line["index"])


def test_a_seeded_ray_tournament_equals_the_local_one_game_for_game(ray_local, tmp_path: Path) -> None:
    local = run_tournament("tictactoe", SPECS, 6, workers=1, seed=7, out_dir=tmp_path / "local", progress=False)
    on_ray = run_tournament(
        "tictactoe", SPECS, 6, seed=7, out_dir=tmp_path / "ray", progress=False, backend="ray", workers=2
    )
    assert len(on_ray.games) == 18
    assert [g.index for g in on_ray.games] == list(range(18))
    assert by_index(on_ray) == by_index(local)
    assert result_lines(tmp_path / "ray") == result_lines(tmp_path / "local")  # the same file, line for line
    assert (tmp_path / "ray" / SETTINGS_FILE).read_text() == (tmp_path / "local" / SETTINGS_FILE).read_text()


def test_a_worker_killed_mid_game_loses_and_duplicates_nothing(ray_local, tmp_path: Path) -> None:
    game = make_game("tictactoe")
    marker = tmp_path / "killed-once"
    killer = KillsItsWorkerOnce(game, marker=str(marker))
    on_ray = run_tournament(
        "tictactoe",
        [killer, "perfect"],
        8,
        seed=3,
        out_dir=tmp_path / "ray",
        progress=False,
        backend="ray",
        openings="off",  # "auto" would try the killer out in this process to see if it is deterministic
    )
    assert marker.exists()  # a worker did die mid-game
    indices = [line["index"] for line in map(json.loads, (tmp_path / "ray" / RESULTS_FILE).read_text().splitlines())]
    assert sorted(indices) == list(range(8))  # every game once in the file
    calm = KillsItsWorkerOnce(game, marker=str(marker))  # the marker exists: it never kills
    local = run_tournament("tictactoe", [calm, "perfect"], 8, workers=1, seed=3, progress=False, openings="off")
    assert by_index(on_ray) == by_index(local)


def test_resume_on_ray_plays_only_the_missing_games(ray_local, tmp_path: Path) -> None:
    folder = tmp_path / "run"
    full = run_tournament("tictactoe", SPECS, 4, workers=1, seed=2, progress=False)
    run_tournament("tictactoe", SPECS, 4, workers=1, seed=2, out_dir=folder, progress=False)
    lines = (folder / RESULTS_FILE).read_text().splitlines(keepends=True)
    kept = [lines[i] for i in (0, 3, 4, 9)]
    (folder / RESULTS_FILE).write_text("".join(kept) + lines[5][:20])  # as if killed mid-line
    resumed = run_tournament("tictactoe", SPECS, 4, seed=2, out_dir=folder, progress=False, resume=True, backend="ray")
    assert by_index(resumed) == by_index(full)
    indices = [json.loads(line)["index"] for line in (folder / RESULTS_FILE).read_text().splitlines()]
    assert sorted(indices) == list(range(12))
    extended = run_tournament("tictactoe", SPECS, 6, seed=2, out_dir=folder, progress=False, resume=True, backend="ray")
    assert by_index(extended) == by_index(run_tournament("tictactoe", SPECS, 6, workers=1, seed=2, progress=False))


def test_an_agent_error_on_ray_is_its_own_sentence(ray_local, tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match="played an illegal move"):
        run_tournament("tictactoe", [IllegalMover(make_game("tictactoe")), "random"], 1, progress=False, backend="ray")


class Unpicklable(RandomAgent):
    def __init__(self, game: Game, *, seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        self.lock = threading.Lock()


def test_an_agent_object_that_cannot_travel_is_one_sentence(ray_local) -> None:
    game = make_game("tictactoe")
    with pytest.raises(
        BoardgymError,
        match=r"cannot send the tournament's agents to the Ray workers \(cannot pickle '_thread.lock' object\)",
    ):
        run_tournament("tictactoe", [Unpicklable(game), "random"], 1, progress=False, backend="ray")


class IllegalMover(RandomAgent):
    def act(self, game: Game, state: Any) -> int:
        return 99


def test_the_command_line_plays_on_ray(ray_local, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["evaluate", "tictactoe", "--agents", "random", "perfect", "--games", "4", "--no-plots", "--run-name", "r"]
    assert main([*argv, "--backend", "ray"]) == 0
    assert "4 games" in capsys.readouterr().out
    assert len((tmp_path / "runs/tictactoe/evaluate/r" / RESULTS_FILE).read_text().splitlines()) == 4


def test_backend_and_address_mistakes_are_explained(tmp_path: Path, capsys) -> None:
    with pytest.raises(BoardgymError, match="unknown backend 'nope'; known backends: local, ray"):
        run_tournament("tictactoe", ["random", "random"], 1, progress=False, backend="nope")
    with pytest.raises(BoardgymError, match="--address 'auto' is for --backend ray"):
        run_tournament("tictactoe", ["random", "random"], 1, progress=False, address="auto")
    assert main(["evaluate", "tictactoe", "--agents", "random", "random", "--backend", "spark"]) == 2
    assert "unknown --backend 'spark'; choose one of: local, ray" in capsys.readouterr().err


def test_relative_checkpoint_paths_are_read_from_the_caller_s_folder(ray_local, tmp_path: Path, monkeypatch) -> None:
    from boardgym.train.qlearning import Config, train

    monkeypatch.chdir(tmp_path)  # after Ray started elsewhere: its workers sit in another folder
    train(Config(episodes=200, run_name="q", progress=False, eval_games=2))
    spec = "qlearning:checkpoint=runs/tictactoe/qlearning/q/final.pt"
    on_ray = run_tournament("tictactoe", [spec, "random"], 2, seed=1, progress=False, backend="ray")
    local = run_tournament("tictactoe", [spec, "random"], 2, workers=1, seed=1, progress=False)
    assert by_index(on_ray) == by_index(local)


def test_a_dead_raylet_ends_evaluate_with_one_sentence_on_how_to_resume(
    ray_local, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Ray's own process dies after the first results: the command ends in one sentence that
    says how to finish the games, which the results file keeps."""
    monkeypatch.chdir(tmp_path)
    real_wait, calls = ray_local.wait, []

    def wait_then_lose_the_raylet(*args, **kwargs):
        calls.append(1)
        if len(calls) > 2:
            raise ray_local.exceptions.LocalRayletDiedError()
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(ray_local, "wait", wait_then_lose_the_raylet)
    argv = ["evaluate", "tictactoe", "--agents", "random", "perfect", "--games", "40", "--no-plots", "--run-name", "r"]
    assert main([*argv, "--backend", "ray"]) == 2
    err = capsys.readouterr().err.strip()
    folder = Path("runs/tictactoe/evaluate/r")  # under tmp_path, the current folder
    assert err == (
        "boardgym: error: Ray stopped under the run: the Ray process of this machine (its raylet) died "
        f"(LocalRayletDiedError); the finished games are kept in {folder}/results.jsonl: finish them with the same "
        "command and --run-name r --resume"
    )
    assert (folder / RESULTS_FILE).read_text().count("\n") >= 1


def test_a_batched_agent_on_ray_plays_the_local_games(ray_local, tmp_path: Path) -> None:
    specs = ["alphazero:pretrained=true,search=batched,simulations=8", "random"]
    local = run_tournament("tictactoe", specs, 8, workers=1, seed=5, progress=False, batch_games=1)
    on_ray = run_tournament(
        "tictactoe", specs, 8, seed=5, out_dir=tmp_path, progress=False, backend="ray", workers=2, batch_games=8
    )
    assert by_index(on_ray) == by_index(local)
