"""Tournaments (``boardgym.evaluate.tournament``): the schedule, the checks, the settings object
and the run folder's lock; the results file has test_results.py, the backends test_backends.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from boardgym import make_game
from boardgym.agents.random_agent import RandomAgent
from boardgym.evaluate.tournament import (
    RESULTS_FILE,
    Tournament,
    TournamentSettings,
    load_tournament,
    run_tournament,
    run_tournament_with,
)
from boardgym.types import BoardgymError


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


def test_the_settings_object_plays_the_tournament_the_keywords_describe(tmp_path):
    settings = TournamentSettings(
        "tictactoe", ("random", "perfect", "random"), 4, workers=2, seed=3, gauntlet=True, openings="on", progress=False
    )
    by_object = run_tournament_with(settings, tmp_path / "object")
    by_keywords = run_tournament(
        "tictactoe", ["random", "perfect", "random"], 4, workers=2, seed=3, gauntlet=True, openings="on", progress=False
    )
    assert moves_by_index(by_object) == moves_by_index(by_keywords)
    assert by_object.settings() == by_keywords.settings()
    assert by_object.names == ("random", "perfect", "random#2") and by_object.opening_plies > 0
    assert len((tmp_path / "object" / RESULTS_FILE).read_text().splitlines()) == 8
    more = run_tournament_with(replace(settings, games_per_pair=6), tmp_path / "object", resume=True)
    assert moves_by_index(more).items() >= moves_by_index(by_object).items() and len(more.games) == 12


def test_the_settings_object_copies_what_it_is_given_and_is_checked_when_run():
    params = {"heaps": [1, 2]}
    specs = ["random", RandomAgent(make_game("nim"))]
    settings = TournamentSettings("nim", specs, 2, game_params=params)
    params["heaps"] = [9]
    specs.append("perfect")
    assert settings.specs[0] == "random" and len(settings.specs) == 2
    assert settings.game_params == {"heaps": [1, 2]}
    assert settings.labels == ("random", "RandomAgent")
    with pytest.raises(BoardgymError, match="workers=0 must be at least 1"):
        run_tournament_with(replace(settings, workers=0))
    with pytest.raises(BoardgymError, match="unknown backend 'nope'; known backends: local, ray"):
        run_tournament_with(replace(settings, backend="nope"))


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


def test_run_tournament_from_python_draws_no_bar_where_stderr_is_not_a_terminal(capsys) -> None:
    run_tournament("nim", ["random", "random"], 4)  # progress left at its default
    assert capsys.readouterr().err == ""
