"""Where games are played (``boardgym.evaluate.backends``): the same games for a seed whatever
the workers, the start method or the process; the Ray backend has tests/evaluate/test_tournament_ray.py."""

from __future__ import annotations

from dataclasses import replace

from boardgym import make_game
from boardgym.agents.random_agent import RandomAgent
from boardgym.evaluate.backends import play_local
from boardgym.evaluate.tournament import Tournament, TournamentSettings, run_tournament


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
