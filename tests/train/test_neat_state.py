"""neat-python's evolution state as JSON: a saved and restored population evolves exactly as
the original, and the state survives real JSON text and compression."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import neat
import pytest

from boardgym import make_game
from boardgym.train.neat import Config, _neat_config
from boardgym.train.neat_state import decode_state, encode_state, population_state, restore_population
from boardgym.types import BoardgymError


def _fitness(genomes: list, config: neat.Config) -> None:
    """A cheap deterministic fitness: the sum of the connection weights."""
    for _, genome in genomes:
        genome.fitness = sum(gene.weight for gene in genome.connections.values() if gene.enabled)


def _config(tmp_path: Path, name: str) -> neat.Config:
    return _neat_config(
        Config(population=12, node_add_prob=0.5, conn_add_prob=0.5), make_game("quixo", size=3), tmp_path / name
    )


def test_a_restored_population_evolves_exactly_as_the_original(tmp_path: Path) -> None:
    original = neat.Population(_config(tmp_path, "a.ini"), seed=5)
    original.run(_fitness, 3)
    saved = json.loads(json.dumps(population_state(original)))  # through real JSON text
    restored = restore_population(_config(tmp_path, "b.ini"), saved)
    assert population_state(restored) == saved
    stream = random.getstate()  # both populations draw from the one global stream: give each the same
    original.run(_fitness, 3)
    random.setstate(stream)
    restored.run(_fitness, 3)
    assert population_state(restored) == population_state(original)
    assert restored.best_genome.fitness == original.best_genome.fitness


def test_the_state_is_compressed_json(tmp_path: Path) -> None:
    population = neat.Population(_config(tmp_path, "a.ini"), seed=1)
    population.run(_fitness, 1)
    state = population_state(population)
    data = encode_state(state)
    assert json.loads(gzip.decompress(data)) == json.loads(json.dumps(state))
    assert decode_state(data) == json.loads(json.dumps(state))
    with pytest.raises(BoardgymError, match="cannot be read"):
        decode_state(b"not gzip")
    with pytest.raises(BoardgymError, match="version"):
        restore_population(_config(tmp_path, "b.ini"), {**state, "version": 99})
