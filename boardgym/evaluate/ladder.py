"""Reference ladders: the built-in agents of a two-player game in one round robin, rated.

    boardgym ladder connect_four --games 20 --run-name ref

A game's ladder is named by its ``GAMES`` entry (``ladder``: the rungs, random, minimax at
depths, MCTS at budgets, the pretrained AlphaZero network where one ships, the solver and
``perfect`` where they exist; ``ladder_params``: the game parameters they are played at). ``run_ladder`` plays them with the tournament
machinery (``run_tournament``: seats alternated, seeded, resumable), fits Elo with 95%
intervals anchored at random (``analyse``), and, where the game has a graded position set, adds
each rung's mistake rate against the exact values (a ``Grader``). It writes the usual
tournament files and report plus ``ladder.md`` and ``ladder.json`` to
``runs/<game>/ladder/<run-name>/`` and prints the ladder table.

A rung whose agent is not registered in this installation, or cannot play the game (it says
why when built), is left out and named in the ladder's notes; the ladder goes on without it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardgym.agents.registry import AGENTS, make_agent, parse_spec
from boardgym.evaluate.analysis import Analysis, analyse
from boardgym.evaluate.grade import gradable, grade, position_set
from boardgym.evaluate.ratings import wilson_interval
from boardgym.evaluate.report import write_report
from boardgym.evaluate.tournament import Tournament, run_tournament
from boardgym.games import GAMES, make_game
from boardgym.runs import atomic_write_text
from boardgym.types import BoardgymError

METHOD = "ladder"


@dataclass(frozen=True)
class Ladder:
    """The rungs of one game's ladder (agent specs, weakest first by intent) and the game
    parameters it is played at."""

    agents: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)


Grader = Callable[[str], "Mistakes | None"]
"""Grades one agent spec on the game's position set; None where the game has none."""


@dataclass(frozen=True)
class Mistakes:
    """An agent's mistakes on a graded position set: moves that lower the position's exact
    value, out of ``positions`` graded moves."""

    mistakes: int
    positions: int

    @property
    def rate(self) -> float:
        return self.mistakes / self.positions if self.positions else math.nan

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.mistakes, self.positions)


@dataclass
class LadderResult:
    game: str
    params: dict[str, Any]
    tournament: Tournament
    analysis: Analysis
    mistakes: dict[str, Mistakes]
    skipped: dict[str, str]
    """Rungs left out, with the reason."""


def ladders() -> dict[str, Ladder]:
    """Every game's ladder, from its ``GAMES`` entry (the games that have one)."""
    return {name: Ladder(entry.ladder, dict(entry.ladder_params)) for name, entry in GAMES.items() if entry.ladder}


def ladder_of(game_name: str) -> Ladder:
    """The ladder of ``game_name``, or one sentence naming the games that have a ladder."""
    known = ladders()
    if game_name not in known:
        raise BoardgymError(
            f"there is no ladder for {game_name!r}; ladders exist for the two-player games: {', '.join(known)}"
        )
    return known[game_name]


def set_grader(game_name: str, sample: int = 0, seed: int = 0) -> Grader | None:
    """Grades agent specs on ``game_name``'s graded position set at its ladder's parameters
    (``boardgym.evaluate.grade``; ``sample`` > 0: every k-th position, ``sample`` of them), or
    None where the game has no set at those parameters."""
    if sample < 0:
        raise BoardgymError(f"grade sample {sample} must be 0 (the whole set) or more")
    game = make_game(game_name, **ladder_of(game_name).params)
    if not gradable(game):
        return None
    positions = position_set(game)
    if 0 < sample < len(positions):
        positions = positions[:: len(positions) // sample][:sample]

    def grade_spec(spec: str) -> Mistakes:
        result = grade(game, spec, seed=seed, positions=positions)
        return Mistakes(result.mistakes, result.positions)

    return grade_spec


def ladder_agents(game_name: str) -> tuple[list[str], dict[str, str]]:
    """The rungs of ``game_name``'s ladder that this installation can play, and those it
    cannot, each with the reason."""
    ladder = ladder_of(game_name)
    game = make_game(game_name, **ladder.params)
    usable, skipped = [], {}
    for spec in ladder.agents:
        name = parse_spec(spec)[0]
        if name not in AGENTS:
            skipped[spec] = f"no agent named {name!r} in this installation"
            continue
        try:
            make_agent(spec, game, seed=0)
        except BoardgymError as error:
            skipped[spec] = str(error)
            continue
        usable.append(spec)
    return usable, skipped


def run_ladder(
    game_name: str,
    games: int,
    *,
    workers: int = 1,
    seed: int = 0,
    out_dir: Path | str | None = None,
    resume: bool = False,
    grader: Grader | None = None,
    progress: bool = True,
    plots: bool = True,
) -> LadderResult:
    """Play ``game_name``'s ladder (``games`` per pairing), rate it, grade each rung with
    ``grader`` where given, and write its files to ``out_dir`` (None: nothing written)."""
    usable, skipped = ladder_agents(game_name)
    if len(usable) < 2:
        raise BoardgymError(f"the {game_name} ladder has fewer than two playable agents here (left out: {skipped})")
    params = ladder_of(game_name).params
    tournament = run_tournament(
        game_name,
        usable,
        games,
        workers=workers,
        seed=seed,
        out_dir=out_dir,
        game_params=params,
        resume=resume,
        progress=progress,
        record_moves=False,
    )
    analysis = analyse(tournament)
    mistakes: dict[str, Mistakes] = {}
    if grader is not None:
        for spec in usable:
            graded = grader(spec)
            if graded is not None:
                mistakes[spec] = graded
    result = LadderResult(game_name, dict(params), tournament, analysis, mistakes, skipped)
    if out_dir is not None:
        out = Path(out_dir)
        write_report(tournament, out, plots=plots, analysis=analysis)
        atomic_write_text(out / "ladder.md", ladder_markdown(result) + "\n")
        atomic_write_text(out / "ladder.json", json.dumps(ladder_summary(result), indent=2) + "\n")
    return result


def ladder_markdown(result: LadderResult) -> str:
    """The ladder as a markdown table: Elo (95% CI, random = 0), W-D-L, mistake rate where
    graded, ms per move; then the rungs left out."""
    graded = bool(result.mistakes)
    header = "| # | agent | Elo | 95% CI | W-D-L | " + ("mistake rate (95% CI) | " if graded else "") + "ms/move |"
    rule = "|---|---|---:|---|---|" + ("---|" if graded else "") + "---:|"
    lines = [header, rule]
    elo = result.analysis.elo
    for rank, standing in enumerate(result.analysis.standings, 1):
        rating = elo.ratings[standing.name] if elo else None
        if rating is None or elo is None:
            rated, interval = "-", "-"
        else:
            rated = _num(rating.elo)
            interval = "anchor" if standing.name == elo.anchor else f"{_num(rating.low)} .. {_num(rating.high)}"
        row = f"| {rank} | `{standing.name}` | {rated} | {interval} | {standing.total} | "
        if graded:
            row += f"{_mistake_text(result.mistakes.get(standing.name))} | "
        lines.append(row + f"{standing.ms_per_move:.1f} |")
    for spec, reason in result.skipped.items():
        lines.append(f"\nleft out: `{spec}`: {reason}")
    return "\n".join(lines)


def ladder_summary(result: LadderResult) -> dict[str, Any]:
    """``ladder.json``: the game, its parameters, games per pairing and each rung's figures."""
    elo = result.analysis.elo
    rungs = []
    for standing in result.analysis.standings:
        rating = elo.ratings[standing.name] if elo else None
        graded = result.mistakes.get(standing.name)
        rungs.append(
            {
                "agent": standing.name,
                "elo": _finite(rating.elo) if rating else None,
                "elo_low": _finite(rating.low) if rating else None,
                "elo_high": _finite(rating.high) if rating else None,
                "wins": standing.total.wins,
                "draws": standing.total.draws,
                "losses": standing.total.losses,
                "ms_per_move": standing.ms_per_move,
                "mistakes": graded.mistakes if graded else None,
                "graded_positions": graded.positions if graded else None,
            }
        )
    return {
        "game": result.game,
        "params": {k: list(v) if isinstance(v, tuple) else v for k, v in result.params.items()},
        "games_per_pair": result.tournament.games_per_pair,
        "seed": result.tournament.seed,
        "anchor": elo.anchor if elo else None,
        "rungs": rungs,
        "skipped": result.skipped,
    }


def _mistake_text(graded: Mistakes | None) -> str:
    if graded is None:
        return "-"
    low, high = graded.interval()
    return f"{graded.rate:.1%} ({low:.1%} .. {high:.1%}) of {graded.positions}"


def _num(value: float) -> str:
    return f"{value:.0f}" if math.isfinite(value) else ("inf" if value > 0 else "-inf")


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
