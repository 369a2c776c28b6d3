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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from boardgym.agents.evolved_nim import FORMAT, GENOMES, EvolvedNimAgent, NimPolicy, genome_size
from boardgym.agents.nim_perfect import mover_wins, winning_moves
from boardgym.agents.tabular import check_game, game_signature
from boardgym.config import config_from_argv, config_to_dict, log_hparams, make_writer, option, write_config
from boardgym.games.nim import Nim, NimState
from boardgym.runs import load_checkpoint, run_dir, save_checkpoint
from boardgym.train.evaluation import check_run_folder, evaluate_agent, game_from_options
from boardgym.types import Action, BoardgymError

METHOD = "es"


@dataclass(frozen=True)
class Config:
    """Evolve a Nim player: (mu, lambda) or (mu + lambda), tournament or roulette selection."""

    game: str = option("nim", "game: nim only (its parameters via --params)")
    game_params: str = option(
        "", "game parameters, space separated KEY=VALUE, e.g. 'size=3' or 'heaps=3,4,5 misere=true'"
    )
    genome: str = option("weights", "genome: weights (linear evaluation, can express nim-sum) or rules (seed's)")
    strategy: str = option("plus", "survivors: plus (mu + lambda) or comma (mu, lambda)")
    selection: str = option("tournament", "parent selection: tournament or roulette")
    mu: int = option(20, "parents kept each generation")
    offspring: int = option(60, "children bred each generation (lambda)")
    generations: int = option(30, "generations")
    games: int = option(40, "fitness games against each of random and optimal, per individual")
    sigma: float = option(0.3, "standard deviation of the Gaussian mutation of each gene")
    crossover: float = option(0.5, "probability that a child mixes two parents (uniform crossover)")
    tournament_size: int = option(3, "contestants per tournament selection")
    seed: int = option(0, "seed of the evolution and of the evaluation games")
    eval_every: int = option(5, "generations between evaluations (0: end only)")
    eval_games: int = option(200, "games per evaluation and opponent, seats alternating")
    run_name: str | None = option(None, "run folder name under runs/<game>/es/ (default: seed and time)")
    root: str = option("runs", "root folder of the runs")
    resume: bool = option(False, "continue the run in --run-name from its last checkpoint")
    progress: bool = option(True, "show a progress bar")


def train(config: Config) -> Path:
    """Evolve and return the path of the final checkpoint (``es:checkpoint=PATH``)."""
    _check_config(config)
    game = game_from_options(config.game, config.game_params)
    if not isinstance(game, Nim):
        raise BoardgymError(f"es evolves Nim players; --game {config.game!r} is not nim (try coevolve or neat)")
    folder = run_dir(game.name, METHOD, config.run_name, config.seed, config.root)
    last_path, final_path = folder / "checkpoint.pt", folder / "final.pt"
    rng = np.random.default_rng(config.seed)
    size = genome_size(game, config.genome)
    population = _initial(config.genome, config.mu, size, rng)
    generation = 0
    check_run_folder(folder, config.resume, last_path)
    if config.resume:
        payload = load_checkpoint(last_path)
        check_game(payload, game, last_path)
        if payload["genome_kind"] != config.genome:
            raise BoardgymError(f"--resume: the run evolved {payload['genome_kind']} genomes, not {config.genome}")
        population = payload["population"].numpy()
        generation = int(payload["generation"])
        rng.bit_generator.state = json.loads(payload["rng_state"])
    write_config(folder / "config.json", config, method=METHOD)
    writer = make_writer(folder)
    log_hparams(writer, config)
    field = Field(game)
    best = population[0]
    best_fitness = 0.0

    def save(path: Path) -> None:
        import torch

        save_checkpoint(
            path,
            {
                "format": FORMAT,
                "method": METHOD,
                "game_signature": game_signature(game),
                "genome_kind": config.genome,
                "best": torch.tensor(best, dtype=torch.float64),
                "best_fitness": float(best_fitness),
                "population": torch.tensor(population, dtype=torch.float64),
                "generation": generation,
                "rng_state": json.dumps(rng.bit_generator.state),
                "config": json.dumps(config_to_dict(config)),
            },
        )

    def evaluate() -> None:
        save(last_path)
        agent = EvolvedNimAgent(game, seed=config.seed, checkpoint=last_path)
        scalars = evaluate_agent(game, agent, {"random": "random", "perfect": "nimsum"}, config.eval_games, config.seed)
        scalars["eval/optimal_move_rate"] = optimal_move_rate(game, agent.policy, random.Random(config.seed))
        for tag, value in scalars.items():
            writer.add_scalar(tag, value, generation)
        print(
            f"generation {generation}: win vs random {scalars['eval/win_rate_vs_random']:.1%}, "
            f"vs optimal {scalars['eval/win_rate_vs_perfect']:.1%}, optimal moves {scalars['eval/optimal_move_rate']:.1%}"
        )

    bar = None
    if config.progress:
        from tqdm import tqdm

        bar = tqdm(total=config.generations, initial=generation, unit="gen", dynamic_ncols=True)
    try:
        parent_fitness = None
        while generation < config.generations:
            if parent_fitness is None:
                parent_fitness = field.fitness_of(config.genome, population, config.games, int(rng.integers(2**63)))
            children = _breed(config, population, parent_fitness, rng)
            candidates = children if config.strategy == "comma" else np.concatenate([population, children])
            fitness = field.fitness_of(config.genome, candidates, config.games, int(rng.integers(2**63)))
            order = np.argsort(-fitness, kind="stable")
            population = candidates[order[: config.mu]]
            parent_fitness = fitness[order[: config.mu]]
            best, best_fitness = population[0].copy(), float(fitness[order[0]])
            generation += 1
            writer.add_scalar("train/best_fitness", best_fitness, generation)
            writer.add_scalar("train/mean_fitness", float(fitness.mean()), generation)
            writer.add_scalar("train/parents_mean_fitness", float(parent_fitness.mean()), generation)
            writer.add_scalar("train/gene_spread", float(population.std(axis=0).mean()), generation)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(best=f"{best_fitness:.2f}")
            if config.eval_every and generation % config.eval_every == 0 and generation < config.generations:
                evaluate()
            else:
                save(last_path)
        evaluate()
        save(final_path)
    finally:
        if bar is not None:
            bar.close()
        writer.close()
    return final_path


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.es") -> int:
    path = train(config_from_argv(Config, argv, prog))
    print(f"final checkpoint: {path}\nplay it: es:checkpoint={path}")
    return 0


class Field:
    """The fitness opponents, ``random`` and optimal, with the optimal replies cached."""

    def __init__(self, game: Nim) -> None:
        self.game = game
        self._optimal: dict[NimState, list[Action]] = {}

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
        state = game.initial_state()
        while not game.is_terminal(state):
            if state.player == seat:
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
        good += not mover_wins(after.heaps, game.misere, game.k)
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


def _check_config(config: Config) -> None:
    choices = {"genome": GENOMES, "strategy": ("plus", "comma"), "selection": ("tournament", "roulette")}
    for name, allowed in choices.items():
        if getattr(config, name) not in allowed:
            raise BoardgymError(f"--{name} {getattr(config, name)!r} must be one of: {', '.join(allowed)}")
    for name in ("mu", "offspring", "generations", "games", "eval_games", "tournament_size"):
        if getattr(config, name) < 1:
            raise BoardgymError(f"--{name.replace('_', '-')} {getattr(config, name)} must be at least 1")
    if config.strategy == "comma" and config.offspring < config.mu:
        raise BoardgymError(f"--strategy comma needs --offspring ({config.offspring}) >= --mu ({config.mu})")


if __name__ == "__main__":
    main()
