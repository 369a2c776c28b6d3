"""The rules' own random playouts (``HasRandomPlayout``: Hex, Connect Four) follow the outcome
distribution of the generic ``legal_actions``/``apply`` loop (``generic_playout``)."""

from __future__ import annotations

import random

import pytest

from boardgym import make_game
from boardgym.game import Game, HasRandomPlayout, generic_playout
from boardgym.games.connect_four import ConnectFour
from boardgym.games.hex import Hex


def replay(game: Game, moves: str):
    state = game.initial_state()
    for text in moves.split():
        state = game.apply(state, game.parse_action(state, text))
    return state


CASES = [
    (Hex(size=5), "c3 b4 d2"),  # White to move on 5x5
    (Hex(size=5), "c3 b4"),
    (Hex(size=4), ""),  # the empty board
    (Hex(size=4, swap=True), ""),  # Black's first stone, then White may swap
    (Hex(size=4, swap=True), "b2"),  # White to move: the swap is one of the moves
    (Hex(size=4, swap=True), "b2 swap"),  # swapped: b2 is White's now, Black to move
    (Hex(size=4, swap=True), "b2 c3"),  # no swap any more
    (ConnectFour(), "d d c e"),
    (ConnectFour(), "d c d c d"),  # O to move facing a threat on d
    (ConnectFour(), ""),
]


@pytest.mark.parametrize(("game", "moves"), CASES, ids=[f"{g!r} {m}" for g, m in CASES])
def test_own_playout_matches_the_generic_loop(game: Game, moves: str) -> None:
    assert isinstance(game, HasRandomPlayout)
    state = replay(game, moves)
    for player in (0, 1):
        runs = 3000
        own = random.Random(1)
        generic = random.Random(2)
        own_mean = sum(game.random_playout(state, player, own) for _ in range(runs)) / runs
        generic_mean = sum(generic_playout(game, state, player, generic) for _ in range(runs)) / runs
        # Each mean has a standard error below 0.02; 0.08 is over three standard errors of the gap.
        assert own_mean == pytest.approx(generic_mean, abs=0.08)


@pytest.mark.parametrize(
    ("game", "moves"), CASES[:3] + CASES[-3:], ids=[f"{g!r} {m}" for g, m in CASES[:3] + CASES[-3:]]
)
def test_results_are_zero_sum_and_seeded(game: Game, moves: str) -> None:
    state = replay(game, moves)
    for seed in range(20):
        black = game.random_playout(state, 0, random.Random(seed))
        assert black in (-1.0, 0.0, 1.0)
        assert game.random_playout(state, 1, random.Random(seed)) == -black
        assert game.random_playout(state, 0, random.Random(seed)) == black


def exact_random_value(game: Game, state, player: int) -> float:
    """The expected result for ``player`` of uniformly random play from ``state``, exactly."""
    memo: dict = {}

    def value(node) -> float:
        if node not in memo:
            if game.is_terminal(node):
                memo[node] = game.returns(node)[player]
            else:
                legal = game.legal_actions(node)
                memo[node] = sum(value(game.apply(node, a)) for a in legal) / len(legal)
        return memo[node]

    return value(state)


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("moves", ["", "b2", "c1"])
def test_hex_playout_matches_the_exact_value_of_random_play(swap: bool, moves: str) -> None:
    """On 3x3 the swap changes Black's expected result by about 0.1 (0.486 -> 0.378 after b2),
    so a playout that ignored the swap move would miss the exact value by far more than 0.05."""
    game = Hex(size=3, swap=swap)
    state = replay(game, moves)
    rng = random.Random(3)
    runs = 4000
    mean = sum(game.random_playout(state, 0, rng) for _ in range(runs)) / runs
    # The standard error is below 0.016: 0.05 is over three of them.
    assert mean == pytest.approx(exact_random_value(game, state, 0), abs=0.05)


def test_connect_four_playout_sees_the_immediate_win() -> None:
    game = ConnectFour()
    state = replay(game, "a a b b c g")  # X to move; X wins at d unless random play misses it
    results = {game.random_playout(state, 0, random.Random(seed)) for seed in range(200)}
    assert results <= {1.0, -1.0, 0.0} and 1.0 in results


@pytest.mark.parametrize("game", [Hex(size=3), Hex(size=3, swap=True), ConnectFour()], ids=repr)
def test_a_finished_game_gives_its_result(game: Game) -> None:
    state = game.initial_state()
    rng = random.Random(0)
    while not game.is_terminal(state):
        legal = game.legal_actions(state)
        state = game.apply(state, legal[rng.randrange(len(legal))])
    for player in (0, 1):
        assert game.random_playout(state, player, random.Random(0)) == game.returns(state)[player]


def test_hex_swap_playouts_leave_the_state_alone() -> None:
    game = Hex(size=4, swap=True)
    start = game.initial_state()
    game.random_playout(start, 0, random.Random(0))
    assert start == game.initial_state()


def test_games_without_their_own_playout_do_not_declare_one() -> None:
    assert not isinstance(make_game("tictactoe"), HasRandomPlayout)
    assert not isinstance(make_game("quixo"), HasRandomPlayout)


class ScriptedBits:
    """A generator whose ``getrandbits`` returns scripted draws, then zeros."""

    def __init__(self, draws: list[int]) -> None:
        self.draws = list(draws)
        self.calls = 0

    def getrandbits(self, k: int) -> int:
        self.calls += 1
        return self.draws.pop(0) if self.draws else 0


def test_connect_four_playout_draws_columns_exactly_uniformly() -> None:
    """Draws are taken modulo the open columns below a cap that every count 1..7 divides; a
    draw at or above it is redrawn, never used (it would favour the first columns)."""
    from boardgym.games import connect_four

    cap = connect_four._DRAW_CAP
    assert all(cap % n == 0 for n in range(1, 8))
    assert cap < 1 << connect_four._DRAW_BITS < cap + 420
    game = ConnectFour()
    state = replay(game, "d d c e")
    plain = ScriptedBits([])
    redrawn = ScriptedBits([cap, (1 << connect_four._DRAW_BITS) - 1])
    result = game.random_playout(state, 0, plain)  # always the leftmost open column
    assert game.random_playout(state, 0, redrawn) == result
    assert redrawn.calls == plain.calls + 2
    # Zeros pick the leftmost open column every move: the game the rules play with the first
    # legal move every time.
    moves = replay(game, "d d c e")
    while not game.is_terminal(moves):
        moves = game.apply(moves, game.legal_actions(moves)[0])
    assert result == game.returns(moves)[0]
