"""NEAT: the phenotype against neat-python's own, tiny runs in both modes, resume (exact, and
never from a pickle)."""

from __future__ import annotations

import gzip
import json
import pickle
import random
from pathlib import Path

import neat
import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from boardgym import make_agent, make_game
from boardgym.agents.neat_agent import NeatAgent, Network, choose_move
from boardgym.checkpoints import save_checkpoint
from boardgym.evaluate.match import play_games
from boardgym.train import METHODS
from boardgym.train.neat import OLD_STATE_FILE, Config, _neat_config, genome_network, train
from boardgym.types import BoardgymError

TINY = dict(
    game_params="size=3",
    population=6,
    generations=2,
    games_random=2,
    games_minimax=1,
    games_peers=1,
    playoff_size=2,
    playoff_games=2,
    eval_every=1,
    eval_games=4,
    progress=False,
)


def test_method_is_registered() -> None:
    assert METHODS["neat"].target == "boardgym.train.neat:main"


def test_network_matches_neat_pythons_feed_forward_network(tmp_path: Path) -> None:
    game = make_game("quixo", size=3)
    neat_config = _neat_config(Config(mode="policy", node_add_prob=1.0, conn_add_prob=1.0), game, tmp_path / "n.ini")
    population = neat.Population(neat_config, seed=3)
    genome = next(iter(population.population.values()))
    for _ in range(5):  # grow some hidden nodes and connections
        genome.mutate(neat_config.genome_config)
    ours = genome_network(genome, neat_config)
    reference = neat.nn.FeedForwardNetwork.create(genome, neat_config)
    inputs = np.random.default_rng(0).random((3, 18))
    expected = np.array([reference.activate(row.tolist()) for row in inputs])
    np.testing.assert_allclose(ours.activate(inputs), expected, atol=1e-9)
    again = Network.from_json(ours.to_json())
    np.testing.assert_allclose(again.activate(inputs), expected, atol=1e-9)


def test_afterstate_mode_takes_a_win_and_avoids_a_loss() -> None:
    game = make_game("quixo", size=3)
    silent = Network(list(range(-18, 0)), [0], [])  # scores every position 0
    rng = np.random.default_rng(0)
    state = game.initial_state()
    # Play until the mover has a winning push, then check that it is chosen.
    for _ in range(200):
        if game.is_terminal(state):
            state = game.initial_state()
        player = game.current_player(state)
        wins = [a for a in game.legal_actions(state) if game.returns(game.apply(state, a))[player] > 0]
        if wins:
            assert choose_move(game, silent, "afterstate", state, rng) in wins
            return
        state = game.apply(state, game.legal_actions(state)[int(rng.integers(len(game.legal_actions(state))))])
    pytest.fail("no winning position met")


@pytest.mark.parametrize("mode", ["afterstate", "policy"])
def test_tiny_run_writes_checkpoint_and_tensorboard_and_loads_as_agent(tmp_path: Path, mode: str) -> None:
    final = train(Config(mode=mode, run_name=mode, root=str(tmp_path), **TINY))
    payload = torch.load(final, weights_only=True)
    assert payload["mode"] == mode and payload["step"] == 2
    events = EventAccumulator(str(final.parent))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"train/best_fitness", "train/species", "eval/win_rate_vs_random", "eval/win_rate_vs_minimax"} <= tags
    game = make_game("quixo", size=3)
    agent = make_agent(f"neat:checkpoint={final}", game)
    assert isinstance(agent, NeatAgent)
    assert play_games(game, agent, "random", 4, seed=0).games == 4


def test_resume_continues_the_generations(tmp_path: Path) -> None:
    train(Config(run_name="r", root=str(tmp_path), **TINY))
    with pytest.raises(BoardgymError, match="--resume"):
        train(Config(run_name="r", root=str(tmp_path), **TINY))
    final = train(Config(run_name="r", root=str(tmp_path), resume=True, **{**TINY, "generations": 3}))
    assert torch.load(final, weights_only=True)["step"] == 3


def test_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match="--mode"):
        train(Config(mode="value", root=str(tmp_path), **TINY))
    with pytest.raises(BoardgymError, match="neat agent needs"):
        make_agent("neat", make_game("quixo"))
    with pytest.raises(BoardgymError, match="same game"):
        final = train(Config(run_name="g", root=str(tmp_path), **TINY))
        make_agent(f"neat:checkpoint={final}", make_game("quixo", size=4))


def test_resumed_run_ends_as_the_uninterrupted_run(tmp_path: Path) -> None:
    """neat-python draws from Python's global ``random``; the checkpoint carries its state, the
    counters and every genome, so a run stopped after generation 2 and resumed to 4 ends with
    the same population and the same champion as a run of 4 generations. (The two runs'
    measurements at generation 2 differ: the stopped run's champion there is its playoff's.)"""
    growing = {**TINY, "population": 8, "eval_every": 2, "node_add_prob": 0.5, "conn_add_prob": 0.5}
    whole = train(Config(run_name="whole", root=str(tmp_path), **{**growing, "generations": 4}))
    train(Config(run_name="split", root=str(tmp_path), **{**growing, "generations": 2}))
    random.seed(12345)  # whatever happens to the global stream in between does not matter
    split = train(Config(run_name="split", root=str(tmp_path), resume=True, **{**growing, "generations": 4}))
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
        train(Config(run_name="old", root=str(tmp_path), resume=True, **{**TINY, "generations": 3}))
    assert not (tmp_path / "pickle-ran").exists()
