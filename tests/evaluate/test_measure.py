"""``measure`` plays the tournament ``boardgym evaluate`` plays: the command it prints, run,
gives the same wins, draws and losses, with the opening suite on for a deterministic agent."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from boardgym import make_agent, make_game
from boardgym.cli import main
from boardgym.evaluate.measure import measure, report
from boardgym.types import BoardgymError


@pytest.mark.parametrize(("game", "params"), [("tictactoe", {}), ("nim", {"heaps": (1, 3, 5)})])
def test_the_printed_command_plays_the_same_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str, params: dict
) -> None:
    monkeypatch.chdir(tmp_path)
    live = make_agent("minimax:depth=2", make_game(game, **params))  # an object, as a script's live model
    result = measure(game, live, "random", 24, seed=3, spec="minimax:depth=2", game_params=params)
    assert result.games == 24
    if game == "tictactoe":  # a deterministic agent: the suite is on
        assert result.opening_plies == 4 and "random opening moves" in result.describe()
    words = shlex.split(result.command)
    assert words[:3] == ["boardgym", "evaluate", game] and words[-2:] == ["--seed", "3"]
    assert main([*words[1:], "--no-plots", "--run-name", "m", "--workers", "1"]) == 0
    summary = json.loads((tmp_path / "runs" / game / "evaluate" / "m" / "summary.json").read_text())
    (row,) = [row for row in summary["standings"] if row["agent"] == "minimax:depth=2"]
    assert (row["wins"], row["draws"], row["losses"]) == (result.wins, result.draws, result.losses)
    assert summary["opening_plies"] == result.opening_plies


def test_random_against_random_starts_at_the_start_and_an_object_needs_its_spec() -> None:
    result = measure("tictactoe", "random", "random", 10, seed=0)
    assert result.opening_plies == 0 and "from the start" in result.describe()
    with pytest.raises(BoardgymError, match="spec="):
        measure("tictactoe", make_agent("random", make_game("tictactoe")), "random", 10)


def test_report_prints_the_model_its_command_and_the_results_as_the_last_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = measure("tictactoe", "random", "random", games=4, seed=0)
    after = measure("tictactoe", "perfect", "random", games=4, seed=0)
    results = report("tictactoe", "model.pt", before, after, play="perfect", env_steps_per_second=12.5)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "model: model.pt (play it: boardgym play tictactoe --opponent perfect)"
    assert lines[1] == f"against random: {after.describe()}"
    assert lines[2] == f"the same games, ranked by boardgym: {after.command}"
    assert json.loads(lines[-1]) == results
    assert list(results) == ["win_rate_before", "win_rate_after", "env_steps_per_second", "model", "evaluate"]
    assert results["win_rate_after"] == after.win_rate and results["evaluate"] == after.command
