"""Connect Four rules on scripted positions (columns played, and ASCII boards)."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym import BoardgymError, IllegalActionError, make_game
from boardgym.games.connect_four import LINES, ConnectFour, outcome, state_from_planes, state_from_stones, stones

GAME = make_game("connect_four")


def play(columns: str):
    state = GAME.initial_state()
    for column in columns:
        state = GAME.apply(state, "abcdefg".index(column))
    return state


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        ("abababa", 0),  # vertical, X in column a
        ("aabbccd", 0),  # horizontal, bottom row a-d
        ("abbccdcdddd", None),  # no line yet after these: checked below
        ("gabcdefgabcdef", None),
    ],
)
def test_scripted_games(moves: str, winner: int | None) -> None:
    state = play(moves)
    if winner is None:
        assert not GAME.is_terminal(state)
    else:
        assert GAME.is_terminal(state) and GAME.returns(state)[winner] == 1


def test_diagonal_wins_both_ways() -> None:
    rising = play("abbccdccddd")  # X on a1 b2 c3 d4
    assert GAME.is_terminal(rising) and GAME.returns(rising) == (1.0, -1.0)
    falling = play("gffeedeeddd")  # X on g1 f2 e3 d4
    assert GAME.is_terminal(falling) and GAME.returns(falling) == (1.0, -1.0)


def test_board_drawing_matches_the_moves() -> None:
    text = GAME.render(play("dde"))
    assert text.splitlines()[4] == "2  .  .  .  O  .  .  ."
    assert text.splitlines()[5] == "1  .  .  .  X  X  .  ."


def test_full_column_is_illegal() -> None:
    state = play("aaaaaa")
    assert 0 not in GAME.legal_actions(state)
    with pytest.raises(IllegalActionError, match="not legal"):
        GAME.apply(state, 0)


def test_full_board_is_a_draw() -> None:
    moves = "ddacfefgeccddffcceddbbcbffaeaeeggggabagabb"
    state = play(moves[:-1])
    assert not GAME.is_terminal(state)
    state = GAME.apply(state, GAME.parse_action(state, moves[-1]))
    assert GAME.render(state).splitlines()[:6] == [
        "6  O  O  X  O  X  O  X",
        "5  O  X  X  X  O  X  X",
        "4  O  X  O  X  O  X  O",
        "3  X  O  X  O  O  O  X",
        "2  X  O  O  O  X  X  O",
        "1  X  X  O  X  O  X  O",
    ]
    assert GAME.is_terminal(state) and GAME.returns(state) == (0.0, 0.0)


def test_observation_rows_run_top_down() -> None:
    planes = GAME.observation(play("d"), 0)
    assert planes.shape == (2, 6, 7)
    assert planes[0, 5, 3] == 1 and planes.sum() == 1


def test_states_are_plain_tuples_and_stones_round_trip() -> None:
    state = play("ddc")  # X on d1 and c1, O on d2; O to move
    black, white = stones(state)
    assert type(state) is tuple and play("abcd") == play("cdab")  # transpositions meet
    assert black == 1 << 14 | 1 << 21 and white == 1 << 22
    assert state_from_stones(black, white, 1) == state
    assert GAME.current_player(state) == 1
    assert GAME.observation(state, 1)[0, 4, 3] == 1  # O's disc is on plane 0 for O


@pytest.mark.parametrize("action", [-1, 7, 2.5, None, "a", [1]])
def test_actions_that_are_not_columns_are_refused_by_name(action) -> None:
    with pytest.raises(IllegalActionError, match="outside the action space|is not an action index"):
        GAME.apply(GAME.initial_state(), action)


def test_no_move_after_the_game_is_over() -> None:
    with pytest.raises(IllegalActionError, match="already over"):
        GAME.apply(play("abababa"), 3)


def test_lines_of_four() -> None:
    assert len(LINES) == 69 == len(set(LINES))  # 24 horizontal, 21 vertical, 2 x 12 diagonal
    assert all(line.bit_count() == 4 for line in LINES)
    game = make_game("connect_four")
    state = game.initial_state()
    for move in "a b a b a b a".split():  # four in column a
        state = game.apply(state, game.parse_action(state, move))
    black, _ = stones(state)
    assert game.is_terminal(state) and sum(1 for line in LINES if black & line == line) == 1


def test_random_games_end_as_the_lines_of_four_say() -> None:
    """The rules' win test (patterns on the lines through the new disc) against a plain scan
    of all 69 lines after every move of 400 random games."""
    import random

    game = make_game("connect_four")
    rng = random.Random(7)
    for _ in range(400):
        state = game.initial_state()
        while True:
            black, white = stones(state)
            won = [any(board & line == line for line in LINES) for board in (black, white)]
            full = black | white == sum(((1 << 6) - 1) << (7 * c) for c in range(7))
            expected = 0 if won[0] else 1 if won[1] else 2 if full else -1
            assert outcome(state) == expected
            # the state is a function of the boards, the player to move and the outcome: a
            # state built from them equals (and hashes as) the one the moves reached
            assert state_from_stones(black, white, game.current_player(state), expected) == state
            if expected in (0, 1):  # the winner moved last: it cannot be the player to move
                with pytest.raises(ValueError, match="the winner moved last"):
                    state_from_stones(black, white, expected, expected)
            if game.is_terminal(state):
                assert game.legal_actions(state) == []
                break
            moves = game.legal_actions(state)
            full_columns = [c for c in range(7) if (black | white) >> (7 * c + 5) & 1]
            assert moves == [c for c in range(7) if c not in full_columns]
            for column in full_columns:
                with pytest.raises(IllegalActionError, match="is not legal here"):
                    game.apply(state, column)
            state = game.apply(state, moves[rng.randrange(len(moves))])


def test_planes_give_back_the_position() -> None:
    rules = ConnectFour()
    rng = np.random.default_rng(0)
    for _ in range(30):
        state = rules.initial_state()
        for _ in range(int(rng.integers(0, 30))):
            if rules.is_terminal(state):
                break
            previous = state
            state = rules.apply(state, int(rng.choice(rules.legal_actions(state))))
        if rules.is_terminal(state):
            state = previous
        planes = rules.observation(state, rules.current_player(state))
        assert state_from_planes(planes) == state


def test_planes_of_another_shape_are_refused() -> None:
    with pytest.raises(BoardgymError, match="not a Connect Four observation"):
        state_from_planes(np.zeros((2, 3, 3)))
