"""Reports: standings, matrix and seat split from a known set of games; files written."""

from __future__ import annotations

import json

import pytest

from boardgym.evaluate.analysis import analyse, solo_standings
from boardgym.evaluate.match import MatchRecord
from boardgym.evaluate.report import console_summary, leaderboard_markdown, write_report
from boardgym.evaluate.tournament import PlayedGame, Tournament, run_tournament


def played(index: int, seats: tuple[int, ...], returns: tuple[float, ...], num_moves: int = 5) -> PlayedGame:
    winner = -1 if len(set(returns)) == 1 and len(returns) == 2 else max(range(len(returns)), key=returns.__getitem__)
    record = MatchRecord(
        agents=tuple(str(s) for s in seats),
        returns=returns,
        winner=winner,
        num_moves=num_moves,
        first_player=0,
        moves_per_seat=(3, 2) if len(seats) == 2 else (num_moves,),
        seconds_per_move=(0.001, 0.002) if len(seats) == 2 else (0.001,),
        moves=(),
    )
    return PlayedGame(index, seats, record)


@pytest.fixture
def scripted() -> Tournament:
    """strong beats weak whenever it moves first and draws when it moves second; three
    games of strong vs random, all won by strong."""
    tournament = Tournament("tictactoe", {}, ("random", "weak", "strong"), 2, seed=0)
    tournament.games = [
        played(0, (2, 1), (1.0, -1.0), 5),
        played(1, (1, 2), (0.0, 0.0), 9),
        played(2, (2, 1), (1.0, -1.0), 7),
        played(3, (1, 2), (0.0, 0.0), 9),
        played(4, (0, 2), (-1.0, 1.0), 6),
        played(5, (2, 0), (1.0, -1.0), 5),
        played(6, (0, 2), (-1.0, 1.0), 8),
    ]
    return tournament


def test_standings_matrix_and_seat_split(scripted):
    analysis = analyse(scripted)
    by_name = {s.name: s for s in analysis.standings}
    strong = by_name["strong"]
    assert (strong.total.wins, strong.total.draws, strong.total.losses) == (5, 2, 0)
    assert str(strong.as_first) == "3-0-0" and str(strong.as_second) == "2-2-0"
    assert str(analysis.matrix["weak", "strong"]) == "0-2-2"
    assert str(analysis.by_first["strong", "weak"]) == "2-0-0"
    assert analysis.standings[0].name == "strong"
    # 3 games in seat 0 (3 moves of 1 ms), 4 in seat 1 (2 moves of 2 ms)
    assert strong.ms_per_move == pytest.approx((3 * 3 * 1 + 4 * 2 * 2) / (3 * 3 + 4 * 2))
    assert sorted(analysis.lengths) == sorted([(5, 1.0), (9, 0.5), (7, 1.0), (9, 0.5), (6, 0.0), (5, 1.0), (8, 0.0)])
    assert analysis.elo is not None and analysis.elo.ratings["random"].elo == 0.0
    assert analysis.elo.ratings["strong"].elo > 0


def test_leaderboard_lists_every_agent_with_wilson_interval(scripted):
    table = leaderboard_markdown(scripted)
    lines = table.splitlines()
    assert len(lines) == 2 + 3
    assert lines[2].startswith("| 1 | strong |")
    assert "| 7 | 5 | 2 | 0 | 71.4% (35.9% .. 91.8%)" in lines[2]
    assert "anchor" in table
    assert "first-move advantage" in console_summary(scripted)


def test_write_report_files(scripted, tmp_path):
    paths = write_report(scripted, tmp_path)
    names = {path.name for path in paths}
    assert names == {
        "report.md",
        "summary.json",
        "outcomes.png",
        "outcomes_by_seat.png",
        "game_length.png",
        "ratings.png",
    }
    for path in paths:
        assert path.stat().st_size > 0
        if path.suffix == ".png":
            assert path.read_bytes()[:4] == b"\x89PNG"
    report = (tmp_path / "report.md").read_text()
    assert "## Outcomes by starting seat" in report and "| strong | 3-0-0 (100%) | 2-2-0 (75%) | 5-2-0 |" in report
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games_played"] == 7
    assert summary["standings"][0]["agent"] == "strong"
    assert summary["standings"][0]["as_first"] == {"wins": 3, "draws": 0, "losses": 0}


def test_unfinished_tournament_says_how_to_resume(scripted, tmp_path):
    scripted.games_per_pair = 4
    write_report(scripted, tmp_path, plots=False)
    report = (tmp_path / "report.md").read_text()
    assert "7 of 12 games" in report and "--resume" in report
    assert not (tmp_path / "ratings.png").exists()


def test_puzzle_report_ranks_by_mean_return(tmp_path):
    tournament = Tournament("setcover", {}, ("random", "greedy"), 2, seed=0, num_players=1)
    tournament.games = [
        played(0, (0,), (-9.0,), 9),
        played(1, (1,), (-4.0,), 4),
        played(2, (0,), (-7.0,), 7),
        played(3, (1,), (-4.0,), 4),
    ]
    rows = solo_standings(tournament)
    assert [row.name for row in rows] == ["greedy", "random"]
    assert rows[1].mean_return == -8.0 and rows[1].best == -7.0 and rows[1].worst == -9.0
    paths = write_report(tournament, tmp_path)
    assert {p.name for p in paths} == {"report.md", "summary.json", "returns.png"}
    json.loads((tmp_path / "summary.json").read_text())  # strict JSON


def test_report_of_a_real_tournament(tmp_path):
    tournament = run_tournament("nim", ["random", "nimsum"], 10, seed=0, out_dir=tmp_path, progress=False)
    write_report(tournament, tmp_path, plots=False)
    summary = json.loads((tmp_path / "summary.json").read_text())
    best = summary["standings"][0]
    assert best["agent"] == "nimsum" and best["losses"] <= 5


def test_plot_labels_shorten_long_checkpoint_paths() -> None:
    from boardgym.evaluate.plots import short_label

    assert short_label("qlearning:checkpoint=runs/tictactoe/qlearning/quickstart/final.pt") == (
        "qlearning:checkpoint=.../quickstart/final.pt"
    )
    assert short_label("alphazero:checkpoint=runs/c4/alphazero/az/final.pt,simulations=200") == (
        "alphazero:checkpoint=.../az/final.pt,simulations=200"
    )
    assert short_label("minimax:depth=3,eval=dijkstra") == "minimax:depth=3,eval=dijkstra"
