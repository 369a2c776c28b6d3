"""A tournament's folder (``boardgym.evaluate.results``): the files written, interrupted runs,
torn lines and --resume."""

from __future__ import annotations

import json

import pytest

from boardgym.agents import AGENTS, AgentEntry
from boardgym.agents.random_agent import RandomAgent
from boardgym.evaluate.results import _read_results, saved_opening_plies
from boardgym.evaluate.tournament import RESULTS_FILE, SETTINGS_FILE, Tournament, load_tournament, run_tournament
from boardgym.types import BoardgymError


class CrashingAgent(RandomAgent):
    """Random play that raises once it has started ``CrashingAgent.after`` games in a process."""

    after: int | None = None
    started = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        CrashingAgent.started += 1
        if CrashingAgent.after is not None and CrashingAgent.started > CrashingAgent.after:
            raise KeyboardInterrupt


@pytest.fixture
def crashing(monkeypatch):
    """Registers ``crashing`` (workers inherit it through fork) and disarms it afterwards."""
    monkeypatch.setitem(AGENTS, "crashing", AgentEntry(f"{__name__}:CrashingAgent", "test agent"))
    CrashingAgent.started = 0
    yield CrashingAgent
    CrashingAgent.after = None


def moves_by_index(tournament: Tournament) -> dict[int, tuple]:
    return {g.index: (g.seats, g.record.moves, g.record.returns) for g in tournament.games}


def test_perfect_never_loses_and_files_are_written(tmp_path):
    tournament = run_tournament(
        "tictactoe", ["random", "perfect"], 50, workers=2, seed=0, out_dir=tmp_path, progress=False
    )
    perfect_losses = [g for g in tournament.games if g.record.winner != -1 and g.seats[g.record.winner] == 0]
    assert perfect_losses == []
    settings = json.loads((tmp_path / SETTINGS_FILE).read_text())
    assert settings["agents"] == ["random", "perfect"] and settings["games_per_pair"] == 50
    assert len((tmp_path / RESULTS_FILE).read_text().splitlines()) == 50
    assert moves_by_index(load_tournament(tmp_path)) == moves_by_index(tournament)


@pytest.mark.parametrize("workers", [1, 2])
def test_interrupted_run_keeps_games_and_resume_plays_only_the_rest(tmp_path, crashing, workers):
    specs = ["crashing", "random"]
    full = run_tournament("tictactoe", specs, 40, workers=1, seed=3, progress=False)
    crashing.started = 0
    crashing.after = 2 * 9  # two agents reset per game: about nine games in each process
    with pytest.raises(KeyboardInterrupt):
        run_tournament("tictactoe", specs, 40, workers=workers, seed=3, out_dir=tmp_path, progress=False)
    crashing.after = None
    kept = load_tournament(tmp_path)
    assert 0 < len(kept.games) < 40
    # a torn last line, as left by a kill in the middle of a write, is dropped on resume
    with open(tmp_path / RESULTS_FILE, "a") as handle:
        handle.write('{"index": 39, "seats": [1, 0], "age')
    with pytest.raises(BoardgymError, match="--resume"):
        run_tournament("tictactoe", specs, 40, workers=workers, seed=3, out_dir=tmp_path, progress=False)
    before = {g.index for g in kept.games}
    crashing.started = 0
    resumed = run_tournament(
        "tictactoe", specs, 40, workers=workers, seed=3, out_dir=tmp_path, resume=True, progress=False
    )
    assert moves_by_index(resumed) == moves_by_index(full)
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    indices = [json.loads(line)["index"] for line in lines]
    assert sorted(indices) == list(range(40))  # each game once: the kept ones were not replayed
    assert set(indices[: len(before)]) == before


def test_resume_extends_a_finished_tournament(tmp_path):
    first = run_tournament("nim", ["random", "random"], 6, seed=1, out_dir=tmp_path, progress=False)
    longer = run_tournament("nim", ["random", "random"], 10, seed=1, out_dir=tmp_path, resume=True, progress=False)
    assert len(longer.games) == 10
    assert moves_by_index(longer).items() >= moves_by_index(first).items()
    assert moves_by_index(longer) == moves_by_index(
        run_tournament("nim", ["random", "random"], 10, seed=1, progress=False)
    )


def test_resume_refuses_other_settings(tmp_path):
    run_tournament("tictactoe", ["random", "random"], 2, seed=1, out_dir=tmp_path, progress=False)
    with pytest.raises(BoardgymError, match="seed was 1, now 2"):
        run_tournament("tictactoe", ["random", "random"], 2, seed=2, out_dir=tmp_path, resume=True, progress=False)


def test_reading_results_skips_torn_and_blank_lines_and_keeps_the_last_copy(tmp_path):
    run_tournament("nim", ["random", "random"], 3, seed=4, out_dir=tmp_path, progress=False)
    path = tmp_path / RESULTS_FILE
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[1] + "\n" + lines[0] + lines[2] + lines[1] + lines[2][:15])
    games, unreadable = _read_results(path)
    assert [g.index for g in games] == [0, 1, 2] and unreadable == 1
    assert [g.to_json() + "\n" for g in games] == lines
    assert _read_results(tmp_path / "nothing.jsonl") == ([], 0)


def test_load_tournament_needs_the_settings_and_old_runs_have_no_openings(tmp_path):
    with pytest.raises(BoardgymError, match=f"holds no {SETTINGS_FILE}; pass the folder of a `boardgym evaluate` run"):
        load_tournament(tmp_path)
    assert saved_opening_plies(tmp_path) is None
    run_tournament("tictactoe", ["perfect", "perfect"], 2, seed=0, out_dir=tmp_path, progress=False, opening_plies=2)
    assert saved_opening_plies(tmp_path) == load_tournament(tmp_path).opening_plies == 2
    settings = json.loads((tmp_path / SETTINGS_FILE).read_text())
    del settings["opening_plies"]  # as written before opening suites
    (tmp_path / SETTINGS_FILE).write_text(json.dumps(settings))
    assert saved_opening_plies(tmp_path) == load_tournament(tmp_path).opening_plies == 0
