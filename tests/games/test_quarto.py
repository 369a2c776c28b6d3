"""Quarto rules on scripted positions (ASCII boards of 4-digit piece codes): a win on every
attribute value in every kind of line, the choose/place alternation, the draw, and an
independent line check under random play."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym import IllegalActionError
from boardgym.envs import quarto_v0
from boardgym.games.quarto import ALL, CHOOSE, LINES, Quarto, QuartoState

GAME = Quarto()

# A full board without any line sharing an attribute.
DRAWN = """
    0011 0100 1001 0010
    1010 0001 1110 1000
    0110 1011 1100 1111
    0101 1101 0111 0000
"""


def board(text: str, in_hand: int, player: int) -> QuartoState:
    """Sixteen tokens in reading order, a1 first: a piece's 4-digit code or ``....``; the state
    has ``player`` to place piece ``in_hand`` (-1: to choose) and the other pieces available."""
    tokens = text.split()
    assert len(tokens) == 16
    attributes, occupied, placed = [0, 0, 0, 0], 0, 0
    for cell, token in enumerate(tokens):
        if token == "....":
            continue
        piece = int(token, 2)
        occupied |= 1 << cell
        placed |= 1 << piece
        for k in range(4):
            if piece >> k & 1:
                attributes[k] |= 1 << cell
    available = ALL & ~placed & ~(1 << in_hand if in_hand >= 0 else 0)
    return QuartoState(
        (attributes[0], attributes[1], attributes[2], attributes[3]), occupied, available, in_hand, player, -1
    )


def naive_quarto(game: Quarto, state: QuartoState) -> bool:
    """Some full line whose four pieces agree on one binary digit."""
    for line in LINES:
        pieces = [game.piece_at(state, cell) for cell in range(16) if line >> cell & 1]
        if -1 not in pieces and any(len({p >> k & 1 for p in pieces}) == 1 for k in range(4)):
            return True
    return False


LINE_KINDS = {
    "row 2": [4, 5, 6, 7],
    "column c": [2, 6, 10, 14],
    "diagonal a1-d4": [0, 5, 10, 15],
    "diagonal d1-a4": [3, 6, 9, 12],
}


def _line_pieces(attribute: int, value: int) -> list[int]:
    """Four pieces that share only ``attribute`` (= ``value``): the other three digits take
    the patterns 000, 011, 101, 110, so none of them is common to all four."""
    pieces = []
    for pattern in (0b000, 0b011, 0b101, 0b110):
        low, high = pattern & ((1 << attribute) - 1), pattern >> attribute
        pieces.append(low | value << attribute | high << (attribute + 1))
    return pieces


@pytest.mark.parametrize("kind", list(LINE_KINDS))
@pytest.mark.parametrize("attribute", range(4))
@pytest.mark.parametrize("value", [0, 1])
def test_four_sharing_one_attribute_win(kind: str, attribute: int, value: int) -> None:
    cells, pieces = LINE_KINDS[kind], _line_pieces(attribute, value)
    assert [k for k in range(4) if len({p >> k & 1 for p in pieces}) == 1] == [attribute]
    tokens = ["...."] * 16
    for cell, piece in zip(cells[:3], pieces[:3], strict=True):
        tokens[cell] = f"{piece:04b}"
    for player in (0, 1):
        state = board(" ".join(tokens), pieces[3], player)
        after = GAME.apply(state, cells[3])
        assert after.outcome == player, (kind, attribute, value)
        assert GAME.returns(after)[player] == 1.0 and GAME.legal_actions(after) == []


@pytest.mark.parametrize("kind", list(LINE_KINDS))
def test_four_sharing_nothing_do_not_win(kind: str) -> None:
    cells = LINE_KINDS[kind]
    tokens = ["...."] * 16
    for cell, piece in zip(cells[:3], (0b0000, 0b1111, 0b0011), strict=True):
        tokens[cell] = f"{piece:04b}"
    state = board(" ".join(tokens), 0b1100, 0)
    after = GAME.apply(state, cells[3])
    assert not GAME.is_terminal(after) and after.piece == -1 and after.player == 0


def test_scripted_row_sharing_the_last_digit() -> None:
    # Row 1 holds three pieces whose last digit is 1; placing 0111 on d1 completes it.
    state = board(
        """
        0001 1011 1101 ....
        .... 0110 .... ....
        .... .... .... ....
        .... .... .... ....
        """,
        0b0111,
        1,
    )
    assert GAME.apply(state, GAME.parse_action(state, "d1")).outcome == 1
    assert not GAME.is_terminal(GAME.apply(state, GAME.parse_action(state, "d2")))


def test_choose_then_place_alternation() -> None:
    state = GAME.initial_state()
    assert state.player == 0 and GAME.legal_actions(state) == list(range(16, 32))  # first turn: choose only
    state = GAME.apply(state, GAME.parse_action(state, "p11"))
    assert state.player == 1 and state.piece == 11 and GAME.legal_actions(state) == list(range(16))
    state = GAME.apply(state, GAME.parse_action(state, "b3"))  # player 1 places ...
    assert state.player == 1 and state.piece == -1 and GAME.piece_at(state, 9) == 11
    assert CHOOSE + 11 not in GAME.legal_actions(state) and len(GAME.legal_actions(state)) == 15
    state = GAME.apply(state, GAME.parse_action(state, "0110"))  # ... then chooses for player 0
    assert state.player == 0 and state.piece == 6
    assert GAME.legal_actions(state) == [c for c in range(16) if c != 9]


def test_wrong_phase_and_taken_items_are_illegal() -> None:
    state = GAME.initial_state()
    with pytest.raises(IllegalActionError):
        GAME.apply(state, 3)  # no piece in hand yet
    state = GAME.apply(state, CHOOSE + 5)
    with pytest.raises(IllegalActionError):
        GAME.apply(state, CHOOSE + 6)  # must place first
    state = GAME.apply(state, 0)
    with pytest.raises(IllegalActionError, match="p5"):
        GAME.apply(state, CHOOSE + 5)  # already on the board
    state = GAME.apply(state, CHOOSE + 6)
    with pytest.raises(IllegalActionError, match="a1"):
        GAME.parse_action(state, "a1")


def test_full_board_without_a_line_is_a_draw() -> None:
    tokens = DRAWN.split()
    last = tokens[15]
    state = board(" ".join(tokens[:15] + ["...."]), int(last, 2), 0)
    assert not naive_quarto(GAME, state)
    after = GAME.apply(state, GAME.parse_action(state, "d4"))
    assert after.outcome == 2 and GAME.returns(after) == (0.0, 0.0) and GAME.legal_actions(after) == []
    assert not naive_quarto(GAME, after)


def test_outcomes_agree_with_a_naive_check_under_random_play() -> None:
    rng = np.random.default_rng(7)
    for _ in range(30):
        state = GAME.initial_state()
        while not GAME.is_terminal(state):
            legal = GAME.legal_actions(state)
            mover, placing = state.player, GAME.is_placing(state)
            state = GAME.apply(state, legal[int(rng.integers(len(legal)))])
            if placing:
                assert GAME.is_terminal(state) == (naive_quarto(GAME, state) or state.occupied == ALL)
                if naive_quarto(GAME, state):
                    assert state.outcome == mover


def test_aec_env_lets_the_same_agent_act_twice() -> None:
    env = quarto_v0.env()
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    env.step(CHOOSE + 0)
    assert env.agent_selection == "player_1"
    env.step(0)  # place
    assert env.agent_selection == "player_1"  # and now choose
    mask = env.observe("player_1")["action_mask"]
    assert mask[:16].sum() == 0 and mask[16:].sum() == 15


def test_observation_planes_and_render() -> None:
    state = board(
        """
        1011 .... .... ....
        .... 0110 .... ....
        .... .... .... ....
        .... .... .... ....
        """,
        0b0001,
        0,
    )
    planes = GAME.observation(state, 0)
    assert planes.shape == (8, 4, 4)
    assert planes[0, 0, 0] == 1 and planes[0, 1, 1] == 0 and planes[1, 1, 1] == 1 and planes[3, 0, 0] == 1
    assert planes[4].sum() == 2 and planes[5].sum() == 13 and planes[6, 0, 1] == 1 and planes[7].all()
    assert np.array_equal(planes, GAME.observation(state, 1))
    text = GAME.render(state)
    assert text.splitlines()[0].split() == list("abcd") and "1011" in text.splitlines()[1]
    assert "p1=0001" in text
