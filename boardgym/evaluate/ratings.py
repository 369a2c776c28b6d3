"""Ratings and confidence intervals: Wilson intervals on win rates, Elo by a Bradley-Terry
maximum-likelihood fit, and TrueSkill."""

from __future__ import annotations

import math

from scipy.stats import norm


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a rate ``successes / trials``; ``(0, 1)`` when there are no trials.

    Unlike the normal approximation it stays inside [0, 1] and is sensible at 0 or n successes
    (a perfect player's 1000 wins out of 1000 give 0.996-1.0, not 1.0-1.0).
    """
    if trials <= 0:
        return 0.0, 1.0
    z = float(norm.ppf(0.5 + confidence / 2))
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
