"""Matches, tournaments, ratings and reports.

``play_games(game, "perfect", "random", 100, seed=0)`` is the in-process check a training
script runs; ``run_tournament`` plays a round robin in worker processes and writes its files;
``write_report`` turns it into a leaderboard, plots and ratings; ``boardgym evaluate`` does
all of it from the command line.
"""

from boardgym.evaluate.analysis import analyse
from boardgym.evaluate.match import DRAW, MatchRecord, MatchSummary, play_games, play_match
from boardgym.evaluate.ratings import fit_elo, trueskill_ratings, wilson_interval
from boardgym.evaluate.report import console_summary, leaderboard_markdown, write_report
from boardgym.evaluate.tournament import Tournament, load_tournament, run_tournament

__all__ = [
    "DRAW",
    "MatchRecord",
    "MatchSummary",
    "Tournament",
    "analyse",
    "console_summary",
    "fit_elo",
    "leaderboard_markdown",
    "load_tournament",
    "play_games",
    "play_match",
    "run_tournament",
    "trueskill_ratings",
    "wilson_interval",
    "write_report",
]
