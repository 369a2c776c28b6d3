"""Reference ladders: the rungs a game lists, rated in one round robin, written to the run folder."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from boardgym.cli import main
from boardgym.evaluate.ladder import Mistakes, ladder_agents, ladders, run_ladder, set_grader
from boardgym.games import GAMES, make_game
from boardgym.types import BoardgymError


def set_ladder(monkeypatch: pytest.MonkeyPatch, game: str, agents: tuple[str, ...], **params: object) -> None:
    """Give ``game``'s entry another ladder for one test."""
    entry = dataclasses.replace(GAMES[game], ladder=agents, ladder_params=params)
    monkeypatch.setitem(GAMES, game, entry)


def test_every_two_player_game_has_a_ladder_and_only_those() -> None:
    two_player = {name for name in GAMES if make_game(name).num_players == 2}
    assert set(ladders()) == two_player
    for ladder in ladders().values():
        assert ladder.agents[0] == "random" and len(set(ladder.agents)) == len(ladder.agents)


def test_ladder_rates_the_rungs_and_writes_its_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    set_ladder(monkeypatch, "nim", ("random", "nimsum", "no_such_agent:x=1"), heaps=(1, 2, 3))
    graded = {"random": Mistakes(30, 60), "nimsum": Mistakes(0, 60)}
    result = run_ladder("nim", 6, out_dir=tmp_path, grader=graded.get, progress=False, plots=False)
    assert result.skipped.keys() == {"no_such_agent:x=1"}
    assert [s.name for s in result.analysis.standings] == ["nimsum", "random"]
    assert str(result.analysis.standings[0].total) == "6-0-0"
    summary = json.loads((tmp_path / "ladder.json").read_text())
    assert summary["params"] == {"heaps": [1, 2, 3]} and summary["games_per_pair"] == 6
    assert summary["rungs"][0]["agent"] == "nimsum" and summary["rungs"][0]["mistakes"] == 0
    table = (tmp_path / "ladder.md").read_text()
    assert "| 2 | `random` | 0 | anchor | 0-0-6 | 50.0% (" in table
    assert "left out: `no_such_agent:x=1`: no agent named 'no_such_agent'" in table
    assert (tmp_path / "results.jsonl").is_file() and (tmp_path / "report.md").is_file()


def test_rungs_that_cannot_play_the_game_are_left_out_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    set_ladder(monkeypatch, "quarto", ("random", "perfect", "mcts:simulations=10"))
    usable, skipped = ladder_agents("quarto")
    assert usable == ["random", "mcts:simulations=10"]
    assert "too large for the perfect agent" in skipped["perfect"]


def test_unknown_game_is_one_sentence() -> None:
    with pytest.raises(BoardgymError, match="no ladder for 'setcover'.*tictactoe"):
        ladder_agents("setcover")


def test_the_command_refuses_a_game_without_a_ladder_in_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "setcover", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "no ladder for 'setcover'" in err and "Traceback" not in err


def test_ladder_command_prints_the_table_and_refuses_to_overwrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    set_ladder(monkeypatch, "tictactoe", ("random", "perfect"))
    assert main(["ladder", "tictactoe", "--games", "4", "--run-name", "t", "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert "| 1 | `perfect` |" in out and "runs/tictactoe/ladder/t/" in out
    assert Path("runs/tictactoe/ladder/t/ladder.md").is_file()
    assert main(["ladder", "tictactoe", "--games", "4", "--run-name", "t", "--no-plots"]) == 2
    assert "--resume" in capsys.readouterr().err


def test_set_grader_grades_on_the_games_set_and_only_where_one_exists() -> None:
    grader = set_grader("tictactoe", sample=40)
    assert grader is not None
    perfect, random = grader("perfect"), grader("random")
    assert (perfect.mistakes, perfect.positions) == (0, 40)
    assert random.positions == 40 and random.mistakes > 10
    assert set_grader("quarto") is None and set_grader("hex") is None  # hex's ladder is 7x7: no set
    with pytest.raises(BoardgymError, match="grade sample -1"):
        set_grader("tictactoe", sample=-1)
