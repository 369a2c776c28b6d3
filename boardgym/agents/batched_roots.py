"""The batched search's root policies, interchangeable pieces of ``BatchedMCTS``: each says
what the roots start with (``prepare``), which move a simulation takes at the roots
(``select``, inside the walk) and what the search returns (``finish``).

- ``PuctRoot``: AlphaZero's root, PUCT as below it, with Dirichlet noise mixed into the priors;
  the policy target is the visit distribution and the move the most visited.
- ``GumbelRoot``: Gumbel AlphaZero's root (Danihelka et al., "Policy improvement by planning
  with Gumbel", ICLR 2022): Gumbel-top-k sampling of the root's actions, sequential halving of
  the budget among them, and the completed-Q policy target (mctx's ``gumbel_muzero_policy``).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np
import torch

from boardgym.agents.batched_tree import N, P, Tree, W, puct_choice


class RootPolicy(Protocol):
    """A root policy of the batched search (module doc)."""

    def prepare(
        self, priors: torch.Tensor, legal: torch.Tensor, rng: np.random.Generator | None, draw: bool
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The roots' priors as the tree holds them (noise mixed in where the policy mixes any)
        and the policy's draws ``[B, A]`` (zeros where it draws none; none when not ``draw``)."""
        ...

    def select(self, tree: Tree, stats: torch.Tensor) -> torch.Tensor:
        """``long[B]``: the move this simulation takes at each root (``stats``: the roots' edge
        statistics ``[B, PLANES, A]``). No host read: it runs inside a simulation."""
        ...

    def finish(self, tree: Tree) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy target ``[B, A]`` and the move ``long[B]`` of each root, the search done."""
        ...


class PuctRoot:
    """AlphaZero's root: PUCT, with ``Dir(alpha)`` noise over each root's legal moves mixed in
    at ``fraction`` (``alpha`` None: no noise; roots with one legal move keep their priors, as
    ``MCTS`` does)."""

    def __init__(self, alpha: float | None = None, fraction: float = 0.25) -> None:
        self.alpha, self.fraction = alpha, fraction

    def prepare(
        self, priors: torch.Tensor, legal: torch.Tensor, rng: np.random.Generator | None, draw: bool
    ) -> tuple[torch.Tensor, torch.Tensor]:
        zeros = torch.zeros_like(priors)
        if self.alpha is None:
            return priors, zeros
        draws = (rng or np.random.default_rng()).gamma(self.alpha, size=tuple(priors.shape))
        gamma = torch.as_tensor(draws, device=priors.device).to(priors.dtype) * legal
        noise = gamma / gamma.sum(1, keepdim=True).clamp_min(torch.finfo(priors.dtype).tiny)
        mixed = (1 - self.fraction) * priors + self.fraction * noise
        return torch.where((legal.sum(1) >= 2).unsqueeze(1), mixed, priors), zeros

    def select(self, tree: Tree, stats: torch.Tensor) -> torch.Tensor:
        return puct_choice(stats)

    def finish(self, tree: Tree) -> tuple[torch.Tensor, torch.Tensor]:
        visits, wins = tree.root_edges(N), tree.root_edges(W)
        q = torch.where(visits > 0, wins / visits.clamp_min(1), 0.0)
        policy = visits / visits.sum(1).clamp_min(1).unsqueeze(1)
        return policy, best_actions(visits, q, tree.root_legal)


class GumbelRoot:
    """Gumbel AlphaZero's root (module doc): ``considered`` actions (at most the legal ones),
    ``c_visit`` and ``c_scale`` the weights of the completed Q-values (the paper's 50 and 0.1),
    sequential halving's schedule made for ``simulations`` on ``device``."""

    def __init__(
        self,
        *,
        simulations: int,
        considered: int,
        c_visit: float = 50.0,
        c_scale: float = 0.1,
        dtype: torch.dtype = torch.float32,
        device: torch.device | str = "cpu",
    ) -> None:
        self.considered, self.c_visit, self.c_scale = considered, c_visit, c_scale
        # the visits an action must have to be visited, by considered actions and simulation
        self.schedule = torch.tensor(
            [considered_visits(m, simulations) for m in range(considered + 1)], device=device
        ).to(dtype)

    def prepare(
        self, priors: torch.Tensor, legal: torch.Tensor, rng: np.random.Generator | None, draw: bool
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if not draw:
            return priors, torch.zeros_like(priors)
        draws = (rng or np.random.default_rng()).gumbel(size=tuple(priors.shape))
        return priors, torch.as_tensor(draws, device=priors.device).to(priors.dtype)

    def select(self, tree: Tree, stats: torch.Tensor) -> torch.Tensor:
        n, legal = stats[:, N], tree.root_legal
        q = self.completed_q(n, stats[:, W], stats[:, P], tree.root_value, legal)
        row = legal.sum(1).clamp(max=self.considered) * self.schedule.shape[1]
        target = self.schedule.view(-1).index_select(0, row + tree.simulation)  # no host read of the simulation
        score = tree.root_noise + tree.root_logits + q
        return score.masked_fill(~legal | (n != target.unsqueeze(1)), -math.inf).argmax(1)

    def finish(self, tree: Tree) -> tuple[torch.Tensor, torch.Tensor]:
        visits, legal = tree.root_edges(N), tree.root_legal
        completed = self.completed_q(visits, tree.root_edges(W), tree.root_edges(P), tree.root_value, legal)
        policy = torch.softmax((tree.root_logits + completed).masked_fill(~legal, -math.inf), dim=1)
        most = visits.masked_fill(~legal, -1).amax(1, keepdim=True)
        score = (tree.root_noise + tree.root_logits + completed).masked_fill(~legal | (visits != most), -math.inf)
        return policy, score.argmax(1)

    def completed_q(
        self, visits: torch.Tensor, wins: torch.Tensor, priors: torch.Tensor, raw: torch.Tensor, legal: torch.Tensor
    ) -> torch.Tensor:
        """Gumbel AlphaZero's ``sigma(completed Q)``: the mean value of each visited action, the
        mixed value (the network's value and the prior-weighted mean of the visited actions) for
        the others, rescaled to [0, 1] over the legal ones, times ``(c_visit + max N) * c_scale``."""
        tiny = torch.finfo(visits.dtype).tiny
        visited = visits > 0
        q = torch.where(visited, wins / visits.clamp_min(1), 0.0)
        total = visits.sum(1)
        weights = torch.where(visited, priors.clamp_min(tiny), 0.0)
        weighted = (weights * q).sum(1) / weights.sum(1).clamp_min(tiny)
        mixed = (raw + total * weighted) / (total + 1)
        completed = torch.where(visited, q, mixed.unsqueeze(1))
        low = completed.masked_fill(~legal, math.inf).amin(1, keepdim=True)
        high = completed.masked_fill(~legal, -math.inf).amax(1, keepdim=True)
        rescaled = (completed - low) / (high - low).clamp_min(1e-8)
        most = visits.amax(1, keepdim=True)
        return (self.c_visit + most) * self.c_scale * rescaled.masked_fill(~legal, 0.0)


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


def best_actions(visits: torch.Tensor, q: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``long[B]``: each row's most visited legal action; ties go to the higher mean value, then
    to the lowest action."""
    most = visits.masked_fill(~legal, -1).amax(1, keepdim=True)
    return q.masked_fill(~legal | (visits != most), -math.inf).argmax(1)


__all__: Any = ("GumbelRoot", "PuctRoot", "RootPolicy", "best_actions", "considered_visits")
