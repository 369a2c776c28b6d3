"""What a tournament says: standings, the win/draw/loss matrix, outcomes by starting seat, game
lengths, ratings; as a markdown report, a JSON summary and png plots in the run folder.

``write_report(tournament, out_dir)`` writes ``report.md``, ``summary.json`` and, for two-player
games, ``outcomes.png`` (per pairing), ``outcomes_by_seat.png``, ``game_length.png`` (wins and
draws by number of moves) and ``ratings.png`` (Elo and TrueSkill with their intervals), drawn
by ``plots.py``. Puzzles get a leaderboard of mean return and ``returns.png`` instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from boardgym.evaluate.analysis import Analysis, Record, SoloStanding, analyse, solo_standings
from boardgym.evaluate.plots import PLOTS, solo_plots, tournament_plots
from boardgym.evaluate.ratings import EloRating
from boardgym.evaluate.tournament import Tournament
from boardgym.runs import atomic_write_text


def leaderboard_markdown(tournament: Tournament, analysis: Analysis | None = None) -> str:
    """The leaderboard table (two-player: Elo, TrueSkill, W/D/L, win rate; puzzles: returns)."""
    if tournament.num_players == 1:
        return _solo_leaderboard(solo_standings(tournament))
    analysis = analysis or analyse(tournament)
    header = "| # | agent | Elo | 95% CI | TrueSkill mu +- sigma | games | distinct | W | D | L | win rate (95% CI) | ms/move |"
    lines = [header, "|---|---|---:|---|---|---:|---:|---:|---:|---:|---|---:|"]
    for rank, standing in enumerate(analysis.standings, 1):
        name, total = standing.name, standing.total
        elo = analysis.elo.ratings[name] if analysis.elo else None
        skill = analysis.trueskill.get(name)
        low, high = standing.win_rate_interval
        lines.append(
            f"| {rank} | {name} | {_num(elo.elo) if elo else '-'} | "
            f"{_interval(elo, analysis.elo.anchor) if elo and analysis.elo else '-'} | "
            f"{f'{skill.mu:.1f} +- {skill.sigma:.1f}' if skill else '-'} | {total.games} | {standing.distinct} | {total.wins} | "
            f"{total.draws} | {total.losses} | {total.win_rate:.1%} ({low:.1%} .. {high:.1%}) | "
            f"{standing.ms_per_move:.3f} |"
        )
    return "\n".join(lines)


def console_summary(tournament: Tournament, analysis: Analysis | None = None) -> str:
    """What ``boardgym evaluate`` prints: the leaderboard, and for two-player games the
    first-move advantage and each agent's results by starting seat."""
    if tournament.num_players == 1 or not tournament.games:
        return leaderboard_markdown(tournament)
    analysis = analysis or analyse(tournament)
    parts = [leaderboard_markdown(tournament, analysis), "", _distinct_line(tournament, analysis)]
    if analysis.elo:
        h = analysis.elo.first_move_advantage
        parts.append(f"first-move advantage: {_num(h.elo)} Elo (95% CI {_num(h.low)} .. {_num(h.high)})")
    parts += ["", _seat_table(analysis)]
    return "\n".join(parts)


def write_report(
    tournament: Tournament, out_dir: Path | str, plots: bool = True, analysis: Analysis | None = None
) -> list[Path]:
    """Write ``report.md``, ``summary.json`` and the plots; returns the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    if tournament.num_players == 1:
        rows = solo_standings(tournament)
        markdown = _solo_report(tournament, rows)
        summary: dict[str, Any] = {**_progress(tournament), "standings": [asdict(row) for row in rows]}
        if plots and tournament.games:
            written += solo_plots(tournament, rows, out_dir)
    else:
        analysis = analysis or analyse(tournament)
        markdown = _report(tournament, analysis)
        summary = _summary(tournament, analysis)
        if plots and tournament.games:
            written += tournament_plots(tournament, analysis, out_dir)
    atomic_write_text(out_dir / "report.md", markdown)
    atomic_write_text(out_dir / "summary.json", json.dumps(_finite(summary), indent=2) + "\n")
    return [out_dir / "report.md", out_dir / "summary.json", *written]


# -- markdown -------------------------------------------------------------------------------
def _report(tournament: Tournament, analysis: Analysis) -> str:
    names = [s.name for s in analysis.standings]
    parts = [_title(tournament), "## Leaderboard", "", leaderboard_markdown(tournament, analysis), ""]
    parts += [_distinct_line(tournament, analysis), ""]
    if analysis.elo:
        h = analysis.elo.first_move_advantage
        parts += [
            f"Elo: Bradley-Terry maximum-likelihood fit over the distinct games, draws as half points, "
            f"anchored at {analysis.elo.anchor} = 0, with 95% intervals; first-move advantage "
            f"{_num(h.elo)} Elo (95% CI {_num(h.low)} .. {_num(h.high)}). TrueSkill: games rated in "
            f"order, {analysis.elo.anchor} shifted to mu = 25. Win rates over all games, with Wilson intervals "
            f"sized by each agent's distinct games.",
            "",
        ]
    parts += ["## Results matrix", "", "Wins-draws-losses of the row agent against the column agent.", ""]
    parts += [_matrix(names, analysis.matrix), ""]
    parts += ["## Outcomes by starting seat", "", "Each agent's wins-draws-losses when it moved first and second.", ""]
    parts.append(_seat_table(analysis))
    parts += ["", "By pairing (results of the agent that moved first):", ""]
    parts += ["| first | second | W-D-L of first | score of first |", "|---|---|---|---|"]
    for a in names:
        for b in names:
            record = analysis.by_first.get((a, b))
            if record:
                parts.append(f"| {a} | {b} | {record} | {record.score:.1%} |")
    parts += ["", "## Game length", "", _lengths_table(analysis.lengths), ""]
    parts += ["## Plots", ""]
    for name, title in PLOTS.items():
        parts.append(f"![{title}]({name})")
    return "\n".join(parts) + "\n"


def _distinct_line(tournament: Tournament, analysis: Analysis) -> str:
    """How many games differ, and where they start."""
    openings = (
        f"each pair of games (seats swapped) starts after the same {tournament.opening_plies} random opening "
        "moves of the tournament's suite, on by default when an agent plays the same moves whatever its seed; "
        "win rates from the start position (--openings off, or play_games) differ"
        if tournament.opening_plies
        else "every game starts at the start"
    )
    line = f"{analysis.distinct_games} distinct games of {analysis.games} ({openings})."
    if analysis.distinct_games < analysis.games:
        line += " Games that repeat another move for move count once in the intervals and ratings."
    return line


def _seat_table(analysis: Analysis) -> str:
    lines = ["| agent | W-D-L moving first (score) | W-D-L moving second (score) | W-D-L total |", "|---|---|---|---|"]
    for s in analysis.standings:
        lines.append(
            f"| {s.name} | {s.as_first} ({s.as_first.score:.0%}) | {s.as_second} ({s.as_second.score:.0%}) | {s.total} |"
        )
    return "\n".join(lines)


def _matrix(names: Sequence[str], matrix: dict[tuple[str, str], Record]) -> str:
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for a in names:
        cells = [str(matrix[a, b]) if (a, b) in matrix else "" for b in names]
        lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _lengths_table(lengths: list[tuple[int, float]]) -> str:
    rows = ["| result | games | mean moves | min | max |", "|---|---:|---:|---:|---:|"]
    for label, points in (("first mover wins", 1.0), ("draw", 0.5), ("second mover wins", 0.0), ("all", None)):
        picked = [n for n, p in lengths if points is None or p == points]
        if picked:
            rows.append(f"| {label} | {len(picked)} | {np.mean(picked):.1f} | {min(picked)} | {max(picked)} |")
    return "\n".join(rows)


def _title(tournament: Tournament) -> str:
    params = ", ".join(f"{k}={v}" for k, v in tournament.game_params.items())
    progress = _progress(tournament)
    line = (
        f"# {tournament.game}{f' ({params})' if params else ''}: "
        f"{'gauntlet' if tournament.gauntlet else 'round robin' if tournament.num_players == 2 else 'solo runs'}"
        f"\n\n{progress['games_played']} of {progress['games_scheduled']} games "
        f"({tournament.games_per_pair} per "
        f"{'pairing, seats alternated' if tournament.num_players == 2 else 'agent'}), seed {tournament.seed}."
    )
    if progress["games_played"] < progress["games_scheduled"]:
        line += " **Unfinished**: rerun the same command with `--resume` to play the missing games."
    return line + "\n"


def _solo_leaderboard(rows: list[SoloStanding]) -> str:
    lines = ["| # | agent | mean return | 95% CI | best | worst | games | mean moves | ms/move |"]
    lines.append("|---|---|---:|---|---:|---:|---:|---:|---:|")
    for rank, row in enumerate(rows, 1):
        low, high = row.mean_return - row.return_half_width, row.mean_return + row.return_half_width
        lines.append(
            f"| {rank} | {row.name} | {row.mean_return:.4g} | {low:.4g} .. {high:.4g} | {row.best:.4g} | "
            f"{row.worst:.4g} | {row.games} | {row.mean_length:.1f} | {row.ms_per_move:.3f} |"
        )
    return "\n".join(lines)


def _solo_report(tournament: Tournament, rows: list[SoloStanding]) -> str:
    parts = [_title(tournament), "## Leaderboard", "", _solo_leaderboard(rows), ""]
    parts += ["Returns are the puzzle's own (higher is better), with 95% normal intervals of the mean.", ""]
    parts += ["![returns](returns.png)"]
    return "\n".join(parts) + "\n"


def _progress(tournament: Tournament) -> dict[str, Any]:
    return {
        **tournament.settings(),
        "games_played": len(tournament.games),
        "games_scheduled": len(tournament.pairings) * tournament.games_per_pair,
    }


def _summary(tournament: Tournament, analysis: Analysis) -> dict[str, Any]:
    standings = []
    for s in analysis.standings:
        low, high = s.win_rate_interval
        row: dict[str, Any] = {
            "agent": s.name,
            "games": s.total.games,
            "distinct_games": s.distinct,
            "wins": s.total.wins,
            "draws": s.total.draws,
            "losses": s.total.losses,
            "win_rate": s.total.win_rate,
            "win_rate_ci": [low, high],
            "as_first": asdict(s.as_first),
            "as_second": asdict(s.as_second),
            "ms_per_move": s.ms_per_move,
        }
        if analysis.elo:
            rating = analysis.elo.ratings[s.name]
            row["elo"], row["elo_ci"] = rating.elo, [rating.low, rating.high]
        if s.name in analysis.trueskill:
            row["trueskill_mu"] = analysis.trueskill[s.name].mu
            row["trueskill_sigma"] = analysis.trueskill[s.name].sigma
        standings.append(row)
    out = {**_progress(tournament), "distinct_games": analysis.distinct_games, "standings": standings}
    if analysis.elo:
        h = analysis.elo.first_move_advantage
        out["elo_anchor"] = analysis.elo.anchor
        out["first_move_advantage_elo"] = {"elo": h.elo, "ci": [h.low, h.high]}
    out["matrix"] = {f"{a} vs {b}": asdict(record) for (a, b), record in analysis.matrix.items()}
    return out


def _finite(value: Any) -> Any:
    """``value`` with infinite or undefined numbers as ``None``, so the file is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _interval(rating: EloRating, anchor: str) -> str:
    return "anchor" if rating.name == anchor else f"{_num(rating.low)} .. {_num(rating.high)}"


def _num(value: float) -> str:
    return f"{value:.0f}" if math.isfinite(value) else "inf"
