"""Set covering: choose the fewest sets whose union is every element (a 1-player puzzle).

An instance is ``num_sets`` subsets of the elements ``0 .. problem_size - 1``. A random
instance puts each element in each set with probability ``density``, drawn from
``np.random.default_rng(seed)`` (the seed reports' lab 1 used (problem_size, num_sets,
density) = (5, 10, 0.3), (20, 50, 0.2), (50, 100, 0.2) and (30, 150, 0.3)). An explicit
instance is given as ``sets``: a sequence of element collections, or the text
``"0 1 2;2 3;3 4"`` (sets separated by ``;``). An instance in which some element belongs to
no set has no cover and is refused when it is built.

- Action ``i`` takes set ``i`` (``num_actions = num_sets``); sets already taken are illegal.
- Every action costs 1: ``returns`` is ``-(number of sets taken)`` once every element is
  covered, so the best return is minus the size of the smallest cover.
- Observation: float32 vector of length ``num_sets + problem_size``: which sets are taken,
  then which elements are covered.
- State: ``SetCoverState(taken, covered)``, two int bitmasks (bit ``i`` of ``taken`` is set
  ``i``, bit ``e`` of ``covered`` is element ``e``).

Search support (used by the A* and uniform-cost agents, see ``boardgym.agents.astar_agent``):
``heuristic(state)`` is an admissible and consistent lower bound on the sets still needed,
``search_actions(state)`` the sets worth branching on, ``search_key(state)`` what makes two
states equivalent for the rest of the search (the covered elements).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from boardgym.game import Game, SearchablePuzzle
from boardgym.types import Action, BoardgymError, IllegalActionError, Planes, Player, as_action

MAX_ELEMENTS = 10_000
MAX_SETS = 10_000
MAX_PAIRS = 4_000_000
"""The largest instance the rules build: ``problem_size`` and ``num_sets`` each, and their
product (building an instance reads every set-element pair)."""


class SetCoverState(NamedTuple):
    taken: int
    covered: int


class SetCover(Game[SetCoverState], SearchablePuzzle[SetCoverState]):
    name = "setcover"
    num_players = 1

    def __init__(
        self,
        problem_size: int = 20,
        num_sets: int = 40,
        density: float = 0.2,
        seed: int = 0,
        sets: Sequence[Iterable[int]] | str | None = None,
    ) -> None:
        if sets is not None:
            self.masks, self.problem_size = _parse_sets(sets)
            self.density = None
            self.seed = None
        else:
            self.problem_size = _positive_int("problem_size", problem_size, MAX_ELEMENTS)
            _positive_int("num_sets", num_sets, MAX_SETS)
            _check_pairs(self.problem_size, int(num_sets))
            if (
                not isinstance(density, (int, float, np.integer, np.floating))
                or isinstance(density, bool)
                or not 0.0 < float(density) <= 1.0
            ):
                raise BoardgymError(f"set cover density={density!r} must be a number in (0, 1], e.g. density=0.2")
            if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
                raise BoardgymError(f"set cover seed={seed!r} must be a non-negative integer, e.g. seed=0")
            self.density = float(density)
            self.seed = int(seed)
            members = np.random.default_rng(self.seed).random((int(num_sets), self.problem_size)) < self.density
            self.masks = tuple(sum(1 << int(e) for e in np.flatnonzero(row)) for row in members)
        self.num_sets = len(self.masks)
        self.num_actions = self.num_sets
        self.observation_shape = (self.num_sets + self.problem_size,)
        self.universe = (1 << self.problem_size) - 1
        union = 0
        for mask in self.masks:
            union |= mask
        if union != self.universe:
            missing = [e for e in range(self.problem_size) if not union >> e & 1]
            fix = "pass another seed or a higher density" if sets is None else "add a set that holds them"
            raise BoardgymError(
                f"this set cover instance has no solution: element(s) {_short_list(missing)} are in no set; {fix}"
            )
        # For each element, the sets holding it: the A* branching rule picks one uncovered element.
        self.sets_with = tuple(
            tuple(i for i, mask in enumerate(self.masks) if mask >> e & 1) for e in range(self.problem_size)
        )

    def params(self) -> dict[str, Any]:
        if self.seed is None:
            return {"sets": self.sets_text()}
        return {
            "problem_size": self.problem_size,
            "num_sets": self.num_sets,
            "density": self.density,
            "seed": self.seed,
        }

    def sets_text(self) -> str:
        """The instance as the ``sets`` text that rebuilds it: ``"0 1 2;2 3;3 4"``."""
        return ";".join(" ".join(str(e) for e in self.members(i)) for i in range(self.num_sets))

    def members(self, index: int) -> list[int]:
        """The elements of set ``index``, ascending."""
        mask = self.masks[index]
        return [e for e in range(self.problem_size) if mask >> e & 1]

    # -- rules ------------------------------------------------------------------------------
    def initial_state(self) -> SetCoverState:
        return SetCoverState(0, 0)

    def current_player(self, state: SetCoverState) -> Player:
        return 0

    def legal_actions(self, state: SetCoverState) -> list[Action]:
        if state.covered == self.universe:
            return []
        taken = state.taken
        return [i for i in range(self.num_sets) if not taken >> i & 1]

    def apply(self, state: SetCoverState, action: Action) -> SetCoverState:
        if type(action) is not int:
            action = as_action(action)
        if not 0 <= action < self.num_sets:
            self.raise_illegal(state, action)
        if state.taken >> action & 1 or state.covered == self.universe:
            self.raise_illegal(state, action)
        return SetCoverState(state.taken | 1 << action, state.covered | self.masks[action])

    def is_terminal(self, state: SetCoverState) -> bool:
        return state.covered == self.universe

    def returns(self, state: SetCoverState) -> tuple[float]:
        return (-float(state.taken.bit_count()),) if state.covered == self.universe else (0.0,)

    def cost(self, state: SetCoverState) -> int:
        """Sets taken so far."""
        return state.taken.bit_count()

    def observation(self, state: SetCoverState, player: Player) -> Planes:
        bits = np.empty(self.num_sets + self.problem_size, dtype=np.float32)
        bits[: self.num_sets] = [state.taken >> i & 1 for i in range(self.num_sets)]
        bits[self.num_sets :] = [state.covered >> e & 1 for e in range(self.problem_size)]
        return bits

    def new_elements(self, state: SetCoverState, action: Action) -> int:
        """How many uncovered elements set ``action`` would cover."""
        return (self.masks[action] & ~state.covered).bit_count()

    def greediest_sets(self, state: SetCoverState) -> list[Action]:
        """The sets not taken that cover the most uncovered elements (all tied), ascending."""
        uncovered = self.universe & ~state.covered
        best_gain, best = 0, []
        for index, mask in enumerate(self.masks):
            if state.taken >> index & 1:
                continue
            gain = (mask & uncovered).bit_count()
            if gain > best_gain:
                best_gain, best = gain, [index]
            elif gain == best_gain and gain:
                best.append(index)
        return best

    # -- search support ---------------------------------------------------------------------
    def greedy_action(self, state: SetCoverState) -> Action:
        """The classic greedy choice, which completes an A* search that ran out of budget."""
        return self.greediest_sets(state)[0]

    def heuristic(self, state: SetCoverState) -> int:
        """A lower bound on the sets still needed: the fewest of the remaining sets whose new
        coverages, largest first, add up to the uncovered count.

        Admissible: any k sets cover at most the sum of the k largest new coverages. Consistent:
        after taking set s, the sets of the child's bound plus s reach the parent's count, and
        new coverages only shrink, so h(parent) <= 1 + h(child).
        """
        uncovered = self.universe & ~state.covered
        need = uncovered.bit_count()
        if not need:
            return 0
        gains = sorted(((mask & uncovered).bit_count() for mask in self.masks), reverse=True)
        total = 0
        for count, gain in enumerate(gains, 1):
            total += gain
            if total >= need:
                return count
        return len(gains) + 1  # unreachable for solvable instances: the union is the universe

    def search_actions(self, state: SetCoverState) -> list[Action]:
        """The sets holding the uncovered element that fewest sets hold. Every cover takes one
        of them, so branching on them alone keeps an optimal cover reachable."""
        uncovered = self.universe & ~state.covered
        if not uncovered:
            return []
        covered, taken = state.covered, state.taken
        best: tuple[int, ...] | None = None
        element = 0
        while uncovered:
            if uncovered & 1:
                holders = self.sets_with[element]
                if best is None or len(holders) < len(best):
                    best = holders
                    if len(best) == 1:
                        break
            uncovered >>= 1
            element += 1
        assert best is not None
        return [i for i in best if not taken >> i & 1 and self.masks[i] & ~covered]

    def search_key(self, state: SetCoverState) -> int:
        """Two states that cover the same elements need the same sets from here on."""
        return state.covered

    # -- text -------------------------------------------------------------------------------
    def render(self, state: SetCoverState) -> str:
        width = len(str(self.num_sets - 1))
        lines = []
        for i, mask in enumerate(self.masks):
            row = "".join("#" if mask >> e & 1 else "." for e in range(self.problem_size))
            mark = "*" if state.taken >> i & 1 else " "
            lines.append(f"{mark} set {i:>{width}}: {row}")
        cover = "".join("#" if state.covered >> e & 1 else "." for e in range(self.problem_size))
        lines.append(f"  covered{' ' * (width + 1)}: {cover}")
        done = "all covered" if self.is_terminal(state) else f"{(self.universe & ~state.covered).bit_count()} uncovered"
        lines.append(f"{state.taken.bit_count()} set(s) taken, {done}; move = set number")
        return "\n".join(lines)

    def action_to_str(self, state: SetCoverState, action: Action) -> str:
        return str(action)

    def parse_action(self, state: SetCoverState, text: str) -> Action:
        try:
            action = int(text.strip())
        except ValueError:
            raise IllegalActionError(f"cannot read move {text!r}; type a set number 0..{self.num_sets - 1}") from None
        self.check_legal(state, action)
        return action


def _positive_int(name: str, value: Any, limit: int) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise BoardgymError(f"set cover {name}={value!r} must be a positive integer")
    if value > limit:
        raise BoardgymError(f"set cover {name}={value!r} is too large: at most {limit}")
    return int(value)


def _check_pairs(problem_size: int, num_sets: int) -> None:
    if problem_size * num_sets > MAX_PAIRS:
        raise BoardgymError(
            f"set cover problem_size={problem_size} x num_sets={num_sets} is too large: the product may be at most "
            f"{MAX_PAIRS:,} (an instance is a table of that many set-element pairs)"
        )


def _parse_sets(sets: Sequence[Iterable[int]] | str) -> tuple[tuple[int, ...], int]:
    """Explicit sets -> (bitmasks, problem size = largest element + 1)."""
    try:
        if isinstance(sets, str):
            groups = [[int(e) for e in part.replace(",", " ").split()] for part in sets.split(";")]
        else:
            groups = [
                [_element(e) for e in ([group] if isinstance(group, (int, np.integer)) else group)] for group in sets
            ]
    except (TypeError, ValueError):
        raise BoardgymError(
            f"cannot read set cover sets={_short_text(sets)}; give element numbers per set, e.g. sets='0 1 2;2 3;3 4'"
        ) from None
    shown = _short_text(sets)
    if not groups or any(e < 0 for group in groups for e in group):
        raise BoardgymError(f"set cover sets={shown} must be one or more sets of non-negative element numbers")
    size = 1 + max((e for group in groups for e in group), default=-1)
    if size == 0:
        raise BoardgymError(f"set cover sets={shown} holds no element; give element numbers, e.g. '0 1;1 2'")
    if size > MAX_ELEMENTS or len(groups) > MAX_SETS:
        raise BoardgymError(
            f"set cover sets={shown} is too large: at most {MAX_SETS} sets of the elements 0..{MAX_ELEMENTS - 1}"
        )
    _check_pairs(size, len(groups))
    return tuple(sum(1 << e for e in set(group)) for group in groups), size


def _element(value: Any) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise TypeError(value)


def _short_text(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _short_list(values: list[int], limit: int = 8) -> str:
    text = ", ".join(str(v) for v in values[:limit])
    return text + (f" and {len(values) - limit} more" if len(values) > limit else "")
