"""Alpha-beta: known values, exact mode against independent exhaustive search, budgets, specs."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym import BoardgymError, make_agent, make_game
from boardgym.agents.heuristics import make_heuristic
from boardgym.agents.minimax import PROVEN, WIN, AlphaBeta
from boardgym.agents.perfect import PerfectAgent
from boardgym.games.hex import Hex


def replay(game, moves: str):
    state = game.initial_state()
    for text in moves.split():
        state = game.apply(state, game.parse_action(state, text))
    return state


def test_tictactoe_start_is_a_draw() -> None:
    game = make_game("tictactoe")
    search = AlphaBeta(game, make_heuristic(game))
    result = search.search(game.initial_state())
    assert result.value == 0 and result.exact
    assert search.value(game.initial_state()) == 0


def test_tictactoe_exact_mode_never_loses_against_perfect_play() -> None:
    game = make_game("tictactoe")
    for seed in range(4):
        players = [make_agent("minimax:exact=true", game, seed=seed), PerfectAgent(game, seed=seed)]
        if seed % 2:
            players.reverse()
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, players[game.current_player(state)].act(game, state))
        assert game.returns(state) == (0.0, 0.0)


def test_exact_mode_finds_the_3x3_hex_winning_openings() -> None:
    """Black (joining rows 1 and 3) wins 3x3 Hex by opening on the short diagonal c1 b2 a3 or
    on a2 / c2; the other four cells lose. Checked against the independent perfect agent."""
    game = Hex(size=3)
    search = AlphaBeta(game, make_heuristic(game))
    perfect = PerfectAgent(game)
    start = game.initial_state()
    winning = set()
    for action in game.legal_actions(start):
        child = game.apply(start, action)
        value = -search.value(child)  # the child's value is White's
        assert (value > PROVEN) == (perfect.value(child) < 0)
        if value > PROVEN:
            winning.add(game.action_to_str(start, action))
    assert winning == {"c1", "b2", "a3", "a2", "c2"}


def test_exact_mode_solves_3x3_quixo_like_the_perfect_agent() -> None:
    """3x3 Quixo is a first-player win in 7 plies (independent check: exhaustive search)."""
    game = make_game("quixo", size=3, max_moves=9)
    result = AlphaBeta(game, make_heuristic(game)).search(game.initial_state())
    assert result.exact and result.value == WIN - 7
    assert PerfectAgent(game).value(game.initial_state()) == 10_000 - 7
    agent = make_agent("minimax:exact=true", game, seed=0)
    state = game.initial_state()
    while not game.is_terminal(state):  # exact play against itself: the first player wins
        state = game.apply(state, agent.act(game, state))
    assert game.returns(state) == (1.0, -1.0)


CONNECT_FOUR_WIN = "a a b b c g"  # X to move wins with d
CONNECT_FOUR_BLOCK = "a a b b c"  # O to move must play d


@pytest.mark.parametrize("spec", ["minimax:depth=1", "minimax:depth=4", "minimax:time=0.05"])
def test_connect_four_wins_and_blocks(spec: str) -> None:
    game = make_game("connect_four")
    agent = make_agent(spec, game, seed=0)
    assert agent.act(game, replay(game, CONNECT_FOUR_WIN)) == 3
    assert agent.act(game, replay(game, CONNECT_FOUR_BLOCK)) == 3


def test_win_is_proven_and_found_fast() -> None:
    game = make_game("connect_four")
    agent = make_agent("minimax:depth=5", game, seed=0)
    agent.act(game, replay(game, CONNECT_FOUR_WIN))
    assert agent.last is not None and agent.last.value > PROVEN and agent.last.depth == 1


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_hex_dijkstra_blocks_the_last_cell(depth: int) -> None:
    # Black's chain d1..d6 reaches row 7 through d7 or c7; White holds c7 and must take d7.
    game = Hex(size=7)
    state = replay(game, "d1 c7 d2 a1 d3 a2 d4 a3 d5 a4 d6")
    agent = make_agent(f"minimax:depth={depth},eval=dijkstra", game, seed=0)
    assert game.action_to_str(state, agent.act(game, state)) == "d7"


def test_time_budget_returns_a_legal_move() -> None:
    game = Hex(size=7)
    agent = make_agent("minimax:time=0.05", game, seed=0)
    state = game.initial_state()
    assert agent.act(game, state) in game.legal_actions(state)
    assert agent.last is not None and agent.last.depth >= 1


def test_same_seed_same_game() -> None:
    game = make_game("connect_four")
    moves = []
    for _ in range(2):
        agents = [make_agent("minimax:depth=2", game, seed=5), make_agent("minimax:depth=2", game, seed=6)]
        state, played = game.initial_state(), []
        while not game.is_terminal(state):
            action = agents[game.current_player(state)].act(game, state)
            played.append(action)
            state = game.apply(state, action)
        moves.append(played)
    assert moves[0] == moves[1]


def test_bad_specs_are_explained() -> None:
    game = make_game("tictactoe")
    with pytest.raises(BoardgymError, match="depth=0"):
        make_agent("minimax:depth=0", game)
    with pytest.raises(BoardgymError, match="no evaluation 'dijkstra' for tictactoe"):
        make_agent("minimax:eval=dijkstra", game)
    with pytest.raises(BoardgymError, match="leave depth out"):
        make_agent("minimax:depth=3,exact=true", game)
    with pytest.raises(BoardgymError, match="too large to search to the end"):
        make_agent("minimax:exact=true", make_game("connect_four"))
    assert make_agent("minimax:exact=true,time=0.1", make_game("connect_four")) is not None


def test_last_info_holds_depth_nodes_and_score() -> None:
    game = make_game("connect_four")
    agent = make_agent("minimax:depth=3", game, seed=0)
    agent.act(game, game.initial_state())
    assert agent.last_info["depth"] == 3 and agent.last_info["nodes"] > 0 and "score" in agent.last_info


class ConstantScore:
    """A horizon evaluation that is never a game value: 7 for whoever is on move."""

    def evaluate(self, state: object, player: int) -> float:
        return 7.0


def test_table_entries_from_the_heuristic_never_make_a_value_exact() -> None:
    """The table remembers whether a value rested on the evaluation: a later, deeper search
    that finds it must not report its result as exact (the children here were stored by a
    depth-1 search, so the exact search's second iteration met only table hits)."""
    game = make_game("tictactoe")
    state = replay(game, "b2 a1 c1 a3 a2")  # four empty cells, nobody has won
    search = AlphaBeta(game, ConstantScore())
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        if not game.is_terminal(child):
            search.value(child, depth=1)
    result = search.search(state)
    truth = AlphaBeta(game, ConstantScore()).search(state)
    assert truth.exact and abs(truth.value) != 7.0
    assert result.exact and result.value == truth.value


@pytest.mark.parametrize("seed", range(6))
def test_exact_results_agree_with_a_fresh_search_after_depth_limited_ones(seed: int) -> None:
    """One engine kept across positions (as an agent keeps it over a game): after depth-limited
    searches fill its table, every result it calls exact is the game's value. Quixo positions
    recur at other plies, which is how approximate entries meet a later exact search."""
    game = make_game("quixo", size=3, max_moves=12)
    rng = np.random.default_rng(seed)
    search = AlphaBeta(game, ConstantScore(), depth=2)
    state = game.initial_state()
    while not game.is_terminal(state):
        search.depth = 2
        search.search(state)
        search.depth = None
        result = search.search(state)
        truth = AlphaBeta(game, ConstantScore()).search(state)
        assert result.exact == truth.exact
        if result.exact:
            assert result.value == truth.value
        moves = game.legal_actions(state)
        state = game.apply(state, moves[int(rng.integers(len(moves)))])
