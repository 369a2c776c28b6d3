"""Perfect Nim by the nim-sum rule, with misère play and a max-take limit ``k``.

Bouton (1901): under normal play the player to move loses exactly when the XOR (nim-sum) of
the heaps is 0. With at most ``k`` objects per move a heap of ``n`` is worth ``n mod (k+1)``
(its Sprague-Grundy value), and the rule applies to those values. Misère play (taking the
last object loses) follows the normal rule except when every heap's value is 0 or 1: then the
player to move loses when the nim-sum is 1 (an odd number of heaps worth 1). The rule is
checked against exhaustive search in ``tests/agents/test_nim_perfect.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from boardgym.agents.base import BaseAgent
from boardgym.game import Game
from boardgym.games.nim import Nim, NimState
from boardgym.types import Action, BoardgymError


def mover_wins(heaps: Sequence[int], misere: bool = False, k: int | None = None) -> bool:
    """Whether the player to move wins with perfect play from these heaps."""
    values = [n % (k + 1) for n in heaps] if k else list(heaps)
    nim_sum = 0
    for value in values:
        nim_sum ^= value
    if misere and all(value <= 1 for value in values):
        return nim_sum == 0
    return nim_sum != 0


def winning_moves(game: Nim, state: NimState) -> list[Action]:
    """The legal moves after which the opponent loses with perfect play (empty if none)."""
    return [
        action
        for action in game.legal_actions(state)
        if not mover_wins(game.heaps_of(game.apply(state, action)), game.misere, game.k)
    ]


class NimSumAgent(BaseAgent):
    """Plays a winning move when there is one (chosen at random among them); from a lost
    position it takes a single object, keeping the game long for an opponent to go wrong."""

    def __init__(self, game: Game, *, seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        if not isinstance(game, Nim):
            raise BoardgymError(f"the nimsum agent plays Nim only, not {game.name}; use minimax or mcts instead")

    def act(self, game: Game, state: Any) -> Action:
        moves = winning_moves(self.game, state)  # type: ignore[arg-type]
        if moves:
            return moves[int(self.rng.integers(len(moves)))]
        singles = [a for a in game.legal_actions(state) if a % self.game.max_take == 0]  # type: ignore[attr-defined]
        return singles[int(self.rng.integers(len(singles)))]
