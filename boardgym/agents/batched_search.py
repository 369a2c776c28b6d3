"""Tree search over the batched rules: B searches at once, the trees held as tensors, one
evaluator call per simulation for the leaves of all B.

``BatchedMCTS`` runs AlphaZero's PUCT search (``boardgym.agents.mcts.MCTS``'s rule, values and
first-play value, with Dirichlet noise at the root) for every game of a batched state
(``boardgym.batch``), or with ``gumbel=True`` Gumbel AlphaZero's root (Gumbel-top-k sampling,
sequential halving, the completed-Q policy target), PUCT below the root. It is built as mctx
is, in three parts:

- the algorithm (``batched_tree``): the trees as one NamedTuple of tensors (``Tree``: every
  node's edge statistics as named planes, its children, player and rules' state), and a
  simulation as ``walk``, ``expand`` and ``backup`` over it, with no host read;
- the root policies (``batched_roots``): ``PuctRoot`` and ``GumbelRoot``, interchangeable;
- the device tactics (``batched_tactics.DeviceTactics``): early exit, evaluating every leaf,
  the evaluation cache, the lagged depth and, on CUDA, each simulation captured as a CUDA graph
  (``capture=False`` turns that off). They change the cost, never the result.

Everything stays on the rules' device (CPU or CUDA), in inference mode::

    rules = batched("connect_four", device="cuda")
    search = BatchedMCTS(rules, NetworkBatchEvaluator(network), simulations=200)  # alphazero.network_leaf
    result = search.search(rules.init(1024), rng=np.random.default_rng(0))
    result.visits, result.policy, result.action        # [B, A], [B, A], long[B]

With ``dtype=torch.float64`` and no noise the visit counts are those of ``MCTS`` with the same
evaluator (``tests/agents/test_batched_search.py`` checks it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np
import torch

from boardgym.agents.batched_roots import GumbelRoot, PuctRoot, RootPolicy, best_actions, considered_visits
from boardgym.agents.batched_tactics import DepthReader, DeviceTactics, LaggedDepthReader
from boardgym.agents.batched_tree import N, Tree, W, new_tree, normalised, plant, simulate
from boardgym.batch.core import BatchedGame
from boardgym.types import BoardgymError


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


class BatchedMCTS:
    """PUCT (or Gumbel-root) search over ``rules`` for a batch of positions (module doc).

    ``simulations`` per search; ``c_puct`` and ``fpu`` as ``MCTS``'s; ``dirichlet_alpha``
    (None: no noise) and ``dirichlet_fraction``: AlphaZero's root noise (PUCT only);
    ``gumbel``: Gumbel AlphaZero's root, ``considered`` actions sampled (Gumbel-top-k),
    ``c_visit`` and ``c_scale`` the weights of the completed Q-values (the paper's 50 and 0.1);
    ``root``: any other ``RootPolicy`` instead of those two; ``dtype``: of the statistics
    (float64 reproduces ``MCTS`` to the bit); ``cache``: on a CPU, remember the evaluations of
    this many positions across simulations and searches (0: none; keep it while the evaluator
    is the same); ``capture``: on CUDA, replay each simulation as a CUDA graph (None: on where
    CUDA is). ``tactics`` holds how it runs (``DeviceTactics``).
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
        root: RootPolicy | None = None,
        dtype: torch.dtype = torch.float32,
        cache: int = 0,
        capture: bool | None = None,
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
        if cache < 0:
            raise BoardgymError(f"batched search cache={cache} must be 0 (none) or a number of positions")
        self.rules, self.evaluator, self.device = rules, evaluator, rules.device
        self.simulations, self.c_puct, self.fpu, self.dtype = simulations, c_puct, fpu, dtype
        self.gumbel = gumbel
        if root is None and gumbel:
            considered = min(considered, rules.num_actions)
            root = GumbelRoot(
                simulations=simulations,
                considered=considered,
                c_visit=c_visit,
                c_scale=c_scale,
                dtype=dtype,
                device=self.device,
            )
        self.root: RootPolicy = root or PuctRoot(dirichlet_alpha, dirichlet_fraction)
        self.tactics = DeviceTactics(self.device, rules.num_actions, cache=cache, capture=capture)

    # -- the search ---------------------------------------------------------------------------
    def search(self, roots: Any, rng: np.random.Generator | None = None, *, gumbel_noise: bool = True) -> SearchResult:
        """Search every position of ``roots`` (a batched state; none may be over). ``rng`` draws
        the root policy's noise (Dirichlet's, or Gumbel's samples; ``gumbel_noise=False``: no
        Gumbel sample, the deterministic choice a player makes)."""
        if self.device.type == "cpu" and bool((roots.terminated | roots.truncated).any()):
            raise BoardgymError("the batched search cannot search from a finished game; search live positions only")
        with torch.inference_mode():  # no autograd bookkeeping on the many small operations
            found = self._search(roots, rng, gumbel_noise)
        return SearchResult(*(value.clone() for value in found))  # tensors a caller may change in place

    def _search(self, roots: Any, rng: np.random.Generator | None, draw: bool) -> SearchResult:
        tree = self.start(roots, rng, draw)
        self.tactics.depth_reader.start()
        for simulation in range(self.simulations):
            tree = self.tactics.simulate(self.simulate, tree, simulation, self.evaluator)
        return self._result(tree)

    def start(self, roots: Any, rng: np.random.Generator | None = None, draw: bool = True) -> Tree:
        """The trees of ``roots`` before the first simulation: the roots evaluated (one call),
        their priors normalised over the legal moves and given to the root policy (its noise,
        its draws), planted in the tactics' tree."""
        rules, dtype, batch, nodes = self.rules, self.dtype, len(roots.current_player), self.simulations + 1
        legal = rules.legal_mask(roots)
        planes = rules.observation(roots, roots.current_player)
        everyone = torch.ones(batch, dtype=torch.bool, device=self.device)
        priors, value = self.tactics.evaluate(self.evaluator, planes, legal, everyone)
        priors = normalised(priors.to(dtype), legal)
        logits = torch.log(priors.clamp_min(torch.finfo(dtype).tiny)).masked_fill(~legal, -math.inf)
        priors, noise = self.root.prepare(priors, legal, rng, draw)
        tree = self.tactics.tree(lambda: new_tree(rules, roots, nodes, dtype), batch, nodes)
        return plant(tree, roots, legal, priors, value.to(dtype), logits, noise, c_puct=self.c_puct, fpu=self.fpu)

    def simulate(self, tree: Tree, levels: int, early_exit: bool = False) -> Tree:
        """One simulation of every tree (``batched_tree.simulate``: walk, expand, backup), the
        walk at most ``levels`` long; no host read where the tactics are ``sync_free``."""

        def evaluate(state: Any, legal: torch.Tensor, which: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            planes = self.rules.observation(state, state.current_player)
            return self.tactics.evaluate(self.evaluator, planes, legal, which)

        return simulate(
            tree,
            levels,
            self.root.select,
            evaluate,
            self.rules,
            self.rules.step_unchecked if self.tactics.sync_free else self.rules.step,
            c_puct=self.c_puct,
            fpu=self.fpu,
            early_exit=early_exit,
        )

    def _result(self, tree: Tree) -> SearchResult:
        visits, wins = tree.root_edges(N), tree.root_edges(W)
        q = torch.where(visits > 0, wins / visits.clamp_min(1), 0.0)
        total = visits.sum(1)
        value = torch.where(total > 0, wins.sum(1) / total.clamp_min(1), tree.root_value)
        policy, action = self.root.finish(tree)
        return SearchResult(visits, q, policy, action, value, tree.root_legal)

    # -- the tactics' settings, as attributes of the search --------------------------------------
    @property
    def early_exit(self) -> bool:
        return self.tactics.early_exit

    @early_exit.setter
    def early_exit(self, value: bool) -> None:
        self.tactics.early_exit = value

    @property
    def evaluate_all(self) -> bool:
        return self.tactics.evaluate_all

    @evaluate_all.setter
    def evaluate_all(self, value: bool) -> None:
        self.tactics.evaluate_all = value

    @property
    def depth_reader(self) -> DepthReader:
        return self.tactics.depth_reader

    @depth_reader.setter
    def depth_reader(self, value: DepthReader) -> None:
        self.tactics.depth_reader = value

    @property
    def calls(self) -> int:
        """Evaluator calls so far."""
        return self.tactics.calls

    @property
    def evaluations(self) -> int:
        """Positions sent to the evaluator so far, roots included."""
        return self.tactics.evaluations

    @property
    def cache_hits(self) -> int:
        return self.tactics.cache_hits


def sample_actions(policy: torch.Tensor, rng: np.random.Generator | torch.Tensor) -> torch.Tensor:
    """``long[B]``: one action drawn from each row of ``policy`` in proportion to its weights
    (non-negative, not all zero; they need not sum to 1), by one uniform draw per row: from
    ``rng``, or ``rng`` the draws themselves (``float64[B]`` in [0, 1), on the policy's device:
    drawn ahead, many moves at once, they cost a move nothing)."""
    # u in [0, 1), compared in float64: the first action whose share of the row's total so far
    # passes u; a weight of 0 adds nothing to the share, so it is never that action, and the
    # last share is exactly 1
    if isinstance(rng, torch.Tensor):
        draws = rng
    else:
        draws = torch.as_tensor(rng.random(len(policy)), device=policy.device)
    cumulative = policy.cumsum(1)
    return (cumulative / cumulative[:, -1:] <= draws.unsqueeze(1)).sum(1)


__all__: Sequence[str] = (
    "BatchEvaluator",
    "BatchedMCTS",
    "DepthReader",
    "DeviceTactics",
    "GumbelRoot",
    "LaggedDepthReader",
    "PuctRoot",
    "SearchResult",
    "best_actions",
    "considered_visits",
    "sample_actions",
)
