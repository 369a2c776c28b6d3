"""Self-play on scalar search trees (``--search tree``): many games at once, the leaves of all
their searches in one network call.

Each game in flight owns an ``MCTS`` tree (``boardgym.agents.mcts``, PUCT with Dirichlet noise
at the root and the subtree of the chosen move kept for the next one). ``search_lockstep``
runs one simulation step in every tree, gathers their leaves, evaluates them together and
backs them up: the batch the network sees is ``games in flight x leaves_per_game``.
``leaves_per_game`` > 1 takes several leaves per tree per step with virtual loss between them.
The moves follow ``selfplay.MoveSchedule``; when a game ends its positions become replay rows
(``buffer.rows_from_positions``), each with the final result for the player who was to move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardgym.agents.alphazero.network import AlphaZeroNet
from boardgym.agents.alphazero.network_leaf import NetworkEvaluator
from boardgym.agents.leaf import Evaluator
from boardgym.agents.mcts import MCTS
from boardgym.game import Game
from boardgym.train.alphazero.buffer import Rows, rows_from_positions
from boardgym.train.alphazero.selfplay import (
    MoveSchedule,
    SelfPlayResult,
    SelfPlaySettings,
    alpha_for,
    random_start,
    timer,
)


class TreeSelfPlay:
    """The tree search's self-play engine (``selfplay.Engine``). Its games never outlive a
    call (``keep`` changes nothing); the network's evaluations are cached within a call."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def play(
        self,
        network: AlphaZeroNet,
        num_games: int,
        *,
        parallel: int,
        settings: SelfPlaySettings,
        rng: np.random.Generator,
        amp: bool = False,
        timed: bool = False,
        keep: bool = False,
    ) -> SelfPlayResult:
        device = next(network.parameters()).device
        evaluator = NetworkEvaluator(network, device=device, amp=amp)
        return play_selfplay_games(self.game, evaluator, num_games, parallel=parallel, settings=settings, rng=rng)


def make_tree(game: Game, evaluator: Evaluator, settings: SelfPlaySettings, rng: np.random.Generator) -> MCTS:
    """The search tree of one game in flight."""
    return MCTS(
        game,
        evaluator,
        simulations=settings.simulations,
        c_puct=settings.c_puct,
        dirichlet_alpha=alpha_for(game, settings),
        dirichlet_fraction=settings.dirichlet_fraction,
        batch_size=max(1, settings.leaves_per_game),
        rng=rng,
    )


def search_lockstep(
    game: Game, trees: Sequence[MCTS], states: Sequence[Any], evaluator: Evaluator, simulations: int, leaves: int
) -> tuple[int, int]:
    """Run ``simulations`` simulations in each tree from its state, all trees in lock step;
    returns ``(network calls, leaves evaluated)``."""
    calls = evaluated = 0

    def evaluate_round(batch: list[tuple[MCTS, list[Any]]]) -> None:
        nonlocal calls, evaluated
        flat = [leaf for _, tree_leaves in batch for leaf in tree_leaves]
        if not flat:
            return
        priors, values = evaluator.evaluate(game, [leaf.state for leaf in flat])
        calls += 1
        evaluated += len(flat)
        start = 0
        for tree, tree_leaves in batch:
            end = start + len(tree_leaves)
            if tree_leaves:
                tree.backup_leaves(tree_leaves, priors[start:end], values[start:end])
            start = end

    # Expand the roots that are new (not kept from the previous move) before counting simulations.
    fresh = [(tree, state) for tree, state in zip(trees, states, strict=True) if not _has_root(tree, state)]
    evaluate_round([(tree, tree.gather_leaves(state, 1)) for tree, state in fresh])
    done = 0
    while done < simulations:
        k = min(leaves, simulations - done)
        evaluate_round([(tree, tree.gather_leaves(state, k)) for tree, state in zip(trees, states, strict=True)])
        done += k
    return calls, evaluated


def play_selfplay_games(
    game: Game,
    evaluator: Evaluator,
    num_games: int,
    *,
    parallel: int,
    settings: SelfPlaySettings,
    rng: np.random.Generator,
) -> SelfPlayResult:
    """Play ``num_games`` games of the network against itself, ``parallel`` at a time."""
    result = SelfPlayResult()
    schedule = MoveSchedule.of(settings)
    started, cpu_started = timer()
    slots: list[_GameInFlight] = []
    finished: list[Rows] = []
    begun = 0
    while slots or begun < num_games:
        while begun < num_games and len(slots) < parallel:
            start = random_start(game, settings.random_start_moves, rng)
            slots.append(_GameInFlight(start, start, make_tree(game, evaluator, settings, _child_rng(rng))))
            begun += 1
        trees = [slot.tree for slot in slots]
        searched = timer()[0]
        calls, leaves = search_lockstep(
            game, trees, [slot.state for slot in slots], evaluator, settings.simulations, settings.leaves_per_game
        )
        result.search_seconds += timer()[0] - searched
        result.network_calls += calls
        result.leaves += leaves
        still_playing = []
        for slot in slots:
            tree = slot.tree
            root = tree.root
            assert root is not None and root.state == slot.state
            slot.history.append((slot.state, game.current_player(slot.state), tree.policy(root, 1.0)))
            if schedule.random(slot.moves):
                action = root.actions[int(tree.rng.integers(len(root.actions)))]
            else:
                action = tree.choose(root, 1.0 if schedule.drawn(slot.moves) else 0.0)
            tree.advance(action)
            slot.actions.append(int(action))
            slot.state = game.apply(slot.state, action)
            slot.moves += 1
            result.moves += 1
            result.searched += 1
            over = game.is_terminal(slot.state) or (settings.max_moves and slot.moves >= settings.max_moves)
            if over:
                returns = game.returns(slot.state) if game.is_terminal(slot.state) else (0.0,) * game.num_players
                result.outcomes.append(tuple(returns))
                finished.append(
                    rows_from_positions(game, [(state, policy, returns[who]) for state, who, policy in slot.history])
                )
                result.records.append((slot.start, tuple(slot.actions)))
                result.games += 1
            else:
                still_playing.append(slot)
        slots = still_playing
    result.rows = Rows.cat(finished) if finished else None
    result.seconds = timer()[0] - started
    result.cpu_seconds = timer()[1] - cpu_started
    return result


@dataclass
class _GameInFlight:
    start: Any
    state: Any
    tree: MCTS
    moves: int = 0
    history: list[tuple[Any, int, np.ndarray]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)


def _has_root(tree: MCTS, state: Any) -> bool:
    root = tree.root
    return root is not None and root.expanded and root.state == state


def _child_rng(rng: np.random.Generator) -> np.random.Generator:
    return np.random.default_rng(rng.integers(2**63))
