"""The png plots of a tournament, drawn with matplotlib on bare ``Figure`` objects (the Agg
canvas; pyplot's global state is never touched, so this is safe in worker processes and
headless machines).

Two-player games: outcomes per pairing, outcomes by starting seat, wins and draws by game
length, and Elo / TrueSkill ratings with their intervals. Puzzles: returns per agent.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from boardgym.evaluate.analysis import Analysis, Record, SoloStanding
from boardgym.evaluate.tournament import Tournament

COLORS = {"win": "#4c9a2a", "draw": "#b0b0b0", "loss": "#c0392b"}

PLOTS = {
    "outcomes.png": "outcomes per pairing",
    "outcomes_by_seat.png": "outcomes by starting seat",
    "game_length.png": "wins and draws by game length",
    "ratings.png": "ratings with 95% intervals",
}


def _figure(width: float, height: float):  # -> matplotlib.figure.Figure
    # A bare Figure draws with the Agg canvas and leaves pyplot's global state alone.
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def short_label(spec: str, width: int = 28) -> str:
    """An agent spec fit for an axis: in a long spec, each path keeps only its last two parts
    (``qlearning:checkpoint=.../quickstart/final.pt``)."""
    if len(spec) <= width:
        return spec
    return re.sub(r"=[^,]*/([^/,]+/[^/,]+)(?=,|$)", r"=.../\1", spec)


def tournament_plots(tournament: Tournament, analysis: Analysis, out_dir: Path) -> list[Path]:
    names = [s.name for s in analysis.standings]
    paths = [out_dir / name for name in PLOTS]

    # Outcomes per pairing: the row agent's wins, draws and losses, one bar per pairing.
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if (a, b) in analysis.matrix]
    fig = _figure(8, 1.0 + 0.5 * len(pairs))
    ax = fig.add_subplot()
    labels = [f"{short_label(a)} vs {short_label(b)}" for a, b in pairs]
    _stacked_bars(ax, labels, [analysis.matrix[pair] for pair in pairs], ("{a} wins", "draw", "{b} wins"))
    ax.set_title(f"{tournament.game}: outcomes per pairing (left agent's view)")
    fig.savefig(paths[0], dpi=110)

    # Outcomes by starting seat: each agent moving first and moving second.
    fig = _figure(8, 1.0 + 0.8 * len(names))
    ax = fig.add_subplot()
    rows = [(f"{short_label(s.name)} (first)", s.as_first) for s in analysis.standings]
    rows += [(f"{short_label(s.name)} (second)", s.as_second) for s in analysis.standings]
    rows.sort(key=lambda row: row[0])
    _stacked_bars(ax, [r[0] for r in rows], [r[1] for r in rows], ("win", "draw", "loss"))
    ax.set_title(f"{tournament.game}: outcomes by starting seat")
    fig.savefig(paths[1], dpi=110)

    # Wins and draws by game length.
    fig = _figure(8, 4)
    ax = fig.add_subplot()
    lengths = analysis.lengths
    bins = np.arange(min(n for n, _ in lengths), max(n for n, _ in lengths) + 2) - 0.5
    groups = [[n for n, p in lengths if p == points] for points in (1.0, 0.5, 0.0)]
    ax.hist(
        groups,
        bins=bins if len(bins) <= 80 else 40,
        stacked=True,
        color=[COLORS["win"], COLORS["draw"], COLORS["loss"]],
        label=["first mover wins", "draw", "second mover wins"],
    )
    ax.set_xlabel("moves in the game")
    ax.set_ylabel("games")
    ax.legend()
    ax.set_title(f"{tournament.game}: wins and draws by game length ({len(lengths)} games)")
    fig.savefig(paths[2], dpi=110)

    # Ratings with intervals.
    fig = _figure(10, 1.0 + 0.45 * len(names))
    elo_ax, skill_ax = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(names))[::-1]
    if analysis.elo:
        ratings = [analysis.elo.ratings[n] for n in names]
        values = np.array([r.elo for r in ratings])
        errors = np.array([[r.elo - r.low for r in ratings], [r.high - r.elo for r in ratings]])
        elo_ax.errorbar(values, y, xerr=errors, fmt="o", capsize=4)
        elo_ax.set_xlabel(f"Elo (95% CI), {analysis.elo.anchor} = 0")
    skill = [analysis.trueskill[n] for n in names]
    skill_ax.errorbar([s.mu for s in skill], y, xerr=[3 * s.sigma for s in skill], fmt="s", capsize=4, color="C1")
    skill_ax.set_xlabel("TrueSkill mu +- 3 sigma")
    elo_ax.set_yticks(y, [short_label(n) for n in names])
    elo_ax.grid(axis="x", alpha=0.3)
    skill_ax.grid(axis="x", alpha=0.3)
    fig.suptitle(f"{tournament.game}: ratings")
    fig.savefig(paths[3], dpi=110)
    return paths


def _stacked_bars(ax: Any, labels: list[str], records: list[Record], legend: tuple[str, str, str]) -> None:
    y = np.arange(len(labels))[::-1]
    left = np.zeros(len(labels))
    for key, kind, label in zip(("wins", "draws", "losses"), ("win", "draw", "loss"), legend, strict=True):
        counts = np.array([getattr(r, key) for r in records], dtype=float)
        fractions = counts / np.maximum([r.games for r in records], 1)
        ax.barh(y, fractions, left=left, color=COLORS[kind], label=label.format(a="left", b="right"))
        for yi, xi, fi, ci in zip(y, left, fractions, counts, strict=True):
            if fi > 0.06:
                ax.text(xi + fi / 2, yi, f"{int(ci)}", ha="center", va="center", fontsize=8)
        left += fractions
    ax.set_yticks(y, labels)
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of games")
    ax.figure.legend(loc="outside lower center", ncol=3, fontsize=8)


def solo_plots(tournament: Tournament, rows: list[SoloStanding], out_dir: Path) -> list[Path]:
    path = out_dir / "returns.png"
    names = tournament.names
    fig = _figure(8, 1.0 + 0.5 * len(rows))
    ax = fig.add_subplot()
    data = [[g.record.returns[0] for g in tournament.games if names[g.seats[0]] == row.name] for row in rows]
    ax.boxplot(data, vert=False, tick_labels=[short_label(row.name) for row in rows], showmeans=True)
    ax.invert_yaxis()
    ax.set_xlabel("return per game")
    ax.set_title(f"{tournament.game}: returns per agent")
    fig.savefig(path, dpi=110)
    return [path]
