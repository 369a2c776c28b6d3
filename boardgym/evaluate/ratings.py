"""Ratings and confidence intervals: Wilson intervals on win rates, Elo by a Bradley-Terry
maximum-likelihood fit, and TrueSkill.

Every rating function takes the games as ``(first, second, score)`` triples: the names of the
agent that moved first and of the one that moved second, and the first agent's points (1 win,
1/2 draw, 0 loss).

Elo (``fit_elo``): the Bradley-Terry model on the Elo scale, ``P(first scores) =
1 / (1 + 10 ** (-(R_first - R_second + H) / 400))``, with ``H`` the first-move advantage, fitted
jointly by Newton's method on the log-likelihood of all games at once (so, unlike incremental
Elo, the order of games does not matter). Draws count as half a win and half a loss. A prior
of ``prior_draws`` virtual draws between every pair that met (and for ``H``) keeps the fit
finite when one agent won every game, as ``perfect`` does against ``random``. Confidence
intervals come from the inverse of the observed information matrix.

TrueSkill (``trueskill_ratings``): the ``trueskill`` library's ``rate_1vs1`` after every game,
in order, as seed report 001 did, with the draw probability set to the observed draw rate.

Both are anchored: the anchor agent (``random`` when present, else the first agent) is Elo 0
and TrueSkill mu 25.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import trueskill

from boardgym.types import BoardgymError

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of odds: P = sigmoid(delta / ELO_SCALE)."""

GameResult = tuple[str, str, float]
"""``(first, second, score of first)``."""


@dataclass(frozen=True)
class EloRating:
    name: str
    elo: float
    low: float
    high: float
    """The confidence interval, relative to the anchor (which is exactly 0)."""


@dataclass(frozen=True)
class EloFit:
    ratings: dict[str, EloRating]
    first_move_advantage: EloRating
    """``H`` in Elo points, with its interval (name ``"first move"``)."""
    anchor: str
    confidence: float


@dataclass(frozen=True)
class TrueSkillRating:
    name: str
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: the skill the agent has with 99.9% confidence (Microsoft's ranking)."""
        return self.mu - 3.0 * self.sigma


def wilson_interval(successes: float, trials: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a rate ``successes / trials``; ``(0, 1)`` when there are no trials.
    (Fractional counts are allowed: a rate observed over repeated games, sized by the distinct ones.)

    Unlike the normal approximation it stays inside [0, 1] and is sensible at 0 or n successes
    (a perfect player's 1000 wins out of 1000 give 0.996-1.0, not 1.0-1.0).
    """
    if trials <= 0:
        return 0.0, 1.0
    z = _z(confidence)
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def choose_anchor(names: Sequence[str], anchor: str = "random") -> str:
    """``anchor`` when it is one of ``names``, otherwise the first name."""
    if not names:
        raise BoardgymError("no agents to rate; play at least one game first")
    return anchor if anchor in names else names[0]


def fit_elo(
    results: Sequence[GameResult],
    names: Sequence[str] | None = None,
    *,
    anchor: str = "random",
    prior_draws: float = 1.0,
    confidence: float = 0.95,
    first_move_advantage: bool = True,
) -> EloFit:
    """Bradley-Terry Elo of every agent in ``names`` (default: all in ``results``, in order of
    appearance), anchored at ``anchor`` = 0. See the module doc for the model."""
    names = list(names) if names is not None else _names(results)
    anchor = choose_anchor(names, anchor)
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    # Aggregate: games and points of the first mover for each ordered pair.
    games = np.zeros((n, n))
    points = np.zeros((n, n))
    for first, second, score in results:
        if first not in index or second not in index:
            raise BoardgymError(f"result {first!r} vs {second!r} names an agent not among {names}")
        if first == second:
            continue  # an agent against itself says nothing about ratings
        games[index[first], index[second]] += 1
        points[index[first], index[second]] += score
    met = np.triu((games + games.T) > 0, 1)
    pairs = [(a, b, games[a, b], points[a, b]) for a in range(n) for b in range(n) if games[a, b] > 0]
    prior_pairs = list(zip(*np.nonzero(met), strict=True))

    free = [i for i in range(n) if names[i] != anchor]
    column = {agent: j for j, agent in enumerate(free)}
    h_column = len(free) if first_move_advantage else None
    size = len(free) + (1 if first_move_advantage else 0)

    def unpack(x: np.ndarray) -> tuple[np.ndarray, float]:
        ratings = np.zeros(n)
        ratings[free] = x[: len(free)]
        return ratings, float(x[h_column]) if h_column is not None else 0.0

    def terms(x: np.ndarray) -> list[tuple[list[tuple[int, float]], float, float, float]]:
        """Each likelihood term as (linear form over x, games, points of the + side, rating gap)."""
        ratings, h = unpack(x)
        out = []
        for a, b, count, score in pairs:
            form = [(column[a], 1.0)] if a in column else []
            form += [(column[b], -1.0)] if b in column else []
            if h_column is not None:
                form.append((h_column, 1.0))
            out.append((form, count, score, ratings[a] - ratings[b] + h))
        for a, b in prior_pairs:
            form = [(column[a], 1.0)] if a in column else []
            form += [(column[b], -1.0)] if b in column else []
            out.append((form, prior_draws, prior_draws / 2, ratings[a] - ratings[b]))
        if h_column is not None and prior_draws > 0:
            out.append(([(h_column, 1.0)], prior_draws, prior_draws / 2, h))
        return out

    def evaluate(x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        loglik = 0.0
        gradient = np.zeros(size)
        hessian = np.zeros((size, size))
        for form, count, score, delta in terms(x):
            t = delta / ELO_SCALE
            log_p, log_q = -np.logaddexp(0.0, -t), -np.logaddexp(0.0, t)
            p = math.exp(log_p)
            loglik += score * log_p + (count - score) * log_q
            slope = (score - count * p) / ELO_SCALE
            curve = count * p * (1 - p) / ELO_SCALE**2
            for i, ci in form:
                gradient[i] += ci * slope
                for j, cj in form:
                    hessian[i, j] -= ci * cj * curve
        return loglik, gradient, hessian

    x = np.zeros(size)
    loglik, gradient, hessian = evaluate(x)
    ridge = 1e-9 * np.eye(size)  # agents that never met anyone connected to the anchor
    for _ in range(100):
        step = np.linalg.solve(hessian - ridge, -gradient)
        scale = 1.0
        while scale > 1e-6:
            trial = x + scale * step
            trial_loglik, trial_gradient, trial_hessian = evaluate(trial)
            if trial_loglik >= loglik - 1e-12:
                break
            scale /= 2
        x, loglik, gradient, hessian = trial, trial_loglik, trial_gradient, trial_hessian
        if np.max(np.abs(scale * step)) < 1e-7:
            break

    covariance = np.linalg.inv(-hessian + ridge) if size else np.zeros((0, 0))
    z = _z(confidence)
    ratings, h = unpack(x)
    out: dict[str, EloRating] = {}
    for i, name in enumerate(names):
        half = z * math.sqrt(max(covariance[column[i], column[i]], 0.0)) if i in column else 0.0
        out[name] = EloRating(name, float(ratings[i]), float(ratings[i] - half), float(ratings[i] + half))
    h_half = z * math.sqrt(max(covariance[h_column, h_column], 0.0)) if h_column is not None else 0.0
    return EloFit(out, EloRating("first move", h, h - h_half, h + h_half), anchor, confidence)


def trueskill_ratings(
    results: Sequence[GameResult],
    names: Sequence[str] | None = None,
    *,
    anchor: str = "random",
    draw_probability: float | None = None,
) -> dict[str, TrueSkillRating]:
    """TrueSkill after rating every game in order; shifted so that ``anchor`` has mu 25.
    ``draw_probability`` defaults to the observed draw rate (kept within 1%-95%)."""
    names = list(names) if names is not None else _names(results)
    anchor = choose_anchor(names, anchor)
    if draw_probability is None:
        draws = sum(1 for _, _, score in results if score == 0.5)
        draw_probability = draws / len(results) if results else 0.1
    env = trueskill.TrueSkill(draw_probability=min(max(draw_probability, 0.01), 0.95))
    current = {name: env.create_rating() for name in names}
    for first, second, score in results:
        if first == second:
            continue
        if score == 0.5:
            current[first], current[second] = env.rate_1vs1(current[first], current[second], drawn=True)
        elif score > 0.5:
            current[first], current[second] = env.rate_1vs1(current[first], current[second])
        else:
            current[second], current[first] = env.rate_1vs1(current[second], current[first])
    shift = env.mu - current[anchor].mu
    return {name: TrueSkillRating(name, r.mu + shift, r.sigma) for name, r in current.items()}


def _names(results: Sequence[GameResult]) -> list[str]:
    seen: dict[str, None] = {}
    for first, second, _ in results:
        seen.setdefault(first)
        seen.setdefault(second)
    return list(seen)


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise BoardgymError(f"confidence {confidence} must be between 0 and 1, e.g. 0.95")
    return NormalDist().inv_cdf(0.5 + confidence / 2)
