"""Connect Four rules on scripted positions (columns played, and ASCII boards)."""

from __future__ import annotations

import pytest

from boardgym import IllegalActionError, make_game

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
