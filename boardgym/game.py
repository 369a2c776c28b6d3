"""The rules protocol: one pure object per game over immutable, hashable states.

A ``Game`` never imports gymnasium, pettingzoo or torch. Its methods are pure functions of
their arguments, so search can key dictionaries by state and never needs to undo a move.
The environments (``boardgym.envs.core``), the agents and the training scripts only ever
talk to this API, which is why adding a game touches none of them.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

from boardgym.types import Action, IllegalActionError, Mask, Planes, Player

S = TypeVar("S", bound=Hashable)


@runtime_checkable
class Game(Protocol[S]):
    """What every game offers. See ``GameBase`` for the defaults most games inherit."""

    name: str
    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]

    def initial_state(self) -> S: ...
    def current_player(self, state: S) -> Player: ...
    def legal_actions(self, state: S) -> list[Action]: ...
    def legal_mask(self, state: S) -> Mask: ...
    def apply(self, state: S, action: Action) -> S: ...
    def is_terminal(self, state: S) -> bool: ...
    def returns(self, state: S) -> tuple[float, ...]: ...
    def observation(self, state: S, player: Player) -> Planes: ...
    def render(self, state: S) -> str: ...
    def action_to_str(self, state: S, action: Action) -> str: ...
    def parse_action(self, state: S, text: str) -> Action: ...


class GameBase(Generic[S]):
    """Defaults shared by the games; a game overrides what it can do faster.

    Subclasses set ``name``, ``num_players``, ``num_actions`` and ``observation_shape`` and
    implement ``initial_state``, ``current_player``, ``legal_actions``, ``apply``,
    ``is_terminal``, ``returns``, ``observation`` and ``render``.
    """

    name: ClassVar[str]
    num_players: int = 2
    num_actions: int
    observation_shape: tuple[int, ...]

    # -- what subclasses must provide -------------------------------------------------------
    def initial_state(self) -> S:
        raise NotImplementedError

    def current_player(self, state: S) -> Player:
        raise NotImplementedError

    def legal_actions(self, state: S) -> list[Action]:
        raise NotImplementedError

    def apply(self, state: S, action: Action) -> S:
        raise NotImplementedError

    def is_terminal(self, state: S) -> bool:
        raise NotImplementedError

    def returns(self, state: S) -> tuple[float, ...]:
        raise NotImplementedError

    def observation(self, state: S, player: Player) -> Planes:
        raise NotImplementedError

    def render(self, state: S) -> str:
        raise NotImplementedError

    # -- defaults ---------------------------------------------------------------------------
    def legal_mask(self, state: S) -> Mask:
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[self.legal_actions(state)] = True
        return mask

    def is_truncated(self, state: S) -> bool:
        """True when the game ended by a move limit rather than by its rules (a draw)."""
        return False

    @property
    def solvable_by_search(self) -> bool:
        """Whether exhaustive memoised search over this game (with these parameters) is
        cheap enough for the ``perfect`` agent: seconds and a few million states at most."""
        return False

    def action_to_str(self, state: S, action: Action) -> str:
        return str(action)

    def parse_action(self, state: S, text: str) -> Action:
        """Read a move typed by a person; raises ``IllegalActionError`` with the reason."""
        text = text.strip()
        for action in self.legal_actions(state):
            if self.action_to_str(state, action).lower() == text.lower():
                return action
        try:
            action = int(text)
        except ValueError:
            raise IllegalActionError(
                f"cannot read move {text!r}; type one of: {self.legal_moves_text(state)}"
            ) from None
        self.check_legal(state, action)
        return action

    def check_legal(self, state: S, action: Action) -> None:
        """Raise ``IllegalActionError`` naming ``action`` unless it is legal in ``state``."""
        if self.is_terminal(state):
            raise IllegalActionError(f"action {action!r}: the game is already over")
        if not isinstance(action, (int, np.integer)) or not 0 <= action < self.num_actions:
            raise IllegalActionError(
                f"action {action!r} is outside the action space 0..{self.num_actions - 1} of {self.name}"
            )
        if action not in self.legal_actions(state):
            raise IllegalActionError(
                f"action {action} ({self.action_to_str(state, action)}) is not legal here; "
                f"legal moves: {self.legal_moves_text(state)}"
            )

    def legal_moves_text(self, state: S) -> str:
        return ", ".join(self.action_to_str(state, a) for a in self.legal_actions(state))

    def board_grid(self, state: S) -> np.ndarray | None:
        """Optional (rows, columns) int grid, 0 empty and p+1 for player p's piece; the
        env draws it for ``render_mode="rgb_array"``. ``None`` where no picture helps."""
        return None

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({params})"

    def params(self) -> dict[str, Any]:
        """The constructor parameters, so ``make_game(game.name, **game.params())`` rebuilds it."""
        return {}
