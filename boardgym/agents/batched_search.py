"""Tree search over the batched rules: B searches at once, the trees held as tensors, one
evaluator call per simulation for the leaves of all B.

``BatchedMCTS`` runs AlphaZero's PUCT search (``boardgym.agents.mcts.MCTS``'s rule, values and
first-play value, with Dirichlet noise at the root) for every game of a batched state
(``boardgym.batch``), or with ``gumbel=True`` Gumbel AlphaZero's root (Danihelka et al., "Policy
improvement by planning with Gumbel", ICLR 2022: Gumbel-top-k sampling of the root's actions,
sequential halving of the budget among them, and the completed-Q policy target), PUCT below
the root. The shape follows mctx: every tree is a row of tensors ``[B, nodes, planes, A]`` (edge
visits and summed values, priors, and what the walk reads: mean values, ``1 + visits``, the
legal moves as 0 or -inf and the node's exploration scale), ``[B, nodes, A]`` (children) and
``[B, nodes]`` (the player on move, the value of a finished game), each node's batched-rules
state kept beside it; node ``s + 1`` is the one simulation ``s`` adds. A simulation walks down
all B trees together, one level per step (a Python loop over the depth, never over games or
nodes; a level is one read of each game's node and a handful of operations), steps the rules
once for the B new leaves, calls the evaluator once for them all, and backs their values up
along every level at once. Terminal leaves take the rules' rewards, not the evaluator's value.
Nothing is reused between searches. Everything stays on the rules' device (CPU or CUDA), in
inference mode::

    rules = batched("connect_four", device="cuda")
    search = BatchedMCTS(rules, NetworkBatchEvaluator(network), simulations=200)  # alphazero.network_leaf
    result = search.search(rules.init(1024), rng=np.random.default_rng(0))
    result.visits, result.policy, result.action        # [B, A], [B, A], long[B]

Values follow ``MCTS``: an edge's summed value is seen from the player who chose it; a leaf's
value ``v`` for the player on move there counts ``v`` for that player and ``-v`` for the other.
With ``dtype=torch.float64`` and no noise the visit counts are those of ``MCTS`` with the same
evaluator (``tests/agents/test_batched_search.py`` checks it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np
import torch

from boardgym.batch.core import BatchedGame
from boardgym.types import BoardgymError

_N, _W, _P, _Q, _D, _X, _S = range(7)
"""The planes of a node's edge statistics ``[planes, A]``: visits, summed values, priors, mean
values (``fpu`` while unvisited), ``1 + visits``, 0 on legal moves and -inf on the others, and
the node's exploration scale ``c_puct * sqrt(visits of the node)`` (``c_puct`` while unvisited)
in every column. The backup keeps the derived ones up to date, so that a level of the walk is
one read of a block per game and a few operations on it."""
_PLANES = 7


class BatchEvaluator(Protocol):
    """Priors and values of a batch of positions, on the rules' device: ``planes``
    ``float32[B, *observation_shape]`` (from the player to move), ``legal`` ``bool[B, A]``;
    returns priors ``[B, A]`` (zero on illegal moves) and values ``[B]`` for the player to move."""

    def __call__(self, planes: torch.Tensor, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]: ...


class SearchResult(NamedTuple):
    """What a batched search found at each root."""

    visits: torch.Tensor
    """``[B, A]``: the root's edge visits."""
    q: torch.Tensor
    """``[B, A]``: the root's mean edge values for the player on move there (0 where unvisited)."""
    policy: torch.Tensor
    """``[B, A]``: the policy target: the visit distribution (PUCT) or the completed-Q policy
    (Gumbel), zero on illegal moves."""
    action: torch.Tensor
    """``long[B]``: the search's move: the most visited (ties: the higher mean value, then the
    lowest action) or, with Gumbel, the winner of sequential halving."""
    value: torch.Tensor
    """``[B]``: the root's mean value for the player on move (the evaluator's where unvisited)."""
    legal: torch.Tensor
    """``bool[B, A]``: the root's legal moves."""


def considered_visits(considered: int, simulations: int) -> list[int]:
    """Sequential halving's schedule (mctx's ``get_sequence_of_considered_visits``): for each
    simulation, the visit count an action must have to be the one visited, when ``considered``
    actions start. Each phase gives every remaining action ``max(1, n / (log2(m) * k))`` more
    visits; then the better half stays (at least two)."""
    if considered <= 1:
        return list(range(simulations))
    log2max = math.ceil(math.log2(considered))
    sequence: list[int] = []
    visits = [0] * considered
    remaining = considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * remaining)))
        for _ in range(extra):
            sequence.extend(visits[:remaining])
            for i in range(remaining):
                visits[i] += 1
        remaining = max(2, remaining // 2)
    return sequence[:simulations]


class BatchedMCTS:
    """PUCT (or Gumbel-root) search over ``rules`` for a batch of positions (module doc).

    ``simulations`` per search; ``c_puct`` and ``fpu`` as ``MCTS``'s; ``dirichlet_alpha``
    (None: no noise) and ``dirichlet_fraction``: AlphaZero's root noise (PUCT only);
    ``gumbel``: Gumbel AlphaZero's root, ``considered`` actions sampled (Gumbel-top-k),
    ``c_visit`` and ``c_scale`` the weights of the completed Q-values (the paper's 50 and 0.1);
    ``dtype``: of the statistics (float64 reproduces ``MCTS`` to the bit); ``cache``: on a
    CPU, remember the evaluations of this many positions (rounded up to a power of two; 0:
    none) across simulations and searches, as ``NetworkEvaluator`` does for the tree search:
    a table of tensors indexed by a 64-bit hash of each position's planes and legal moves,
    a new position overwriting the one in its slot. Keep it while the evaluator is the same.
    """

    def __init__(
        self,
        rules: BatchedGame[Any],
        evaluator: BatchEvaluator,
        *,
        simulations: int,
        c_puct: float = 1.5,
        fpu: float = 0.0,
        dirichlet_alpha: float | None = None,
        dirichlet_fraction: float = 0.25,
        gumbel: bool = False,
        considered: int = 16,
        c_visit: float = 50.0,
        c_scale: float = 0.1,
        dtype: torch.dtype = torch.float32,
        cache: int = 0,
    ) -> None:
        if simulations < 1:
            raise BoardgymError(f"batched search simulations={simulations} must be at least 1")
        if not 0 <= c_puct < math.inf:
            raise BoardgymError(f"batched search c_puct={c_puct} must be a finite number, 0 or more")
        if dirichlet_alpha is not None and not 0 < dirichlet_alpha < math.inf:
            raise BoardgymError(f"batched search dirichlet_alpha={dirichlet_alpha} must be a positive number")
        if not 0 <= dirichlet_fraction <= 1:
            raise BoardgymError(f"batched search dirichlet_fraction={dirichlet_fraction} must be in [0, 1]")
        if considered < 1:
            raise BoardgymError(f"batched search considered={considered} must be at least 1 action")
        self.rules = rules
        self.evaluator = evaluator
        self.simulations = simulations
        self.c_puct = c_puct
        self.fpu = fpu
        self.dirichlet_alpha = dirichlet_alpha
        self.dirichlet_fraction = dirichlet_fraction
        self.gumbel = gumbel
        self.considered = min(considered, rules.num_actions)
        self.c_visit = c_visit
        self.c_scale = c_scale
        self.dtype = dtype
        if cache < 0:
            raise BoardgymError(f"batched search cache={cache} must be 0 (none) or a number of positions")
        self._cache: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None
        self._weights: torch.Tensor | None = None
        if cache and rules.device.type == "cpu":
            size = 1 << max(0, cache - 1).bit_length()
            self._cache = (
                torch.zeros(size, dtype=torch.long),
                torch.zeros((size, rules.num_actions), dtype=torch.float32),
                torch.zeros(size, dtype=torch.float32),
            )
        self.cache_hits = 0
        self.device = rules.device
        # the halving schedule of every number of considered actions: [considered + 1, simulations]
        self._schedule = torch.tensor(
            [considered_visits(m, simulations) for m in range(self.considered + 1)], device=self.device
        ).to(dtype)
        self.early_exit = self.device.type == "cpu"
        """Whether a walk stops as soon as every game reached its leaf: a look at the batch,
        cheap on a CPU, a wait on a GPU (which walks on, the finished games masked)."""
        self.evaluate_all = self.device.type != "cpu"
        """Whether every leaf of a simulation goes to the evaluator, new or not (on a GPU, where
        picking out the new ones would wait for the GPU), instead of the new ones only."""
        self.depth_reader: DepthReader = DepthReader() if self.device.type == "cpu" else LaggedDepthReader()
        """How the walk learns its length, the deepest tree's depth (``DepthReader``: read at
        once; on a GPU ``LaggedDepthReader``: copied back without waiting)."""
        self.evaluations = 0  # leaves sent to the evaluator, roots included
        self.calls = 0

    # -- the search ---------------------------------------------------------------------------
    def search(self, roots: Any, rng: np.random.Generator | None = None, *, gumbel_noise: bool = True) -> SearchResult:
        """Search every position of ``roots`` (a batched state; none may be over). ``rng`` draws
        the Dirichlet noise and the Gumbel samples (``gumbel_noise=False``: no Gumbel sample,
        the deterministic choice a player makes)."""
        with torch.inference_mode():  # no autograd bookkeeping on the many small operations
            found = self._search(roots, rng, gumbel_noise)
        return SearchResult(*(value.clone() for value in found))  # tensors a caller may change in place

    def _search(self, roots: Any, rng: np.random.Generator | None, gumbel_noise: bool) -> SearchResult:
        rules, device, dtype = self.rules, self.device, self.dtype
        batch, actions, nodes = len(roots.current_player), rules.num_actions, self.simulations + 1
        over = roots.terminated | roots.truncated
        if device.type == "cpu" and bool(over.any()):
            raise BoardgymError("the batched search cannot search from a finished game; search live positions only")
        rows = torch.arange(batch, device=device)
        base = rows * nodes  # flat index of each game's node 0
        store = {name: _empty_like_rows(value, batch * nodes) for name, value in zip(roots._fields, roots, strict=True)}
        _write(store, roots, base)
        c_puct, fpu = self.c_puct, self.fpu
        # every node's edge statistics in one block [planes, A] (module doc: _N ... _S), so that
        # a level of the walk reads one block per game
        fresh = torch.zeros((batch, _PLANES, actions), dtype=dtype, device=device)
        fresh[:, _Q], fresh[:, _D], fresh[:, _S] = fpu, 1.0, c_puct
        edges = fresh.new_zeros((batch * nodes, _PLANES, actions))
        edges.view(batch, nodes, _PLANES, actions)[:] = fresh.unsqueeze(1)
        edges_flat = edges.view(-1)
        block = _PLANES * actions
        # children: the node an edge leads to; -1 none yet, -2 - k a finished game at node k
        children = torch.full((batch * nodes, actions), -1, dtype=torch.long, device=device)
        children_flat = children.view(-1)
        player = torch.zeros(batch * nodes, dtype=torch.long, device=device)
        terminal_value = torch.zeros(batch * nodes, dtype=dtype, device=device)
        depth_of = torch.zeros(batch * nodes, dtype=torch.long, device=device)
        deepest = torch.zeros((), dtype=torch.long, device=device)  # of any tree's node
        reader = self.depth_reader
        reader.start()
        early_exit = self.early_exit

        root_legal = rules.legal_mask(roots)
        everyone = torch.ones(batch, dtype=torch.bool, device=device)
        root_priors, root_value = self._evaluate(roots, root_legal, everyone)
        root_priors = _normalised(root_priors.to(dtype), root_legal)
        player[base] = roots.current_player
        root_logits = torch.log(root_priors.clamp_min(torch.finfo(dtype).tiny)).masked_fill(~root_legal, -math.inf)
        if self.dirichlet_alpha is not None and not self.gumbel:
            root_priors = self._noisy(root_priors, root_legal, rng)
        fresh[:, _P] = root_priors
        fresh[:, _X] = torch.zeros_like(root_priors).masked_fill_(~root_legal, -math.inf)
        edges[base] = fresh
        gumbel = torch.zeros((batch, actions), dtype=dtype, device=device)
        if self.gumbel and gumbel_noise:
            draws = (rng or np.random.default_rng()).gumbel(size=(batch, actions))
            gumbel = torch.as_tensor(draws, device=device).to(dtype)
        legal_count = root_legal.sum(1).clamp(max=self.considered)

        for simulation in range(self.simulations):
            node, active = base, everyone
            walked: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []
            for depth in range(reader.bound(simulation) + 1):  # one level of all B trees a step
                stats = edges.index_select(0, node)
                if depth == 0 and self.gumbel:
                    n, w, p = stats[:, _N], stats[:, _W], stats[:, _P]
                    q = self._completed_q(n, w, p, root_value.to(dtype), root_legal)
                    target = self._schedule[legal_count, simulation]
                    score = gumbel + root_logits + q
                    action = score.masked_fill(~root_legal | (n != target.unsqueeze(1)), -math.inf).argmax(1)
                else:  # q + c_puct * sqrt(N) * prior / (1 + n), illegal moves at -inf
                    score = stats[:, _S] * stats[:, _P] / stats[:, _D] + stats[:, _Q] + stats[:, _X]
                    action = score.argmax(1)
                walked.append((node, action, active))
                child = children_flat.index_select(0, node * actions + action)
                active = active & (child >= 0)
                node = torch.where(active, child, node)  # a finished walk stays at its last choice
                if early_exit and not bool(active.any()):
                    break
            # every level of the walk at once: [levels * B] (a walk visits a node once; the
            # levels after its end repeat its last node with weight 0)
            levels = len(walked)
            step_node = torch.cat([level[0] for level in walked])
            step_action = torch.cat([level[1] for level in walked])
            step_active = torch.cat([level[2] for level in walked])
            # the walk's last choice: from node `node`, the move of its last active level
            last = (step_active.view(levels, batch).sum(0) - 1) * batch + rows
            leaf_action = step_action.index_select(0, last)
            slot = node * actions + leaf_action
            child = children_flat.index_select(0, slot)
            new = child == -1
            known = torch.where(new, 0, -2 - child)  # the finished game a walk ended on, if any
            # the new leaves: one step of the rules from their parents, one evaluator call
            after = rules.step(_read(store, roots, node), leaf_action)
            index = base + simulation + 1
            leaf_over = after.terminated | after.truncated
            leaf_player = after.current_player
            leaf_legal = rules.legal_mask(after)
            priors, values = self._evaluate(after, leaf_legal, new & ~leaf_over)
            rules_value = after.rewards.gather(1, leaf_player.unsqueeze(1)).squeeze(1).to(dtype)
            # write the new nodes (a walk that ended on a finished game writes its unused slot:
            # nothing points there)
            _write(store, after, index)
            player[index] = leaf_player
            terminal_value[index] = rules_value
            depth_of[index] = depth_of[node] + 1
            deepest = torch.maximum(deepest, (depth_of[index] * new).max())
            reader.push(deepest, simulation)
            fresh[:, _P] = _normalised(priors.to(dtype), leaf_legal)
            fresh[:, _X] = torch.zeros_like(fresh[:, _X]).masked_fill_(~leaf_legal, -math.inf)
            edges.index_copy_(0, index, fresh)
            children_flat[slot] = torch.where(new, torch.where(leaf_over, -2 - index, index), child)
            # the value to back up, for the player on move at the leaf
            value = torch.where(new, torch.where(leaf_over, rules_value, values.to(dtype)), terminal_value[known])
            by = torch.where(new, leaf_player, player[known])
            weight = step_active.to(dtype)
            level_value = value.repeat(levels)
            signed = torch.where(player.index_select(0, step_node) == by.repeat(levels), level_value, -level_value)
            flat = step_node * block + step_action
            edges_flat.index_add_(0, flat, weight)  # _N
            edges_flat.index_add_(0, flat + _W * actions, signed * weight)
            edges_flat.index_add_(0, flat + _D * actions, weight)
            n, w = edges_flat.index_select(0, flat), edges_flat.index_select(0, flat + _W * actions)
            edges_flat[flat + _Q * actions] = torch.where(n > 0, w / n.clamp_min(1), fpu)
            # a node's visits are its edges' (whole numbers: the sum is exact); every walked node was visited
            scale = c_puct * edges.select(1, _N).index_select(0, step_node).sum(1).sqrt()
            edges.select(1, _S).index_copy_(0, step_node, scale.unsqueeze(1).expand(-1, actions))

        visits, wins = edges[base, _N], edges[base, _W]
        q = torch.where(visits > 0, wins / visits.clamp_min(1), 0.0)
        total = visits.sum(1)
        value = torch.where(total > 0, wins.sum(1) / total.clamp_min(1), root_value.to(dtype))
        if self.gumbel:
            completed = self._completed_q(visits, wins, edges[base, _P], root_value.to(dtype), root_legal)
            policy = torch.softmax((root_logits + completed).masked_fill(~root_legal, -math.inf), dim=1)
            most = visits.masked_fill(~root_legal, -1).amax(1, keepdim=True)
            score = (gumbel + root_logits + completed).masked_fill(~root_legal | (visits != most), -math.inf)
            action = score.argmax(1)
        else:
            policy = visits / total.clamp_min(1).unsqueeze(1)
            action = best_actions(visits, q, root_legal)
        return SearchResult(visits, q, policy, action, value, root_legal)

    # -- its parts ------------------------------------------------------------------------------
    def _evaluate(
        self, state: Any, legal: torch.Tensor, which: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Priors and values of the positions of ``state``: those where ``which``, or all of
        them with ``evaluate_all``."""
        planes = self.rules.observation(state, state.current_player)
        self.calls += 1
        if which is not None and not self.evaluate_all:
            priors = torch.zeros(legal.shape, dtype=torch.float32, device=self.device)
            values = torch.zeros(len(legal), dtype=torch.float32, device=self.device)
            if self._cache is not None:
                which, slots, keys = self._from_cache(planes, legal, which, priors, values)
            rows = which.nonzero().squeeze(1)
            if len(rows):
                copies = None
                if self._cache is not None:  # a position twice in the call is evaluated once
                    unique, copies = torch.unique(keys.index_select(0, rows), return_inverse=True)
                    if len(unique) < len(rows):
                        first = torch.full((len(unique),), len(rows), dtype=torch.long)
                        first.scatter_reduce_(0, copies, torch.arange(len(rows)), "amin")
                        rows = rows.index_select(0, first)
                    else:
                        copies = None
                some_priors, some_values = self.evaluator(planes.index_select(0, rows), legal.index_select(0, rows))
                some_priors, some_values = some_priors.float(), some_values.float()
                self.evaluations += len(rows)
                if self._cache is not None:
                    kept_keys, kept_priors, kept_values = self._cache
                    at = slots.index_select(0, rows)
                    kept_keys[at] = keys.index_select(0, rows)
                    kept_priors[at] = some_priors
                    kept_values[at] = some_values
                if copies is not None:  # back to every position of the call
                    self.cache_hits += len(copies) - len(rows)
                    rows = which.nonzero().squeeze(1)
                    some_priors, some_values = some_priors.index_select(0, copies), some_values.index_select(0, copies)
                priors[rows] = some_priors
                values[rows] = some_values
            else:
                self.calls -= 1
            return priors, values
        self.evaluations += len(legal)
        priors, values = self.evaluator(planes, legal)
        return priors.float(), values.float()

    def _from_cache(
        self, planes: torch.Tensor, legal: torch.Tensor, which: torch.Tensor, priors: torch.Tensor, values: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Fill ``priors`` and ``values`` where the cache knows the position; returns the
        positions of ``which`` still to evaluate, and every position's slot and key (for the
        write-back)."""
        assert self._cache is not None
        kept_keys, kept_priors, kept_values = self._cache
        flat = torch.cat((planes.flatten(1).view(torch.int32).long(), legal.long()), 1)
        if self._weights is None or len(self._weights) != flat.shape[1]:
            generator = torch.Generator().manual_seed(0x5EED)
            self._weights = torch.randint(-(2**62), 2**62, (flat.shape[1],), generator=generator) | 1
        keys = (flat * self._weights).sum(1) | 1  # wrapping 64-bit arithmetic; never 0 (an empty slot)
        slots = (keys >> 32) & (len(kept_keys) - 1)  # high bits: the low ones of a float plane are zeros
        hit = which & (kept_keys.index_select(0, slots) == keys)
        if bool(hit.any()):
            rows = hit.nonzero().squeeze(1)
            at = slots.index_select(0, rows)
            priors[rows] = kept_priors.index_select(0, at)
            values[rows] = kept_values.index_select(0, at)
            self.cache_hits += len(rows)
        return which & ~hit, slots, keys

    def _noisy(self, priors: torch.Tensor, legal: torch.Tensor, rng: np.random.Generator | None) -> torch.Tensor:
        """``priors`` with ``Dir(alpha)`` over each root's legal moves mixed in (roots with one
        legal move are left as they are, as ``MCTS`` does)."""
        assert self.dirichlet_alpha is not None
        draws = (rng or np.random.default_rng()).gamma(self.dirichlet_alpha, size=tuple(priors.shape))
        gamma = torch.as_tensor(draws, device=self.device).to(self.dtype) * legal
        noise = gamma / gamma.sum(1, keepdim=True).clamp_min(torch.finfo(self.dtype).tiny)
        mixed = (1 - self.dirichlet_fraction) * priors + self.dirichlet_fraction * noise
        return torch.where((legal.sum(1) >= 2).unsqueeze(1), mixed, priors)

    def _completed_q(
        self, visits: torch.Tensor, wins: torch.Tensor, priors: torch.Tensor, raw: torch.Tensor, legal: torch.Tensor
    ) -> torch.Tensor:
        """Gumbel AlphaZero's ``sigma(completed Q)``: the mean value of each visited action, the
        mixed value (the network's value and the prior-weighted mean of the visited actions) for
        the others, rescaled to [0, 1] over the legal ones, times ``(c_visit + max N) * c_scale``."""
        visited = visits > 0
        q = torch.where(visited, wins / visits.clamp_min(1), 0.0)
        total = visits.sum(1)
        weights = torch.where(visited, priors.clamp_min(torch.finfo(self.dtype).tiny), 0.0)
        weighted = (weights * q).sum(1) / weights.sum(1).clamp_min(torch.finfo(self.dtype).tiny)
        mixed = (raw + total * weighted) / (total + 1)
        completed = torch.where(visited, q, mixed.unsqueeze(1))
        low = completed.masked_fill(~legal, math.inf).amin(1, keepdim=True)
        high = completed.masked_fill(~legal, -math.inf).amax(1, keepdim=True)
        rescaled = (completed - low) / (high - low).clamp_min(1e-8)
        most = visits.amax(1, keepdim=True)
        return (self.c_visit + most) * self.c_scale * rescaled.masked_fill(~legal, 0.0)


class DepthReader:
    """The bound of the walk's length: the deepest node's depth, read after every simulation
    (``int()``: on a CPU the value is there; on a GPU the read would wait for all the work
    queued so far)."""

    def start(self) -> None:
        """A new search: its trees hold their roots only."""
        self._deepest = 0

    def push(self, deepest: torch.Tensor, simulation: int) -> None:
        """``deepest``: the depth of the deepest node once simulation ``simulation`` is done."""
        self._deepest = int(deepest)

    def bound(self, simulation: int) -> int:
        """At least the depth of the deepest node before simulation ``simulation``."""
        return self._deepest


class LaggedDepthReader(DepthReader):
    """``DepthReader`` without the wait, for a GPU: the depth is copied to pinned host memory
    without blocking and read once its copy has arrived (a CUDA event says so). Until then the
    bound grows by one a simulation, since a simulation deepens a tree by at most one level:
    a walk may take a level or two more than it needs (its finished games masked, as always on
    a GPU), and the GPU never waits for the host within a search."""

    def start(self) -> None:
        super().start()
        self._known_at = -1  # the simulation after which the depth read was exact
        self._pending: tuple[torch.Tensor, Any, int] | None = None
        self._host: torch.Tensor | None = None

    def push(self, deepest: torch.Tensor, simulation: int) -> None:
        if self._pending is not None:
            return  # one copy in flight at a time
        if self._host is None:
            self._host = torch.empty((), dtype=torch.long, pin_memory=deepest.device.type == "cuda")
        self._host.copy_(deepest, non_blocking=True)
        self._pending = (self._host, self._event(deepest.device), simulation)

    def bound(self, simulation: int) -> int:
        pending = self._pending
        if pending is not None and self._arrived(pending[1]):
            self._deepest, self._known_at = int(pending[0]), pending[2]
            self._pending = None
        return self._deepest + (simulation - 1 - self._known_at)

    @staticmethod
    def _event(device: torch.device) -> Any:
        if device.type != "cuda":
            return None  # the copy is already done
        event = torch.cuda.Event()
        event.record()
        return event

    def _arrived(self, event: Any) -> bool:
        """Whether the copy recorded by ``event`` is done (a look, no wait)."""
        return event is None or bool(event.query())


def best_actions(visits: torch.Tensor, q: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``long[B]``: each row's most visited legal action; ties go to the higher mean value, then
    to the lowest action."""
    most = visits.masked_fill(~legal, -1).amax(1, keepdim=True)
    return q.masked_fill(~legal | (visits != most), -math.inf).argmax(1)


def sample_actions(policy: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """``long[B]``: one action drawn from each row of ``policy`` (rows summing to 1), by one
    uniform draw per row from ``rng``."""
    draws = torch.as_tensor(rng.random(len(policy)), device=policy.device).to(policy.dtype)
    cumulative = policy.cumsum(1)
    chosen = (cumulative <= draws.unsqueeze(1) * cumulative[:, -1:]).sum(1)
    # never past the last action with some probability (rounding at the top of the sum)
    last = policy.shape[1] - 1 - (policy > 0).flip(1).to(torch.int8).argmax(1)
    return torch.minimum(chosen, last)


def _normalised(priors: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``priors`` over the legal moves, summing to 1 (uniform where they sum to 0)."""
    masked = priors * legal
    total = masked.sum(1, keepdim=True)
    uniform = legal.to(priors.dtype) / legal.sum(1, keepdim=True).clamp_min(1)
    return torch.where(total > 0, masked / total.clamp_min(torch.finfo(priors.dtype).tiny), uniform)


def _empty_like_rows(value: torch.Tensor, rows: int) -> torch.Tensor:
    return torch.zeros((rows, *value.shape[1:]), dtype=value.dtype, device=value.device)


def _write(store: dict[str, torch.Tensor], state: Any, index: torch.Tensor) -> None:
    for name, value in zip(state._fields, state, strict=True):
        store[name][index] = value


def _read(store: dict[str, torch.Tensor], like: Any, index: torch.Tensor) -> Any:
    return like._replace(**{name: store[name].index_select(0, index) for name in like._fields})


__all__: Sequence[str] = (
    "BatchEvaluator",
    "BatchedMCTS",
    "DepthReader",
    "LaggedDepthReader",
    "SearchResult",
    "best_actions",
    "considered_visits",
    "sample_actions",
)
