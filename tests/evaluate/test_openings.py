"""Opening suites, the determinism probe, distinct games and intervals sized by them."""

from __future__ import annotations

import pytest

from boardgym import make_agent, make_game
from boardgym.evaluate.analysis import analyse
from boardgym.evaluate.openings import default_plies, is_deterministic, opening_suite
from boardgym.evaluate.report import console_summary
from boardgym.evaluate.tournament import Tournament, load_tournament, run_tournament
from boardgym.games import GAMES
from boardgym.types import BoardgymError


class FirstLegalAgent:
    """Always the lowest legal action: the same game from the same start, whatever the seed."""

    spec = "first-legal"

    def act(self, game, state):
        return game.legal_actions(state)[0]


class LastLegalAgent:
    spec = "last-legal"

    def act(self, game, state):
        return game.legal_actions(state)[-1]


TWO_PLAYER = [name for name in GAMES if make_game(name).num_players == 2]


def test_default_plies_leave_enough_openings() -> None:
    assert default_plies(make_game("tictactoe")) == 4  # 9 * 8 * 7 = 504 < 1000 <= 3024
    assert default_plies(make_game("connect_four")) == 4  # 343 < 1000 <= 2401
    assert default_plies(make_game("hex")) == 2  # 121 < 1000
    assert default_plies(make_game("nim", heaps=(1,))) == 0  # the only move ends the game


def test_suite_is_distinct_legal_unfinished_and_keeps_its_prefix() -> None:
    game = make_game("connect_four")
    suite = opening_suite(game, 4, 200, seed=3)
    assert len(set(suite)) == 200 and all(len(opening) == 4 for opening in suite)
    for opening in suite:
        state = game.initial_state()
        for action in opening:
            assert action in game.legal_actions(state)
            state = game.apply(state, action)
        assert not game.is_terminal(state)
    assert opening_suite(game, 4, 300, seed=3)[:200] == suite  # more games keep the first openings
    assert opening_suite(game, 4, 200, seed=4) != suite


def test_the_probe_tells_scripted_agents_from_seeded_ones() -> None:
    game = make_game("connect_four")
    assert is_deterministic(lambda seed: FirstLegalAgent(), game, seed=0)
    assert not is_deterministic(lambda seed: make_agent("random", game, seed=seed), game, seed=0)
    assert not is_deterministic(lambda seed: make_agent("mcts:simulations=20", game, seed=seed), game, seed=0)
    rastros = make_game("rastros")
    coevolved = "coevolved:weights=3/2/0/0,depth=1"
    assert is_deterministic(lambda seed: make_agent(coevolved, rastros, seed=seed), rastros, seed=0)


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_four_hundred_games_of_deterministic_agents_hold_at_least_a_hundred_distinct(name: str) -> None:
    """Acceptance: the default suite (on, since the agents are deterministic) on every game."""
    for agents in ([FirstLegalAgent(), LastLegalAgent()], [FirstLegalAgent(), FirstLegalAgent()]):
        tournament = run_tournament(name, agents, 400, progress=False)
        assert tournament.opening_plies > 0
        assert tournament.distinct_games() >= 100, (name, tournament.distinct_games())


def test_without_the_suite_repeats_are_counted_once_in_the_intervals() -> None:
    tournament = run_tournament("tictactoe", [FirstLegalAgent(), LastLegalAgent()], 40, openings="off", progress=False)
    assert tournament.opening_plies == 0 and tournament.distinct_games() == 2
    analysis = analyse(tournament)
    assert analysis.games == 40 and analysis.distinct_games == 2
    for standing in analysis.standings:
        assert standing.total.games == 40 and standing.distinct == 2
        low, high = standing.win_rate_interval
        assert high - low > 0.5  # two independent games say little, whatever their 40 copies say
    elo = analysis.elo
    assert elo is not None
    rating = elo.ratings["last-legal"]
    assert rating.high - rating.low > 400
    assert "2 distinct games of 40" in console_summary(tournament, analysis)
    warning = tournament.repeats_warning()
    assert warning is not None and "only 2 of the 40 games differ" in warning and "--openings on" in warning


def test_auto_leaves_seeded_agents_alone_and_on_forces_the_suite() -> None:
    plain = run_tournament("tictactoe", ["random", "perfect"], 4, seed=2, progress=False)
    assert plain.opening_plies == 0 and all(g.record.opening == 0 for g in plain.games)
    forced = run_tournament("tictactoe", ["random", "perfect"], 4, seed=2, openings="on", progress=False)
    assert forced.opening_plies == 4
    by_round = [g.record.moves[:4] for g in forced.games]
    assert by_round[0] == by_round[1] and by_round[2] == by_round[3] and by_round[0] != by_round[2]
    assert all(g.record.opening == 4 for g in forced.games)
    # Plies asked for by name turn the suite on under auto; off still wins.
    asked = run_tournament("tictactoe", ["random", "perfect"], 4, seed=2, opening_plies=2, progress=False)
    assert asked.opening_plies == 2 and all(g.record.opening == 2 for g in asked.games)
    off = run_tournament("tictactoe", ["random", "perfect"], 4, seed=2, openings="off", opening_plies=2, progress=False)
    assert off.opening_plies == 0


def test_suite_survives_files_and_resume(tmp_path) -> None:
    agents = ["coevolved:weights=3/2/0/0,depth=1", "coevolved:weights=1/1/0/0,depth=1"]
    first = run_tournament("rastros", agents, 6, seed=1, out_dir=tmp_path, progress=False)
    assert first.opening_plies > 0
    loaded = load_tournament(tmp_path)
    assert loaded.opening_plies == first.opening_plies
    assert [g.record.moves for g in loaded.games] == [g.record.moves for g in first.games]
    longer = run_tournament("rastros", agents, 10, seed=1, out_dir=tmp_path, resume=True, progress=False)
    again = run_tournament("rastros", agents, 10, seed=1, progress=False)
    assert [g.record.moves for g in longer.games] == [g.record.moves for g in again.games]


def test_schedule_pairs_rounds_on_one_opening() -> None:
    tournament = Tournament("connect_four", {}, ("a", "b", "c"), 4, seed=0, opening_plies=3)
    fixtures = tournament.schedule()
    for pairing in tournament.pairings:
        mine = [f for f in fixtures if set(f.seats) == set(pairing)]
        assert mine[0].opening == mine[1].opening != mine[2].opening == mine[3].opening
        assert mine[0].seats == mine[1].seats[::-1]


def test_openings_longer_than_any_game_are_one_sentence() -> None:
    with pytest.raises(BoardgymError, match="every random opening of 999 plies ended the game"):
        opening_suite(make_game("tictactoe"), 999, 4, seed=0)
