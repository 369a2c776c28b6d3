"""A person at the terminal: shows the board, reads a move, explains a bad one and asks again."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

from boardgym.agents.base import BaseAgent
from boardgym.game import Game
from boardgym.types import Action, BoardgymError, IllegalActionError

QUIT_WORDS = ("quit", "exit", "q")


class GameAbandoned(Exception):
    """The person typed one of ``QUIT_WORDS``: the game ends there, as they asked (not an
    error, and not Ctrl-C)."""


class HumanAgent(BaseAgent):
    """Reads moves typed in the game's notation (``boardgym play GAME`` shows it)."""

    def __init__(
        self,
        game: Game,
        *,
        seed: int | None = None,
        read: Callable[[str], str] | None = None,
        out: TextIO | None = None,
    ) -> None:
        super().__init__(game, seed=seed)
        self._read = read
        self._out = out

    def act(self, game: Game, state: Any) -> Action:
        out = self._out or sys.stdout
        print(game.render(state), file=out)
        print(f"legal moves: {game.legal_moves_text(state)}", file=out)
        while True:
            try:
                text = (self._read or input)("your move (or 'quit'): ")
            except EOFError:
                raise BoardgymError(
                    "no move to read: the input is closed; play in a terminal, or pipe one move per line"
                ) from None
            if text.strip().lower() in QUIT_WORDS:
                raise GameAbandoned(text.strip())
            try:
                return game.parse_action(state, text)
            except IllegalActionError as error:
                print(f"not a legal move: {error}", file=out)
