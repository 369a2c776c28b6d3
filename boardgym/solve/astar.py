"""A* and uniform-cost search for one-player puzzles with unit action costs.

``search(game, state, use_heuristic=True)`` is best-first search on ``f = g + h`` where ``g``
counts the actions taken and ``h`` is ``game.heuristic(state)`` (a game that declares
``boardgym.game.HasPuzzleHeuristic``); with ``use_heuristic=False`` (or a game without a
heuristic) it is uniform-cost search, ``f = g``. A ``SearchablePuzzle`` also offers:

- ``search_actions(state)``: the actions worth branching on (default: ``legal_actions``), a
  subset that must keep an optimal solution reachable;
- ``search_key(state)``: states with equal keys are interchangeable for the rest of the
  search (default: the state itself); only the cheapest path to each key is kept
  (duplicate detection);
- ``greedy_action(state)``: a quick good action, used to complete a search that ran out of
  budget (default: the action whose child has the smallest ``h``).

With an admissible and consistent heuristic the first goal popped is optimal and each key is
expanded at most once. ``max_nodes`` (expansions) and ``time_limit`` (seconds) bound the
work; a search that runs out returns the lowest ``f`` on the frontier as a proven lower bound
and the shorter of two greedy completions (from the most advanced open node and from the
start) as an upper bound, marked ``optimal=False``.

The agents ``astar`` and ``ucs`` (``boardgym.agents.astar_agent``) play the plan it finds.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from boardgym.game import Game, HasPuzzleHeuristic, SearchablePuzzle
from boardgym.types import Action, BoardgymError


@dataclass(frozen=True)
class SearchResult:
    """``actions`` solve the puzzle from the start state at ``cost``; ``optimal`` says whether
    the search finished (then ``lower_bound == cost``)."""

    actions: tuple[Action, ...]
    cost: int
    optimal: bool
    lower_bound: int
    nodes_expanded: int
    nodes_generated: int
    seconds: float


def search(
    game: Game,
    state: Any,
    *,
    use_heuristic: bool = True,
    max_nodes: int | None = None,
    time_limit: float | None = None,
) -> SearchResult:
    """A* (or uniform-cost search without the heuristic) from ``state``; see the module doc."""
    if game.num_players != 1:
        raise BoardgymError(f"A* and uniform-cost search solve one-player puzzles; {game.name} has {game.num_players}")
    start_time = time.perf_counter()
    h: Callable[[Any], int] = game.heuristic if use_heuristic and isinstance(game, HasPuzzleHeuristic) else _zero
    searchable = game if isinstance(game, SearchablePuzzle) else None
    actions_of: Callable[[Any], Sequence[Action]] = (
        searchable.search_actions if searchable is not None else game.legal_actions
    )
    key_of: Callable[[Any], Hashable] = searchable.search_key if searchable is not None else _identity
    deadline = None if time_limit is None else start_time + time_limit

    start_key = key_of(state)
    best_g: dict[Any, int] = {start_key: 0}
    parent: dict[Any, tuple[Any, Action]] = {}
    closed: set[Any] = set()
    counter = itertools.count()
    h0 = h(state)
    # Ties on f go to the deeper node, which reaches a goal sooner.
    frontier: list[tuple[int, int, int, int, Any, Any]] = [(h0, 0, h0, next(counter), start_key, state)]
    expanded = generated = 0
    while frontier:
        f, neg_g, h_value, _, key, node = heapq.heappop(frontier)
        g = -neg_g
        if key in closed or g > best_g[key]:
            continue
        if game.is_terminal(node):
            return SearchResult(_path(parent, key), g, True, g, expanded, generated, time.perf_counter() - start_time)
        if (max_nodes is not None and expanded >= max_nodes) or (
            deadline is not None and expanded % 256 == 0 and time.perf_counter() > deadline
        ):
            heapq.heappush(frontier, (f, neg_g, h_value, next(counter), key, node))
            guide = game.heuristic if isinstance(game, HasPuzzleHeuristic) else _zero
            return _give_up(game, guide, state, frontier, parent, best_g, expanded, generated, start_time)
        closed.add(key)
        expanded += 1
        child_g = g + 1
        for action in actions_of(node):
            child = game.apply(node, action)
            child_key = key_of(child)
            if child_key in closed or best_g.get(child_key, child_g + 1) <= child_g:
                continue
            best_g[child_key] = child_g
            parent[child_key] = (key, action)
            child_h = h(child)
            generated += 1
            heapq.heappush(frontier, (child_g + child_h, -child_g, child_h, next(counter), child_key, child))
    raise BoardgymError(f"{game!r} has no solution from this state: the search ran out of actions")


def _give_up(
    game: Game,
    h: Callable[[Any], int],
    start: Any,
    frontier: list[tuple[int, int, int, int, Any, Any]],
    parent: dict[Any, tuple[Any, Action]],
    best_g: dict[Any, int],
    expanded: int,
    generated: int,
    start_time: float,
) -> SearchResult:
    """Out of budget: the lowest f still open bounds the optimum from below. The open node
    closest to a goal (smallest h, then deepest), completed by ``game.greedy_action`` (or
    greedily on ``h``), gives a solution; so does greedy play from the start, and the shorter
    of the two is returned."""
    live = [entry for entry in frontier if -entry[1] <= best_g[entry[4]]]
    lower = min(entry[0] for entry in live)
    _, _, _, _, key, node = min(live, key=lambda entry: (entry[2], entry[1]))
    if isinstance(game, SearchablePuzzle):
        greedy: Callable[[Any], Action] = game.greedy_action
    else:

        def greedy(state: Any) -> Action:
            return min(game.legal_actions(state), key=lambda a: h(game.apply(state, a)))

    candidates = []
    for actions, state in ((list(_path(parent, key)), node), ([], start)):
        while not game.is_terminal(state):
            action = greedy(state)
            actions.append(action)
            state = game.apply(state, action)
        candidates.append(actions)
    actions = min(candidates, key=len)
    return SearchResult(
        tuple(actions), len(actions), False, lower, expanded, generated, time.perf_counter() - start_time
    )


def _path(parent: dict[Any, tuple[Any, Action]], key: Any) -> tuple[Action, ...]:
    actions = []
    while key in parent:
        key, action = parent[key]
        actions.append(action)
    return tuple(reversed(actions))


def _zero(state: Any) -> int:
    return 0


def _identity(state: Any) -> Any:
    return state
