"""The boardgym command: list, play in the terminal, errors, help on every command."""

from __future__ import annotations

import builtins

import pytest

from boardgym.cli import build_parser, main


def test_list_names_games_agents_methods(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for word in ("tictactoe", "connect_four", "nim", "boardgym/TicTacToe-v0", "random", "perfect", "human"):
        assert word in out


def test_play_against_perfect_from_the_second_seat(monkeypatch, capsys) -> None:
    moves = iter(["zz", "b2", "a1", "c3", "a3", "c1", "b1", "c2", "a2", "b3"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(moves))
    assert main(["play", "tictactoe", "--opponent", "perfect", "--seat", "1", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "opponent plays" in out and "cannot read move 'zz'" in out
    assert "you lose" in out or "draw" in out


def test_play_with_game_parameters(monkeypatch, capsys) -> None:
    monkeypatch.setattr(builtins, "input", lambda prompt="": "1:2")
    assert main(["play", "nim", "-p", "heaps=2", "--opponent", "random"]) == 0
    assert "you win" in capsys.readouterr().out


def test_quit_ends_the_game_cleanly(monkeypatch, capsys) -> None:
    monkeypatch.setattr(builtins, "input", lambda prompt="": "quit")
    assert main(["play", "connect_four"]) == 130


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "tictactoe", "--opponent", "god"], "unknown agent 'god'"),
        (["play", "nim", "-p", "heaps"], "KEY=VALUE"),
        (["train", "telepathy"], "unknown training method 'telepathy'"),
        (["bench", "warp"], "unknown benchmark 'warp'"),
    ],
)
def test_user_errors_get_one_clear_message(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_every_command_has_help(capsys) -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name in commands:
        try:
            code = main([name, "--help"])
        except SystemExit as exit_info:
            code = exit_info.code
        assert code in (0, None)
    assert "usage" in capsys.readouterr().out.lower()


def test_bench_envs_help(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "envs", "--help"])
    assert "--seconds" in capsys.readouterr().out


def test_env_benchmark_runs(capsys) -> None:
    assert main(["bench", "envs", "--seconds", "0.02", "--rounds", "1", "--games", "tictactoe", "nim"]) == 0
    out = capsys.readouterr().out
    assert "AEC loop" in out and "rules API" in out and "tictactoe" in out
