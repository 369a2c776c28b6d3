"""Nim: take objects from one heap at a time.

Parameters: ``heaps`` (default 1, 3, 5, 7, 9: the rows of the seed reports' lab), ``misere``
(default False: the player who takes the last object wins; True: that player loses) and
``k`` (default None: take any number; k: take 1..k from a heap).

Action encoding: with ``T = min(k, max(heaps))`` (or ``max(heaps)`` without k), action
``heap * T + (take - 1)`` removes ``take`` objects from heap number ``heap`` (0-based), so
``num_actions = len(heaps) * T``. Typed as ``heap:take`` with heaps numbered from 1, e.g.
``3:2`` takes two from the third heap.

Observation: one plane of shape ``(len(heaps), max(heaps))``, row i holding heaps[i] ones
from the left (a unary picture of the rows of matches). Nim is impartial, so both players
see the same planes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from boardgym.game import Game
from boardgym.types import Action, BoardgymError, IllegalActionError, Planes, Player, as_action

DEFAULT_HEAPS = (1, 3, 5, 7, 9)
MAX_HEAPS = 64
MAX_HEAP = 1000
"""The largest Nim the rules build: the observation is ``len(heaps) x max(heaps)`` floats and
there are as many actions, so beyond these a game would take memory, not play."""


NimState = int
"""A position's key: ``player + sum(heaps[i] * radix[i])``, a mixed-radix number with the
player to move as its lowest digit (``radix[0] = 2``, ``radix[i + 1] = radix[i] * (heaps[i] +
1)``); 0 or 1 when every heap is empty. ``Nim.state(heaps, player)`` builds one,
``Nim.heaps_of(state)`` reads the heaps back, ``Nim.current_player`` the player."""


class _Forgetful:
    """Stands in for a memo table in games too large to tabulate: it remembers nothing."""

    def __getitem__(self, key: int) -> None:
        return None

    def __setitem__(self, key: int, value: object) -> None:
        pass


class Nim(Game[NimState]):
    name = "nim"
    num_players = 2

    def __init__(
        self,
        heaps: Sequence[int] | str | int = DEFAULT_HEAPS,
        misere: bool = False,
        k: int | None = None,
    ) -> None:
        self.heaps = _parse_heaps(heaps)
        if k is not None and (not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1):
            raise BoardgymError(f"Nim max-take k={k!r} must be a positive integer (or None for no limit)")
        if not isinstance(misere, (bool, np.bool_)):
            raise BoardgymError(f"Nim misere={misere!r} must be true or false")
        self.misere = bool(misere)
        self.k = None if k is None else int(k)
        self.max_take = min(self.k, max(self.heaps)) if self.k else max(self.heaps)
        self.num_actions = len(self.heaps) * self.max_take
        self.observation_shape = (1, len(self.heaps), max(self.heaps))
        width = max(self.heaps)
        self._rows = np.tril(np.ones((width + 1, width), dtype=np.float32), -1)  # _rows[n] = n ones
        self._decode = [divmod(a, self.max_take) for a in range(self.num_actions)]
        self._radix = tuple(2 * math.prod(h + 1 for h in self.heaps[:i]) for i in range(len(self.heaps)))
        # Memo tables indexed by key: the heaps, the legal actions and the position after each
        # action (None where illegal) of each position. Filled as positions are met; skipped
        # for very large games.
        positions = 2 * math.prod(h + 1 for h in self.heaps)
        small = positions <= 400_000
        self._heaps: list[tuple[int, ...] | None] | _Forgetful = [None] * positions if small else _Forgetful()
        self._legal: list[list[int] | None] | _Forgetful = [None] * positions if small else _Forgetful()
        self._children: list[tuple[NimState | None, ...] | None] | _Forgetful = (
            [None] * positions if small else _Forgetful()
        )
        self._initial = self.state(self.heaps)

    def params(self) -> dict[str, object]:
        return {"heaps": self.heaps, "misere": self.misere, "k": self.k}

    def state(self, heaps: Sequence[int], player: Player = 0) -> NimState:
        """The position with these heaps and ``player`` to move."""
        heaps = tuple(int(h) for h in heaps)
        if len(heaps) != len(self.heaps) or not all(0 <= h <= top for h, top in zip(heaps, self.heaps, strict=True)):
            raise BoardgymError(f"heaps {heaps} do not fit this game's heaps {self.heaps} (one count 0..size per heap)")
        if player not in (0, 1):
            raise BoardgymError(f"player {player!r} must be 0 or 1")
        return player + sum(h * r for h, r in zip(heaps, self._radix, strict=True))

    def heaps_of(self, state: NimState) -> tuple[int, ...]:
        """The objects left in each heap."""
        heaps = self._heaps[state]
        if heaps is None:
            heaps = tuple((state // r) % (top + 1) for r, top in zip(self._radix, self.heaps, strict=True))
            self._heaps[state] = heaps
        return heaps

    def initial_state(self) -> NimState:
        return self._initial

    def current_player(self, state: NimState) -> Player:
        return state & 1

    def legal_actions(self, state: NimState) -> list[Action]:
        legal = self._legal[state]
        if legal is None:
            T = self.max_take
            legal = [h * T + t for h, n in enumerate(self.heaps_of(state)) for t in range(min(n, T))]
            self._legal[state] = legal
        return legal.copy()

    def apply(self, state: NimState, action: Action) -> NimState:
        if type(action) is not int:
            action = as_action(action)
        children = self._children[state]
        if children is None:
            children = self._children[state] = tuple(self._child(state, a) for a in range(self.num_actions))
        try:
            child = children[action]
        except IndexError:
            child = None
        if child is None or action < 0:  # taken out of range, too many, or a negative index
            self.raise_illegal(state, action)
        return child

    def _child(self, state: NimState, action: Action) -> NimState | None:
        heap, take_minus_one = self._decode[action]
        if self.heaps_of(state)[heap] <= take_minus_one:
            return None
        # The key drops by take * radix for the heap, and its player digit flips.
        return state - (take_minus_one + 1) * self._radix[heap] + 1 - 2 * (state & 1)

    def is_terminal(self, state: NimState) -> bool:
        return state < 2  # every heap empty

    def returns(self, state: NimState) -> tuple[float, float]:
        if state >= 2:
            return (0.0, 0.0)
        # The player to move faces empty heaps: the opponent took the last object.
        winner = state if self.misere else 1 - state
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def observation(self, state: NimState, player: Player) -> Planes:
        return self._rows[list(self.heaps_of(state))][None]

    @property
    def solvable_by_search(self) -> bool:
        return math.prod(h + 1 for h in self.heaps) <= 2_000_000

    def render(self, state: NimState) -> str:
        width = len(str(max(self.heaps)))
        lines = [f"heap {i + 1}: {n:>{width}}  " + "|" * n for i, n in enumerate(self.heaps_of(state))]
        rule = "misère" if self.misere else "normal"
        limit = f", take at most {self.k}" if self.k else ""
        if self.is_terminal(state):
            winner = 0 if self.returns(state)[0] > 0 else 1
            lines.append(f"player {winner} wins ({rule} play{limit})")
        else:
            lines.append(f"player {state & 1} to move ({rule} play{limit}); move = heap:take")
        return "\n".join(lines)

    def action_to_str(self, state: NimState, action: Action) -> str:
        heap, take = divmod(action, self.max_take)
        return f"{heap + 1}:{take + 1}"

    def parse_action(self, state: NimState, text: str) -> Action:
        match = re.fullmatch(r"\s*(\d+)\s*[:, ]\s*(\d+)\s*", text)
        if not match:
            raise IllegalActionError(f"cannot read move {text!r}: type heap:take with heaps numbered from 1, e.g. 2:3")
        heap, take = int(match[1]) - 1, int(match[2])
        if not 0 <= heap < len(self.heaps) or not 1 <= take <= self.max_take:
            raise IllegalActionError(f"move {text!r}: heap must be 1..{len(self.heaps)} and take 1..{self.max_take}")
        action = heap * self.max_take + take - 1
        self.check_legal(state, action)
        return action


def _parse_heaps(heaps: Sequence[int] | str | int) -> tuple[int, ...]:
    def whole(value: object) -> int:
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return int(value)
        raise TypeError(value)

    try:
        if isinstance(heaps, str):
            values = tuple(int(h, 10) for h in heaps.replace(" ", "").split(","))
        elif isinstance(heaps, (int, np.integer, bool)):
            values = (whole(heaps),)
        else:
            values = tuple(whole(h) for h in heaps)
    except (TypeError, ValueError):
        raise BoardgymError(f"Nim heaps={_short(heaps)} must be positive integers, e.g. heaps=1,3,5,7") from None
    if not values or min(values) < 1:
        raise BoardgymError(f"Nim heaps={heaps!r} must be one or more positive integers, e.g. heaps=1,3,5,7")
    if len(values) > MAX_HEAPS or max(values) > MAX_HEAP:
        raise BoardgymError(
            f"Nim heaps={_short(heaps)} is too large: at most {MAX_HEAPS} heaps of at most {MAX_HEAP} objects "
            "(the observation and the action space grow with the largest heap)"
        )
    return values


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
