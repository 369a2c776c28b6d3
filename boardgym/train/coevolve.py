"""Coevolution of evaluation weights for alpha-beta (seed report 002, Rastros).

A chromosome is one weight per entry of ``game.features(state, player)``; its player is
alpha-beta whose horizon evaluation is ``weights . features`` (the ``minimax`` agent with
``eval=features``). There is no outside fitness: each generation plays a single-elimination
cup. Pairs of chromosomes meet in matches of ``pairs`` game pairs (each side moves first once)
at every depth limit in ``depths``, both games of a pair opening with the same ``openings``
random plies (alpha-beta is deterministic, so pairs would otherwise repeat); the one with more wins goes on (a tie is decided by a coin
flip), and a chromosome's fitness is the round it reached (the winner: rounds + 1). The
champion saved at the end wins most matches of a round robin among the final population.

The next generation keeps the best ``elite`` share unchanged; the rest are children of two
parents chosen by tournament (best fitness of ``tournament_size`` drawn at random), crossed
at one point and mutated: each gene with probability ``mutation`` moves by a uniform step in
``[-delta, delta]``. Genes start uniform in ``[-1, 1]`` (the scale of a linear evaluation is
irrelevant to alpha-beta; only ratios matter).

Evaluation (``eval/``): the cup winner, at ``max(depths)``, against ``random``, against
alpha-beta with the game's own heuristic, with the report's example weights
(the game entry's ``coevolve_weights``, Rastros's only) and with random weights drawn anew each game.

    boardgym train coevolve --game rastros --run-name rastros
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardgym.agents.coevolved import FORMAT, CoevolvedAgent, feature_count, weighted_minimax
from boardgym.config import option
from boardgym.game import Game
from boardgym.games import entry_of
from boardgym.train.training_run import RunConfig, TrainingRun, run_main
from boardgym.types import BoardgymError

METHOD = "coevolve"


@dataclass(frozen=True)
class Config(RunConfig):
    """Coevolve evaluation weights by cup tournaments of alpha-beta players."""

    game: str = option("rastros", "game with features(state, player): rastros, tictactoe, quixo, hex")
    eval_every: int = option(5, "generations between measurements (0: end only)")
    population: int = option(16, "chromosomes per generation (a power of two, for the cup)", minimum=2)
    generations: int = option(15, "generations", minimum=1)
    depths: tuple[int, ...] = option(
        (1, 2), "alpha-beta depth limits every cup match is played at", minimum=1, hint="e.g. 1,2"
    )
    pairs: int = option(2, "game pairs (each side first once) per depth limit in a cup match", minimum=1)
    openings: int = option(2, "random plies that open both games of a pair, so that pairs differ", minimum=0)
    elite: float = option(
        0.25, "share of the best chromosomes copied unchanged into the next generation", minimum=0, maximum=0.999
    )
    tournament_size: int = option(3, "rivals drawn for each tournament selection of a parent", minimum=1)
    mutation: float = option(0.2, "probability that a gene of a child is mutated", minimum=0, maximum=1)
    delta: float = option(0.3, "largest step of a mutation (uniform in [-delta, delta])", minimum=0)

    def check(self) -> None:
        super().check()
        if self.population & (self.population - 1):
            raise BoardgymError(f"--population {self.population} must be a power of two (>= 2) for the cup, e.g. 16")


def train(config: Config) -> Path:
    """Coevolve and return the path of the final checkpoint (``coevolved:checkpoint=PATH``)."""
    run = TrainingRun(
        config, METHOD, format=FORMAT, total=config.generations, unit="gen", resume_keys=("population", "rng_state")
    )
    game = run.game
    size = feature_count(game)
    if game.num_players != 2:
        raise BoardgymError(f"coevolution plays two-player games; {game.name} has {game.num_players} player(s)")
    depth = max(config.depths)
    opponents: dict[str, Any] = {"random": "random", "minimax": f"minimax:depth={depth}"}
    opponents.update(weighted_opponents(game, depth))
    with run:
        rng = np.random.default_rng(config.seed)
        population = rng.uniform(-1.0, 1.0, (config.population, size))
        if run.resumed is not None:
            with run.restoring():
                population = run.resumed["population"].numpy()
                if population.shape != (config.population, size) or not np.isfinite(population).all():
                    raise ValueError(f"population is not {config.population} finite genomes of {size} weights")
                rng.bit_generator.state = json.loads(run.resumed["rng_state"])
        cup = Cup(game, config.depths, config.pairs, config.openings)
        best = population[0]

        def payload() -> dict[str, Any]:
            return {
                "best": torch.tensor(best, dtype=torch.float64),
                "population": torch.tensor(population, dtype=torch.float64),
                "depth": depth,
                "rng_state": json.dumps(rng.bit_generator.state),
            }

        def measure() -> None:
            run.save(payload())
            agent = CoevolvedAgent(game, seed=config.seed, checkpoint=run.checkpoint_path)
            run.measure(agent, opponents, note=f"weights {np.round(best, 3).tolist()}")

        while run.step < config.generations:
            fitness = cup.fitness(population, rng)
            best = population[int(np.argmax(fitness))].copy()
            population = _next_generation(config, population, fitness, rng)
            run.games, cup.played = run.games + cup.played, 0
            run.advance(1)
            scalars = {
                "train/cup_rounds": float(fitness.max()),
                "train/gene_spread": float(population.std(axis=0).mean()),
            }
            run.log(scalars | {f"train/best_weight_{i}": float(weight) for i, weight in enumerate(best)})
            if run.due(config.eval_every) and run.step < config.generations:
                measure()
            else:
                run.save(payload())
        # The last generation's children have not played yet, and one cup is a lottery of
        # pairings: a round robin of the final population crowns the champion.
        best = population[int(np.argmax(cup.round_robin(population, rng)))].copy()
        run.games, cup.played = run.games + cup.played, 0
        measure()
        return run.finish(payload())


def weighted_opponents(game: Game, depth: int) -> dict[str, str]:
    """The alpha-beta players with fixed weights the champion is measured against: the
    example weights of the game's entry (``coevolve_weights``), where it has them, and random
    weights drawn anew each game."""
    entry = entry_of(game)
    opponents = {}
    if entry is not None and entry.coevolve_weights:
        weights = "/".join(f"{w:g}" for w in entry.coevolve_weights)
        opponents["report_weights"] = f"coevolved:weights={weights},depth={depth}"
    opponents["random_weights"] = f"coevolved:weights=random,depth={depth}"
    return opponents


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.coevolve") -> int:
    return run_main(Config, train, argv, prog, METHOD)


class Cup:
    """Single-elimination cup between chromosomes; fitness = the round each one reached."""

    def __init__(self, game: Game, depths: tuple[int, ...], pairs: int, openings: int = 0) -> None:
        self.game = game
        self.depths = depths
        self.pairs = pairs
        self.openings = openings
        self.played = 0
        """Games played so far (the run's ``progress/games``)."""

    def fitness(self, population: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        fitness = np.zeros(len(population))
        alive = [int(i) for i in rng.permutation(len(population))]
        round_number = 1
        while len(alive) > 1:
            winners = []
            for a, b in zip(alive[::2], alive[1::2], strict=True):
                winner, loser = (a, b) if self.first_wins(population[a], population[b], rng) else (b, a)
                fitness[loser] = round_number
                winners.append(winner)
            alive = winners
            round_number += 1
        fitness[alive[0]] = round_number
        return fitness

    def round_robin(self, population: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Matches won by each chromosome against every other one."""
        wins = np.zeros(len(population))
        for a in range(len(population)):
            for b in range(a + 1, len(population)):
                winner = a if self.first_wins(population[a], population[b], rng) else b
                wins[winner] += 1
        return wins

    def first_wins(self, first: np.ndarray, second: np.ndarray, rng: np.random.Generator) -> bool:
        """Whether ``first`` wins the match (more games won; a tie is a coin flip). Both games
        of a pair start from the same ``openings`` random plies, each side moving first once."""
        score = 0
        for depth in self.depths:
            players = (
                weighted_minimax(self.game, first.tolist(), depth),
                weighted_minimax(self.game, second.tolist(), depth),
            )
            for _ in range(self.pairs):
                start = self.opening(rng)
                for seat in (0, 1):
                    result = self.play(start, players if seat == 0 else players[::-1], rng)
                    score += (result[seat] > 0) - (result[1 - seat] > 0)
        return score > 0 or (score == 0 and bool(rng.random() < 0.5))

    def opening(self, rng: np.random.Generator) -> Any:
        game, state = self.game, self.game.initial_state()
        for _ in range(self.openings):
            legal = game.legal_actions(state)
            if game.is_terminal(state) or len(legal) < 2:
                break
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
        return state

    def play(self, state: Any, players: tuple[Any, Any], rng: np.random.Generator) -> tuple[float, ...]:
        game = self.game
        self.played += 1
        for player in players:
            player.reset(seed=int(rng.integers(2**63)))
        while not game.is_terminal(state):
            state = game.apply(state, players[game.current_player(state)].act(game, state))
        return game.returns(state)


def _next_generation(config: Config, population: np.ndarray, fitness: np.ndarray, rng: np.random.Generator):
    count, size = population.shape
    order = np.argsort(-fitness + rng.random(count) * 1e-3)  # ties in cup rounds broken at random
    elites = max(1, round(config.elite * count))
    children = [population[i].copy() for i in order[:elites]]
    while len(children) < count:
        mother = population[_tournament(fitness, config.tournament_size, rng)]
        father = population[_tournament(fitness, config.tournament_size, rng)]
        cut = int(rng.integers(1, size)) if size > 1 else 0
        child = np.concatenate([mother[:cut], father[cut:]])
        mutate = rng.random(size) < config.mutation
        child = child + mutate * rng.uniform(-config.delta, config.delta, size)
        children.append(child)
    return np.stack(children)


def _tournament(fitness: np.ndarray, size: int, rng: np.random.Generator) -> int:
    rivals = rng.integers(len(fitness), size=size)
    return int(rivals[np.argmax(fitness[rivals])])


if __name__ == "__main__":
    sys.exit(main())
