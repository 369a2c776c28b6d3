"""Exact training targets from a solver: ``--solver-targets`` (self-play positions and, for
Connect Four, ``--replay`` rows relabelled) and ``--solved-positions`` (Connect Four: the replay
buffer filled with solved positions of careful-random play before the first iteration).

AlphaZero learns a position's value from the result of the one self-play game that passed
through it, and its policy from the visit counts of a search guided by the network being
trained. Where an exact solver is cheap (Connect Four from about the 16th stone on), both can
be replaced by the truth, as Leela Chess Zero rescoring its training games with endgame
tablebases: a position with at least ``min_ply`` stones gets

- **value**: the solver's win (1), draw (0) or loss (-1) for the player to move;
- **policy**: the visit counts kept only on the moves that keep that value, renormalised (the
  search's preference among equally good moves survives); when the search put no visit on one
  of them, uniform over them.

Each position has ``limit`` CPU seconds for all its moves; one that takes longer keeps its
self-play targets. Positions and their mirror images are solved once. With ``workers`` > 1 the
solving runs in that many processes, each with its own transposition table.

Beyond Connect Four, ``--solver-targets`` takes its move values from an oracle of the game
(``game_oracle``), in this process, on the self-play positions' own states (their stones on
the board count as the plies): Hex up to 5x5 from ``boardgym.solve.hex.HexSolver`` (the
search stops at ``limit`` CPU seconds), Quixo 3x3 and 4x4 from the ``perfect`` agent (the
retrograde table of ``boardgym.solve.quixo``, 4x4's read from the runs root; 3x3 with a move
limit of at most 30, the search of the game as played, as its grading set).

``--solved-positions N`` (``add_solved_positions``) puts N positions of careful-random play
(``varied_positions``, none of the shipped grading set) into the buffer with the solver's
value and a policy uniform over the moves that keep it. What the solver labelled goes to
TensorBoard under ``solver/`` (``log_labels``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardgym.agents.perfect import HEX_SOLVED
from boardgym.evaluate.grade_sets import read_connect_four_set, varied_game_moves
from boardgym.game import Game
from boardgym.games.connect_four import COLUMNS, ConnectFour, ConnectFourState, state_from_planes
from boardgym.games.hex import Hex
from boardgym.games.quixo import Quixo
from boardgym.procs import WorkerPool
from boardgym.runs import RUNS_ROOT
from boardgym.solve.connect_four import Solver, SolveTimeout, state_from_moves
from boardgym.train.alphazero.buffer import ReplayBuffer
from boardgym.train.alphazero.config import Config
from boardgym.train.training_run import TrainingRun
from boardgym.types import BoardgymError

_RULES = ConnectFour()
_REPORT_EVERY = 2000  # distinct positions between two progress reports
Scores = dict[int, int]
"""Win (1), draw (0) or loss (-1) of each legal column, for the player to move."""
_SOLVER: Solver | None = None  # this process's solver (``_solver``), its tables kept between calls
Oracle = Callable[[Any], Scores | None]
"""A game's move values of a position (None: past the time limit)."""
ORACLES = "connect_four, hex up to 5x5 and quixo 3x3 and 4x4"
"""The games and sizes ``--solver-targets`` labels, as its error message names them."""


def move_values(state: ConnectFourState, limit: float, solver: Solver | None = None) -> Scores | None:
    """Win/draw/loss of every legal move of ``state``, or None when solving them takes more than
    ``limit`` seconds of the solver's clock (CPU seconds for the default solver)."""
    solver = solver or _solver()
    try:
        return solver.move_scores(state, weak=True, deadline=solver.clock() + limit)
    except SolveTimeout:
        return None


def exact_targets(scores: Scores, policy: np.ndarray) -> tuple[np.ndarray, float]:
    """The policy and value targets for a position whose moves score ``scores`` and whose
    search visited its moves in proportion to ``policy``."""
    best = max(scores.values())
    good = np.zeros(len(policy), dtype=np.float32)
    good[[column for column, value in scores.items() if value == best]] = 1.0
    kept = np.asarray(policy, dtype=np.float32) * good
    total = float(kept.sum())
    return (kept / total if total > 0 else good / good.sum()), float(best)


def varied_positions(
    count: int, plies: range, seed: int, exclude: frozenset[str] = frozenset()
) -> list[ConnectFourState]:
    """``count`` distinct positions of careful-random play (the generator of the grading sets,
    ``boardgym.evaluate.grade_sets``), each stopped after a number of moves drawn uniformly from
    ``plies``; positions whose move strings are in ``exclude`` (a grading set's) are skipped."""
    rng = random.Random(seed)
    seen: set[str] = set()
    states: list[ConnectFourState] = []
    tries = 0
    while len(states) < count:
        tries += 1
        if tries > 100 * count + 1000:
            raise BoardgymError(
                f"careful-random play found only {len(states)} of {count} distinct positions at plies "
                f"{plies.start}-{plies.stop - 1}; ask for fewer positions or earlier plies"
            )
        moves = varied_game_moves(rng, rng.randrange(plies.start, plies.stop))
        if moves is None or moves in exclude or moves in seen:
            continue
        seen.add(moves)
        states.append(state_from_moves(moves))
    return states


@dataclass
class LabelStats:
    """What one call labelled: positions at or past ``min_ply``, those solved in time, and the
    share of solved positions whose self-play result had the solver's sign."""

    eligible: int = 0
    solved: int = 0
    agreed: int = 0
    seconds: float = 0.0


class SolverTargets:
    """Replaces the targets of positions with ``min_ply`` stones or more (Connect Four; with
    ``--solver-targets``, Hex up to 5x5 and Quixo 3x3 and 4x4: module doc)."""

    def __init__(
        self,
        game: Game,
        min_ply: int,
        limit: float,
        workers: int = 1,
        option: str = "--solver-targets",
        root: str = str(RUNS_ROOT),
    ) -> None:
        """``option``: the setting that asked for the solver, named when ``game`` has none;
        ``root``: the runs root that holds Quixo 4x4's table."""
        if min_ply < 1 or limit <= 0:
            raise BoardgymError(f"solver targets need min_ply >= 1 and limit > 0, not {min_ply} and {limit}")
        self._oracle: Oracle | None = None
        if game.name != "connect_four":
            self._oracle = game_oracle(game, limit, root) if option == "--solver-targets" else None
            if self._oracle is None:
                supported = ORACLES if option == "--solver-targets" else "connect_four"
                raise BoardgymError(
                    f"{option} needs an exact solver; boardgym has one for {supported}, not {_described(game)}: "
                    "drop the option"
                )
        self.num_actions = game.num_actions
        self.min_ply = min_ply
        self.limit = limit
        self._pool = WorkerPool(workers, start_method="spawn") if workers > 1 and self._oracle is None else None

    @property
    def reads_planes(self) -> bool:
        """Whether ``rows`` can label replay rows from their planes (Connect Four only)."""
        return self._oracle is None

    def stones(self, state: Any) -> int:
        """The stones (Connect Four, Hex) or cubes (Quixo) on the board of ``state``."""
        if self._oracle is None:
            return int(state[1].bit_count())
        black, white = state.stones if hasattr(state, "stones") else state[:2]
        return int((black | white).bit_count())

    def close(self) -> None:
        """End the solver's processes (at once when positions are still being solved)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def _solve(
        self, states: Sequence[ConnectFourState], progress: Callable[[int, int], None] | None = None
    ) -> list[Scores | None]:
        """The move values of each state (None: past the limit, or fewer stones than min_ply)."""
        if self._oracle is not None:
            return self._solve_by_oracle(self._oracle, states, progress)
        canonical: dict[tuple[int, int], ConnectFourState] = {}
        found: list[tuple[tuple[int, int], bool] | None] = []
        for state in states:
            if state[1].bit_count() < self.min_ply:
                found.append(None)
                continue
            image, mirrored = _canonical(state)
            canonical.setdefault(image[:2], image)
            found.append((image[:2], mirrored))
        # Most stones first: their solutions fill the tables the earlier positions then use.
        order = sorted(canonical, key=lambda key: -key[1].bit_count())
        jobs = [(canonical[key], self.limit) for key in order]
        solved: list[Scores | None] = []
        for start in range(0, len(jobs), _REPORT_EVERY):
            batch = jobs[start : start + _REPORT_EVERY]
            if self._pool is None:
                solved += [_solve_job(job) for job in batch]
            else:
                solved += self._pool.map(_solve_job, batch, chunksize=8)
            if progress is not None:
                progress(len(solved), len(jobs))
        by_key = dict(zip(order, solved, strict=True))
        result: list[Scores | None] = []
        for entry in found:
            scores = by_key[entry[0]] if entry is not None else None
            if scores is not None and entry is not None and entry[1]:
                scores = {COLUMNS - 1 - column: value for column, value in scores.items()}
            result.append(scores)
        return result

    def _solve_by_oracle(
        self, oracle: Oracle, states: Sequence[Any], progress: Callable[[int, int], None] | None
    ) -> list[Scores | None]:
        """``_solve`` with the game's oracle, each distinct state once, in this process."""
        distinct = {state: None for state in states if self.stones(state) >= self.min_ply}
        scores: dict[Any, Scores | None] = {}
        for done, state in enumerate(distinct, 1):
            scores[state] = oracle(state)
            if progress is not None and (done % _REPORT_EVERY == 0 or done == len(distinct)):
                progress(done, len(distinct))
        return [scores.get(state) for state in states]

    def _targets(
        self,
        states: Sequence[ConnectFourState],
        policies: Sequence[np.ndarray],
        values: Sequence[float],
        progress: Callable[[int, int], None] | None = None,
    ) -> tuple[list[np.ndarray], list[float], LabelStats]:
        """New policy and value targets of each position (the old ones where not solved)."""
        started = time.perf_counter()
        new_policies, new_values = list(policies), [float(value) for value in values]
        stats = LabelStats()
        for index, (state, scores) in enumerate(zip(states, self._solve(states, progress), strict=True)):
            stats.eligible += self.stones(state) >= self.min_ply
            if scores is None:
                continue
            new_policies[index], new_values[index] = exact_targets(scores, policies[index])
            stats.solved += 1
            stats.agreed += int(np.sign(values[index]) == new_values[index])
        stats.seconds = time.perf_counter() - started
        return new_policies, new_values, stats

    def positions(
        self, positions: Iterable[tuple[Any, np.ndarray, float]]
    ) -> tuple[list[tuple[Any, np.ndarray, float]], LabelStats]:
        """Self-play ``(state, visit policy, result)`` triples with exact targets where solved."""
        positions = list(positions)
        states, policies, values = zip(*positions, strict=True) if positions else ((), (), ())
        new_policies, new_values, stats = self._targets(states, policies, values)
        return list(zip(states, new_policies, new_values, strict=True)), stats

    def solved(
        self, states: Sequence[ConnectFourState], progress: Callable[[int, int], None] | None = None
    ) -> tuple[list[tuple[ConnectFourState, np.ndarray, float]], LabelStats]:
        """Training triples for positions that have no self-play targets: the solver's value, and
        a policy uniform over the moves that keep it. Positions with fewer than ``min_ply`` stones
        or past the limit are left out (``stats.solved`` says how many stayed)."""
        started = time.perf_counter()
        triples = []
        for state, scores in zip(states, self._solve(states, progress), strict=True):
            if scores is not None:
                uniform = np.zeros(self.num_actions, dtype=np.float32)
                uniform[list(scores)] = 1.0
                triples.append((state, *exact_targets(scores, uniform)))
        eligible = sum(self.stones(state) >= self.min_ply for state in states)
        return triples, LabelStats(eligible, len(triples), seconds=time.perf_counter() - started)

    def rows(
        self,
        planes: np.ndarray,
        policy: np.ndarray,
        value: np.ndarray,
        progress: Callable[[int, int], None] | None = None,
    ) -> tuple[np.ndarray, np.ndarray, LabelStats]:
        """Replay-buffer rows (observation planes, policies, values) with exact targets where
        solved; ``progress(done, total)`` hears of every few thousand distinct positions solved."""
        if not len(value):
            return policy.copy(), value.copy(), LabelStats()
        if not self.reads_planes:
            raise BoardgymError(
                "--solver-targets relabels --replay rows only for connect_four (their states are read from the "
                "planes); for this game drop --replay, or --solver-targets"
            )
        states = [state_from_planes(p) for p in planes]
        new_policies, new_values, stats = self._targets(states, list(policy), list(value), progress)
        return np.stack(new_policies).astype(policy.dtype), np.asarray(new_values, dtype=value.dtype), stats


def add_solved_positions(
    run: TrainingRun, config: Config, game: Game, buffer: ReplayBuffer, labeller: SolverTargets, plies: range
) -> None:
    """Fill the buffer with ``--solved-positions`` solved positions of careful-random play at ``plies``."""
    exclude = frozenset(position.label for position in read_connect_four_set())
    states = varied_positions(config.solved_positions, plies, config.seed, exclude)
    run.report(
        f"--solved-positions: solving {len(states)} positions of careful-random play at {config.solved_plies} stones"
    )
    triples, stats = labeller.solved(
        states,
        progress=lambda done, total: run.report(
            f"--solved-positions: {done} of {total} positions solved (a mirror pair counts once)"
        ),
    )
    log_labels(run, stats, "varied", results=False)
    rows = buffer.add_positions(game, triples)
    run.report(
        f"--solved-positions: {stats.solved} of {len(states)} solved within --solver-limit in {stats.seconds:.0f} s; "
        f"{rows} replay rows with their mirror images"
    )


def label_replay_rows(
    run: TrainingRun,
    config: Config,
    labeller: SolverTargets,
    planes: np.ndarray,
    policy: np.ndarray,
    value: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The policies and values of the ``--replay`` rows with ``--solver-targets``' exact
    targets where solved, reported as they are solved."""
    run.report(
        f"--solver-targets {config.solver_targets}: solving the positions of the {len(value)} replay rows "
        f"with {config.solver_targets} stones or more (mirror images once; minutes for the early ones)"
    )
    policy, value, stats = labeller.rows(
        planes,
        policy,
        value,
        progress=lambda done, total: run.report(f"--solver-targets: {done} of {total} positions solved"),
    )
    log_labels(run, stats, "replay")
    run.report(
        f"--solver-targets: {stats.solved} of {stats.eligible} rows with {config.solver_targets} stones "
        f"or more took the solver's targets in {stats.seconds:.0f} s"
    )
    return policy, value


def log_labels(
    run: TrainingRun, stats: LabelStats, source: str, step: int | None = None, *, results: bool = True
) -> None:
    """Log what the solver labelled (``source``: replay, selfplay or varied, the last for
    ``--solved-positions``); ``results``: whether the positions came with a game result to agree."""
    values: dict[str, float] = {
        f"solver/{source}_eligible": stats.eligible,
        f"solver/{source}_solved": stats.solved,
        f"solver/{source}_seconds": stats.seconds,
    }
    if results:
        values[f"solver/{source}_result_agreed"] = stats.agreed / max(stats.solved, 1)
    run.log(values, step=step)
    run.writer.flush()


def game_oracle(game: Game, limit: float, root: str = str(RUNS_ROOT)) -> Oracle | None:
    """The move values (1 win, 0 draw, -1 loss for the mover) of ``game``'s positions, each
    within ``limit`` CPU seconds where the solver can stop; None for a game or size without
    one (Connect Four has ``move_values``). Quixo 4x4 without its table: one sentence."""
    if isinstance(game, Hex) and game.size <= HEX_SOLVED:
        from boardgym.solve.hex import HexSolver

        solver = HexSolver(game.size, swap=game.swap, table_limit=2_000_000)

        def hex_values(state: Any) -> Scores | None:
            deadline = time.process_time() + limit

            def check(nodes: int) -> None:
                if time.process_time() > deadline:
                    raise _PastLimit

            solver.progress = check
            try:
                return solver.move_values(state)
            except _PastLimit:
                return None
            finally:
                solver.progress = None

        return hex_values
    if isinstance(game, Quixo) and game.size in (3, 4):
        from boardgym.agents.perfect import PerfectAgent

        agent = PerfectAgent(game, seed=0, root=root)
        return lambda state: {action: int(np.sign(v)) for action, v in agent.action_values(state).items()}
    return None


class _PastLimit(Exception):
    """Raised from the Hex solver's progress hook to stop a search past its limit."""


def _described(game: Game) -> str:
    """``game``'s name, with its size where it has one (hex 7x7)."""
    size = getattr(game, "size", None)
    return f"{game.name} {size}x{size}" if isinstance(size, int) else game.name


def _canonical(state: ConnectFourState) -> tuple[ConnectFourState, bool]:
    """The one of ``state`` and its mirror image that is solved for both, and whether it is the mirror."""
    mirror = _RULES.symmetric_states(state)[1][0]
    return (mirror, True) if mirror[:2] < state[:2] else (state, False)


def _solver() -> Solver:
    global _SOLVER
    if _SOLVER is None:
        _SOLVER = Solver(table_limit=2_000_000, clock=time.process_time)
    return _SOLVER


def _solve_job(job: tuple[ConnectFourState, float]) -> Scores | None:
    return move_values(*job)


__all__ = [
    "LabelStats",
    "SolverTargets",
    "add_solved_positions",
    "exact_targets",
    "game_oracle",
    "label_replay_rows",
    "log_labels",
    "move_values",
    "varied_positions",
]
