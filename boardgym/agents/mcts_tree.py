"""The tree of ``MCTS`` (``boardgym.agents.mcts``) and the steps of a simulation on it.

``Node`` is a state with its edges' statistics, ``Leaf`` a pending evaluation. The steps are
functions of the nodes and of the settings passed in, so that ``MCTS`` keeps the budget, the
evaluator and the public API:

- ``select``: down the tree to a leaf (first tries or UCT, or PUCT with ``pick_puct``),
  virtual loss applied on the way when the leaves are batched;
- ``expand``: a node's edge lists, with its normalised priors under PUCT;
- ``backup``: a leaf's value up its path (undoing the virtual loss);
- ``add_root_noise``: AlphaZero's Dirichlet noise on the root's priors;
- ``run_uct``: plain UCT with a values-only evaluator, the four steps inlined in one loop.

The value conventions (each edge's ``W`` and ``N`` are seen from the player who chose it) are in
``boardgym.agents.mcts``'s docstring.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from boardgym.game import Game
from boardgym.types import Action

VIRTUAL_LOSS = 1.0
"""A pending leaf counts as a loss for every mover on its path until it is backed up."""


class Node:
    """A state in the tree; its edges are parallel lists indexed like ``actions``.

    ``edge_n[i]``/``edge_w[i]``: visits and summed value (for ``player``, who chooses the
    edge) of ``actions[i]``; under UCT also ``edge_q[i]`` (mean value) and ``edge_r[i]``
    (``1 / sqrt(visits)``), kept up to date by the backup so that selection, which reads every
    edge at every level, does no division or square root; ``children[i]`` the node it leads to, ``None`` until visited.
    ``actions`` is empty until the node is expanded; terminal nodes never are. A node is
    expanded when it is evaluated, except in plain UCT (``run_uct``), which marks a new leaf
    ``evaluated`` and builds its edges on its second visit: most leaves never get one.
    """

    __slots__ = (
        "state",
        "player",
        "terminal",
        "terminal_returns",
        "expanded",
        "evaluated",
        "actions",
        "priors",
        "clean_priors",
        "children",
        "edge_n",
        "edge_w",
        "edge_q",
        "edge_r",
        "n",
        "untried",
    )

    def __init__(self, game: Game, state: Any) -> None:
        self.state = state
        self.player = game.current_player(state)
        self.terminal = game.is_terminal(state)
        self.terminal_returns: tuple[float, ...] | None = game.returns(state) if self.terminal else None
        self.expanded = False
        self.evaluated = False  # valued but not yet expanded (UCT defers a leaf's edge lists)
        self.actions: list[Action] = []
        self.priors: list[float] = []
        self.clean_priors: list[float] | None = None
        self.children: list[Node | None] = []
        self.edge_n: list[float] = []
        self.edge_w: list[float] = []
        self.edge_q: list[float] = []
        self.edge_r: list[float] = []
        self.n = 0.0
        self.untried = 0  # UCT: actions[untried:] have never been tried

    def value(self) -> float:
        """Mean result for ``player`` over all visits through this node's edges (0 if none)."""
        return sum(self.edge_w) / self.n if self.n else 0.0


class Leaf:
    """A pending evaluation: the state, its node and the path of (node, edge) that led there."""

    __slots__ = ("node", "path")

    def __init__(self, node: Node, path: list[tuple[Node, int]]) -> None:
        self.node = node
        self.path = path

    @property
    def state(self) -> Any:
        return self.node.state


def select(
    root: Node,
    game: Game,
    draw: Callable[[], float],
    c_uct: float,
    c_puct: float | None,
    fpu: float,
    virtual: bool,
) -> Leaf:
    """Down from ``root`` to a node not yet evaluated, or a terminal one. Under UCT
    (``c_puct`` None) each node's actions are first tried once in a random order (``draw``
    gives numbers in [0, 1)), then the edge with the highest UCT score is taken; under PUCT
    the one ``pick_puct`` gives. ``virtual``: count a visit and a loss on each edge taken."""
    node = root
    path: list[tuple[Node, int]] = []
    puct = c_puct is not None
    log, sqrt = math.log, math.sqrt
    while True:
        if node.terminal or not node.expanded:
            if node.terminal or not node.evaluated:
                return Leaf(node, path)
            expand(node, game, None, puct)  # valued by a plain UCT search, which defers its edges
        if c_puct is not None:
            i = pick_puct(node, c_puct, fpu)
        elif node.untried < len(node.actions):
            # First tries in a random order: swap a random untried action into place.
            i = node.untried
            actions = node.actions
            j = i + int(draw() * (len(actions) - i))
            actions[i], actions[j] = actions[j], actions[i]
            node.untried += 1
        else:  # UCT, inlined as in run_uct: the first edge with the highest q + c * sqrt(log n) * r
            k = c_uct * sqrt(log(node.n))
            edge_r = node.edge_r
            best = -math.inf
            i = j = 0
            for q in node.edge_q:
                q += k * edge_r[j]
                if q > best:
                    best = q
                    i = j
                j += 1
        path.append((node, i))
        if virtual:
            n = node.edge_n[i] + 1
            node.edge_n[i] = n
            node.edge_w[i] -= VIRTUAL_LOSS
            node.n += 1
            if not puct:
                node.edge_q[i] = node.edge_w[i] / n
                node.edge_r[i] = n**-0.5
        child = node.children[i]
        if child is None:
            child = Node(game, game.apply(node.state, node.actions[i]))
            node.children[i] = child
            return Leaf(child, path)
        node = child


def pick_puct(node: Node, c_puct: float, fpu: float) -> int:
    """The edge with the highest ``q + c_puct * sqrt(n) * prior / (1 + visits)``, ``q`` being
    ``fpu`` for an unvisited edge (the first such edge on ties)."""
    scale = c_puct * math.sqrt(node.n) if node.n else c_puct
    edge_w = node.edge_w
    priors = node.priors
    best_i, best = 0, -math.inf
    for i, n in enumerate(node.edge_n):
        q = edge_w[i] / n if n else fpu
        score = q + scale * priors[i] / (1.0 + n)
        if score > best:
            best_i, best = i, score
    return best_i


def expand(node: Node, game: Game, priors: np.ndarray | None, puct: bool) -> None:
    """Build ``node``'s edge lists (nothing for a terminal or expanded node); under PUCT its
    priors are ``priors`` over its legal actions, normalised (uniform if they sum to 0)."""
    if node.expanded or node.terminal:
        return
    actions = list(game.legal_actions(node.state))  # our own copy: select reorders it
    if not puct:
        node.priors = []  # UCT: no priors; the first tries are drawn at random in select
    else:
        assert priors is not None  # PUCT leaves are evaluated with priors
        p = [float(x) for x in priors[actions]]
        total = sum(p)
        node.priors = [x / total for x in p] if total > 0 else [1.0 / len(actions)] * len(actions)
    node.actions = actions
    node.children = [None] * len(actions)
    node.edge_n = [0.0] * len(actions)
    node.edge_w = [0.0] * len(actions)
    if not puct:
        node.edge_q = [0.0] * len(actions)
        node.edge_r = [0.0] * len(actions)
    node.expanded = True


def backup(path: list[tuple[Node, int]], leaf_player: int, value: float, virtual: bool, uct: bool) -> None:
    """Add ``value`` (for ``leaf_player``; its negation for the other) to every edge of
    ``path``; ``virtual``: undo the virtual visit and loss of ``select``; ``uct``: keep the
    edges' ``edge_q``/``edge_r`` up to date."""
    for node, i in path:
        n, w = node.edge_n[i], node.edge_w[i]
        if virtual:  # undo the virtual visit and loss added on the way down
            n -= 1
            w += VIRTUAL_LOSS
            node.n -= 1
        n += 1
        w += value if node.player == leaf_player else -value
        node.edge_n[i], node.edge_w[i] = n, w
        node.n += 1
        if uct:
            node.edge_q[i] = w / n
            node.edge_r[i] = n**-0.5


def add_root_noise(root: Node, alpha: float, fraction: float, rng: np.random.Generator) -> None:
    """Mix ``Dir(alpha)`` noise into the priors of an expanded root with two or more actions,
    with weight ``fraction``; the noiseless priors are kept in ``clean_priors``."""
    if not root.expanded or len(root.actions) < 2:
        return
    clean = root.clean_priors if root.clean_priors is not None else root.priors
    noise = rng.dirichlet([alpha] * len(root.actions))
    root.clean_priors = clean
    root.priors = [(1 - fraction) * p + fraction * float(eta) for p, eta in zip(clean, noise, strict=True)]


def run_uct(
    game: Game,
    root: Node,
    limit: int | None,
    deadline: float | None,
    values: Callable[[Game, Sequence[Any]], list[float]],
    one_value: Callable[[Any], float] | None,
    draw: Callable[[], float],
    c_uct: float,
) -> int:
    """Plain UCT with a values-only evaluator, one leaf at a time, until ``limit`` simulations
    or ``deadline`` (``perf_counter`` time); returns the simulations run. The same selection,
    expansion, evaluation and backup as ``select``/``expand``/``backup`` (and the same draws),
    in one loop over local names: this is the ``mcts`` agent's whole search. ``one_value``, if
    given, values one state (a rollout evaluator with one rollout per leaf), without lists."""
    apply = game.apply
    log, sqrt, inf = math.log, math.sqrt, math.inf
    clock = _time.perf_counter
    done = 0
    nodes: list[Node] = []
    edges: list[int] = []
    while limit is None or done < limit:
        node = root
        nodes.clear()
        edges.clear()
        while True:  # selection: down the tree to a node not yet in it, or a terminal one
            if node.terminal or not node.expanded:
                if node.terminal:
                    returns = node.terminal_returns
                    value = returns[node.player] if returns else 0.0
                    break
                if not node.evaluated:  # (a node left unexpanded by a batched search)
                    value = values(game, [node.state])[0]
                    expand(node, game, None, False)
                    break
                expand(node, game, None, False)  # a leaf's second visit: its edges now, then on down
            actions = node.actions
            i = node.untried
            if i < len(actions):  # first tries in a random order
                j = i + int(draw() * (len(actions) - i))
                actions[i], actions[j] = actions[j], actions[i]
                node.untried = i + 1
            else:  # the first edge with the highest q + c * sqrt(log n) * r
                k = c_uct * sqrt(log(node.n))
                edge_r = node.edge_r
                best = -inf
                j = 0
                for q in node.edge_q:  # a plain loop: Python's float opcodes beat map(add, ...)
                    q += k * edge_r[j]
                    if q > best:
                        best = q
                        i = j
                    j += 1
            nodes.append(node)
            edges.append(i)
            child = node.children[i]
            if child is None:  # expansion and evaluation of the new node
                node.children[i] = child = Node(game, apply(node.state, actions[i]))
                if child.terminal:
                    returns = child.terminal_returns
                    value = returns[child.player] if returns else 0.0
                else:  # its edges wait for a second visit: most leaves never get one
                    state = child.state
                    value = one_value(state) if one_value is not None else values(game, [state])[0]
                    child.evaluated = True
                node = child
                break
            node = child
        leaf_player = node.player
        # Backup. The two lists grow together; a keyword (strict=) would be parsed every time.
        for node, i in zip(nodes, edges):  # noqa: B905
            n = node.edge_n[i] + 1
            w = node.edge_w[i] + (value if node.player == leaf_player else -value)
            node.edge_n[i] = n
            node.edge_w[i] = w
            node.n += 1
            node.edge_q[i] = w / n
            node.edge_r[i] = n**-0.5
        done += 1
        if deadline is not None and clock() >= deadline:
            break
    return done
