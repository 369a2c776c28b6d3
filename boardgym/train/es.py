"""Evolution strategy / genetic algorithm for Nim players (seed reports 000 and 003).

A population of ``mu`` genomes (see ``boardgym.agents.evolved_nim``: the seed's three-gene
``rules`` policy, or the ``weights`` of a linear position evaluation that can express
nim-sum play) breeds ``offspring`` children a generation: parents picked by ``tournament``
(best of ``tournament_size`` drawn at random) or ``roulette`` (chance proportional to
fitness), uniform crossover with probability ``crossover``, then Gaussian mutation of every
gene with step ``sigma`` (``rules`` genes are clipped to [0, 1]). The next parents are the
best ``mu`` of the children (``--strategy comma``, (mu, lambda)) or of parents and children
together (``--strategy plus``, (mu + lambda)).

Fitness is the share of games won against a field: ``games`` games against ``random`` and
``games`` against an optimal player (the nim-sum rule), seats alternating. Every individual of
a generation plays the same random stream (common random numbers), and parents are
re-evaluated each generation so that a lucky score does not survive forever.

``eval/optimal_move_rate`` measures how close the best genome is to perfect play: the share
of positions with a winning move in which it plays one.

    boardgym train es --game nim --run-name nim-weights
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardgym.agents.evolved_nim import FORMAT, GENOMES, EvolvedNimAgent, NimPolicy, genome_size
from boardgym.agents.nim_perfect import mover_wins, winning_moves
from boardgym.config import option
from boardgym.games.nim import Nim, NimState
from boardgym.train.training_run import RunConfig, TrainingRun, run_main
from boardgym.types import Action, BoardgymError

METHOD = "es"


@dataclass(frozen=True)
class Config(RunConfig):
    """Evolve a Nim player: (mu, lambda) or (mu + lambda), tournament or roulette selection."""

    game: str = option("nim", "game: nim only (its parameters via -p)")
    eval_every: int = option(5, "generations between measurements (0: end only)")
    eval_games: int = option(200, "games per measurement and opponent, seats alternating")
    genome: str = option(
        "weights", "genome: weights (linear evaluation, can express nim-sum) or rules (seed's)", choices=GENOMES
    )
    strategy: str = option("plus", "survivors: plus (mu + lambda) or comma (mu, lambda)", choices=("plus", "comma"))
    selection: str = option(
        "tournament", "parent selection: tournament or roulette", choices=("tournament", "roulette")
    )
    mu: int = option(20, "parents kept each generation", minimum=1)
    offspring: int = option(60, "children bred each generation (lambda)", minimum=1)
    generations: int = option(30, "generations", minimum=1)
    games: int = option(40, "fitness games against each of random and optimal, per individual", minimum=1)
    sigma: float = option(0.3, "standard deviation of the Gaussian mutation of each gene", minimum=0)
    crossover: float = option(
        0.5, "probability that a child mixes two parents (uniform crossover)", minimum=0, maximum=1
    )
    tournament_size: int = option(3, "contestants per tournament selection", minimum=1)

    def check(self) -> None:
        super().check()
        if self.strategy == "comma" and self.offspring < self.mu:
            raise BoardgymError(f"--strategy comma needs --offspring ({self.offspring}) >= --mu ({self.mu})")


def train(config: Config) -> Path:
    """Evolve and return the path of the final checkpoint (``es:checkpoint=PATH``)."""
    run = TrainingRun(
        config,
        METHOD,
        format=FORMAT,
        total=config.generations,
        unit="gen",
        resume_keys=("genome_kind", "population", "rng_state"),
    )
    game = run.game
    if not isinstance(game, Nim):
        raise BoardgymError(f"es evolves Nim players; --game {config.game!r} is not nim (try coevolve or neat)")
    with run:
        rng = np.random.default_rng(config.seed)
        population = _initial(config.genome, config.mu, genome_size(game, config.genome), rng)
        if run.resumed is not None:
            if run.resumed["genome_kind"] != config.genome:
                raise BoardgymError(
                    f"--resume: the run evolved {run.resumed['genome_kind']} genomes, not {config.genome}; "
                    f"pass --genome {run.resumed['genome_kind']}"
                )
            with run.restoring():
                resumed = run.resumed["population"].numpy()
                if resumed.ndim != 2 or resumed.shape[1:] != population.shape[1:] or not np.isfinite(resumed).all():
                    raise ValueError(f"population is not finite genomes of {population.shape[1]} genes")
                population = resumed
                rng.bit_generator.state = json.loads(run.resumed["rng_state"])
        field = Field(game)
        best = population[0]
        best_fitness = 0.0

        def payload() -> dict[str, Any]:
            return {
                "genome_kind": config.genome,
                "best": torch.tensor(best, dtype=torch.float64),
                "best_fitness": float(best_fitness),
                "population": torch.tensor(population, dtype=torch.float64),
                "rng_state": json.dumps(rng.bit_generator.state),
            }

        def measure() -> None:
            run.save(payload())
            agent = EvolvedNimAgent(game, seed=config.seed, checkpoint=run.checkpoint_path)
            rate = optimal_move_rate(game, agent.policy, random.Random(config.seed))
            run.measure(
                agent,
                {"random": "random", "perfect": "nimsum"},
                extra={"eval/optimal_move_rate": rate},
                note=f"optimal moves {rate:.0%}",
            )

        parent_fitness = None
        while run.step < config.generations:
            if parent_fitness is None:
                parent_fitness = field.fitness_of(config.genome, population, config.games, int(rng.integers(2**63)))
            children = _breed(config, population, parent_fitness, rng)
            candidates = children if config.strategy == "comma" else np.concatenate([population, children])
            fitness = field.fitness_of(config.genome, candidates, config.games, int(rng.integers(2**63)))
            order = np.argsort(-fitness, kind="stable")
            population = candidates[order[: config.mu]]
            parent_fitness = fitness[order[: config.mu]]
            best, best_fitness = population[0].copy(), float(fitness[order[0]])
            run.games, field.played = run.games + field.played, 0
            run.advance(1, best=f"{best_fitness:.2f}")
            run.log(
                {
                    "train/best_fitness": best_fitness,
                    "train/mean_fitness": float(fitness.mean()),
                    "train/parents_mean_fitness": float(parent_fitness.mean()),
                    "train/gene_spread": float(population.std(axis=0).mean()),
                }
            )
            if run.due(config.eval_every) and run.step < config.generations:
                measure()
            else:
                run.save(payload())
        measure()
        return run.finish(payload())


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.es") -> int:
    return run_main(Config, train, argv, prog, METHOD)


class Field:
    """The fitness opponents, ``random`` and optimal, with the optimal replies cached."""

    def __init__(self, game: Nim) -> None:
        self.game = game
        self._optimal: dict[NimState, list[Action]] = {}
        self.played = 0
        """Games played so far (the run's ``progress/games``)."""

    def fitness_of(self, kind: str, genomes: np.ndarray, games: int, seed: int) -> np.ndarray:
        """Share of ``2 * games`` won by each genome (common random numbers across genomes)."""
        scores = np.zeros(len(genomes))
        for i, genes in enumerate(genomes):
            policy = NimPolicy(self.game, kind, genes)
            rand = random.Random(seed)
            wins = sum(self.play(policy, index % 2, index < games, rand) for index in range(2 * games))
            scores[i] = wins / (2 * games)
        return scores

    def play(self, policy: NimPolicy, seat: int, against_random: bool, rand: random.Random) -> bool:
        """One game; True if ``policy`` (in ``seat``) wins."""
        game = self.game
        self.played += 1
        state = game.initial_state()
        while not game.is_terminal(state):
            if game.current_player(state) == seat:
                action = policy.act(state, rand)
            elif against_random:
                legal = game.legal_actions(state)
                action = legal[int(rand.random() * len(legal))]
            else:
                action = self.optimal_move(state, rand)
            state = game.apply(state, action)
        return game.returns(state)[seat] > 0

    def optimal_move(self, state: NimState, rand: random.Random) -> Action:
        moves = self._optimal.get(state)
        if moves is None:
            moves = winning_moves(self.game, state)
            if not moves:  # lost anyway: take one object and hope for a mistake
                moves = [a for a in self.game.legal_actions(state) if a % self.game.max_take == 0]
            self._optimal[state] = moves
        return moves[int(rand.random() * len(moves))]


def optimal_move_rate(game: Nim, policy: NimPolicy, rand: random.Random) -> float:
    """Share of the positions with a winning move (every heap size reachable from the start)
    in which ``policy`` plays a winning move (one sampled move per position)."""
    good = total = 0
    for heaps in np.ndindex(*(n + 1 for n in game.heaps)):
        if not any(heaps) or not mover_wins(heaps, game.misere, game.k):
            continue
        state = game.state(heaps)
        after = game.apply(state, policy.act(state, rand))
        good += not mover_wins(game.heaps_of(after), game.misere, game.k)
        total += 1
    return good / max(total, 1)


def _initial(kind: str, count: int, size: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "rules":
        return rng.random((count, size))
    return rng.normal(0.0, 1.0, (count, size))


def _breed(config: Config, parents: np.ndarray, fitness: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    children = np.empty((config.offspring, parents.shape[1]))
    for c in range(config.offspring):
        first = parents[_select(config, fitness, rng)]
        if rng.random() < config.crossover:
            second = parents[_select(config, fitness, rng)]
            child = np.where(rng.random(first.shape) < 0.5, first, second)
        else:
            child = first.copy()
        child = child + rng.normal(0.0, config.sigma, child.shape)
        children[c] = np.clip(child, 0.0, 1.0) if config.genome == "rules" else child
    return children


def _select(config: Config, fitness: np.ndarray, rng: np.random.Generator) -> int:
    if config.selection == "tournament":
        contestants = rng.integers(len(fitness), size=config.tournament_size)
        return int(contestants[np.argmax(fitness[contestants])])
    weights = fitness + 1e-9
    return int(rng.choice(len(fitness), p=weights / weights.sum()))


if __name__ == "__main__":
    sys.exit(main())
