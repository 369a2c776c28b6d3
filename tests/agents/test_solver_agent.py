"""The solver agent: proved moves within its budget, bounds when time runs out."""

from __future__ import annotations

import pytest

from boardgym.agents.registry import make_agent
from boardgym.evaluate.match import play_match
from boardgym.games.connect_four import ConnectFour
from boardgym.games.tictactoe import TicTacToe
from boardgym.solve.connect_four import Solver, state_from_moves
from boardgym.types import BoardgymError


def test_late_position_is_played_exactly() -> None:
    game = ConnectFour()
    state = state_from_moves("2252576253462244111563365343671351441")  # score -1, columns 6 and 7 open
    agent = make_agent("solver:time=5", game, seed=0)
    action = agent.act(game, state)
    assert agent.last_info["exact"] is True
    scores = Solver().move_scores(state)
    assert scores[action] == max(scores.values()) == -1
    assert agent.last_info["score"] in (None, -1)  # proved best, perhaps without its exact score


def test_takes_a_win_and_blocks_a_threat() -> None:
    game = ConnectFour()
    agent = make_agent("solver:time=2", game, seed=0)
    assert agent.act(game, state_from_moves("121212")) == 0  # three in column a: win there
    assert agent.act(game, state_from_moves("12121")) == 0  # O must block column a


def test_middle_position_best_move_within_budget() -> None:
    game = ConnectFour()
    state = state_from_moves("5554224333234511764415115")  # Middle-Easy, score 4 (only f wins)
    agent = make_agent("solver:time=30", game, seed=1)
    assert agent.act(game, state) == 5
    assert agent.last_info["exact"] is True


def test_a_tiny_budget_gives_bounds_not_a_proof() -> None:
    game = ConnectFour()
    agent = make_agent("solver:time=0.001", game, seed=0)
    action = agent.act(game, game.initial_state())
    assert action in game.legal_actions(game.initial_state())
    info = agent.last_info
    assert info["exact"] is False
    assert set(info["bounds"]) == set("abcdefg")
    assert all(low <= high for low, high in info["bounds"].values())


def test_refuses_other_games_and_bad_budgets() -> None:
    with pytest.raises(BoardgymError, match="connect_four only"):
        make_agent("solver", TicTacToe())
    with pytest.raises(BoardgymError, match="positive number of seconds"):
        make_agent("solver:time=0", ConnectFour())


def test_beats_random_from_the_first_move() -> None:
    game = ConnectFour()
    record = play_match(game, ["solver:time=0.2", "random"], seed=3)
    assert record.winner == 0
