"""Matches, tournaments, ratings and reports.

``play_games(game, "perfect", "random", 100, seed=0)`` is the in-process check a training
script runs; ``run_tournament`` plays a round robin in worker processes and writes its files;
``boardgym evaluate`` does both from the command line.
"""

from boardgym.evaluate.match import DRAW, MatchRecord, MatchSummary, play_games, play_match

__all__ = ["DRAW", "MatchRecord", "MatchSummary", "play_games", "play_match"]
