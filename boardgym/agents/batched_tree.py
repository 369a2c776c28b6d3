"""The batched search's tree and the three functions of a simulation over it, in mctx's shape.

``Tree`` holds B trees of ``nodes`` nodes each as one NamedTuple of tensors, flat over
``B * nodes`` rows (game ``g``'s node ``k`` is row ``g * nodes + k``; node ``s + 1`` is the one
simulation ``s`` adds). A simulation is ``walk`` (down all B trees together, one level a step),
``expand`` (one step of the rules for the B new leaves, one evaluator call, the new nodes
written) and ``backup`` (every level of the walk at once). The three update the tree's tensors
in place and make no host read and no data-dependent shape, so one simulation can be compiled
whole or captured as one CUDA graph; what may wait for the device (stopping a walk early,
evaluating only the new leaves) is the tactics' (``batched_tactics``), passed in.

Values follow ``boardgym.agents.mcts.MCTS``: an edge's summed value is seen from the player who
chose it; a leaf's value ``v`` for the player on move there counts ``v`` for that player and
``-v`` for the other.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from boardgym.batch.rows import put_rows_, take_rows

N, W, P, Q, D, X, S = range(7)
"""The planes of a node's edge statistics ``Tree.edges[row] = [planes, A]``: visits, summed
values, priors, mean values (``fpu`` while unvisited), ``1 + visits``, 0 on legal moves and
-inf on the others, and the node's exploration scale ``c_puct * sqrt(visits of the node)``
(``c_puct`` while unvisited) in every column. The backup keeps the derived ones (Q, D, S) up to
date, so that a level of the walk is one read of one block per game and a few operations."""
PLANES = 7

UNEXPANDED = -1
"""``Tree.children``: an edge not followed yet; ``-2 - k``: it leads to node row ``k``, a
finished game (the walk stops there); ``k >= 0``: it leads to node row ``k``."""


class Tree(NamedTuple):
    """B search trees of ``nodes`` nodes each (module doc). Every tensor lives on the rules'
    device; a search that keeps its tree (a CUDA graph was captured over it) fills it again."""

    edges: torch.Tensor
    """``[B * nodes, PLANES, A]``: each node's edge statistics (the planes ``N`` ... ``S``)."""
    children: torch.Tensor
    """``long[B * nodes, A]``: the node row each edge leads to (``UNEXPANDED``, ``-2 - k``)."""
    player: torch.Tensor
    """``long[B * nodes]``: the player on move at each node."""
    terminal_value: torch.Tensor
    """``[B * nodes]``: a finished game's value for the player on move there (the rules')."""
    depth: torch.Tensor
    """``long[B * nodes]``: each node's depth (roots 0)."""
    deepest: torch.Tensor
    """``long[]``: the depth of the deepest node of any tree."""
    simulation: torch.Tensor
    """``long[]``: simulations done; the next one writes node ``simulation + 1`` of each tree."""
    states: Any
    """The batched rules' state of every node: a state NamedTuple of ``B * nodes`` rows."""
    root_value: torch.Tensor
    """``[B]``: the evaluator's value of each root for the player on move."""
    root_legal: torch.Tensor
    """``bool[B, A]``: each root's legal moves."""
    root_logits: torch.Tensor
    """``[B, A]``: the log of each root's priors (before any noise), -inf on illegal moves."""
    root_noise: torch.Tensor
    """``[B, A]``: a root policy's draws (Gumbel's samples; zeros where it draws none)."""
    games: torch.Tensor
    """``long[B]``: 0 to B - 1."""
    roots: torch.Tensor
    """``long[B]``: the row of each tree's root (``games * nodes``)."""

    @property
    def batch(self) -> int:
        return int(self.root_value.shape[0])

    @property
    def nodes(self) -> int:
        return int(self.player.shape[0]) // self.batch

    def root_edges(self, plane: int) -> torch.Tensor:
        """``[B, A]``: one plane of the roots' edge statistics."""
        return self.edges.view(self.batch, self.nodes, PLANES, -1)[:, 0, plane]


class Walk(NamedTuple):
    """The path of one simulation in every tree: ``levels`` steps of ``B``, flat ``[levels * B]``
    (level-major). A walk that ended early repeats its last node with ``active`` false."""

    node: torch.Tensor
    action: torch.Tensor
    active: torch.Tensor
    leaf_node: torch.Tensor
    """``long[B]``: the node each walk ended at."""
    leaf_action: torch.Tensor
    """``long[B]``: the move it chose there, to a new leaf or a finished game."""


RootSelect = Callable[[Tree, torch.Tensor], torch.Tensor]
"""A root policy's choice at the roots: ``(tree, stats [B, PLANES, A]) -> long[B]``."""

Step = Callable[[Any, torch.Tensor], Any]
"""The rules' step the expansion takes (``rules.step_unchecked``: no host read; on a CPU the
search may pass ``rules.step``, whose cheap looks at the batch save work there)."""

Evaluate = Callable[[Any, torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]
"""``(state, legal, which) -> (priors [B, A], values [B])``: the evaluator, through the tactics
(``which``: the positions whose evaluations are used; the others may be skipped)."""


def new_tree(rules: Any, roots: Any, nodes: int, dtype: torch.dtype) -> Tree:
    """Empty buffers for ``len(roots)`` trees of ``nodes`` nodes (``plant`` fills them)."""
    batch, actions, device = len(roots.current_player), rules.num_actions, rules.device
    rows = batch * nodes
    return Tree(
        edges=torch.zeros((rows, PLANES, actions), dtype=dtype, device=device),
        children=torch.zeros((rows, actions), dtype=torch.long, device=device),
        player=torch.zeros(rows, dtype=torch.long, device=device),
        terminal_value=torch.zeros(rows, dtype=dtype, device=device),
        depth=torch.zeros(rows, dtype=torch.long, device=device),
        deepest=torch.zeros((), dtype=torch.long, device=device),
        simulation=torch.zeros((), dtype=torch.long, device=device),
        states=roots._replace(
            **{
                name: value.new_zeros((rows, *value.shape[1:]))
                for name, value in zip(roots._fields, roots, strict=True)
            }
        ),
        root_value=torch.zeros(batch, dtype=dtype, device=device),
        root_legal=torch.zeros((batch, actions), dtype=torch.bool, device=device),
        root_logits=torch.zeros((batch, actions), dtype=dtype, device=device),
        root_noise=torch.zeros((batch, actions), dtype=dtype, device=device),
        games=torch.arange(batch, device=device),
        roots=torch.arange(batch, device=device) * nodes,
    )


def plant(
    tree: Tree,
    roots: Any,
    legal: torch.Tensor,
    priors: torch.Tensor,
    value: torch.Tensor,
    logits: torch.Tensor,
    noise: torch.Tensor,
    *,
    c_puct: float,
    fpu: float,
) -> Tree:
    """``tree`` emptied (in place) and holding ``roots``: their priors (the root policy's, noise
    mixed in where it mixes any), the evaluator's values, the priors' ``logits`` and the root
    policy's ``noise``."""
    base = tree.roots
    tree.edges.zero_()
    tree.edges[:, Q], tree.edges[:, D], tree.edges[:, S] = fpu, 1.0, c_puct
    tree.children.fill_(UNEXPANDED)
    for plane in (tree.player, tree.terminal_value, tree.depth, tree.deepest, tree.simulation):
        plane.zero_()
    put_rows_(tree.states, base, roots)
    tree.player.index_copy_(0, base, roots.current_player)
    tree.edges.select(1, P).index_copy_(0, base, priors)
    tree.edges.select(1, X).index_copy_(0, base, illegal_as_inf(legal, tree.edges.dtype))
    for field, source in ((tree.root_value, value), (tree.root_legal, legal), (tree.root_logits, logits)):
        field.copy_(source)
    tree.root_noise.copy_(noise)
    return tree


def simulate(
    tree: Tree,
    levels: int,
    select_root: RootSelect,
    evaluate: Evaluate,
    rules: Any,
    step: Step | None = None,
    *,
    c_puct: float,
    fpu: float,
    early_exit: bool = False,
) -> Tree:
    """One simulation in every tree: ``walk`` at most ``levels`` levels (at least the deepest
    tree's depth plus one), ``expand``, ``backup``. With ``early_exit`` the walk stops once every
    walk has reached its leaf: a look at the batch (a host read)."""
    walked = walk(tree, levels, select_root, early_exit)
    value, by = expand(tree, walked, evaluate, rules, step)
    return backup(tree, walked, value, by, c_puct=c_puct, fpu=fpu)


def walk(tree: Tree, levels: int, select_root: RootSelect, early_exit: bool = False) -> Walk:
    """Down every tree from its root, one level of all B a step: at the root the root policy's
    choice, below it PUCT's (``q + c_puct * sqrt(N) * prior / (1 + n)``, illegal moves at -inf),
    until an edge not followed yet or a finished game."""
    actions = tree.children.shape[1]
    base = tree.roots
    node, active = base, torch.ones_like(base, dtype=torch.bool)
    steps: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []
    for level in range(levels):
        stats = tree.edges.index_select(0, node)
        action = select_root(tree, stats) if level == 0 else puct_choice(stats)
        steps.append((node, action, active))
        child = tree.children.view(-1).index_select(0, node * actions + action)
        active = active & (child >= 0)
        node = torch.where(active, child, node)  # a finished walk stays at its last choice
        if early_exit and not bool(active.any()):
            break
    step_node, step_action, step_active = (torch.cat(column) for column in zip(*steps, strict=True))
    # the walk's last choice: from node `node`, the move of its last active level
    batch = len(base)
    last = (step_active.view(len(steps), batch).sum(0) - 1) * batch + tree.games
    return Walk(step_node, step_action, step_active, node, step_action.index_select(0, last))


def puct_choice(stats: torch.Tensor) -> torch.Tensor:
    """``long[B]``: PUCT's move at nodes whose statistics are ``stats`` ``[B, PLANES, A]``."""
    score = stats[:, S] * stats[:, P] / stats[:, D] + stats[:, Q] + stats[:, X]
    return score.argmax(1)


def expand(
    tree: Tree, walked: Walk, evaluate: Evaluate, rules: Any, step: Step | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The new leaves: one step of the rules from each walk's last node, one evaluator call,
    the nodes written at row ``root + simulation + 1`` (a walk that ended on a finished game
    writes its slot too: nothing points there). Returns the value to back up and the player it
    is for: the evaluator's (or, for a finished game, the rules') value of the new leaf, or the
    value of the finished game a walk ended on."""
    dtype, actions = tree.edges.dtype, tree.children.shape[1]
    node, leaf_action = walked.leaf_node, walked.leaf_action
    slot = node * actions + leaf_action
    child = tree.children.view(-1).index_select(0, slot)
    new = child == UNEXPANDED
    known = torch.where(new, 0, -2 - child)  # the finished game a walk ended on, if any
    after = (step or rules.step_unchecked)(take_rows(tree.states, node), leaf_action)
    index = tree.roots + tree.simulation + 1
    leaf_over = after.terminated | after.truncated
    leaf_player = after.current_player
    leaf_legal = rules.legal_mask(after)
    priors, values = evaluate(after, leaf_legal, new & ~leaf_over)
    rules_value = after.rewards.gather(1, leaf_player.unsqueeze(1)).squeeze(1).to(dtype)
    put_rows_(tree.states, index, after)
    tree.player.index_copy_(0, index, leaf_player)
    tree.terminal_value.index_copy_(0, index, rules_value)
    depth = tree.depth.index_select(0, node) + 1
    tree.depth.index_copy_(0, index, depth)
    torch.maximum(tree.deepest, (depth * new).amax(), out=tree.deepest)
    tree.edges.select(1, P).index_copy_(0, index, normalised(priors.to(dtype), leaf_legal))
    tree.edges.select(1, X).index_copy_(0, index, illegal_as_inf(leaf_legal, dtype))
    link = torch.where(new, torch.where(leaf_over, -2 - index, index), child)
    tree.children.view(-1).index_copy_(0, slot, link)
    tree.simulation.add_(1)
    value = torch.where(
        new, torch.where(leaf_over, rules_value, values.to(dtype)), tree.terminal_value.index_select(0, known)
    )
    by = torch.where(new, leaf_player, tree.player.index_select(0, known))
    return value, by


def backup(tree: Tree, walked: Walk, value: torch.Tensor, by: torch.Tensor, *, c_puct: float, fpu: float) -> Tree:
    """``value`` (for player ``by``) added along every walk, all levels at once: each walked
    edge's visits and summed value (signed for the player who chose it), then the planes
    derived from them (mean value, ``1 + visits``, the node's exploration scale)."""
    edges, actions = tree.edges, tree.children.shape[1]
    levels = len(walked.node) // len(value)
    weight = walked.active.to(edges.dtype)
    level_value = value.repeat(levels)
    signed = torch.where(tree.player.index_select(0, walked.node) == by.repeat(levels), level_value, -level_value)
    flat_edges = edges.view(-1)
    flat = walked.node * (PLANES * actions) + walked.action
    flat_edges.index_add_(0, flat, weight)  # N
    flat_edges.index_add_(0, flat + W * actions, signed * weight)
    flat_edges.index_add_(0, flat + D * actions, weight)
    n, w = flat_edges.index_select(0, flat), flat_edges.index_select(0, flat + W * actions)
    flat_edges.index_copy_(0, flat + Q * actions, torch.where(n > 0, w / n.clamp_min(1), fpu))
    # a node's visits are its edges' (whole numbers: the sum is exact); every walked node was visited
    scale = c_puct * edges.select(1, N).index_select(0, walked.node).sum(1).sqrt()
    edges.select(1, S).index_copy_(0, walked.node, scale.unsqueeze(1).expand(-1, actions))
    return tree


def normalised(priors: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``priors`` over the legal moves, summing to 1 (uniform where they sum to 0)."""
    masked = priors * legal
    total = masked.sum(1, keepdim=True)
    uniform = legal.to(priors.dtype) / legal.sum(1, keepdim=True).clamp_min(1)
    return torch.where(total > 0, masked / total.clamp_min(torch.finfo(priors.dtype).tiny), uniform)


def illegal_as_inf(legal: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """0 on legal moves, -inf on the others (the ``X`` plane)."""
    return torch.zeros(legal.shape, dtype=dtype, device=legal.device).masked_fill_(~legal, -math.inf)
