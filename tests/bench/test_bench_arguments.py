"""Every benchmark refuses a bad count, duration or row in one line, before measuring anything."""

from __future__ import annotations

import pytest

from boardgym.cli import main


@pytest.mark.parametrize("bench", ["envs", "search"])
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rounds", "0"], "argument --rounds: '0' is not a count"),
        (["--rounds", "two"], "argument --rounds: 'two' is not a count"),
        (["--seconds", "-1"], "argument --seconds: '-1' is not a finite number above 0"),
        (["--seconds", "nan"], "argument --seconds: 'nan' is not a finite number above 0"),
        (["--seconds", "inf"], "argument --seconds: 'inf' is not a finite number above 0"),
        (["--games", "connect-four"], "'connect-four' in this benchmark; --games takes: "),
        (["--games"], "argument --games: expected at least one argument"),
    ],
)
def test_bad_arguments_are_one_line(bench: str, argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", bench, *argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()[-1]) < 300


def test_the_games_lists_name_the_rows(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "envs", "--games", "chess"])
    assert "tictactoe, connect_four, nim" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "search", "--games", "chess"])
    assert "hex, hex 7x7, connect_four, tictactoe" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--cores", "0"], "argument --cores: '0' is not a count"), (["--gbit", "-1"], "argument --gbit: '-1'")],
)
def test_the_selfplay_model_refuses_impossible_machines(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "selfplay", *argv])
    assert message in capsys.readouterr().err
