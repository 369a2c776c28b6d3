"""neat-python's evolution state as JSON, so that ``boardgym train neat --resume`` needs no pickle.

neat-python saves its populations with ``pickle`` (``neat.Checkpointer``), and unpickling runs
whatever code the file names. ``population_state`` writes instead everything a
``neat.Population`` carries from one generation to the next, as plain JSON:

- the genomes in order (key, fitness, node genes and connection genes with their innovation
  numbers and every gene attribute neat-python declares), and the best genome ever seen;
- the species (key, creation, last improvement, fitness history, representative, members),
  the genome-to-species map and the species counter;
- the genome counter, the ancestors of the current genomes, the innovation tracker (global
  counter and this generation's innovations) and the node-key counter of the genome config;
- the generation and Python's ``random`` state (neat-python draws every mutation from it).

``restore_population(config, state)`` rebuilds a ``neat.Population`` that continues exactly
as the saved one would have: the same genomes in the same order, the same counters, the same
random stream. Dictionaries keep their order (it decides which genome a random draw picks),
so genomes, genes and species are written as lists.
"""

from __future__ import annotations

import gzip
import json
import random
from itertools import count
from typing import Any

import neat

from boardgym.types import BoardgymError

STATE_VERSION = 1


def population_state(population: neat.Population) -> dict[str, Any]:
    """Everything ``restore_population`` needs, as JSON-ready values."""
    genomes = population.population
    species_set = population.species
    reproduction = population.reproduction
    genome_config = population.config.genome_config
    species = []
    for key, member in species_set.species.items():
        outsiders = [gid for gid in member.members if genomes.get(gid) is not member.members[gid]]
        if outsiders:
            raise BoardgymError(f"NEAT species {key} holds genomes {outsiders} outside the population; cannot save it")
        representative = member.representative
        species.append(
            {
                "key": key,
                "created": member.created,
                "last_improved": member.last_improved,
                "fitness": member.fitness,
                "adjusted_fitness": member.adjusted_fitness,
                "fitness_history": list(member.fitness_history),
                "representative": (
                    representative.key
                    if genomes.get(representative.key) is representative
                    else _genome_state(representative)
                ),
                "members": list(member.members),
            }
        )
    tracker = reproduction.innovation_tracker
    return {
        "version": STATE_VERSION,
        "generation": population.generation,
        "genomes": [_genome_state(genome) for genome in genomes.values()],
        "best_genome": None if population.best_genome is None else _genome_state(population.best_genome),
        "species": species,
        "genome_to_species": [[gid, sid] for gid, sid in species_set.genome_to_species.items()],
        "next_species_key": _peek(species_set, "indexer"),
        "next_genome_key": _peek(reproduction, "genome_indexer"),
        "next_node_key": _peek(genome_config, "node_indexer"),
        "ancestors": [[gid, list(reproduction.ancestors.get(gid, ()))] for gid in genomes],
        "innovations": {
            "counter": tracker.global_counter,
            "generation": [[*key, number] for key, number in tracker.generation_innovations.items()],
        },
        "random_state": _random_state_to_json(random.getstate()),
    }


def restore_population(config: neat.Config, state: dict[str, Any]) -> neat.Population:
    """A ``neat.Population`` in ``state`` (from ``population_state``), with Python's ``random``
    set to where it was. ``config`` must describe the same genomes as the saved run's."""
    if state.get("version") != STATE_VERSION:
        raise BoardgymError(f"NEAT state version {state.get('version')!r} is not {STATE_VERSION}; start a new run")
    genome_config = config.genome_config
    genomes = {}
    for saved in state["genomes"]:
        genome = _genome(config, saved)
        genomes[genome.key] = genome
    species_set = config.species_set_type(config.species_set_config, neat.reporting.ReporterSet())
    for saved in state["species"]:
        member = neat.species.Species(saved["key"], saved["created"])
        member.last_improved = saved["last_improved"]
        member.fitness = saved["fitness"]
        member.adjusted_fitness = saved["adjusted_fitness"]
        member.fitness_history = list(saved["fitness_history"])
        representative = saved["representative"]
        member.representative = (
            genomes[representative] if isinstance(representative, int) else _genome(config, representative)
        )
        member.members = {gid: genomes[gid] for gid in saved["members"]}
        species_set.species[member.key] = member
    species_set.genome_to_species = {gid: sid for gid, sid in state["genome_to_species"]}
    species_set.indexer = count(state["next_species_key"])

    population = neat.Population(config, initial_state=(genomes, species_set, state["generation"]))
    reproduction = population.reproduction
    reproduction.genome_indexer = count(state["next_genome_key"])
    reproduction.ancestors = {gid: tuple(parents) for gid, parents in state["ancestors"]}
    tracker = reproduction.innovation_tracker
    tracker.global_counter = state["innovations"]["counter"]
    tracker.generation_innovations = {
        (source, target, kind): number for source, target, kind, number in state["innovations"]["generation"]
    }
    genome_config.innovation_tracker = tracker
    next_node = state["next_node_key"]
    genome_config.node_indexer = None if next_node is None else count(next_node)
    if state["best_genome"] is not None:
        population.best_genome = _genome(config, state["best_genome"])
    random.setstate(_random_state_from_json(state["random_state"]))
    return population


def encode_state(state: dict[str, Any]) -> bytes:
    """The state as gzip-compressed JSON (a population of large networks is megabytes of text)."""
    return gzip.compress(json.dumps(state, separators=(",", ":")).encode(), compresslevel=6, mtime=0)


def decode_state(data: bytes, source: str = "the checkpoint") -> dict[str, Any]:
    try:
        state = json.loads(gzip.decompress(data))
    except (OSError, EOFError, ValueError) as error:
        raise BoardgymError(
            f"the NEAT state in {source} cannot be read ({type(error).__name__}); start a new run"
        ) from None
    if not isinstance(state, dict):
        raise BoardgymError(f"the NEAT state in {source} is not a JSON object; start a new run")
    return state


# -- genomes ------------------------------------------------------------------------------------
def _genome_state(genome: Any) -> dict[str, Any]:
    return {
        "key": genome.key,
        "fitness": genome.fitness,
        "nodes": [_gene_state(gene) for gene in genome.nodes.values()],
        "connections": [_gene_state(gene) for gene in genome.connections.values()],
    }


def _gene_state(gene: Any) -> dict[str, Any]:
    saved = {"key": list(gene.key) if isinstance(gene.key, tuple) else gene.key}
    if hasattr(gene, "innovation"):
        saved["innovation"] = gene.innovation
    for attribute in gene._gene_attributes:
        saved[attribute.name] = getattr(gene, attribute.name)
    return saved


def _genome(config: neat.Config, saved: dict[str, Any]) -> Any:
    genome_config = config.genome_config
    genome = config.genome_type(saved["key"])
    genome.fitness = saved["fitness"]
    for gene_state in saved["nodes"]:
        gene = genome_config.node_gene_type(gene_state["key"])
        _set_attributes(gene, gene_state)
        genome.nodes[gene.key] = gene
    for gene_state in saved["connections"]:
        gene = genome_config.connection_gene_type(tuple(gene_state["key"]), innovation=gene_state["innovation"])
        _set_attributes(gene, gene_state)
        genome.connections[gene.key] = gene
    return genome


def _set_attributes(gene: Any, saved: dict[str, Any]) -> None:
    for attribute in gene._gene_attributes:
        if attribute.name not in saved:
            raise BoardgymError(
                f"the saved NEAT gene {saved.get('key')!r} lacks {attribute.name!r}: it was saved by another "
                "version of neat-python; start a new run"
            )
        setattr(gene, attribute.name, saved[attribute.name])


# -- counters and the random state ----------------------------------------------------------------
def _peek(owner: Any, name: str) -> int | None:
    """The next value of the ``itertools.count`` at ``owner.name`` (None when unset), leaving
    the counter where it was."""
    counter = getattr(owner, name)
    if counter is None:
        return None
    value = next(counter)
    setattr(owner, name, count(value))
    return value


def _random_state_to_json(state: tuple) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _random_state_from_json(saved: list) -> tuple:
    version, internal, gauss = saved
    return (version, tuple(internal), gauss)
