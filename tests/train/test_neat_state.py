"""neat-python's evolution state as JSON: a saved and restored population evolves exactly as
the original, a resumed run ends as the same run left alone, and no pickle is ever read."""

from __future__ import annotations

import gzip
import json
import pickle
import random
from pathlib import Path

import neat
import pytest
import torch

from boardgym import make_game
from boardgym.runs import save_checkpoint
from boardgym.train.neat import OLD_STATE_FILE, Config, _neat_config, train
from boardgym.train.neat_state import decode_state, encode_state, population_state, restore_population
from boardgym.types import BoardgymError

TINY = dict(
    game_params="size=3",
    population=8,
    games_random=2,
    games_minimax=1,
    games_peers=1,
    playoff_size=2,
    playoff_games=2,
    eval_every=2,
    eval_games=4,
    node_add_prob=0.5,
    conn_add_prob=0.5,
    progress=False,
)


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


def test_resumed_run_ends_as_the_uninterrupted_run(tmp_path: Path) -> None:
    """neat-python draws from Python's global ``random``; the checkpoint carries its state, the
    counters and every genome, so a run stopped after generation 2 and resumed to 4 ends with
    the same population and the same champion as a run of 4 generations. (The two runs'
    measurements at generation 2 differ: the stopped run's champion there is its playoff's.)"""
    whole = train(Config(run_name="whole", root=str(tmp_path), generations=4, **TINY))
    train(Config(run_name="split", root=str(tmp_path), generations=2, **TINY))
    random.seed(12345)  # whatever happens to the global stream in between does not matter
    split = train(Config(run_name="split", root=str(tmp_path), generations=4, resume=True, **TINY))
    assert torch.load(split, weights_only=True)["network"] == torch.load(whole, weights_only=True)["network"]
    states = [torch.load(path.parent / "checkpoint.pt", weights_only=True)["neat_state"] for path in (whole, split)]
    assert torch.equal(states[0], states[1])


class _Planted:
    def __reduce__(self):
        return (Path.touch, (Path(self.target),))


def test_an_old_run_with_a_pickled_state_is_refused_and_the_pickle_never_read(tmp_path: Path) -> None:
    game = make_game("quixo", size=3)
    folder = tmp_path / "quixo" / "neat" / "old"
    folder.mkdir(parents=True)
    old = {"mode": "afterstate", "network": json.dumps({"inputs": [], "outputs": [0], "nodes": []}), "fitness": 0.5}
    save_checkpoint(folder / "checkpoint.pt", {**old, "generation": 2}, format="boardgym.neat/1", game=game)
    planted = _Planted()
    planted.target = str(tmp_path / "pickle-ran")
    (folder / OLD_STATE_FILE).write_bytes(gzip.compress(pickle.dumps(planted)))
    with pytest.raises(BoardgymError, match=r"neat-state.pkl.gz is a pickle, never read.*another --run-name"):
        train(Config(run_name="old", root=str(tmp_path), generations=3, resume=True, **TINY))
    assert not (tmp_path / "pickle-ran").exists()
