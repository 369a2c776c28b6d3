"""Every benchmark refuses a bad count, duration or row in one line, before measuring anything."""

from __future__ import annotations

import pytest

from boardgym.cli import main


@pytest.mark.parametrize("bench", ["envs", "search"])
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rounds", "0"], "--rounds 0 must be at least 1"),
        (["--rounds", "two"], "--rounds 'two' must be an integer"),
        (["--seconds", "-1"], "--seconds -1.0 must be above 0 and at most 3600"),
        (["--seconds", "nan"], "--seconds 'nan' must be a finite number"),
        (["--seconds", "inf"], "--seconds 'inf' must be a finite number"),
        (["--seconds", ""], "--seconds is empty"),
        (["--games", "connect-four"], "'connect-four' in this benchmark; --games takes: "),
    ],
)
def test_bad_arguments_are_one_line(bench: str, argv: list[str], message: str, capsys) -> None:
    assert main(["bench", bench, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and len(err) < 300


@pytest.mark.parametrize("bench", ["envs", "search"])
def test_an_option_without_its_value_is_argparses_usage_line(bench: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", bench, "--games"])
    assert exit_info.value.code == 2
    assert "argument --games: expected at least one argument" in capsys.readouterr().err


def test_the_games_lists_name_the_rows(capsys) -> None:
    assert main(["bench", "envs", "--games", "chess"]) == 2
    assert "tictactoe, connect_four, nim" in capsys.readouterr().err
    assert main(["bench", "search", "--games", "chess"]) == 2
    assert "tictactoe, tictactoe exact, connect_four, connect_four d6, hex, hex 7x7" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--cores", "0"], "--cores 0 must be at least 1"), (["--gbit", "-1"], "--gbit -1.0 must be above 0")],
)
def test_the_selfplay_model_refuses_impossible_machines(argv: list[str], message: str, capsys) -> None:
    assert main(["bench", "selfplay", *argv]) == 2
    assert message in capsys.readouterr().err
