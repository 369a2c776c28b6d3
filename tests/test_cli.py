"""The boardgym command: list, play in the terminal, errors, help on every command."""

from __future__ import annotations

import builtins
import os

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
    assert main(["play", "connect_four"]) == 0  # a normal end, not Ctrl-C's 130
    out, err = capsys.readouterr()
    assert out.rstrip().endswith("quit: game abandoned") and "interrupted" not in out + err


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


# -- render -------------------------------------------------------------------------------------
def test_render_writes_svg_and_png(tmp_path, capsys) -> None:
    svg = tmp_path / "board.svg"
    assert main(["render", "tictactoe", "--moves", "b2 a1,c3", "-o", str(svg)]) == 0
    text = svg.read_text()
    assert text.startswith("<svg") and "last-move" in text and "O to move" in text
    png = tmp_path / "board.png"
    assert main(["render", "hex", "-p", "size=5", "--moves", "c3", "-o", str(png), "--scale", "2"]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    assert "after 1 move(s)" in capsys.readouterr().out


def test_render_reads_notations_with_commas_inside(tmp_path) -> None:
    out = tmp_path / "r.svg"
    assert main(["render", "rastros", "--moves", "5,4 6,3", "-o", str(out)]) == 0
    assert main(["render", "rastros", "--moves", "5,4,6,3", "-o", str(out)]) == 0
    assert main(["render", "nim", "-p", "heaps=3,4", "--moves", "1:2,2:4", "-o", str(out)]) == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tictactoe", "--moves", "b2 b2"], "move 2 ('b2'): action 4 (b2) is not legal here; legal moves: a1"),
        (["nim", "--moves", "1:1 zz"], "move 2 ('zz'): cannot read move 'zz'"),
        (["nim", "--moves", "1:1 zz"], "legal moves: 2:1"),
        (["rastros", "--moves", "5,4 9,9"], "move 2 ('9,9')"),
        (["tictactoe", "--moves", "a1 b1 a2 b2 a3 c3"], "move 6 ('c3') comes after the end of the game"),
        (["tictactoe", "--moves", "b2", "--scale", "nan"], "--scale 'nan' must be a finite number"),
        (["chess", "--moves", "e4"], "unknown game 'chess'"),
    ],
)
def test_render_refuses_bad_moves_in_one_sentence(argv: list[str], message: str, tmp_path, capsys) -> None:
    assert main(["render", *argv, "-o", str(tmp_path / "b.png")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_render_refuses_an_unknown_picture_format(tmp_path, capsys) -> None:
    assert main(["render", "tictactoe", "-o", str(tmp_path / "board.gif")]) == 2
    assert "name a .svg or a .png file" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "nim", "--seed", "-1"],
        ["evaluate", "nim", "--agents", "random", "random", "--seed", "-1"],
        ["train", "qlearning", "--game", "tictactoe", "--seed", "-1"],
        ["solve", "setcover", "--seed", "-1"],
        ["grade", "tictactoe", "--agent", "random", "--seed", "-1"],
        ["ladder", "tictactoe", "--seed", "-1"],
        ["bench", "envs", "--seed", "-1"],
        ["play", "nim", "--seed", "1.5"],
        ["play", "nim", "--seed", str(2**32)],
    ],
)
def test_a_seed_out_of_range_is_one_line_before_anything_runs(argv: list[str], capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--seed" in err and "Traceback" not in err and err.count("\n") == 1
    assert "must be a whole number from 0 to 4294967295" in err or "must be an integer" in err
    assert not (tmp_path / "runs").exists()


def test_play_with_the_input_closed_ends_in_one_sentence(monkeypatch, capsys) -> None:
    def closed(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr(builtins, "input", closed)
    assert main(["play", "nim"]) == 2
    assert "the input is closed" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["../x", "/tmp/elsewhere", "a/b", ".."])
def test_evaluate_run_names_stay_inside_the_runs_root(name: str, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["evaluate", "nim", "--agents", "random", "random", "--games", "1", "--workers", "1", "--no-plots"]
    assert main([*argv, "--run-name", name]) == 2
    assert "must be one folder name inside the runs root" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists() and not (tmp_path / "x").exists()


def test_evaluate_resume_of_a_missing_run_is_refused(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["evaluate", "nim", "--agents", "random", "random", "--games", "1", "--workers", "1", "--no-plots"]
    assert main([*argv, "--resume", "--run-name", "missing"]) == 2
    assert "--resume: there is no tournament.json in 'runs/nim/evaluate/missing'" in capsys.readouterr().err
    assert not (tmp_path / "runs" / "nim" / "evaluate" / "missing").exists()


def test_training_refuses_a_game_it_cannot_train_before_training(tmp_path, capsys) -> None:
    argv = ["train", "qlearning", "--game", "setcover", "--root", str(tmp_path), "--no-progress"]
    assert main(argv) == 2
    assert "qlearning trains two-player games; setcover has 1 player(s)" in capsys.readouterr().err
    assert not list(tmp_path.rglob("*.pt"))


def test_a_folder_that_cannot_be_written_is_one_sentence(tmp_path, monkeypatch, capsys) -> None:
    import boardgym.runs

    def refuse(path, data) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(boardgym.runs, "atomic_write_bytes", refuse)
    argv = ["train", "qlearning", "--game", "tictactoe", "--episodes", "5", "--root", str(tmp_path), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Permission denied on" in err and "config.json" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.skipif(getattr(os, "geteuid", lambda: 0)() == 0, reason="root writes anywhere")
def test_a_read_only_root_is_one_sentence(tmp_path, capsys) -> None:
    root = tmp_path / "ro"
    root.mkdir()
    root.chmod(0o555)
    argv = ["train", "qlearning", "--game", "tictactoe", "--episodes", "5", "--root", str(root), "--no-progress"]
    assert main(argv) == 2
    assert "Permission denied" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["qlearning", "montecarlo", "es", "coevolve", "neat", "ppo", "alphazero"])
def test_training_help_names_only_options_that_exist(method: str, capsys) -> None:
    import re

    from boardgym.registry import load
    from boardgym.train import METHODS

    with pytest.raises(SystemExit):
        main(["train", method, "--help"])
    text = capsys.readouterr().out
    module = load(METHODS[method].target.replace(":main", ":Config"))
    from boardgym.config import build_parser as config_parser

    known = set(config_parser(module, "x")._option_string_actions)
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))
    assert named and named <= known, named - known


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "tictactoe", "--agents", "random", "perfect", "--games", "2", "--root", ""],
        ["ladder", "tictactoe", "--games", "2", "--root", " "],
        ["grade", "tictactoe", "--agent", "random", "--root", ""],
    ],
)
def test_an_empty_runs_root_is_one_sentence(argv: list[str], tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert "--root is empty" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
