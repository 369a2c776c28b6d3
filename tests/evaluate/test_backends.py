"""Where games are played (``boardgym.evaluate.backends``): the same games for a seed whatever
the workers, the start method or the process; the Ray backend has tests/evaluate/test_tournament_ray.py."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
import torch

from boardgym import make_agent, make_game
from boardgym.agents import AGENTS, AgentEntry
from boardgym.agents.alphazero.agent import AlphaZeroAgent
from boardgym.agents.random_agent import RandomAgent
from boardgym.evaluate.backends import play_local
from boardgym.evaluate.tournament import RESULTS_FILE, Tournament, TournamentSettings, run_tournament
from boardgym.types import BoardgymError


def moves_by_index(tournament: Tournament) -> dict[int, tuple]:
    return {g.index: (g.seats, g.record.moves, g.record.returns) for g in tournament.games}


def test_reproducible_for_a_seed_whatever_the_workers(tmp_path):
    specs = ["random", "random", "perfect"]
    one = run_tournament("tictactoe", specs, 10, workers=1, seed=5, progress=False)
    two = run_tournament("tictactoe", specs, 10, workers=2, seed=5, out_dir=tmp_path / "a", progress=False)
    again = run_tournament("tictactoe", specs, 10, workers=2, seed=5, out_dir=tmp_path / "b", progress=False)
    other = run_tournament("tictactoe", specs, 10, workers=1, seed=6, progress=False)
    assert len(one.games) == 30
    assert moves_by_index(one) == moves_by_index(two) == moves_by_index(again)
    assert moves_by_index(one) != moves_by_index(other)
    assert [g.index for g in two.games] == list(range(30))


def test_spawned_workers_play_the_same_games():
    specs = ["random", "perfect"]
    spawned = run_tournament("tictactoe", specs, 4, workers=2, seed=9, progress=False, start_method="spawn")
    assert moves_by_index(spawned) == moves_by_index(run_tournament("tictactoe", specs, 4, seed=9, progress=False))


def test_agent_objects_play_in_process():
    game = make_game("tictactoe")
    agent = RandomAgent(game, seed=0)
    agent.spec = "my-random"
    tournament = run_tournament("tictactoe", [agent, "perfect"], 6, seed=0, progress=False, record_moves=False)
    assert tournament.names == ("my-random", "perfect")
    assert all(g.record.moves == () for g in tournament.games)


def test_the_local_backend_plays_each_fixture_once_from_the_settings_alone():
    settings = TournamentSettings("nim", ("random", "random"), 8, seed=2, game_params={"heaps": (1, 2)})
    fixtures = Tournament("nim", {"heaps": (1, 2)}, ("random", "random"), 8, 2).schedule()

    def games(played_games) -> dict[int, tuple]:
        return {g.index: (g.seats, g.record.moves, g.record.returns) for g in played_games}

    here = list(play_local(settings, fixtures))
    pooled = list(play_local(replace(settings, workers=2), fixtures))
    assert [played.index for played in here] == list(range(8))  # in this process: in order
    assert sorted(played.index for played in pooled) == list(range(8))
    assert games(pooled) == games(here)
    assert all(played.record.num_moves <= 3 for played in here)
    assert list(play_local(settings, [])) == []


def test_closing_the_local_backend_early_stops_it():
    settings = TournamentSettings("tictactoe", ("random", "random"), 40, workers=2, seed=0)
    plays = play_local(settings, Tournament("tictactoe", {}, ("random", "random"), 40, 0).schedule())
    first = next(plays)
    plays.close()  # ends the workers; nothing more comes
    assert 0 <= first.index < 40
    assert list(plays) == []


BATCHED = "alphazero:pretrained=true,search=batched,simulations=12"


def _batched_agent(game, temperature: float, counts: Counter[str]) -> AlphaZeroAgent:
    """``BATCHED`` as an object whose network is called one position at a time (the same
    numbers whatever the batch); ``counts`` counts its searches and its calls of the network
    (one a simulation for all the games of a search)."""
    agent = make_agent(f"{BATCHED},temperature={temperature},temperature_moves=2", game, seed=0)
    assert isinstance(agent, AlphaZeroAgent) and agent.batched_search is not None
    search = agent.batched_search
    evaluator, searching = search.evaluator, search.search

    def one_at_a_time(planes: torch.Tensor, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        counts["network calls"] += 1
        rows = [evaluator(planes[k : k + 1], legal[k : k + 1]) for k in range(len(planes))]
        return torch.cat([p for p, _ in rows]), torch.cat([v for _, v in rows])

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts["searches"] += 1
        return searching(*args, **kwargs)

    search.evaluator, search.search = one_at_a_time, counted
    return agent


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_a_batched_agent_plays_a_pairings_games_together_and_the_same_games(temperature: float) -> None:
    game = make_game("tictactoe")
    runs, counts = {}, {1: Counter[str](), 8: Counter[str]()}
    for batch_games in (1, 8):
        agent = _batched_agent(game, temperature, counts[batch_games])
        specs = [agent, "random", "mcts:simulations=20"]
        tournament = run_tournament(
            "tictactoe",
            specs,
            16,
            workers=1,
            seed=4,
            progress=False,
            batch_games=batch_games,
            save_games=3,
            openings="off",
        )
        runs[batch_games] = moves_by_index(tournament)
        infos = [g.record.move_infos for g in tournament.games if g.index < 3]
        assert all(any("visits" in info for info in game_infos) for game_infos in infos[:2])
    assert len(runs[1]) == 48 and runs[1] == runs[8]
    # a search a move, or one for the pairing's games where the agent is on move (up to eight)
    moves = sum(g.record.moves_per_seat[g.seats.index(0)] for g in tournament.games if 0 in g.seats)
    assert counts[1]["searches"] == moves
    assert counts[8]["searches"] * 3 < moves
    # the cache spares most of the lone searches' calls (games repeat positions), not all
    assert counts[8]["network calls"] * 3 < counts[1]["network calls"] * 2


def test_batched_spec_strings_in_workers_play_the_games_of_one_at_a_time(tmp_path) -> None:
    specs = [BATCHED, "random"]
    one = run_tournament("tictactoe", specs, 12, workers=1, seed=2, progress=False, batch_games=1)
    two = run_tournament("tictactoe", specs, 12, workers=2, seed=2, out_dir=tmp_path, progress=False, batch_games=5)
    # the pretrained network in batches: the same games here (its rounding can only split near-ties)
    assert moves_by_index(one) == moves_by_index(two)
    with pytest.raises(BoardgymError, match="batch_games=0"):
        run_tournament("tictactoe", specs, 2, workers=1, progress=False, batch_games=0)


class Interrupting(RandomAgent):
    """Random play that raises at the reset after ``Interrupting.after`` resets in a process."""

    after: int | None = None
    started = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        Interrupting.started += 1
        if Interrupting.after is not None and Interrupting.started > Interrupting.after:
            raise KeyboardInterrupt


def test_resume_after_an_interrupted_batched_pairing(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(AGENTS, "interrupting", AgentEntry(f"{__name__}:Interrupting", "test agent"))
    specs = [BATCHED, "interrupting"]
    full = run_tournament("tictactoe", specs, 12, workers=1, seed=3, progress=False, batch_games=1)
    Interrupting.started, Interrupting.after = 0, 1 + 4  # _check's build, then the first four games together
    try:
        with pytest.raises(KeyboardInterrupt):
            run_tournament("tictactoe", specs, 12, workers=1, seed=3, out_dir=tmp_path, progress=False, batch_games=4)
    finally:
        Interrupting.after = None
    kept = [json.loads(line)["index"] for line in (tmp_path / RESULTS_FILE).read_text().splitlines()]
    assert sorted(kept) == [0, 1, 2, 3]
    resumed = run_tournament(
        "tictactoe", specs, 12, workers=1, seed=3, out_dir=tmp_path, resume=True, progress=False, batch_games=4
    )
    assert moves_by_index(resumed) == moves_by_index(full)
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    assert sorted(json.loads(line)["index"] for line in lines) == list(range(12))
