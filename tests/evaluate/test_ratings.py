"""Ratings recover synthetic players of known strength; Wilson intervals match known values."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym.evaluate.ratings import choose_anchor, fit_elo, trueskill_ratings, wilson_interval
from boardgym.types import BoardgymError

TRUE_ELO = {"random": 0.0, "weak": 150.0, "medium": 400.0, "strong": 800.0}


def synthetic_games(n: int, seed: int, advantage: float = 60.0) -> list[tuple[str, str, float]]:
    """Round robin games drawn from the Bradley-Terry model with a first-move advantage."""
    rng = np.random.default_rng(seed)
    names = list(TRUE_ELO)
    games = []
    for _ in range(n):
        i, j = rng.choice(len(names), 2, replace=False)
        first, second = names[i], names[j]
        p = 1 / (1 + 10 ** (-(TRUE_ELO[first] - TRUE_ELO[second] + advantage) / 400))
        games.append((first, second, float(rng.random() < p)))
    return games


def test_elo_recovers_known_strengths_within_intervals():
    fit = fit_elo(synthetic_games(6000, seed=1))
    assert fit.anchor == "random"
    order = sorted(fit.ratings, key=lambda name: fit.ratings[name].elo)
    assert order == list(TRUE_ELO)
    for name, true in TRUE_ELO.items():
        rating = fit.ratings[name]
        assert rating.low - 15 <= true <= rating.high + 15, (name, rating)
    assert fit.first_move_advantage.low - 15 <= 60 <= fit.first_move_advantage.high + 15
    assert fit.ratings["random"] == fit.ratings["random"].__class__("random", 0.0, 0.0, 0.0)


def test_elo_intervals_shrink_with_more_games():
    few = fit_elo(synthetic_games(300, seed=2)).ratings["strong"]
    many = fit_elo(synthetic_games(5000, seed=2)).ratings["strong"]
    assert many.high - many.low < (few.high - few.low) / 2


def test_elo_stays_finite_when_one_side_wins_everything():
    games = [("perfect", "random", 1.0), ("random", "perfect", 0.0)] * 500
    fit = fit_elo(games)
    perfect = fit.ratings["perfect"]
    assert 500 < perfect.elo < 3000 and np.isfinite(perfect.low) and perfect.low > 300


def test_draws_are_half_points():
    games = [("a", "random", 0.5), ("random", "a", 0.5)] * 100
    fit = fit_elo(games)
    assert abs(fit.ratings["a"].elo) < 1e-6
    assert abs(fit.first_move_advantage.elo) < 1e-6


def test_anchor_falls_back_to_first_agent():
    fit = fit_elo([("x", "y", 1.0), ("y", "x", 0.5)])
    assert fit.anchor == "x" and fit.ratings["x"].elo == 0.0 and fit.ratings["y"].elo < 0
    assert choose_anchor(["a", "random"]) == "random"
    with pytest.raises(BoardgymError):
        choose_anchor([])


def test_trueskill_recovers_order_and_is_anchored():
    ratings = trueskill_ratings(synthetic_games(3000, seed=3))
    assert ratings["random"].mu == pytest.approx(25.0)
    order = sorted(ratings, key=lambda name: ratings[name].mu)
    assert order == list(TRUE_ELO)
    assert all(r.sigma < 2.0 for r in ratings.values())
    assert ratings["strong"].conservative == pytest.approx(ratings["strong"].mu - 3 * ratings["strong"].sigma)


@pytest.mark.parametrize(
    "wins, games, low, high",
    [
        (0, 10, 0.0, 0.2775),  # textbook values, z = 1.96
        (5, 10, 0.2366, 0.7634),
        (1000, 1000, 0.99617, 1.0),
    ],
)
def test_wilson_interval_known_values(wins, games, low, high):
    got = wilson_interval(wins, games)
    assert got == pytest.approx((low, high), abs=1e-3)


def test_wilson_interval_edge_cases():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(BoardgymError, match="confidence"):
        wilson_interval(1, 2, confidence=95)
