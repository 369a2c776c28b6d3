"""Grading against exact values: perfect play makes no mistakes, random play many."""

from __future__ import annotations

import json

import pytest

from boardgym.cli.evaluate import GradeOptions
from boardgym.cli.evaluate import grade as grade_command
from boardgym.config import options_from_argv
from boardgym.evaluate.grade import grade, mistake_rate, phase_bounds, position_set
from boardgym.evaluate.grade_sets import GradedPosition, build_connect_four_set, read_connect_four_set
from boardgym.games import make_game
from boardgym.types import BoardgymError


def test_perfect_play_makes_no_mistakes_and_random_play_many() -> None:
    game = make_game("tictactoe")
    assert grade(game, "perfect").mistakes == 0
    result = grade(game, "random", seed=1)
    assert 0.4 < result.rate < 0.8
    assert result.low < result.rate < result.high
    assert sum(p.positions for p in result.phases) == result.positions == len(position_set(game))


def test_every_graded_position_has_a_worse_move() -> None:
    for position in position_set(make_game("tictactoe")):
        assert min(position.values.values()) < position.best


def test_nim_sum_and_hex_3x3_oracles_agree_with_exact_agents() -> None:
    assert grade(make_game("nim"), "nimsum").mistakes == 0
    assert grade(make_game("nim"), "perfect").mistakes == 0
    assert grade(make_game("hex", size=3), "perfect").mistakes == 0
    assert grade(make_game("hex", size=3), "random", seed=2).rate > 0.3


def test_quixo_3x3_oracle_is_the_game_as_played() -> None:
    game = make_game("quixo", size=3, max_moves=6)
    positions = position_set(game)
    assert len(positions) > 100
    assert grade(game, "perfect", positions=positions[:60]).mistakes == 0


def test_phases_split_the_plies_in_thirds() -> None:
    positions = [GradedPosition(None, ply, {0: 1, 1: -1}) for ply in range(4, 35)]
    assert phase_bounds(positions) == [("early", 4, 13), ("middle", 14, 24), ("late", 25, 34)]


def test_ungraded_games_are_refused_in_one_sentence() -> None:
    with pytest.raises(BoardgymError, match="no graded position set for hex"):
        position_set(make_game("hex", size=7))
    with pytest.raises(BoardgymError, match="no graded position set for quarto"):
        position_set(make_game("quarto"))
    assert mistake_rate(make_game("quarto"), object()) is None  # type: ignore[arg-type]


def test_connect_four_file_reads_and_the_solver_agrees() -> None:
    positions = read_connect_four_set()
    assert len(positions) >= 280
    assert all(4 <= p.ply <= 34 for p in positions)
    assert all(min(p.values.values()) < p.best for p in positions)
    late = [p for p in positions if p.ply >= 28][:5]
    game = make_game("connect_four")
    assert grade(game, "solver:time=10", positions=late).mistakes == 0


def main(argv: list[str]) -> int:
    """``boardgym grade ARGV``, its errors raised (the command prints them as one line)."""
    return grade_command(options_from_argv(GradeOptions, argv, "boardgym grade"))


def test_cli_writes_json_and_markdown(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["tictactoe", "--agent", "random", "--run-name", "r", "--root", str(tmp_path)]) == 0
    folder = tmp_path / "tictactoe" / "grade" / "r"
    data = json.loads((folder / "grade.json").read_text())
    assert data["agent"] == "random" and data["positions"] == data["phases"][0]["positions"] + sum(
        p["positions"] for p in data["phases"][1:]
    )
    assert "| **all** |" in (folder / "grade.md").read_text()
    assert "mistake" in capsys.readouterr().out


def test_a_held_out_connect_four_set_is_graded_from_its_file(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "held_out.txt"
    build_connect_four_set(path, plies=range(30, 33), per_ply=2, seed=5, log=lambda _: None)
    shipped = {p.label for p in read_connect_four_set()}
    held_out = read_connect_four_set(path)
    assert held_out and not shipped & {p.label for p in held_out}
    argv = ["connect_four", "--agent", "solver:time=10", "--positions", str(path), "--run-name", "h"]
    assert main([*argv, "--root", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "connect_four" / "grade" / "h" / "grade.json").read_text())
    assert (data["positions"], data["mistakes"], data["position_set"]) == (len(held_out), 0, str(path))
    assert "mistake" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4444 WWW\n", "line 1 of .* is not '<moves> <7 values>'"),
        ("# a comment\n44448 WWWWWWW\n", "line 2 of .*cannot read move '8'"),
        ("4444 W-WWWWW\n", "line 1 of .*each legal move of '4444' \\(columns abcdefg\\)"),
        ("4444444 WWW-WWW\n", "line 1 of .*comes after the game ended|line 1 of .*full"),
        ("# nothing but a header\n", "holds no positions"),
    ],
)
def test_a_bad_set_file_is_refused_with_its_line(tmp_path, text: str, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "set.txt"
    path.write_text(text)
    with pytest.raises(BoardgymError, match=message):
        read_connect_four_set(path)


def test_positions_are_refused_for_other_games_and_missing_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BoardgymError, match="--positions is for connect_four"):
        main(["tictactoe", "--agent", "random", "--positions", str(tmp_path / "x.txt"), "--root", str(tmp_path)])
    with pytest.raises(BoardgymError, match="cannot read the Connect Four position set .*missing.txt"):
        main(
            ["connect_four", "--agent", "random", "--positions", str(tmp_path / "missing.txt"), "--root", str(tmp_path)]
        )
    with pytest.raises(BoardgymError, match="--positions is empty"):
        main(["connect_four", "--agent", "random", "--positions", "", "--root", str(tmp_path)])


def test_a_game_without_a_graded_set_is_refused_before_any_folder(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BoardgymError, match="no graded position set for hex with .*graded: tictactoe"):
        main(["hex", "-p", "size=9", "--agent", "random", "--root", str(tmp_path / "runs")])
    assert not (tmp_path / "runs").exists()


def test_two_grades_in_the_same_second_get_two_folders(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The clock stands still and the second grade is named and run while the first is between
    naming its folder and opening it (two processes started together): each keeps its own
    folder and its own grade.json."""
    import time

    from boardgym.cli import main
    from boardgym.runs import RunFolder

    frozen = time.localtime(1_700_000_000)
    real_strftime = time.strftime
    monkeypatch.setattr(time, "strftime", lambda fmt, when=None: real_strftime(fmt, frozen))
    real_named = RunFolder.named.__func__  # type: ignore[attr-defined]
    calls: list[int] = []

    def named(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
        folder = real_named(cls, *args, **kwargs)
        calls.append(1)
        if len(calls) == 1:  # the other grade runs now, to its end
            assert main(["grade", "tictactoe", "--agent", "perfect", "--root", str(tmp_path)]) == 0
        return folder

    monkeypatch.setattr(RunFolder, "named", classmethod(named))
    assert main(["grade", "tictactoe", "--agent", "random", "--root", str(tmp_path)]) == 0
    folders = sorted((tmp_path / "tictactoe" / "grade").iterdir())
    name = f"s0-{real_strftime('%Y%m%d-%H%M%S', frozen)}"
    assert [folder.name for folder in folders] == [name, f"{name}-2"]
    agents = {json.loads((folder / "grade.json").read_text())["agent"] for folder in folders}
    assert agents == {"perfect", "random"}
    assert all((folder / "grade.md").is_file() for folder in folders)
