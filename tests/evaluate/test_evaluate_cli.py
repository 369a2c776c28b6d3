"""`boardgym evaluate`: the command a user runs, on every registered game."""

from __future__ import annotations

import json

import pytest

from boardgym.agents import AGENTS, AgentEntry
from boardgym.agents.random_agent import RandomAgent
from boardgym.cli import main
from boardgym.games import GAMES


class FailingAgent(RandomAgent):
    """Random play that raises ``FailingAgent.error`` from its fifth game on (None: never)."""

    error: type[BaseException] | None = None
    games = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        FailingAgent.games += 1
        if FailingAgent.error is not None and FailingAgent.games > 4:
            raise FailingAgent.error("agent failure")


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_evaluate_prints_leaderboard_and_writes_the_run_folder(tmp_path, capsys):
    code = main(
        ["evaluate", "tictactoe", "--agents", "random", "perfect", "--games", "20", "--workers", "2"]
        + ["--run-name", "t1"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "| 1 | perfect |" in out and "first-move advantage" in out and "moving first" in out
    folder = tmp_path / "runs" / "tictactoe" / "evaluate" / "t1"
    assert "runs/tictactoe/evaluate/t1" in out
    for name in ("report.md", "summary.json", "results.jsonl", "tournament.json", "ratings.png"):
        assert (folder / name).is_file()
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["standings"][0]["agent"] == "perfect" and summary["standings"][0]["losses"] == 0


def test_resume_extends_and_a_taken_name_is_refused(tmp_path, capsys):
    args = ["evaluate", "nim", "-p", "heaps=1,2,3", "--agents", "random", "nimsum", "--workers", "1", "--no-plots"]
    assert main(args + ["--games", "4", "--run-name", "n"]) == 0
    assert main(args + ["--games", "4", "--run-name", "n"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(args + ["--games", "8", "--resume"]) == 0  # the newest run when no name is given
    lines = (tmp_path / "runs" / "nim" / "evaluate" / "n" / "results.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["index"] for line in lines) == list(range(8))


@pytest.mark.parametrize(
    "args, message",
    [
        (["chess", "--agents", "random", "random"], "unknown game"),
        (["tictactoe", "--agents", "random", "minimax:deep=3"], "no parameter 'deep'"),
        (["tictactoe", "--agents", "random", "human"], "human agent cannot"),
        (["tictactoe", "--agents", "random"], "at least two agents"),
        (["nim", "-p", "rows=3", "--agents", "random", "random"], "unknown parameter"),
        (["tictactoe", "--agents", "random", "random", "--batch-games", "0"], "--batch-games"),
    ],
)
def test_user_errors_are_one_clear_line(args, message, capsys, tmp_path):
    assert main(["evaluate", *args, "--games", "2", "--workers", "1"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("results.jsonl"))


@pytest.mark.parametrize("game", list(GAMES))
def test_every_registered_game_runs(game, capsys):
    agents = ["random", "random"]
    assert main(["evaluate", game, "--agents", *agents, "--games", "2", "--workers", "1", "--no-plots"]) == 0
    assert "| 1 | random" in capsys.readouterr().out


@pytest.mark.parametrize("error, code", [(KeyboardInterrupt, 130), (RuntimeError, None)])
def test_a_failure_keeps_the_finished_games_for_resume(error, code, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(AGENTS, "failing", AgentEntry(f"{__name__}:FailingAgent", "test agent"))
    monkeypatch.setattr(FailingAgent, "games", 0)
    monkeypatch.setattr(FailingAgent, "error", error)
    args = ["evaluate", "tictactoe", "--agents", "failing", "random", "--games", "10", "--workers", "1"]
    args += ["--run-name", "f", "--no-plots"]
    if code is None:
        with pytest.raises(error):
            main(args)
    else:
        assert main(args) == code
    err = capsys.readouterr().err
    assert "runs/tictactoe/evaluate/f/results.jsonl" in err
    results = tmp_path / "runs" / "tictactoe" / "evaluate" / "f" / "results.jsonl"
    assert len(results.read_text().splitlines()) == 4
    monkeypatch.setattr(FailingAgent, "error", None)
    assert main([*args, "--resume"]) == 0
    assert len(results.read_text().splitlines()) == 10


def test_evaluate_takes_a_runs_root(tmp_path, capsys) -> None:
    from boardgym.cli import main

    root = tmp_path / "elsewhere"
    argv = ["evaluate", "tictactoe", "--agents", "random", "perfect", "--games", "2", "--root", str(root)]
    assert main([*argv, "--run-name", "r", "--no-plots"]) == 0
    assert (root / "tictactoe" / "evaluate" / "r" / "results.jsonl").is_file()


class Terminal:
    """A stderr that says it is a terminal and keeps what is written to it."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("flag", [[], ["--no-progress"]])
def test_evaluate_no_progress_turns_the_bar_off_on_a_terminal(flag, monkeypatch, capsys) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    argv = ["evaluate", "nim", "--agents", "random", "nimsum", "--games", "2", "--workers", "1"]
    assert main([*argv, "--no-plots", "--run-name", f"p{len(flag)}", *flag]) == 0
    assert ("nim games" in terminal.text) == (not flag)


def test_evaluate_in_a_log_file_draws_no_bar(tmp_path, monkeypatch) -> None:
    log = (tmp_path / "log.txt").open("w")
    monkeypatch.setattr("sys.stderr", log)
    argv = ["evaluate", "nim", "--agents", "random", "nimsum", "--games", "2", "--workers", "1"]
    assert main([*argv, "--no-plots"]) == 0
    log.close()
    assert "games" not in (tmp_path / "log.txt").read_text()
