"""NEAT (NeuroEvolution of Augmenting Topologies, Stanley & Miikkulainen 2002) with
neat-python, for any two-player game (seed report 003: Quixo).

Networks start with no hidden node and every input wired to every output; NEAT mutates
weights and grows nodes and connections, keeping innovations apart by speciation. A network
chooses moves as ``boardgym.agents.neat_agent`` describes (``--mode policy``: one output per
action over the position's planes; ``--mode afterstate``: one output scoring the planes each
legal move leaves, wins and losses read from the rules).

Fitness is the mean score (win 1, draw 1/2) over a field: ``--games-random`` games against
``random``, ``--games-minimax`` against ``minimax:depth=1`` and ``--games-peers`` against
other genomes of the same generation drawn at random, seats alternating. The champion saved
at the end wins a playoff among the last generation's ``--playoff-size`` best genomes
(``--playoff-games`` more games each against random and against minimax:depth=1).

neat-python draws its mutations from Python's global ``random`` module; the run seeds it
with ``--seed``. ``--resume`` restores neat-python's own state (a pickle beside the
checkpoints, ``neat-state.pkl.gz``, read only by this script), while ``final.pt`` holds just
the champion's network and loads with ``torch.load(weights_only=True)``.

    boardgym train neat --game quixo --run-name quixo
"""

from __future__ import annotations

import gzip
import json
import pickle
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import neat
import numpy as np
from neat.graphs import feed_forward_layers

from boardgym.agents.minimax import MinimaxAgent
from boardgym.agents.neat_agent import ACTIVATIONS, FORMAT, MODES, NeatAgent, Network, choose_move
from boardgym.agents.tabular import check_game, game_signature
from boardgym.config import config_from_argv, config_to_dict, log_hparams, make_writer, option, write_config
from boardgym.game import Game
from boardgym.runs import atomic_write_bytes, run_dir, save_checkpoint
from boardgym.train.evaluation import check_run_folder, evaluate_agent, game_from_options
from boardgym.types import BoardgymError

METHOD = "neat"
STATE_FILE = "neat-state.pkl.gz"


@dataclass(frozen=True)
class Config:
    """Evolve game-playing networks with NEAT against random, shallow minimax and each other."""

    game: str = option("quixo", "two-player game (boardgym list games)")
    game_params: str = option(
        "", "game parameters, space separated KEY=VALUE, e.g. 'size=3' or 'heaps=3,4,5 misere=true'"
    )
    mode: str = option(
        "afterstate", "afterstate (score the position each move leaves) or policy (one output per action)"
    )
    population: int = option(50, "genomes per generation")
    generations: int = option(20, "generations")
    games_random: int = option(10, "fitness games per genome against random")
    games_minimax: int = option(4, "fitness games per genome against minimax:depth=1")
    games_peers: int = option(4, "fitness games per genome against other genomes of its generation")
    activation: str = option("tanh", f"node activation: {', '.join(ACTIVATIONS)}")
    conn_add_prob: float = option(0.3, "probability of adding a connection per reproduction")
    node_add_prob: float = option(0.1, "probability of adding a node per reproduction")
    weight_mutate_power: float = option(0.5, "standard deviation of a weight mutation")
    compatibility_threshold: float = option(3.0, "genomic distance that separates species")
    elitism: int = option(2, "best genomes of each species copied unchanged")
    playoff_size: int = option(5, "best genomes of the last generation that meet in a final playoff")
    playoff_games: int = option(40, "playoff games per contender against random and against minimax:depth=1")
    seed: int = option(0, "seed of neat-python's mutations, of the games and of the evaluation")
    eval_every: int = option(5, "generations between evaluations (0: end only)")
    eval_games: int = option(100, "games per evaluation and opponent, seats alternating")
    run_name: str | None = option(None, "run folder name under runs/<game>/neat/ (default: seed and time)")
    root: str = option("runs", "root folder of the runs")
    resume: bool = option(False, "continue the run in --run-name from its neat-python state")
    progress: bool = option(True, "show a progress bar")


def train(config: Config) -> Path:
    """Evolve and return the path of the final checkpoint (``neat:checkpoint=PATH``)."""
    _check_config(config)
    game = game_from_options(config.game, config.game_params)
    if game.num_players != 2:
        raise BoardgymError(f"neat plays two-player games; {game.name} has {game.num_players} player(s)")
    folder = run_dir(game.name, METHOD, config.run_name, config.seed, config.root)
    state_path, last_path, final_path = folder / STATE_FILE, folder / "checkpoint.pt", folder / "final.pt"
    check_run_folder(folder, config.resume, state_path)
    neat_config = _neat_config(config, game, folder / "neat.ini")
    if config.resume:
        if last_path.exists():
            check_game(_load(last_path), game, last_path)
        population = neat.Checkpointer.restore_checkpoint(str(state_path), new_config=neat_config)
    else:
        population = neat.Population(neat_config, seed=config.seed)
    write_config(folder / "config.json", config, method=METHOD)
    writer = make_writer(folder)
    log_hparams(writer, config)
    field = Field(game, config)
    champion: dict[str, Any] = {}

    def fitness_function(genomes: list[tuple[int, Any]], neat_cfg: neat.Config) -> None:
        networks = [genome_network(genome, neat_cfg) for _, genome in genomes]
        scores = field.scores(networks, seed=config.seed * 100_003 + population.generation)
        for (_, genome), score in zip(genomes, scores, strict=True):
            genome.fitness = float(score)
        best = int(np.argmax(scores))
        # The champion is this generation's best: elites are re-measured every generation, so
        # a network that was merely lucky once does not stay champion.
        champion.update(network=networks[best], fitness=float(scores[best]), generation=population.generation)
        champion["contenders"] = [networks[i] for i in np.argsort(-scores)[: config.playoff_size]]
        writer.add_scalar("train/best_fitness", float(scores[best]), population.generation + 1)
        writer.add_scalar("train/mean_fitness", float(np.mean(scores)), population.generation + 1)
        writer.add_scalar("train/species", len(population.species.species), population.generation + 1)
        writer.add_scalar("train/champion_nodes", len(genomes[best][1].nodes), population.generation + 1)

    def save(path: Path) -> None:
        save_checkpoint(
            path,
            {
                "format": FORMAT,
                "method": METHOD,
                "game_signature": game_signature(game),
                "mode": config.mode,
                "network": champion["network"].to_json(),
                "fitness": champion["fitness"],
                "generation": population.generation,
                "config": json.dumps(config_to_dict(config)),
            },
        )

    def save_state() -> None:
        data = (population.generation, neat_config, population.population, population.species, random.getstate())
        atomic_write_bytes(state_path, gzip.compress(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)))

    def evaluate() -> None:
        save(last_path)
        agent = NeatAgent(game, seed=config.seed, checkpoint=last_path)
        opponents = {"random": "random", "minimax": "minimax:depth=1"}
        scalars = evaluate_agent(game, agent, opponents, config.eval_games, seed=config.seed)
        for tag, value in scalars.items():
            writer.add_scalar(tag, value, population.generation)
        print(
            f"generation {population.generation}: champion fitness {champion['fitness']:.2f}, "
            f"win vs random {scalars['eval/win_rate_vs_random']:.1%}, "
            f"vs minimax:depth=1 {scalars['eval/win_rate_vs_minimax']:.1%}"
        )

    bar = None
    if config.progress:
        from tqdm import tqdm

        bar = tqdm(total=config.generations, initial=population.generation, unit="gen", dynamic_ncols=True)
    try:
        while population.generation < config.generations:
            population.run(fitness_function, 1)
            save_state()
            if bar is not None:
                bar.update(1)
                bar.set_postfix(best=f"{champion['fitness']:.2f}")
            if config.eval_every and population.generation % config.eval_every == 0:
                if population.generation < config.generations:
                    evaluate()
            else:
                save(last_path)
        if not champion:  # resumed at the end: nothing evolved in this process
            champion.update(network=Network.from_json(_load(last_path)["network"]), fitness=0.0, generation=0)
        elif len(champion.get("contenders", [])) > 1 and config.playoff_games > 0:
            # One generation's fitness is a few games: a playoff among its best decides.
            playoff = Field(
                game,
                replace(config, games_random=config.playoff_games, games_peers=0, games_minimax=config.playoff_games),
            )
            scores = playoff.scores(champion["contenders"], seed=config.seed + 1)
            champion.update(network=champion["contenders"][int(np.argmax(scores))], fitness=float(scores.max()))
            writer.add_scalar("train/playoff_best", float(scores.max()), population.generation)
        evaluate()
        save(final_path)
    finally:
        if bar is not None:
            bar.close()
        writer.close()
    return final_path


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.neat") -> int:
    path = train(config_from_argv(Config, argv, prog))
    print(f"final checkpoint: {path}\nplay it: neat:checkpoint={path}")
    return 0


def genome_network(genome: Any, neat_config: neat.Config) -> Network:
    """The genome's feed-forward phenotype, in the serialisable form ``Network`` reads."""
    genome_config = neat_config.genome_config
    inputs, outputs = list(genome_config.input_keys), list(genome_config.output_keys)
    connections = [gene.key for gene in genome.connections.values() if gene.enabled]
    layers, required = feed_forward_layers(inputs, outputs, connections)
    usable = set(required) | set(inputs)
    nodes = []
    for depth, layer in enumerate(layers):
        for key in sorted(layer):
            node = genome.nodes[key]
            links = [[i, genome.connections[(i, o)].weight] for i, o in connections if o == key and i in usable]
            nodes.append([depth, key, node.bias, node.response, node.activation, links])
    return Network(inputs, outputs, nodes)


class Field:
    """Plays the fitness games of a generation."""

    def __init__(self, game: Game, config: Config) -> None:
        self.game = game
        self.config = config
        self.minimax = MinimaxAgent(game, depth=1, seed=config.seed)

    def scores(self, networks: list[Network], seed: int) -> np.ndarray:
        config = self.config
        rng = np.random.default_rng(seed)
        totals = np.zeros(len(networks))
        counts = np.zeros(len(networks))
        for i, network in enumerate(networks):
            for g in range(config.games_random + config.games_minimax):
                opponent = "random" if g < config.games_random else "minimax"
                totals[i] += self.play(network, None if opponent == "random" else self.minimax, g % 2, rng)
                counts[i] += 1
            for g in range(config.games_peers if len(networks) > 1 else 0):
                j = int(rng.integers(len(networks) - 1))
                j += j >= i
                score = self.play(network, networks[j], g % 2, rng)
                totals[i] += score
                totals[j] += 1.0 - score
                counts[i] += 1
                counts[j] += 1
        return totals / np.maximum(counts, 1)

    def play(self, network: Network, opponent: Any, seat: int, rng: np.random.Generator) -> float:
        """One game of ``network`` in ``seat``: 1 win, 1/2 draw, 0 loss. ``opponent`` is None
        (random), an agent, or another network."""
        game, mode = self.game, self.config.mode
        if opponent is not None and not isinstance(opponent, Network):
            opponent.reset(seed=int(rng.integers(2**63)))
        state = game.initial_state()
        while not game.is_terminal(state):
            if game.current_player(state) == seat:
                action = choose_move(game, network, mode, state, rng)
            elif opponent is None:
                legal = game.legal_actions(state)
                action = legal[int(rng.integers(len(legal)))]
            elif isinstance(opponent, Network):
                action = choose_move(game, opponent, mode, state, rng)
            else:
                action = opponent.act(game, state)
            state = game.apply(state, action)
        result = game.returns(state)[seat]
        return 1.0 if result > 0 else 0.5 if result == 0 else 0.0


def _neat_config(config: Config, game: Game, path: Path) -> neat.Config:
    inputs = int(np.prod(game.observation_shape))
    outputs = game.num_actions if config.mode == "policy" else 1
    text = NEAT_TEMPLATE.format(
        pop_size=config.population,
        seed=config.seed,
        inputs=inputs,
        outputs=outputs,
        activation=config.activation,
        conn_add_prob=config.conn_add_prob,
        node_add_prob=config.node_add_prob,
        weight_mutate_power=config.weight_mutate_power,
        compatibility_threshold=config.compatibility_threshold,
        elitism=config.elitism,
    )
    atomic_write_bytes(path, text.encode())
    return neat.Config(
        neat.DefaultGenome, neat.DefaultReproduction, neat.DefaultSpeciesSet, neat.DefaultStagnation, str(path)
    )


def _load(path: Path) -> dict[str, Any]:
    from boardgym.runs import load_checkpoint

    return load_checkpoint(path)


def _check_config(config: Config) -> None:
    if config.mode not in MODES:
        raise BoardgymError(f"--mode {config.mode!r} must be one of: {', '.join(MODES)}")
    if config.activation not in ACTIVATIONS:
        raise BoardgymError(f"--activation {config.activation!r} must be one of: {', '.join(ACTIVATIONS)}")
    if config.population < 2:
        raise BoardgymError(f"--population {config.population} must be at least 2")
    if config.games_random + config.games_minimax + config.games_peers < 1:
        raise BoardgymError("the fitness needs games: set --games-random, --games-minimax or --games-peers above 0")
    for name in ("generations", "eval_games"):
        if getattr(config, name) < 1:
            raise BoardgymError(f"--{name.replace('_', '-')} {getattr(config, name)} must be at least 1")


NEAT_TEMPLATE = """\
# Written by boardgym train neat from its options; read by neat-python.
[NEAT]
fitness_criterion     = max
fitness_threshold     = 2.0
no_fitness_termination = True
pop_size              = {pop_size}
reset_on_extinction   = True
seed                  = {seed}

[DefaultGenome]
num_inputs            = {inputs}
num_hidden            = 0
num_outputs           = {outputs}
feed_forward          = True
initial_connection    = full_direct
activation_default    = {activation}
activation_mutate_rate = 0.0
activation_options    = {activation}
aggregation_default   = sum
aggregation_mutate_rate = 0.0
aggregation_options   = sum
bias_init_mean        = 0.0
bias_init_stdev       = 1.0
bias_init_type        = gaussian
bias_max_value        = 30.0
bias_min_value        = -30.0
bias_mutate_power     = 0.5
bias_mutate_rate      = 0.7
bias_replace_rate     = 0.1
response_init_mean    = 1.0
response_init_stdev   = 0.0
response_init_type    = gaussian
response_max_value    = 30.0
response_min_value    = -30.0
response_mutate_power = 0.0
response_mutate_rate  = 0.0
response_replace_rate = 0.0
weight_init_mean      = 0.0
weight_init_stdev     = 1.0
weight_init_type      = gaussian
weight_max_value      = 30
weight_min_value      = -30
weight_mutate_power   = {weight_mutate_power}
weight_mutate_rate    = 0.8
weight_replace_rate   = 0.1
enabled_default       = True
enabled_mutate_rate   = 0.01
enabled_rate_to_true_add = 0.0
enabled_rate_to_false_add = 0.0
conn_add_prob         = {conn_add_prob}
conn_delete_prob      = 0.1
node_add_prob         = {node_add_prob}
node_delete_prob      = 0.05
single_structural_mutation = False
structural_mutation_surer = default
compatibility_disjoint_coefficient = 1.0
compatibility_weight_coefficient   = 0.5

[DefaultSpeciesSet]
compatibility_threshold = {compatibility_threshold}

[DefaultStagnation]
species_fitness_func = max
max_stagnation       = 15
species_elitism      = 2

[DefaultReproduction]
elitism            = {elitism}
survival_threshold = 0.2
min_species_size   = 2
"""


if __name__ == "__main__":
    main()
