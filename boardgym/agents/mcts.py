"""Monte Carlo tree search over the rules API, with UCT or PUCT selection.

One search class, ``MCTS``, serves both the random-rollout player (``mcts:simulations=800``)
and AlphaZero: the leaf ``Evaluator`` (``boardgym.agents.leaf``) returns priors and a
value, and ``c_puct`` switches the selection rule from UCT (Kocsis & Szepesvári 2006) to the
prior-weighted PUCT of AlphaZero (Silver et al. 2017). OpenSpiel's ``mcts.py`` is the model of
the separation between search and evaluator. The tree's nodes and the steps of a simulation
(selection, expansion, backup, root noise, the inlined plain-UCT loop) are in ``mcts_tree``.

Public API (stable; AlphaZero builds on it)::

    tree = MCTS(game, evaluator, simulations=800, time=None,
                c_uct=1.4,                  # UCT exploration, used when c_puct is None
                c_puct=None,                # a float: PUCT with the evaluator's priors
                dirichlet_alpha=None,       # root noise (PUCT only): Dir(alpha) ...
                dirichlet_fraction=0.25,    # ... mixed in with this weight
                fpu=0.0,                    # PUCT: mean value assumed for unvisited edges
                batch_size=1,               # leaves per evaluator call (virtual loss between)
                rng=np.random.default_rng(seed))
    root = tree.search(state)               # run the budget from state (reusing the subtree
                                            # kept by advance() when it matches state)
    tree.visit_counts(root)                 # np.ndarray (num_actions,) of root visit counts
    tree.policy(root, temperature=1.0)      # visit distribution; temperature 0 -> one-hot argmax
    tree.best_action(root)                  # most visited (ties: higher mean value, then random)
    tree.choose(root, temperature)          # sample from policy(root, temperature)
    tree.advance(action)                    # keep the chosen child's subtree for the next search
    tree.reset()                            # forget the tree
    tree.reseed(rng)                        # new randomness (first tries, noise, ties)
    tree.action_values(root)                # {action: (visits, mean value)} for display
    tree.summary(root)                      # {"visits", "value", "simulations", "seconds"}: the
                                            # agents' last_info (see boardgym.agents.base)
    tree.last_simulations, tree.last_seconds   # what the latest search() did

    # Driving many trees in lockstep (one network call for the leaves of several games):
    leaves = tree.gather_leaves(state, k)   # up to k pending leaves, virtual loss applied
    tree.backup_leaves(leaves, priors, values)   # arrays shaped like Evaluator.evaluate's
    [leaf.state for leaf in leaves]         # what to evaluate

Values: every edge keeps the sum ``W`` and count ``N`` of the results seen from the point of
view of the player who chose that edge; a leaf value ``v`` for the player on move at the leaf
counts as ``v`` for that player and ``-v`` for the other, so games whose turns do not
alternate (Quarto) need nothing special. Terminal states are scored by ``game.returns``.

Unvisited edges: under UCT each legal action is tried once, in a random order, before any is
tried twice; under PUCT their mean value is ``fpu`` (0 by default), as in AlphaZero.

Under UCT the priors are never read, so when the evaluator is a ``ValueEvaluator`` (it also has
``values(game, states)``, as ``RolloutEvaluator`` does) the search calls that and skips
building prior arrays.
"""

from __future__ import annotations

import gc
import math
import random
import time as _time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from boardgym.agents.base import BaseAgent
from boardgym.agents.leaf import Evaluator, RolloutEvaluator, ValueEvaluator
from boardgym.agents.mcts_tree import Leaf, Node, add_root_noise, backup, expand, run_uct, select
from boardgym.game import Game
from boardgym.types import Action, BoardgymError

DEFAULT_SIMULATIONS = 800
"""The simulations per search of ``MCTS`` and of the ``mcts`` agent when no budget is given."""


class MCTS:
    """The search; see the module docstring for the API and conventions."""

    def __init__(
        self,
        game: Game,
        evaluator: Evaluator,
        *,
        simulations: int | None = DEFAULT_SIMULATIONS,
        time: float | None = None,
        c_uct: float = 1.4,
        c_puct: float | None = None,
        dirichlet_alpha: float | None = None,
        dirichlet_fraction: float = 0.25,
        fpu: float = 0.0,
        batch_size: int = 1,
        rng: np.random.Generator | None = None,
    ) -> None:
        if simulations is None and time is None:
            raise BoardgymError("MCTS needs a budget: set simulations=N and/or time=SECONDS")
        if simulations is not None and simulations < 1:
            raise BoardgymError(f"MCTS simulations={simulations} must be at least 1")
        if time is not None and not 0 < time < math.inf:
            raise BoardgymError(f"MCTS time={time} must be a positive number of seconds")
        if batch_size < 1:
            raise BoardgymError(f"MCTS batch_size={batch_size} must be at least 1")
        for name, value in (("c_uct", c_uct), ("c_puct", c_puct), ("fpu", fpu)):
            if value is not None and not -math.inf < value < math.inf:
                raise BoardgymError(f"MCTS {name}={value} must be a finite number")
        for name, value in (("c_uct", c_uct), ("c_puct", c_puct)):
            if value is not None and value < 0:
                raise BoardgymError(f"MCTS {name}={value} must be 0 or more (the weight of exploration)")
        if dirichlet_alpha is not None and not 0 < dirichlet_alpha < math.inf:
            raise BoardgymError(f"MCTS dirichlet_alpha={dirichlet_alpha} must be a positive number")
        if not 0 <= dirichlet_fraction <= 1:
            raise BoardgymError(f"MCTS dirichlet_fraction={dirichlet_fraction} must be in [0, 1]")
        if dirichlet_alpha is not None and c_puct is None:
            raise BoardgymError("Dirichlet root noise needs PUCT selection: set c_puct too (e.g. c_puct=1.5)")
        self.game = game
        self.evaluator = evaluator
        self.simulations = simulations
        self.time = time
        self.c_uct = c_uct
        self.c_puct = c_puct
        self.dirichlet_alpha = dirichlet_alpha
        self.dirichlet_fraction = dirichlet_fraction
        self.fpu = fpu
        self.batch_size = batch_size
        self.rng = rng if rng is not None else np.random.default_rng()
        self._random = random.Random(int(self.rng.integers(2**63)))
        self.root: Node | None = None
        self.last_simulations = 0  # of the latest search()
        self.last_seconds = 0.0

    @property
    def evaluator(self) -> Evaluator:
        """The leaf evaluator (it may be replaced between searches)."""
        return self._evaluator

    @evaluator.setter
    def evaluator(self, evaluator: Evaluator) -> None:
        self._evaluator = evaluator
        # Asked here, once: an isinstance check against a Protocol is too slow for every leaf.
        self._values: Callable[[Game, Sequence[Any]], list[float]] | None = (
            evaluator.values if isinstance(evaluator, ValueEvaluator) else None
        )

    # -- searching --------------------------------------------------------------------------
    def search(self, state: Any) -> Node:
        """Run the budget from ``state`` and return the root (see ``best_action``/``policy``)."""
        root = self._root_for(state)
        if root.terminal:
            raise BoardgymError("MCTS cannot search from a finished game")
        if root.evaluated:  # a leaf of the previous search, kept by advance()
            expand(root, self.game, None, self.c_puct is not None)
        elif not root.expanded:
            self._evaluate([Leaf(root, [])])
        self._add_root_noise(root)
        start = _time.perf_counter()
        deadline = None if self.time is None else start + self.time
        done = 0
        limit = self.simulations
        batch = self.batch_size
        values_only = self._values if self.c_puct is None else None  # UCT reads no priors
        if batch == 1 and values_only:  # plain UCT: one leaf at a time, no prior arrays
            # The tree holds no reference cycles (a node refers only to its children), so the
            # cyclic garbage collector has nothing to free in it; paused during the loop, it
            # does not walk the growing tree again and again.
            collecting = gc.isenabled()
            gc.disable()
            try:
                evaluator = self._evaluator
                one_value = evaluator.value_function(self.game) if isinstance(evaluator, RolloutEvaluator) else None
                draw = self._random.random
                done = run_uct(self.game, root, limit, deadline, values_only, one_value, draw, self.c_uct)
            finally:
                if collecting:
                    gc.enable()
        else:
            while limit is None or done < limit:
                want = batch if limit is None else min(batch, limit - done)
                leaves = self._gather(root, want)
                self._evaluate(leaves)
                done += max(1, len(leaves))
                if deadline is not None and _time.perf_counter() >= deadline:
                    break
        self.last_simulations = done
        self.last_seconds = _time.perf_counter() - start
        return root

    def gather_leaves(self, state: Any, k: int) -> list[Leaf]:
        """Up to ``k`` leaves to evaluate from ``state``'s tree, virtual loss applied on their
        paths; finish them with ``backup_leaves``. Terminal leaves are backed up at once and
        not returned. The first call on a new root returns the root itself to expand."""
        root = self._root_for(state)
        if not root.expanded and not root.terminal:
            return [Leaf(root, [])]
        if root.clean_priors is None:
            self._add_root_noise(root)  # a kept subtree's root gets fresh noise
        return self._gather(root, k)

    def backup_leaves(self, leaves: Sequence[Leaf], priors: np.ndarray, values: np.ndarray) -> None:
        """Expand each leaf with its priors and back its value up (undoing virtual loss)."""
        game, puct = self.game, self.c_puct is not None
        virtual = self.batch_size > 1
        for leaf, leaf_priors, value in zip(leaves, priors, values, strict=True):
            expand(leaf.node, game, leaf_priors, puct)
            backup(leaf.path, leaf.node.player, float(value), virtual, not puct)
        root = self.root
        if root is not None and root.clean_priors is None and root.expanded:
            self._add_root_noise(root)

    # -- reading the result -----------------------------------------------------------------
    def visit_counts(self, root: Node) -> np.ndarray:
        counts = np.zeros(self.game.num_actions, dtype=np.float32)
        counts[root.actions] = root.edge_n
        return counts

    def policy(self, root: Node, temperature: float = 1.0) -> np.ndarray:
        """Visit counts to the power 1/temperature, normalised; temperature 0 gives the
        one-hot of ``best_action``."""
        if temperature <= 0:
            probs = np.zeros(self.game.num_actions, dtype=np.float32)
            probs[self.best_action(root)] = 1.0
            return probs
        counts = self.visit_counts(root).astype(np.float64)
        if counts.sum() == 0:
            counts[root.actions] = 1.0
        counts = counts ** (1.0 / temperature)
        return (counts / counts.sum()).astype(np.float32)

    def best_action(self, root: Node) -> Action:
        """Most visited root action; ties go to the higher mean value, then at random."""
        best_key = None
        choices: list[Action] = []
        for action, n, w in zip(root.actions, root.edge_n, root.edge_w, strict=True):
            key = (n, w / n if n else -math.inf)
            if best_key is None or key > best_key:
                best_key, choices = key, [action]
            elif key == best_key:
                choices.append(action)
        return choices[int(self.rng.integers(len(choices)))]

    def choose(self, root: Node, temperature: float = 1.0) -> Action:
        """Sample an action from ``policy(root, temperature)``."""
        if temperature <= 0:
            return self.best_action(root)
        probs = self.policy(root, temperature).astype(np.float64)
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    def action_values(self, root: Node) -> dict[Action, tuple[int, float]]:
        """``{action: (visits, mean value for the player at the root)}`` for display."""
        return {
            a: (int(n), w / n if n else 0.0) for a, n, w in zip(root.actions, root.edge_n, root.edge_w, strict=True)
        }

    def summary(self, root: Node) -> dict[str, Any]:
        """What the latest search found, for display: the root's visit counts (visited actions
        only), its mean value for the player on move, and the search's size and time."""
        visits = {int(a): int(n) for a, n in zip(root.actions, root.edge_n, strict=True) if n > 0}
        return {
            "visits": visits,
            "value": root.value(),
            "simulations": self.last_simulations,
            "seconds": self.last_seconds,
        }

    # -- tree reuse -------------------------------------------------------------------------
    def advance(self, action: Action) -> None:
        """Make the child reached by ``action`` the root (its statistics are kept)."""
        root = self.root
        if root is None or not root.expanded:
            self.root = None
            return
        try:
            i = root.actions.index(action)
        except ValueError:
            self.root = None
            return
        self.root = root.children[i]
        if self.root is not None and self.root.clean_priors is not None:
            self.root.priors = self.root.clean_priors  # fresh noise at the next search
            self.root.clean_priors = None

    def reset(self) -> None:
        self.root = None

    def reseed(self, rng: np.random.Generator) -> None:
        """Draw all further randomness (first-try order, noise, ties) from ``rng``."""
        self.rng = rng
        self._random = random.Random(int(rng.integers(2**63)))

    def _root_for(self, state: Any) -> Node:
        """The kept node for ``state`` if it is the root or a child or grandchild of it (the
        opponent's reply), else a fresh node."""
        root = self.root
        if root is not None:
            if root.state == state:
                return root
            for child in root.children:
                if child is None:
                    continue
                if child.state == state:
                    return self._adopt(child)
                for grandchild in child.children:
                    if grandchild is not None and grandchild.state == state:
                        return self._adopt(grandchild)
        self.root = Node(self.game, state)
        return self.root

    def _adopt(self, node: Node) -> Node:
        if node.clean_priors is not None:
            node.priors, node.clean_priors = node.clean_priors, None
        self.root = node
        return node

    # -- the four steps (boardgym.agents.mcts_tree) ------------------------------------------
    def _gather(self, root: Node, k: int) -> list[Leaf]:
        """Select down to ``k`` leaves (fewer when some are terminal and backed up at once)."""
        leaves: list[Leaf] = []
        game = self.game
        draw = self._random.random
        c_uct = self.c_uct
        c_puct = self.c_puct
        fpu = self.fpu
        virtual = self.batch_size > 1
        for _ in range(k):
            leaf = select(root, game, draw, c_uct, c_puct, fpu, virtual)
            if leaf.node.terminal:
                returns = leaf.node.terminal_returns
                player = leaf.node.player
                backup(leaf.path, player, returns[player] if returns else 0.0, virtual, c_puct is None)
            else:
                leaves.append(leaf)
        return leaves

    def _evaluate(self, leaves: list[Leaf]) -> None:
        if not leaves:
            return
        states = [leaf.node.state for leaf in leaves]
        values_only = self._values if self.c_puct is None else None
        values: Sequence[float] | np.ndarray
        if values_only:  # UCT ignores priors: skip building them when the evaluator can
            values = values_only(self.game, states)
            priors: Any = [None] * len(leaves)
        else:
            priors, values = self.evaluator.evaluate(self.game, states)
        game, puct = self.game, self.c_puct is not None
        virtual = self.batch_size > 1
        for leaf, leaf_priors, value in zip(leaves, priors, values, strict=True):
            expand(leaf.node, game, leaf_priors, puct)
            backup(leaf.path, leaf.node.player, float(value), virtual, not puct)

    def _add_root_noise(self, root: Node) -> None:
        if self.dirichlet_alpha is not None:
            add_root_noise(root, self.dirichlet_alpha, self.dirichlet_fraction, self.rng)


class MCTSAgent(BaseAgent):
    """UCT with random rollouts: ``mcts:simulations=800``, ``mcts:time=0.5``,
    ``mcts:simulations=2000,c=1.0,rollouts=2``.

    Parameters: ``simulations`` (per move; ``DEFAULT_SIMULATIONS`` when neither budget is
    given), ``time`` (seconds per move; with ``simulations`` too, whichever ends first), ``c``
    (UCT exploration constant), ``rollouts`` (random playouts per leaf), ``reuse`` (keep the
    subtree of the chosen move for the next one).
    """

    def __init__(
        self,
        game: Game,
        *,
        seed: int | None = None,
        simulations: int | None = None,
        time: float | None = None,
        c: float = 1.4,
        rollouts: int = 1,
        reuse: bool = True,
    ) -> None:
        super().__init__(game, seed=seed)
        if rollouts < 1:
            raise BoardgymError(f"mcts rollouts={rollouts} must be at least 1")
        if not 0 <= c < math.inf:
            raise BoardgymError(
                f"mcts c={c} must be a finite number, 0 or more (the weight of exploration), e.g. c=1.4"
            )
        if simulations is None and time is None:
            simulations = DEFAULT_SIMULATIONS
        self.rollouts = rollouts
        self.reuse = reuse
        self.tree = MCTS(
            game,
            RolloutEvaluator(rollouts, rng=self.rng),
            simulations=simulations,
            time=time,
            c_uct=c,
            rng=self.rng,
        )

    def act(self, game: Game, state: Any) -> Action:
        if not self.reuse:
            self.tree.reset()
        root = self.tree.search(state)
        action = self.tree.best_action(root)
        self.last_info = self.tree.summary(root)
        self.tree.advance(action)
        return action

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.tree.reset()
        if seed is not None:
            self.tree.reseed(self.rng)
            self.tree.evaluator = RolloutEvaluator(self.rollouts, rng=self.rng)
