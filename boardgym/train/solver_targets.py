"""Exact training targets for Connect Four positions, from the solver.

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
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardgym.game import Game
from boardgym.games.connect_four import COLUMNS, ROWS, ConnectFour, ConnectFourState, state_from_stones
from boardgym.solve.connect_four import Solver, SolveTimeout
from boardgym.types import BoardgymError

_RULES = ConnectFour()
_STRIDE = ROWS + 1
# Observation cell (row from the top, column) -> bit of the board layout.
_CELL_BITS = np.array([[_STRIDE * c + (ROWS - 1 - r) for c in range(COLUMNS)] for r in range(ROWS)], dtype=object)
_MIRROR = [_STRIDE * (COLUMNS - 1 - bit // _STRIDE) + bit % _STRIDE for bit in range(_STRIDE * COLUMNS)]

_REPORT_EVERY = 2000  # distinct positions between two progress reports
Scores = dict[int, int]
"""Win (1), draw (0) or loss (-1) of each legal column, for the player to move."""


def state_from_planes(planes: np.ndarray) -> ConnectFourState:
    """The Connect Four position of observation ``planes`` (the mover's discs, then the
    opponent's; ``ConnectFour.observation`` from the side to move)."""
    cells = np.asarray(planes) > 0.5
    if cells.shape != (2, ROWS, COLUMNS) or (cells[0] & cells[1]).any():
        raise BoardgymError(f"planes of shape {tuple(np.shape(planes))} are not a Connect Four observation")
    own = sum(1 << int(bit) for bit in _CELL_BITS[cells[0]])
    opponent = sum(1 << int(bit) for bit in _CELL_BITS[cells[1]])
    player = int(cells.sum()) % 2
    black, white = (own, opponent) if player == 0 else (opponent, own)
    return state_from_stones(black, white, player)


def _mirror_bits(bits: int) -> int:
    out = 0
    while bits:
        low = bits & -bits
        out |= 1 << _MIRROR[low.bit_length() - 1]
        bits ^= low
    return out


def _canonical(state: ConnectFourState) -> tuple[tuple[int, int], bool]:
    """The key shared by ``state`` and its mirror image, and whether ``state`` is the mirrored one."""
    mover, occupied, _ = state
    mirrored = (_mirror_bits(mover), _mirror_bits(occupied))
    return (min((mover, occupied), mirrored), mirrored < (mover, occupied))


_SOLVER: Solver | None = None


def _solver() -> Solver:
    global _SOLVER
    if _SOLVER is None:
        _SOLVER = Solver(table_limit=2_000_000, clock=time.process_time)
    return _SOLVER


def move_values(state: ConnectFourState, limit: float, solver: Solver | None = None) -> Scores | None:
    """Win/draw/loss of every legal move of ``state``, or None when solving them takes more than
    ``limit`` CPU seconds."""
    solver = solver or _solver()
    deadline = time.process_time() + limit
    mover = state[2] & 1
    scores: Scores = {}
    try:
        for column in _RULES.legal_actions(state):
            child = _RULES.apply(state, column)
            if _RULES.is_terminal(child):
                scores[column] = int(np.sign(_RULES.returns(child)[mover]))
            else:
                scores[column] = -solver.solve(child, weak=True, deadline=deadline)
    except SolveTimeout:
        return None
    return scores


def _solve_key(job: tuple[tuple[int, int], float]) -> Scores | None:
    (mover, occupied), limit = job
    black, white = (mover, mover ^ occupied) if occupied.bit_count() % 2 == 0 else (mover ^ occupied, mover)
    return move_values(state_from_stones(black, white, occupied.bit_count() % 2), limit)


def exact_targets(scores: Scores, policy: np.ndarray) -> tuple[np.ndarray, float]:
    """The policy and value targets for a position whose moves score ``scores`` and whose
    search visited its moves in proportion to ``policy``."""
    best = max(scores.values())
    good = np.zeros(len(policy), dtype=np.float32)
    good[[column for column, value in scores.items() if value == best]] = 1.0
    kept = np.asarray(policy, dtype=np.float32) * good
    total = float(kept.sum())
    return (kept / total if total > 0 else good / good.sum()), float(best)


@dataclass
class LabelStats:
    """What one call labelled: positions at or past ``min_ply``, those solved in time, and the
    share of solved positions whose self-play result had the solver's sign."""

    eligible: int = 0
    solved: int = 0
    agreed: int = 0
    seconds: float = 0.0


class SolverTargets:
    """Replaces the targets of Connect Four positions with ``min_ply`` stones or more (module doc)."""

    def __init__(self, game: Game, min_ply: int, limit: float, workers: int = 1) -> None:
        if game.name != "connect_four":
            raise BoardgymError(
                f"--solver-targets needs an exact solver; boardgym has one for connect_four, not {game.name}: "
                "drop the option"
            )
        if min_ply < 1 or limit <= 0:
            raise BoardgymError(f"solver targets need min_ply >= 1 and limit > 0, not {min_ply} and {limit}")
        self.min_ply = min_ply
        self.limit = limit
        self._pool = (
            ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
            if workers > 1
            else None
        )

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def _solve(
        self, states: Sequence[ConnectFourState], progress: Callable[[int, int], None] | None = None
    ) -> list[Scores | None]:
        """The move values of each state (None: past the limit, or fewer stones than min_ply)."""
        keys: dict[tuple[int, int], int] = {}
        found: list[tuple[tuple[int, int], bool] | None] = []
        for state in states:
            if state[1].bit_count() < self.min_ply:
                found.append(None)
                continue
            key, mirrored = _canonical(state)
            keys.setdefault(key, key[1].bit_count())
            found.append((key, mirrored))
        # Most stones first: their solutions fill the tables the earlier positions then use.
        order = sorted(keys, key=lambda key: -keys[key])
        jobs = [(key, self.limit) for key in order]
        solved: list[Scores | None] = []
        for start in range(0, len(jobs), _REPORT_EVERY):
            batch = jobs[start : start + _REPORT_EVERY]
            if self._pool is None:
                solved += [_solve_key(job) for job in batch]
            else:
                solved += self._pool.map(_solve_key, batch, chunksize=8)
            if progress is not None:
                progress(len(solved), len(jobs))
        by_key = dict(zip(order, solved, strict=True))
        result: list[Scores | None] = []
        for entry in found:
            if entry is None:
                result.append(None)
                continue
            scores = by_key[entry[0]]
            if scores is not None and entry[1]:
                scores = {COLUMNS - 1 - column: value for column, value in scores.items()}
            result.append(scores)
        return result

    def positions(
        self, positions: Iterable[tuple[Any, np.ndarray, float]]
    ) -> tuple[list[tuple[Any, np.ndarray, float]], LabelStats]:
        """Self-play ``(state, visit policy, result)`` triples with exact targets where solved."""
        started = time.perf_counter()
        positions = list(positions)
        stats = LabelStats()
        out = []
        for (state, policy, value), scores in zip(positions, self._solve([p[0] for p in positions]), strict=True):
            stats.eligible += state[1].bit_count() >= self.min_ply
            if scores is None:
                out.append((state, policy, value))
                continue
            new_policy, new_value = exact_targets(scores, policy)
            stats.solved += 1
            stats.agreed += int(np.sign(value) == new_value)
            out.append((state, new_policy, new_value))
        stats.seconds = time.perf_counter() - started
        return out, stats

    def rows(
        self,
        planes: np.ndarray,
        policy: np.ndarray,
        value: np.ndarray,
        progress: Callable[[int, int], None] | None = None,
    ) -> tuple[np.ndarray, np.ndarray, LabelStats]:
        """Replay-buffer rows (observation planes, policies, values) with exact targets where
        solved; ``progress(done, total)`` hears of every few thousand distinct positions solved."""
        started = time.perf_counter()
        states = [state_from_planes(p) for p in planes]
        policy, value = policy.copy(), value.copy()
        stats = LabelStats()
        for row, (state, scores) in enumerate(zip(states, self._solve(states, progress), strict=True)):
            stats.eligible += state[1].bit_count() >= self.min_ply
            if scores is None:
                continue
            new_policy, new_value = exact_targets(scores, policy[row])
            stats.solved += 1
            stats.agreed += int(np.sign(value[row]) == new_value)
            policy[row], value[row] = new_policy, new_value
        stats.seconds = time.perf_counter() - started
        return policy, value, stats


__all__ = ["LabelStats", "SolverTargets", "exact_targets", "move_values", "state_from_planes"]
