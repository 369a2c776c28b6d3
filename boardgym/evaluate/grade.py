"""Grading an agent against the truth: its mistake rate on a fixed set of solved positions.

``boardgym grade GAME --agent SPEC``: the agent picks a move in every position of the game's
graded set (``boardgym.evaluate.grade_sets``: positions where some move is worse than the
best, each move's exact win/draw/loss value known); a **mistake** is a move that lowers the
position's value (a win thrown to a draw or a loss, a draw to a loss). The rate is reported
overall and by game phase (the set's plies in three equal spans: early, middle, late) with
95% Wilson intervals, to stdout and to ``runs/<game>/grade/<run>/`` (``grade.json``,
``grade.md``).

A game's set and its oracle are named by its ``GAMES`` entry (``grading``, a ``GradingSet``):
tic-tac-toe (every position), Nim (every position of the game's heaps), Hex 3x3 (every
position) and 4x4 (400 positions), Quixo 3x3 with a move limit of at most 30 (400 positions),
Connect Four (the shipped, solved file). ``mistake_rate(game, agent)`` is the cheap form
training logs as ``eval/mistake_rate`` (a fixed sample of the set).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from boardgym.agents.base import Agent
from boardgym.agents.registry import make_agent
from boardgym.evaluate.grade_sets import GradedPosition, GradingSet
from boardgym.evaluate.ratings import wilson_interval
from boardgym.game import Game
from boardgym.games import GAMES, entry_of
from boardgym.registry import load
from boardgym.runs import atomic_write_text
from boardgym.types import BoardgymError

PHASES = ("early", "middle", "late")
_SETS: dict[tuple[str, str], list[GradedPosition]] = {}


@dataclass(frozen=True)
class PhaseResult:
    phase: str
    plies: str
    positions: int
    mistakes: int
    rate: float
    low: float
    high: float


@dataclass(frozen=True)
class GradeResult:
    game: str
    params: dict[str, Any]
    agent: str
    position_set: str
    positions: int
    mistakes: int
    rate: float
    low: float
    high: float
    phases: list[PhaseResult]
    seconds: float
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def grading_set(game: Game) -> GradingSet | None:
    """The graded position set of ``game`` at its parameters (its ``GAMES`` entry's
    ``grading``, where that covers them), or None."""
    entry = entry_of(game)
    if entry is None or not entry.grading:
        return None
    graded: GradingSet = load(entry.grading)
    return graded if graded.covers(game) else None


def gradable(game: Game) -> bool:
    """Whether ``game`` (with its parameters) has a graded position set."""
    return grading_set(game) is not None


def require_grading_set(game: Game) -> GradingSet:
    """``grading_set(game)``, or one sentence naming the games and parameters that have one."""
    graded = grading_set(game)
    if graded is None:
        where = "; ".join(f"{name} ({load(entry.grading).where})" for name, entry in GAMES.items() if entry.grading)
        raise BoardgymError(f"no graded position set for {game.name} with {game.params()}; graded: {where}")
    return graded


def position_set(game: Game) -> list[GradedPosition]:
    """The graded positions of ``game`` (built once per game and parameters, then cached)."""
    graded = require_grading_set(game)
    key = (game.name, json.dumps(game.params(), sort_keys=True, default=str))
    if key not in _SETS:
        _SETS[key] = graded.build(game)
    return _SETS[key]


def set_name(game: Game) -> str:
    graded = grading_set(game)
    params = ",".join(f"{k}={v}" for k, v in sorted(game.params().items()))
    return f"{game.name}({params})-v{graded.version if graded is not None else 0}"


def phase_bounds(positions: list[GradedPosition]) -> list[tuple[str, int, int]]:
    """The three phases as (name, first ply, last ply): the set's ply range in equal thirds."""
    first = min(p.ply for p in positions)
    last = max(p.ply for p in positions)
    span = last - first + 1
    cuts = [first + round(span * i / 3) for i in range(4)]
    return [(PHASES[i], cuts[i], cuts[i + 1] - 1) for i in range(3)]


def grade(
    game: Game,
    agent: Agent | str,
    *,
    seed: int = 0,
    positions: list[GradedPosition] | None = None,
    positions_name: str | None = None,
) -> GradeResult:
    """The mistake rate of ``agent`` on ``game``'s graded set (or on ``positions``, called
    ``positions_name`` in the result)."""
    positions = position_set(game) if positions is None else positions
    if not positions:
        raise BoardgymError(f"the graded set of {game.name} is empty")
    player = make_agent(agent, game, seed=seed)
    reset = getattr(player, "reset", None)
    if reset is not None:
        reset(seed=seed)
    bounds = phase_bounds(positions)
    counts = {name: [0, 0] for name, _, _ in bounds}
    started = time.perf_counter()
    for position in positions:
        action = int(player.act(game, position.state))
        if action not in position.values:
            raise BoardgymError(
                f"agent {getattr(player, 'spec', player)!r} played the illegal move {action} in a graded position"
            )
        phase = next(name for name, low, high in bounds if low <= position.ply <= high)
        counts[phase][0] += 1
        counts[phase][1] += position.values[action] < position.best
    seconds = time.perf_counter() - started
    phases = []
    for name, low, high in bounds:
        n, bad = counts[name]
        lo, hi = wilson_interval(bad, n)
        phases.append(PhaseResult(name, f"{low}-{high}", n, bad, bad / n if n else 0.0, lo, hi))
    total = len(positions)
    mistakes = sum(bad for _, bad in counts.values())
    lo, hi = wilson_interval(mistakes, total)
    return GradeResult(
        game=game.name,
        params=dict(game.params()),
        agent=str(getattr(player, "spec", agent)),
        position_set=set_name(game) if positions_name is None else positions_name,
        positions=total,
        mistakes=mistakes,
        rate=mistakes / total,
        low=lo,
        high=hi,
        phases=phases,
        seconds=seconds,
        seed=seed,
    )


def mistake_rate(
    game: Game, agent: Agent, *, sample: int = 200, seed: int = 0, cheap_only: bool = False
) -> float | None:
    """The agent's mistake rate on a fixed sample (every k-th position) of ``game``'s graded
    set, for in-training measurement; ``None`` for games without one (with ``cheap_only``,
    also for the sets that take long to build: Hex 4x4)."""
    graded = grading_set(game)
    if graded is None or (cheap_only and not graded.cheap(game)):
        return None
    positions = position_set(game)
    step = max(1, len(positions) // sample)
    return grade(game, agent, seed=seed, positions=positions[::step][:sample]).rate


def markdown(result: GradeResult) -> str:
    lines = [
        f"# Grade: {result.agent} on {result.game}",
        "",
        f"Position set `{result.position_set}`: {result.positions} positions where some move is worse than the best;",
        "a mistake is a move that lowers the position's exact value (win to draw or loss, draw to loss).",
        "",
        "| phase | plies | positions | mistakes | rate | 95% interval |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for p in result.phases:
        lines.append(
            f"| {p.phase} | {p.plies} | {p.positions} | {p.mistakes} | {p.rate:.1%} | {p.low:.1%}-{p.high:.1%} |"
        )
    lines.append(
        f"| **all** | | {result.positions} | {result.mistakes} | **{result.rate:.1%}** | {result.low:.1%}-{result.high:.1%} |"
    )
    lines += [
        "",
        f"{result.seconds:.1f} s ({1000 * result.seconds / result.positions:.1f} ms a position), seed {result.seed}.",
    ]
    return "\n".join(lines) + "\n"


def write_grade(result: GradeResult, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / "grade.json", json.dumps(result.to_dict(), indent=2) + "\n")
    atomic_write_text(folder / "grade.md", markdown(result))
