"""Tournaments: schedule, reproducibility, interrupted runs and --resume."""

from __future__ import annotations

import json

import pytest

from boardgym import make_game
from boardgym.agents import AGENTS, AgentEntry
from boardgym.agents.random_agent import RandomAgent
from boardgym.evaluate.tournament import RESULTS_FILE, SETTINGS_FILE, Tournament, load_tournament, run_tournament
from boardgym.types import BoardgymError


class CrashingAgent(RandomAgent):
    """Random play that raises once it has started ``CrashingAgent.after`` games in a process."""

    after: int | None = None
    started = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        CrashingAgent.started += 1
        if CrashingAgent.after is not None and CrashingAgent.started > CrashingAgent.after:
            raise KeyboardInterrupt


@pytest.fixture
def crashing(monkeypatch):
    """Registers ``crashing`` (workers inherit it through fork) and disarms it afterwards."""
    monkeypatch.setitem(AGENTS, "crashing", AgentEntry(f"{__name__}:CrashingAgent", "test agent"))
    CrashingAgent.started = 0
    yield CrashingAgent
    CrashingAgent.after = None


def moves_by_index(tournament: Tournament) -> dict[int, tuple]:
    return {g.index: (g.seats, g.record.moves, g.record.returns) for g in tournament.games}


def test_round_robin_schedule_alternates_seats():
    tournament = Tournament("tictactoe", {}, ("a", "b", "c"), 4, seed=0)
    fixtures = tournament.schedule()
    assert [f.index for f in fixtures] == list(range(12))
    assert tournament.pairings == [(0, 1), (0, 2), (1, 2)]
    for pairing in tournament.pairings:
        seats = [f.seats for f in fixtures if set(f.seats) == set(pairing)]
        assert seats == [pairing, pairing[::-1]] * 2


def test_gauntlet_and_solo_pairings():
    assert Tournament("t", {}, ("a", "b", "c"), 1, 0, gauntlet=True).pairings == [(0, 1), (0, 2)]
    assert Tournament("t", {}, ("a", "b"), 1, 0, num_players=1).pairings == [(0,), (1,)]


def test_duplicate_specs_get_numbered_names():
    assert Tournament("t", {}, ("random", "random", "perfect"), 1, 0).names == ("random", "random#2", "perfect")


def test_reproducible_for_a_seed_whatever_the_workers(tmp_path):
    specs = ["random", "random", "perfect"]
    one = run_tournament("tictactoe", specs, 10, workers=1, seed=5, progress=False)
    two = run_tournament("tictactoe", specs, 10, workers=2, seed=5, out_dir=tmp_path / "a", progress=False)
    again = run_tournament("tictactoe", specs, 10, workers=2, seed=5, out_dir=tmp_path / "b", progress=False)
    other = run_tournament("tictactoe", specs, 10, workers=1, seed=6, progress=False)
    assert len(one.games) == 30
    assert moves_by_index(one) == moves_by_index(two) == moves_by_index(again)
    assert moves_by_index(one) != moves_by_index(other)
    assert [g.index for g in two.games] == list(range(30))


def test_perfect_never_loses_and_files_are_written(tmp_path):
    tournament = run_tournament(
        "tictactoe", ["random", "perfect"], 50, workers=2, seed=0, out_dir=tmp_path, progress=False
    )
    perfect_losses = [g for g in tournament.games if g.record.winner != -1 and g.seats[g.record.winner] == 0]
    assert perfect_losses == []
    settings = json.loads((tmp_path / SETTINGS_FILE).read_text())
    assert settings["agents"] == ["random", "perfect"] and settings["games_per_pair"] == 50
    assert len((tmp_path / RESULTS_FILE).read_text().splitlines()) == 50
    assert moves_by_index(load_tournament(tmp_path)) == moves_by_index(tournament)


@pytest.mark.parametrize("workers", [1, 2])
def test_interrupted_run_keeps_games_and_resume_plays_only_the_rest(tmp_path, crashing, workers):
    specs = ["crashing", "random"]
    full = run_tournament("tictactoe", specs, 40, workers=1, seed=3, progress=False)
    crashing.started = 0
    crashing.after = 2 * 9  # two agents reset per game: about nine games in each process
    with pytest.raises(KeyboardInterrupt):
        run_tournament("tictactoe", specs, 40, workers=workers, seed=3, out_dir=tmp_path, progress=False)
    crashing.after = None
    kept = load_tournament(tmp_path)
    assert 0 < len(kept.games) < 40
    # a torn last line, as left by a kill in the middle of a write, is dropped on resume
    with open(tmp_path / RESULTS_FILE, "a") as handle:
        handle.write('{"index": 39, "seats": [1, 0], "age')
    with pytest.raises(BoardgymError, match="--resume"):
        run_tournament("tictactoe", specs, 40, workers=workers, seed=3, out_dir=tmp_path, progress=False)
    before = {g.index for g in kept.games}
    crashing.started = 0
    resumed = run_tournament(
        "tictactoe", specs, 40, workers=workers, seed=3, out_dir=tmp_path, resume=True, progress=False
    )
    assert moves_by_index(resumed) == moves_by_index(full)
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    indices = [json.loads(line)["index"] for line in lines]
    assert sorted(indices) == list(range(40))  # each game once: the kept ones were not replayed
    assert set(indices[: len(before)]) == before


def test_resume_extends_a_finished_tournament(tmp_path):
    first = run_tournament("nim", ["random", "random"], 6, seed=1, out_dir=tmp_path, progress=False)
    longer = run_tournament("nim", ["random", "random"], 10, seed=1, out_dir=tmp_path, resume=True, progress=False)
    assert len(longer.games) == 10
    assert moves_by_index(longer).items() >= moves_by_index(first).items()
    assert moves_by_index(longer) == moves_by_index(
        run_tournament("nim", ["random", "random"], 10, seed=1, progress=False)
    )


def test_resume_refuses_other_settings(tmp_path):
    run_tournament("tictactoe", ["random", "random"], 2, seed=1, out_dir=tmp_path, progress=False)
    with pytest.raises(BoardgymError, match="seed was 1, now 2"):
        run_tournament("tictactoe", ["random", "random"], 2, seed=2, out_dir=tmp_path, resume=True, progress=False)


def test_game_params_reach_the_games(tmp_path):
    tournament = run_tournament(
        "nim", ["random", "random"], 4, seed=0, out_dir=tmp_path, game_params={"heaps": (1, 2)}, progress=False
    )
    assert all(g.record.num_moves <= 3 for g in tournament.games)
    assert load_tournament(tmp_path).game_params == {"heaps": (1, 2)}
    make_game("nim", **load_tournament(tmp_path).game_params)


@pytest.mark.parametrize(
    "specs, games, match",
    [
        (["random"], 2, "at least two agents"),
        (["random"], 2, "after --agents"),
        (["random", "nobody"], 2, "unknown agent"),
        (["random", "random"], 0, "at least 1"),
    ],
)
def test_bad_arguments_are_named(specs, games, match):
    with pytest.raises(BoardgymError, match=match):
        run_tournament("tictactoe", specs, games, progress=False)


def test_perfect_never_loses_a_thousand_games_and_the_seat_split_shows_it():
    tournament = run_tournament("tictactoe", ["random", "perfect"], 1000, workers=2, seed=0, progress=False)
    by_seat = {0: [0, 0, 0], 1: [0, 0, 0]}  # perfect's seat -> wins, draws, losses
    for game in tournament.games:
        seat = game.seats.index(1)
        winner = game.record.winner
        by_seat[seat][0 if winner == seat else 1 if winner == -1 else 2] += 1
    assert by_seat[0][2] == by_seat[1][2] == 0
    assert sum(by_seat[0]) == sum(by_seat[1]) == 500
    assert by_seat[0][0] > by_seat[1][0]  # moving first wins more often


def test_spawned_workers_play_the_same_games():
    specs = ["random", "perfect"]
    spawned = run_tournament("tictactoe", specs, 4, workers=2, seed=9, progress=False, start_method="spawn")
    assert moves_by_index(spawned) == moves_by_index(run_tournament("tictactoe", specs, 4, seed=9, progress=False))


def test_agent_objects_play_in_process():
    game = make_game("tictactoe")
    agent = RandomAgent(game, seed=0)
    agent.spec = "my-random"
    tournament = run_tournament("tictactoe", [agent, "perfect"], 6, seed=0, progress=False, record_moves=False)
    assert tournament.names == ("my-random", "perfect")
    assert all(g.record.moves == () for g in tournament.games)


def test_a_second_tournament_on_the_same_folder_is_refused_while_the_first_runs(tmp_path) -> None:
    import subprocess
    import sys
    import time

    from boardgym.runs import RunLock
    from boardgym.types import BoardgymError

    folder = tmp_path / "runs" / "nim" / "evaluate" / "same"
    # The first run, in another process, holds the folder's lock while it plays.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from boardgym.runs import RunLock; import time; lock = RunLock({str(folder)!r}).acquire(); time.sleep(60)",
        ]
    )
    try:
        deadline = time.time() + 30
        while not (folder / ".lock").exists() or not (folder / ".lock").read_text().strip():
            assert time.time() < deadline and holder.poll() is None
            time.sleep(0.05)
        for resume in (False, True):
            with pytest.raises(BoardgymError, match=f"in use by process {holder.pid}"):
                run_tournament("nim", ["random", "random"], 2, out_dir=folder, resume=resume, progress=False)
        assert not (folder / "results.jsonl").exists()
    finally:
        holder.kill()
        holder.wait()
    tournament = run_tournament("nim", ["random", "random"], 2, out_dir=folder, progress=False)
    assert len(tournament.games) == 2
    with RunLock(folder):  # and the lock was let go at the end
        pass
