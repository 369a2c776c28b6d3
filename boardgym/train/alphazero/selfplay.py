"""Self-play, as the trainer sees it: one ``SelfPlay`` chosen once from the config.

``sources.make_selfplay(config, game, ...)`` picks where the games are played (this process,
worker processes, Ray actors); the search kind (``--search``: ``tree`` or ``batched``) picks the engine
that plays them, through the one table of search kinds
(``boardgym.agents.alphazero.searches``). Every engine plays with the same settings
(``SelfPlaySettings``, the self-play options of ``Config``, declared here once), the same move
schedule (``MoveSchedule``) and returns the same ``SelfPlayResult``: the replay rows of its
finished games (``Rows``: planes for the player to move, search policy, legal mask, result),
on the device it played on, and each game's record (its start and its moves), from which the
positions replay under the scalar rules.

The move schedule: the first ``random_opening_moves`` moves of a game are uniformly random
legal moves (every opening gets played and answered; their positions are still recorded with
the search's policy), up to ``temperature_moves`` moves are drawn in proportion to the search's
policy, later moves are the search's own choice (the most visited; with Gumbel's root, whose
searched move is always its choice, no move is drawn).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

import numpy as np

from boardgym.agents.alphazero.network import AlphaZeroNet
from boardgym.agents.alphazero.searches import SEARCHES, search_kind
from boardgym.config import Options, option
from boardgym.game import Game
from boardgym.train.alphazero.buffer import Rows
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class SelfPlaySettings(Options):
    """The search and move-choice options of self-play (the module doc). ``Config`` extends
    it, so each is declared once, here, and the trainer's settings are its config's
    (``from_config`` keeps these fields alone, to send to worker processes and actors)."""

    simulations: int = option(48, "PUCT simulations per self-play move", minimum=1)
    search: str = option(
        "tree",
        "self-play search: tree (a Python MCTS tree per game, its network calls cached; best on CPUs) or batched "
        "(every game as tensors on --device, one network call per simulation for all: for GPUs; games with batched "
        "rules only; --workers N splits the games over N batched processes on --worker-device; --workers auto is one "
        "batched process per CPU core, or 1 process when --device is CUDA)",
        choices=tuple(SEARCHES),
    )
    gumbel: bool = option(
        False, "with --search batched: Gumbel AlphaZero's root (sequential halving; good from 16-32 simulations)"
    )
    considered: int = option(16, "with --gumbel: root actions sampled (Gumbel-top-k)", minimum=1)
    capture: bool = option(
        True,
        "with --search batched on CUDA: each simulation a CUDA graph and the network in float16 and channels_last "
        "(false: every operation launched one by one, the float32 network under autocast)",
    )
    leaves_per_game: int = option(1, "leaves per game per network call (virtual loss when > 1)", minimum=1)
    c_puct: float = option(1.5, "PUCT exploration constant", minimum=0)
    dirichlet_alpha: float = option(
        0.0, "root Dirichlet noise alpha in self-play (0: 10 / num_actions, at most 1)", minimum=0
    )
    dirichlet_fraction: float = option(0.25, "weight of the root noise (0: no noise)", minimum=0, maximum=1)
    temperature_moves: int = option(
        4, "moves drawn in proportion to visits at the start of a game; then greedy", minimum=0
    )
    random_opening_moves: int = option(
        2, "uniformly random first moves of every self-play game (explores openings)", minimum=0
    )
    random_start_moves: int = option(
        0,
        "start every self-play game after k uniformly random moves, k drawn per game from 0 to N (those moves are "
        "not searched or recorded): positions beyond the network's own openings",
        minimum=0,
    )
    max_moves: int = option(0, "score a self-play game as a draw after this many moves (0: no limit)", minimum=0)

    def check(self) -> None:
        super().check()
        search_kind(self.search, gumbel=self.gumbel)

    @classmethod
    def from_config(cls, config: SelfPlaySettings) -> SelfPlaySettings:
        """The self-play settings of a run's config (these fields alone)."""
        return cls(**{f.name: getattr(config, f.name) for f in fields(SelfPlaySettings)})

    @property
    def noise(self) -> tuple[float, float] | None:
        """The root noise as ``(alpha, fraction)`` for a game (alpha 0: the game's default,
        ``default_dirichlet_alpha``), or None without noise (fraction 0)."""
        return (self.dirichlet_alpha, self.dirichlet_fraction) if self.dirichlet_fraction > 0 else None


@dataclass(frozen=True)
class MoveSchedule:
    """How the move after a search is chosen, by the number of moves already played in the
    game (the module doc). Works on an int, a numpy array or a tensor of move counts."""

    random_opening_moves: int
    temperature_moves: int

    @classmethod
    def of(cls, settings: SelfPlaySettings) -> MoveSchedule:
        return cls(settings.random_opening_moves, 0 if settings.gumbel else settings.temperature_moves)

    def random(self, moves: Any) -> Any:
        """Whether the move is uniformly random among the legal ones."""
        return moves < self.random_opening_moves

    def drawn(self, moves: Any) -> Any:
        """Whether the move is drawn in proportion to the search's policy (unless ``random``)."""
        return moves < self.temperature_moves

    def random_or_drawn(self, moves: Any) -> Any:
        """Whether the move is not the search's own choice (``random`` or ``drawn``)."""
        return moves < max(self.random_opening_moves, self.temperature_moves)


def alpha_for(game: Game, settings: SelfPlaySettings) -> float | None:
    """The root noise's alpha for ``game`` under ``settings`` (None: no noise)."""
    if settings.noise is None:
        return None
    return settings.dirichlet_alpha or default_dirichlet_alpha(game)


def default_dirichlet_alpha(game: Game) -> float:
    """About 10 / (typical number of legal moves), as AlphaZero's 0.3 for chess and 0.03 for Go."""
    return float(min(1.0, max(0.03, 10.0 / game.num_actions)))


GameRecord = tuple[Any, tuple[int, ...]]
"""A finished self-play game: the scalar rules' state it started from and the moves played."""


@dataclass
class SelfPlayResult:
    """The finished games of a call and how fast they were played."""

    rows: Rows | None = None
    """The replay rows of every position of the finished games (games in the order they ended,
    each in move order), on the device the games were played on; None before any game ended."""
    records: list[GameRecord] = field(default_factory=list)
    """Each finished game's start and moves, in the same order."""
    games: int = 0
    moves: int = 0
    """Moves of the finished games (their positions)."""
    searched: int = 0
    """Positions searched during the call, in whatever game: what the call played, where
    ``moves`` counts the games that ended in it (begun, with ``keep``, in an earlier call)."""
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of the process(es) that played, added up: positions per CPU-second is the speed
    of one core, whatever else the machine was running."""
    search_seconds: float = 0.0
    """Wall time inside the searches (the network included) and making the network's
    inference copy for them (once a call); the rest of ``seconds`` is the host's: choosing
    moves, playing them under the rules, recording them, collecting finished games."""
    network_calls: int = 0
    leaves: int = 0
    network_seconds: float = 0.0
    """Wall time inside the network's calls, where it was timed (the batched search's
    ``timed`` evaluator); 0 where not."""
    outcomes: list[tuple[float, ...]] = field(default_factory=list)

    @property
    def mean_batch(self) -> float:
        return self.leaves / self.network_calls if self.network_calls else 0.0

    @property
    def positions_count(self) -> int:
        """Positions of the finished games (one replay row each, before symmetries)."""
        return 0 if self.rows is None else int(self.rows.value.shape[0])

    def positions(self, game: Game) -> list[tuple[Any, np.ndarray, float]]:
        """``(state, search policy, final result for the player to move)`` of every position,
        the states replayed from the records under the scalar rules (for the solver's labels
        and for checks; the trainer reads ``rows``)."""
        if self.rows is None:
            return []
        policies = self.rows.policy.float().cpu().numpy()
        values = self.rows.value.float().cpu().tolist()
        states = [state for start, actions in self.records for state in replay_record(game, start, actions)]
        if len(states) != len(values):
            raise BoardgymError(f"self-play records replay {len(states)} positions, but {len(values)} rows came back")
        return list(zip(states, policies, values, strict=True))

    def add(self, other: SelfPlayResult) -> None:
        """Append ``other``'s games to these (rows moved to this result's device)."""
        if other.rows is not None:
            self.rows = (
                other.rows if self.rows is None else Rows.cat([self.rows, other.rows.to(self.rows.planes.device)])
            )
        self.records.extend(other.records)
        self.outcomes.extend(other.outcomes)
        self.games += other.games
        self.moves += other.moves
        self.searched += other.searched
        self.network_calls += other.network_calls
        self.leaves += other.leaves
        self.network_seconds += other.network_seconds
        self.search_seconds += other.search_seconds
        self.cpu_seconds += other.cpu_seconds


def replay_record(game: Game, start: Any, actions: tuple[int, ...]) -> list[Any]:
    """The states before each move of a record, checked move by move under the scalar rules."""
    states, state = [], start
    for action in actions:
        if game.is_terminal(state) or not game.legal_mask(state)[action]:
            raise BoardgymError(f"a self-play record plays {action} where {game.name}'s rules do not allow it")
        states.append(state)
        state = game.apply(state, action)
    return states


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


# -- engines and where they run -----------------------------------------------------------------
class Engine(Protocol):
    """A search kind's self-play (``searches.SearchKind.engine``): ``TreeSelfPlay`` or
    ``BatchedSelfPlay``. ``keep``: games still in flight when ``num_games`` have ended go on in
    the next call (the batched engine; the tree engine plays its games to the end)."""

    def __init__(self, game: Game) -> None: ...

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
    ) -> SelfPlayResult: ...


def engine_for(game: Game, settings: SelfPlaySettings) -> Engine:
    """The self-play engine of ``settings.search`` for ``game``."""
    engine: Engine = search_kind(settings.search).selfplay_engine()(game)
    return engine


class SelfPlay(Protocol):
    """Where the trainer's self-play runs: ``play`` the iteration's games with the current
    network, ``close`` at the end. ``step`` (the iteration) seeds processes and actors
    (``SeedSequence([seed, step, w])``); ``rng`` is the trainer's, used in this process."""

    def play(self, network: AlphaZeroNet, num_games: int, *, step: int, rng: np.random.Generator) -> SelfPlayResult: ...

    def close(self) -> None: ...


def timer() -> tuple[float, float]:
    """``(wall, process CPU)`` now, for a result's ``seconds`` and ``cpu_seconds``."""
    return time.perf_counter(), time.process_time()
