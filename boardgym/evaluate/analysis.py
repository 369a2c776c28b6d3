"""What a tournament's games say, computed once: each agent's record overall and by starting
seat, the results matrix, game lengths, Elo and TrueSkill ratings (two-player games), or mean
returns (puzzles). ``report.py`` writes these as markdown and JSON, ``plots.py`` draws them.

Games that repeat an earlier game move for move (two deterministic agents from the same start)
are not independent trials: the counts keep every game, but the intervals rest on the distinct
games only. Elo and TrueSkill are fitted on the distinct games; a win rate's Wilson interval
takes the rate over all games and the number of distinct games the agent played as its size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from boardgym.evaluate.ratings import EloFit, TrueSkillRating, fit_elo, trueskill_ratings, wilson_interval
from boardgym.evaluate.tournament import Tournament


@dataclass
class Record:
    """Wins, draws and losses, with thinking time, of one agent (or one side of a pairing)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def add(self, points: float) -> None:
        if points == 1.0:
            self.wins += 1
        elif points == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    def __str__(self) -> str:
        return f"{self.wins}-{self.draws}-{self.losses}"


@dataclass
class Standing:
    name: str
    total: Record
    as_first: Record
    as_second: Record
    moves: int = 0
    seconds: float = 0.0
    distinct: int = 0
    """Games of this agent that differ from each other (the size behind its intervals)."""

    @property
    def win_rate_interval(self) -> tuple[float, float]:
        """Wilson interval of the win rate over all games, sized by the distinct games."""
        size = self.distinct or self.total.games
        return wilson_interval(self.total.win_rate * size, size)

    @property
    def ms_per_move(self) -> float:
        return 1000.0 * self.seconds / self.moves if self.moves else 0.0


@dataclass
class SoloStanding:
    name: str
    games: int
    mean_return: float
    return_half_width: float
    """Half the 95% normal interval of the mean return."""
    best: float
    worst: float
    mean_length: float
    ms_per_move: float


@dataclass
class Analysis:
    """Everything the report shows, computed once from the games."""

    standings: list[Standing]
    matrix: dict[tuple[str, str], Record]
    """``matrix[a, b]``: a's results against b."""
    by_first: dict[tuple[str, str], Record]
    """``by_first[a, b]``: a's results against b in the games a started."""
    lengths: list[tuple[int, float]]
    """``(number of moves, first mover's points)`` of every game."""
    elo: EloFit | None
    trueskill: dict[str, TrueSkillRating]
    games: int = 0
    distinct_games: int = 0
    """Games that differ from each other, agent for agent and move for move."""


def analyse(tournament: Tournament) -> Analysis:
    """Standings, matrix, seat split and ratings of a two-player tournament."""
    names = list(tournament.names)
    standings = {name: Standing(name, Record(), Record(), Record()) for name in names}
    matrix: dict[tuple[str, str], Record] = {}
    by_first: dict[tuple[str, str], Record] = {}
    lengths = []
    results = tournament.rating_games()
    seen: set[object] = set()
    independent = []  # the distinct games, each once: what the ratings are fitted on
    for played, result in zip(tournament.games, results, strict=True):
        key = tournament.game_key(played)
        if key not in seen:
            seen.add(key)
            independent.append(result)
            for agent in set(played.seats):
                standings[names[agent]].distinct += 1
    for played, (first, second, points) in zip(tournament.games, results, strict=True):
        for name, other, mine, started in ((first, second, points, True), (second, first, 1 - points, False)):
            standing = standings[name]
            standing.total.add(mine)
            (standing.as_first if started else standing.as_second).add(mine)
            matrix.setdefault((name, other), Record()).add(mine)
            if started:
                by_first.setdefault((name, other), Record()).add(mine)
        for seat, agent in enumerate(played.seats):
            moved = played.record.moves_per_seat[seat]
            standings[names[agent]].moves += moved
            standings[names[agent]].seconds += played.record.seconds_per_move[seat] * moved
        lengths.append((played.record.num_moves, points))
    elo = fit_elo(independent, names) if independent else None
    skill = trueskill_ratings(independent, names) if independent else {}
    ordered = sorted(standings.values(), key=lambda s: -(elo.ratings[s.name].elo if elo else s.total.score))
    return Analysis(ordered, matrix, by_first, lengths, elo, skill, len(results), len(independent))


def solo_standings(tournament: Tournament) -> list[SoloStanding]:
    """Mean return (with a 95% interval), best and worst return, length and speed of each agent."""
    names = tournament.names
    rows = []
    for i, name in enumerate(names):
        games = [g.record for g in tournament.games if g.seats[0] == i]
        returns = np.array([r.returns[0] for r in games], dtype=float)
        moves = sum(r.num_moves for r in games)
        seconds = sum(r.seconds_per_move[0] * r.num_moves for r in games)
        half = 1.96 * float(returns.std(ddof=1)) / math.sqrt(len(returns)) if len(returns) > 1 else math.inf
        rows.append(
            SoloStanding(
                name,
                len(games),
                float(returns.mean()) if len(games) else 0.0,
                half,
                float(returns.max()) if len(games) else math.nan,
                float(returns.min()) if len(games) else math.nan,
                moves / len(games) if games else 0.0,
                1000.0 * seconds / moves if moves else 0.0,
            )
        )
    return sorted(rows, key=lambda row: -row.mean_return)
