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
with ``--seed``. ``checkpoint.pt`` holds, besides the champion, neat-python's whole evolution
state as JSON (``boardgym.train.neat_state``: genomes, species, counters, the random state;
no pickle), so ``--resume`` continues exactly where the run stopped: a run resumed after
generation g ends as the same run left alone would. ``final.pt`` holds just the champion's
network; both load with ``torch.load(weights_only=True)``.

    boardgym train neat --game quixo --run-name quixo
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import neat
import numpy as np
import torch
from neat.graphs import feed_forward_layers

from boardgym.agents.minimax import MinimaxAgent
from boardgym.agents.neat_agent import ACTIVATIONS, FORMAT, MODES, NeatAgent, Network, choose_move
from boardgym.config import option
from boardgym.game import Game
from boardgym.runs import atomic_write_bytes
from boardgym.train.neat_state import decode_state, encode_state, population_state, restore_population
from boardgym.train.training_run import RunConfig, TrainingRun, run_main
from boardgym.types import BoardgymError

METHOD = "neat"
OLD_STATE_FILE = "neat-state.pkl.gz"
"""Where runs before the JSON state kept neat-python's pickle; never read."""


@dataclass(frozen=True)
class Config(RunConfig):
    """Evolve game-playing networks with NEAT against random, shallow minimax and each other."""

    game: str = option("quixo", "two-player game (boardgym list games)")
    seed: int = option(0, "seed of neat-python's mutations, of the games and of the measurement")
    eval_every: int = option(5, "generations between measurements (0: end only)")
    mode: str = option(
        "afterstate",
        "afterstate (score the position each move leaves) or policy (one output per action)",
        choices=MODES,
    )
    population: int = option(50, "genomes per generation", minimum=2)
    generations: int = option(20, "generations", minimum=1)
    games_random: int = option(10, "fitness games per genome against random", minimum=0)
    games_minimax: int = option(4, "fitness games per genome against minimax:depth=1", minimum=0)
    games_peers: int = option(4, "fitness games per genome against other genomes of its generation", minimum=0)
    activation: str = option("tanh", f"node activation: {', '.join(ACTIVATIONS)}", choices=ACTIVATIONS)
    conn_add_prob: float = option(0.3, "probability of adding a connection per reproduction", minimum=0, maximum=1)
    node_add_prob: float = option(0.1, "probability of adding a node per reproduction", minimum=0, maximum=1)
    weight_mutate_power: float = option(0.5, "standard deviation of a weight mutation", minimum=0)
    compatibility_threshold: float = option(3.0, "genomic distance that separates species", above=0)
    elitism: int = option(2, "best genomes of each species copied unchanged", minimum=0)
    playoff_size: int = option(5, "best genomes of the last generation that meet in a final playoff", minimum=1)
    playoff_games: int = option(40, "playoff games per contender against random and against minimax:depth=1", minimum=1)

    def check(self) -> None:
        super().check()
        if self.games_random + self.games_minimax + self.games_peers < 1:
            raise BoardgymError("the fitness needs games: set --games-random, --games-minimax or --games-peers above 0")


def train(config: Config) -> Path:
    """Evolve and return the path of the final checkpoint (``neat:checkpoint=PATH``)."""
    run = TrainingRun(config, METHOD, format=FORMAT, total=config.generations, unit="gen")
    game = run.game
    if game.num_players != 2:
        raise BoardgymError(f"neat plays two-player games; {game.name} has {game.num_players} player(s)")
    with run:
        neat_config = _neat_config(config, game, run.folder / "neat.ini")
        if run.resumed is not None:
            if "neat_state" not in run.resumed:
                raise BoardgymError(
                    f"--resume: {str(run.checkpoint_path)!r} was written before NEAT runs saved their state as "
                    f"JSON (the old {OLD_STATE_FILE} is a pickle, never read); start a new run under another "
                    "--run-name"
                )
            with run.restoring():
                state = decode_state(run.resumed["neat_state"].numpy().tobytes(), str(run.checkpoint_path))
                population = restore_population(neat_config, state)
        else:
            population = neat.Population(neat_config, seed=config.seed)
        field = Field(game, config)
        champion: dict[str, Any] = {}

        def fitness_function(genomes: list[tuple[int, Any]], neat_cfg: neat.Config) -> None:
            networks = [genome_network(genome, neat_cfg) for _, genome in genomes]
            scores = field.scores(networks, seed=config.seed * 100_003 + population.generation)
            run.games, field.played = run.games + field.played, 0
            for (_, genome), score in zip(genomes, scores, strict=True):
                genome.fitness = float(score)
            best = int(np.argmax(scores))
            # The champion is this generation's best: elites are re-measured every generation, so
            # a network that was merely lucky once does not stay champion.
            champion.update(network=networks[best], fitness=float(scores[best]))
            champion["contenders"] = [networks[i] for i in np.argsort(-scores)[: config.playoff_size]]
            scalars = {
                "train/best_fitness": float(scores[best]),
                "train/mean_fitness": float(np.mean(scores)),
                "train/species": len(population.species.species),
                "train/champion_nodes": len(genomes[best][1].nodes),
            }
            run.log(scalars, population.generation + 1)

        def payload(with_state: bool = True) -> dict[str, Any]:
            saved = {"mode": config.mode, "network": champion["network"].to_json(), "fitness": champion["fitness"]}
            if with_state:
                data = encode_state(population_state(population))
                saved["neat_state"] = torch.frombuffer(bytearray(data), dtype=torch.uint8)
            return saved

        def measure() -> None:
            run.save(payload())
            agent = NeatAgent(game, seed=config.seed, checkpoint=run.checkpoint_path)
            run.measure(
                agent,
                {"random": "random", "minimax": "minimax:depth=1"},
                note=f"champion fitness {champion['fitness']:.2f}",
            )

        while population.generation < config.generations:
            population.run(fitness_function, 1)
            run.advance_to(population.generation, best=f"{champion['fitness']:.2f}")
            if run.due(config.eval_every) and run.step < config.generations:
                measure()
            else:
                run.save(payload())
        if not champion:  # resumed at the end: nothing evolved in this process
            last = run.resumed or {}
            champion.update(network=Network.from_json(last["network"]), fitness=float(last.get("fitness", 0.0)))
        elif len(champion.get("contenders", [])) > 1 and config.playoff_games > 0:
            # One generation's fitness is a few games: a playoff among its best decides.
            playoff = Field(
                game,
                replace(config, games_random=config.playoff_games, games_peers=0, games_minimax=config.playoff_games),
            )
            scores = playoff.scores(champion["contenders"], seed=config.seed + 1)
            run.games += playoff.played
            champion.update(network=champion["contenders"][int(np.argmax(scores))], fitness=float(scores.max()))
            run.log({"train/playoff_best": float(scores.max())})
        measure()
        return run.finish(payload(with_state=False))


def main(argv: list[str] | None = None, prog: str = "python -m boardgym.train.neat") -> int:
    return run_main(Config, train, argv, prog, METHOD)


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
        self.played = 0
        """Games played so far (the run's ``progress/games``)."""

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
        self.played += 1
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
    sys.exit(main())
