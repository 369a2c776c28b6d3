"""play_match and play_games on tic-tac-toe and Nim, with known-answer agents."""

from __future__ import annotations

import pytest

from boardgym import make_agent, make_game
from boardgym.evaluate.match import DRAW, Match, MatchRecord, game_seed, play_games, play_lockstep, play_match
from boardgym.types import BoardgymError


class FirstLegalAgent:
    """Always the lowest legal action: a fixed, scripted line of play."""

    spec = "first-legal"

    def act(self, game, state):
        return game.legal_actions(state)[0]


class IllegalAgent:
    spec = "illegal"

    def act(self, game, state):
        return 99


def test_scripted_game_record():
    game = make_game("tictactoe")
    # X takes 0, O 1, X 2, O 3, X 4, O 5, X 6: X completes the 2-4-6 diagonal on move 7.
    record = play_match(game, [FirstLegalAgent(), FirstLegalAgent()], seed=0)
    assert record.moves == (0, 1, 2, 3, 4, 5, 6)
    assert record.winner == 0
    assert record.returns == (1.0, -1.0)
    assert record.num_moves == 7
    assert record.first_player == 0
    assert record.moves_per_seat == (4, 3)
    assert record.agents == ("first-legal", "first-legal")
    assert all(t >= 0.0 for t in record.seconds_per_move)


def test_record_round_trips_through_dict():
    game = make_game("tictactoe")
    record = play_match(game, ["random", "random"], seed=3)
    assert MatchRecord.from_dict(record.to_dict()) == record


def test_match_is_reproducible_from_seed_and_index():
    game = make_game("tictactoe")
    first = play_match(game, ["random", "random"], seed=11, index=5)
    again = play_match(game, ["random", "random"], seed=11, index=5)
    other = [play_match(game, ["random", "random"], seed=11, index=i).moves for i in range(6)]
    assert first.moves == again.moves
    assert len(set(other)) > 1


def test_agent_objects_are_reset_per_game():
    game = make_game("tictactoe")
    a, b = make_agent("random", game), make_agent("random", game)
    from_objects = play_match(game, [a, b], seed=4, index=2)
    from_specs = play_match(game, ["random", "random"], seed=4, index=2)
    assert from_objects.moves == from_specs.moves


def test_perfect_never_loses_to_random():
    game = make_game("tictactoe")
    summary = play_games(game, "perfect", "random", 40, seed=1)
    assert summary.losses == 0
    assert summary.games == 40
    assert summary.wins > 20
    low, high = summary.win_rate_interval()
    assert low <= summary.win_rate <= high


def test_perfect_against_itself_always_draws():
    summary = play_games(make_game("tictactoe"), "perfect", "perfect", 6, seed=0)
    assert (summary.wins, summary.draws, summary.losses) == (0, 6, 0)
    assert summary.score == 0.5


def test_play_games_alternates_seats():
    # First-legal play always wins for whoever moves first, so A wins exactly the even games.
    summary = play_games(make_game("tictactoe"), FirstLegalAgent(), FirstLegalAgent(), 5, seed=0)
    assert (summary.wins, summary.draws, summary.losses) == (3, 0, 2)
    assert summary.mean_length == 7


def test_nim_has_no_draws():
    summary = play_games(make_game("nim"), "random", "random", 20, seed=2)
    assert summary.draws == 0 and summary.wins + summary.losses == 20


def test_illegal_move_names_the_agent():
    with pytest.raises(BoardgymError, match="illegal"):
        play_match(make_game("tictactoe"), [IllegalAgent(), "random"], seed=0)


def test_wrong_number_of_agents():
    with pytest.raises(BoardgymError, match="needs 2 agent"):
        play_match(make_game("tictactoe"), ["random"], seed=0)


def test_draw_constant_and_seed_derivation():
    assert DRAW not in (0, 1)
    assert game_seed(None, 3, 0) is None
    assert game_seed(1, 0, 0) != game_seed(1, 0, 1) != game_seed(1, 1, 1)


class CountingBatcher:
    """Lowest legal move for a whole batch at once: a ``BatchAgent`` that counts its calls."""

    spec = "batcher"
    acts_in_batches = True
    batch_key = "batcher"
    calls: list[int] = []

    def __init__(self, wrong: bool = False) -> None:
        self.wrong = wrong

    def act(self, game, state):
        return game.legal_actions(state)[0]

    def reset(self, seed=None):
        pass

    def fork(self):
        return CountingBatcher(self.wrong)

    def act_batch(self, game, states, players):
        CountingBatcher.calls.append(len(states))
        moves = [game.legal_actions(state)[0] for state in states]
        return moves[:-1] if self.wrong else moves


def test_lockstep_plays_the_games_play_match_plays_and_batches_the_batch_agents_moves():
    game = make_game("tictactoe")
    CountingBatcher.calls = []
    seats = [(0, 1) if k % 2 == 0 else (1, 0) for k in range(6)]
    matches = []
    for k, order in enumerate(seats):
        agents = [CountingBatcher(), make_agent("random", game)]
        matches.append(Match(game, [agents[i] for i in order], seed=3, index=k, opening=(4,) if k < 2 else ()))
    records = dict(play_lockstep(game, matches))
    assert sorted(records) == list(range(6))
    for k, order in enumerate(seats):
        agents = [FirstLegalAgent(), "random"]
        alone = play_match(game, [agents[i] for i in order], seed=3, index=k, opening=(4,) if k < 2 else ())
        assert records[k].moves == alone.moves and records[k].returns == alone.returns
    batcher_moves = sum(records[k].moves_per_seat[order.index(0)] for k, order in enumerate(seats))
    assert sum(CountingBatcher.calls) == batcher_moves and max(CountingBatcher.calls) > 1
    with pytest.raises(BoardgymError, match="returned 1 moves for 2 games"):
        dict(play_lockstep(game, [Match(game, [CountingBatcher(wrong=True), "random"], seed=0) for _ in range(2)]))
