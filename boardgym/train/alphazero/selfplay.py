"""Batched self-play: many games at once, the leaves of all their searches in one network call.

Each game in flight owns an ``MCTS`` tree (``boardgym.agents.mcts``, PUCT with Dirichlet noise
at the root and the subtree of the chosen move kept for the next one). ``search_lockstep``
runs one simulation step in every tree, gathers their leaves, evaluates them together and
backs them up: the batch the network sees is ``games in flight x leaves_per_game``, which is
what keeps a GPU busy. ``leaves_per_game`` > 1 takes several leaves per tree per step with
virtual loss between them.

Moves: the first ``random_opening_moves`` moves are uniformly random (every opening gets
played and answered); up to ``temperature_moves`` moves are drawn in proportion to the visit
counts, later the most visited move is played (AlphaZero's schedule). Every
position is recorded with its visit distribution; when the game ends, each position gets the
final result for the player who was to move there.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardgym.agents.leaf import Evaluator
from boardgym.agents.mcts import MCTS
from boardgym.game import Game
from boardgym.train.alphazero.config import Config
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class SelfPlaySettings:
    """The search and move-choice parameters of self-play (see the module docstring). The
    defaults are the trainer's, read from ``Config`` (the one place they are written);
    ``from_config`` takes a run's."""

    simulations: int = Config.simulations
    c_puct: float = Config.c_puct
    dirichlet_alpha: float | None = None
    """Root noise: None for the game's default (``default_dirichlet_alpha``, what
    ``--dirichlet-alpha 0`` asks for); 0 for no noise."""
    dirichlet_fraction: float = Config.dirichlet_fraction
    temperature_moves: int = Config.temperature_moves
    random_opening_moves: int = Config.random_opening_moves
    """The first moves of every game are uniformly random legal moves (their positions are still
    recorded with the search's visit policy), so openings the network would never choose get
    played and answered too."""
    random_start_moves: int = Config.random_start_moves
    """Every game starts from the position after a number of uniformly random moves, itself
    drawn uniformly from 0 to this (0: from the initial position). These moves are not searched
    and their positions are not recorded, so no result target is blurred by them: the network
    learns middle- and end-game positions its own play would not reach. A drawn start that is
    already over is drawn again."""
    leaves_per_game: int = Config.leaves_per_game
    max_moves: int = Config.max_moves
    """Stop a game after this many moves and score it as the rules' returns say (0: no limit)."""
    search: str = Config.search
    """``tree``: a scalar ``MCTS`` tree per game (here); ``batched``: the games as tensors and one
    batched search (``batched_selfplay``)."""
    gumbel: bool = Config.gumbel
    """With ``search="batched"``: Gumbel AlphaZero's root instead of PUCT with root noise."""
    considered: int = Config.considered
    """Actions Gumbel's root samples (Gumbel-top-k)."""
    capture: bool = Config.capture
    """With ``search="batched"`` on CUDA: each simulation replayed as a CUDA graph, the network
    in float16 and channels_last (``BatchedMCTS(capture=)``, ``network.inference_copy``)."""

    @classmethod
    def from_config(cls, config: Config) -> SelfPlaySettings:
        """The self-play settings of a run's config."""
        return cls(
            simulations=config.simulations,
            c_puct=config.c_puct,
            dirichlet_alpha=config.dirichlet_alpha or None,
            dirichlet_fraction=config.dirichlet_fraction,
            temperature_moves=config.temperature_moves,
            random_opening_moves=config.random_opening_moves,
            random_start_moves=config.random_start_moves,
            leaves_per_game=config.leaves_per_game,
            max_moves=config.max_moves,
            search=config.search,
            gumbel=config.gumbel,
            considered=config.considered,
            capture=config.capture,
        )


@dataclass
class SelfPlayResult:
    """The positions of the finished games and how fast they were played."""

    positions: list[tuple[Any, np.ndarray, float]] = field(default_factory=list)
    """``(state, visit policy, final result for the player to move)``."""
    games: int = 0
    moves: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of the process(es) that played, added up: positions per CPU-second is the speed
    of one core, whatever else the machine was running."""
    network_calls: int = 0
    leaves: int = 0
    network_seconds: float = 0.0
    """Wall time inside the network's calls, where it was timed (the batched search's
    ``timed`` evaluator); 0 where not."""
    outcomes: list[tuple[float, ...]] = field(default_factory=list)

    @property
    def mean_batch(self) -> float:
        return self.leaves / self.network_calls if self.network_calls else 0.0


def default_dirichlet_alpha(game: Game) -> float:
    """About 10 / (typical number of legal moves), as AlphaZero's 0.3 for chess and 0.03 for Go."""
    return float(min(1.0, max(0.03, 10.0 / game.num_actions)))


def make_tree(game: Game, evaluator: Evaluator, settings: SelfPlaySettings, rng: np.random.Generator) -> MCTS:
    """The search tree of one game in flight."""
    alpha = default_dirichlet_alpha(game) if settings.dirichlet_alpha is None else settings.dirichlet_alpha
    return MCTS(
        game,
        evaluator,
        simulations=settings.simulations,
        c_puct=settings.c_puct,
        dirichlet_alpha=alpha if alpha > 0 else None,
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
    started, cpu_started = time.perf_counter(), time.process_time()
    slots: list[_GameInFlight] = []
    begun = 0
    while slots or begun < num_games:
        while begun < num_games and len(slots) < parallel:
            start = random_start(game, settings.random_start_moves, rng)
            slots.append(_GameInFlight(start, make_tree(game, evaluator, settings, _child_rng(rng))))
            begun += 1
        trees = [slot.tree for slot in slots]
        calls, leaves = search_lockstep(
            game, trees, [slot.state for slot in slots], evaluator, settings.simulations, settings.leaves_per_game
        )
        result.network_calls += calls
        result.leaves += leaves
        still_playing = []
        for slot in slots:
            tree = slot.tree
            root = tree.root
            assert root is not None and root.state == slot.state
            slot.history.append((slot.state, game.current_player(slot.state), tree.policy(root, 1.0)))
            if slot.moves < settings.random_opening_moves:
                action = root.actions[int(tree.rng.integers(len(root.actions)))]
            else:
                action = tree.choose(root, 1.0 if slot.moves < settings.temperature_moves else 0.0)
            tree.advance(action)
            slot.state = game.apply(slot.state, action)
            slot.moves += 1
            result.moves += 1
            over = game.is_terminal(slot.state) or (settings.max_moves and slot.moves >= settings.max_moves)
            if over:
                returns = game.returns(slot.state) if game.is_terminal(slot.state) else (0.0,) * game.num_players
                result.outcomes.append(tuple(returns))
                result.positions.extend((state, policy, returns[player]) for state, player, policy in slot.history)
                result.games += 1
            else:
                still_playing.append(slot)
        slots = still_playing
    result.seconds = time.perf_counter() - started
    result.cpu_seconds = time.process_time() - cpu_started
    return result


_START_DRAWS = 1000  # random starts drawn before ``most`` is deemed longer than random games last


def random_start(game: Game, most: int, rng: np.random.Generator) -> Any:
    """The position after ``k`` uniformly random moves from the start, ``k`` drawn uniformly
    from 0 to ``most``; a draw that reaches the end of the game is drawn again (``k`` included),
    up to ``_START_DRAWS`` times (then ``most`` is too long for the game: ``BoardgymError``).
    """
    if most <= 0:
        return game.initial_state()
    for _ in range(_START_DRAWS):
        state = game.initial_state()
        for _ in range(int(rng.integers(most + 1))):
            if game.is_terminal(state):
                break
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
        if not game.is_terminal(state):
            return state
    raise BoardgymError(
        f"random starts of up to {most} moves: {_START_DRAWS} draws in a row ended {game.name} before it could start; "
        "random play rarely lasts that long, so give a smaller --random-start-moves"
    )


@dataclass
class _GameInFlight:
    state: Any
    tree: MCTS
    moves: int = 0
    history: list[tuple[Any, int, np.ndarray]] = field(default_factory=list)


def _has_root(tree: MCTS, state: Any) -> bool:
    root = tree.root
    return root is not None and root.expanded and root.state == state


def _child_rng(rng: np.random.Generator) -> np.random.Generator:
    return np.random.default_rng(rng.integers(2**63))
