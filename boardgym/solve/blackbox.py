"""Optimisers for the black-box bit-string problem, each seeing only a counted fitness function.

Every optimiser is ``optimise(fitness, genome_length, rng, **params)`` and loops until it
stops by its own rule; the ``Tracker`` it is handed ends any run early by raising
``StopSearch`` once the call budget is spent or the target fitness is reached, and records
best fitness against calls for the plots. ``run(algorithm, problem, seed=...)`` does both.

- ``steady_state``: seed report 000's algorithm. Population 10; each generation the worst 5
  are replaced by children of two parents drawn from the best 5, by uniform crossover and
  "Gaussian" mutation (add N(0, 0.2) to each bit, round, mod 2: each bit flips with
  probability P(|N(0, 0.2)| > 0.5) ~ 1.2%). Stops after 2000 generations without a gain
  above 0.001.
- ``fitness_selection``: seed report 003's fitness-based selection. Generational,
  population 100, parents drawn in proportion to fitness (roulette wheel), uniform crossover,
  bit-flip mutation with rate 1/length, the best individual kept. Stops after 50 generations
  without improvement. (The report names the selection only; the operators are ours.)
- ``linkage``: ours. Perturbation-based linkage learning in the spirit of LINC (Munetomo
  and Goldberg, 1999), at n calls instead of n^2: flip each locus of a random genome once
  and record how the fitness moves. Loci whose flips move it by the same amount, or by exactly
  the opposite amount from the other value, are taken to be one building block (a group).
  Then search over whole groups: set a group to all ones or all zeros, take the best move,
  repeat while it improves. When no group move helps, single improving flips are tried and
  the loci are probed again; at a local optimum it restarts from a new random genome. On this
  problem the groups are the interleaved slices, so the deceptive trap of a lagging slice
  (every single extra one costs fitness until the slice is full) is crossed in one move.
  Its limit: when ``a`` does not divide the genome length the optimum needs the longer
  slices one short of full, which no whole-group move reaches; it then stalls below it
  (a = 3: 0.666 against 0.999) and spends its budget on restarts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from boardgym.games.blackbox import BlackBoxProblem
from boardgym.types import BoardgymError

Fitness = Callable[[np.ndarray], float]


class StopSearch(Exception):
    """Raised by the tracker when the budget is spent or the target is reached."""


@dataclass
class Tracker:
    """Wraps the problem: counts calls, keeps the best genome and the curve of best fitness
    against calls (one point per improvement), and stops the run at the budget or target."""

    problem: Fitness
    max_calls: int
    target: float = 1.0
    on_call: Callable[[int, float], None] | None = None
    calls: int = 0
    best_fitness: float = -np.inf
    best_genome: np.ndarray | None = None
    curve: list[tuple[int, float]] = field(default_factory=list)

    def __call__(self, genome: np.ndarray) -> float:
        if self.calls >= self.max_calls or self.best_fitness >= self.target:
            raise StopSearch
        value = self.problem(genome)
        self.calls += 1
        if value > self.best_fitness:
            self.best_fitness = value
            self.best_genome = np.array(genome, dtype=np.int8)
            self.curve.append((self.calls, value))
        if self.on_call is not None:
            self.on_call(self.calls, self.best_fitness)
        if self.best_fitness >= self.target:
            raise StopSearch
        return value


@dataclass(frozen=True)
class RunResult:
    algorithm: str
    instance: int
    seed: int
    best_fitness: float
    calls: int
    curve: tuple[tuple[int, float], ...]
    best_genome: np.ndarray

    @property
    def solved(self) -> bool:
        return self.best_fitness >= 1.0


def run(
    algorithm: str,
    problem: BlackBoxProblem,
    *,
    seed: int = 0,
    max_calls: int = 200_000,
    target: float = 1.0,
    on_call: Callable[[int, float], None] | None = None,
) -> RunResult:
    """Run one optimiser on ``problem`` from a seeded generator until it stops."""
    optimise = optimiser(algorithm)
    tracker = Tracker(problem, max_calls, target, on_call)
    try:
        optimise(tracker, problem.genome_length, np.random.default_rng(seed))
    except StopSearch:
        pass
    assert tracker.best_genome is not None
    return RunResult(
        algorithm,
        problem.instance,
        seed,
        float(tracker.best_fitness),
        tracker.calls,
        tuple(tracker.curve),
        tracker.best_genome,
    )


def optimiser(name: str) -> Callable[[Fitness, int, np.random.Generator], None]:
    try:
        return OPTIMISERS[name]
    except KeyError:
        raise BoardgymError(f"unknown black-box algorithm {name!r}; known: {', '.join(OPTIMISERS)}") from None


# -- seed report 000 ------------------------------------------------------------------------------
def steady_state(
    fitness: Fitness,
    length: int,
    rng: np.random.Generator,
    *,
    population: int = 10,
    sigma: float = 0.2,
    patience: int = 2000,
    min_gain: float = 0.001,
) -> None:
    """Seed 000's steady-state EA (see the module doc)."""
    genomes, scores = _random_population(fitness, population, length, rng)
    parents = population // 2
    best, stale = scores.max(), 0
    while stale < patience:
        order = np.argsort(-scores, kind="stable")
        genomes, scores = genomes[order], scores[order]
        for slot in range(population - 1, parents - 1, -1):
            a, b = genomes[rng.integers(parents)], genomes[rng.integers(parents)]
            child = np.where(rng.random(length) < 0.5, a, b)
            child = np.rint(child + rng.normal(0.0, sigma, length)).astype(np.int64) % 2
            genomes[slot], scores[slot] = child, fitness(child)
        best, stale = _progress(best, stale, scores.max(), min_gain)


# -- seed report 003 ------------------------------------------------------------------------------
def fitness_selection(
    fitness: Fitness,
    length: int,
    rng: np.random.Generator,
    *,
    population: int = 100,
    patience: int = 50,
) -> None:
    """Seed 003's generational EA with fitness-proportional selection (see the module doc)."""
    genomes, scores = _random_population(fitness, population, length, rng)
    best, stale = scores.max(), 0
    while stale < patience:
        weights = scores - scores.min() + 1e-12
        picks = rng.choice(population, size=(population - 1, 2), p=weights / weights.sum())
        mix = rng.random((population - 1, length)) < 0.5
        children = np.where(mix, genomes[picks[:, 0]], genomes[picks[:, 1]])
        children ^= (rng.random(children.shape) < 1.0 / length).astype(np.int8)
        elite = int(np.argmax(scores))
        genomes = np.vstack([genomes[elite : elite + 1], children])
        scores = np.concatenate([scores[elite : elite + 1], [fitness(c) for c in children]])
        best, stale = _progress(best, stale, scores.max())


def _random_population(
    fitness: Fitness, population: int, length: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``population`` uniformly random genomes and their fitness."""
    genomes = rng.integers(0, 2, (population, length), dtype=np.int8)
    return genomes, np.array([fitness(g) for g in genomes])


def _progress(best: float, stale: int, top: float, min_gain: float = 0.0) -> tuple[float, int]:
    """After a generation whose best fitness is ``top``: the best so far, and the count of
    generations in a row without a gain above ``min_gain`` (0 when this one made one)."""
    return max(best, top), 0 if top - best > min_gain else stale + 1


# -- ours -----------------------------------------------------------------------------------------
def linkage(
    fitness: Fitness,
    length: int,
    rng: np.random.Generator,
    *,
    tolerance: float = 1e-14,
) -> None:
    """Linkage learning by one-locus perturbation, then search over whole groups (module doc).

    ``tolerance``: fitness changes closer than this count as equal; it sits between the
    float rounding of the fitness (~1e-16) and the smallest real difference (~1e-13 for a = 10).
    """
    while True:  # restarts; the tracker ends the run
        genome = rng.integers(0, 2, length, dtype=np.int8)
        score = fitness(genome)
        while True:
            deltas = _probe(fitness, genome, score)
            groups = linkage_groups(genome, deltas, tolerance)
            genome, score, moved = _group_search(fitness, genome, score, groups, tolerance)
            if not moved:
                genome, score, moved = _single_flips(fitness, genome, score, deltas, tolerance)
            if not moved:
                break  # a local optimum of both move kinds: restart


def linkage_groups(genome: np.ndarray, deltas: np.ndarray, tolerance: float) -> list[np.ndarray]:
    """Group loci by the fitness change their flip causes. Within one building block a 0 and
    a 1 move the fitness by opposite amounts, so the class (value 0, change d) joins the class
    (value 1, change -d)."""
    classes: dict[tuple[int, int], list[int]] = {}
    levels: list[float] = []  # distinct changes, matched within the tolerance
    for locus in np.argsort(deltas, kind="stable"):
        change = float(deltas[locus])
        if not levels or change - levels[-1] > tolerance:
            levels.append(change)
        classes.setdefault((int(genome[locus]), len(levels) - 1), []).append(int(locus))
    groups: list[np.ndarray] = []
    used: set[tuple[int, int]] = set()
    for (value, level), loci in classes.items():
        if (value, level) in used:
            continue
        used.add((value, level))
        members = list(loci)
        mirror = _level_of(levels, -levels[level], tolerance)
        if mirror is not None and (1 - value, mirror) in classes and (1 - value, mirror) not in used:
            used.add((1 - value, mirror))
            members += classes[(1 - value, mirror)]
        groups.append(np.array(sorted(members)))
    return groups


def _level_of(levels: list[float], change: float, tolerance: float) -> int | None:
    index = int(np.searchsorted(levels, change - tolerance))
    if index < len(levels) and abs(levels[index] - change) <= tolerance:
        return index
    return None


def _probe(fitness: Fitness, genome: np.ndarray, score: float) -> np.ndarray:
    deltas = np.empty(genome.size)
    for locus in range(genome.size):
        genome[locus] ^= 1
        deltas[locus] = fitness(genome) - score
        genome[locus] ^= 1
    return deltas


def _group_search(
    fitness: Fitness, genome: np.ndarray, score: float, groups: list[np.ndarray], tolerance: float
) -> tuple[np.ndarray, float, bool]:
    moved = False
    while True:
        best_score, best_genome = score + tolerance, None
        for loci in groups:
            for value in (1, 0):
                if np.all(genome[loci] == value):
                    continue
                candidate = genome.copy()
                candidate[loci] = value
                candidate_score = fitness(candidate)
                if candidate_score > best_score:
                    best_score, best_genome = candidate_score, candidate
        if best_genome is None:
            return genome, score, moved
        genome, score, moved = best_genome, best_score, True


def _single_flips(
    fitness: Fitness, genome: np.ndarray, score: float, deltas: np.ndarray, tolerance: float
) -> tuple[np.ndarray, float, bool]:
    moved = False
    for locus in np.argsort(-deltas, kind="stable"):
        if deltas[locus] <= tolerance:
            break
        genome[locus] ^= 1
        new_score = fitness(genome)
        if new_score > score + tolerance:
            score, moved = new_score, True
        else:
            genome[locus] ^= 1
    return genome, score, moved


OPTIMISERS: dict[str, Callable[..., None]] = {
    "linkage": linkage,
    "steady_state": steady_state,
    "fitness_selection": fitness_selection,
}
