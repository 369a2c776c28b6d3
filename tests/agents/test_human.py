"""The terminal player: shows the board, re-asks with the reason after a bad move."""

from __future__ import annotations

import io

import pytest

from boardgym import make_game
from boardgym.agents.human import GameAbandoned, HumanAgent


def test_reasks_until_a_legal_move() -> None:
    game = make_game("tictactoe")
    state = game.apply(game.initial_state(), 4)  # X on b2
    answers = iter(["hello", "b2", "c3"])
    out = io.StringIO()
    agent = HumanAgent(game, read=lambda prompt: next(answers), out=out)
    assert agent.act(game, state) == 8
    shown = out.getvalue()
    assert "   a b c" in shown  # the board with coordinates
    assert "cannot read move 'hello'" in shown
    assert "b2" in shown and "not legal" in shown


def test_quit_abandons_the_game() -> None:
    game = make_game("nim")
    agent = HumanAgent(game, read=lambda prompt: "quit", out=io.StringIO())
    with pytest.raises(GameAbandoned):
        agent.act(game, game.initial_state())
