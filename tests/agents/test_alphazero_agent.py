"""The alphazero agent: made from a spec, plays legal moves, refuses what it cannot load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from boardgym import make_agent, make_game
from boardgym.agents.alphazero.agent import AlphaZeroAgent, resolve_device, save_network
from boardgym.agents.alphazero.network import build_network
from boardgym.agents.base import BatchAgent
from boardgym.checkpoints import save_checkpoint
from boardgym.types import BoardgymError


def _checkpoint(tmp_path: Path, game, name: str = "net.pt") -> Path:
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=8, value_hidden=8)
    return save_network(tmp_path / name, network, game)


@pytest.mark.parametrize("simulations", [0, 1, 12])
def test_agent_from_spec_plays_legal_moves_to_the_end(tmp_path: Path, simulations: int) -> None:
    game = make_game("connect_four")
    path = _checkpoint(tmp_path, game)
    agent = make_agent(f"alphazero:checkpoint={path},simulations={simulations}", game, seed=0)
    state = game.initial_state()
    while not game.is_terminal(state):
        action = agent.act(game, state)
        assert action in game.legal_actions(state)
        state = game.apply(state, action)


def test_agent_is_reproducible_after_reset(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    agent = make_agent(f"alphazero:checkpoint={_checkpoint(tmp_path, game)},simulations=16,temperature=1", game)

    def first_moves() -> list[int]:
        agent.reset(seed=3)
        return [agent.act(game, game.initial_state()) for _ in range(5)]

    assert first_moves() == first_moves()


def test_agent_needs_a_checkpoint() -> None:
    with pytest.raises(BoardgymError, match="checkpoint=PATH"):
        make_agent("alphazero", make_game("tictactoe"))


def test_checkpoint_of_another_game_is_refused(tmp_path: Path) -> None:
    path = _checkpoint(tmp_path, make_game("connect_four"))
    with pytest.raises(BoardgymError, match="trained on connect_four"):
        AlphaZeroAgent(make_game("tictactoe"), checkpoint=path)


def test_checkpoint_of_other_game_parameters_is_refused(tmp_path: Path) -> None:
    path = _checkpoint(tmp_path, make_game("nim", heaps=(1, 3, 5)))
    with pytest.raises(BoardgymError, match="trained on nim"):
        AlphaZeroAgent(make_game("nim", heaps=(1, 3, 6)), checkpoint=path)


def test_foreign_and_missing_files_are_explained(tmp_path: Path) -> None:
    foreign = save_checkpoint(tmp_path / "other.pt", {"table": torch.zeros(3)}, format="other/1", game=None)
    with pytest.raises(BoardgymError, match="not a boardgym.alphazero/1 checkpoint.*boardgym train alphazero"):
        AlphaZeroAgent(make_game("tictactoe"), checkpoint=foreign)
    with pytest.raises(BoardgymError, match="does not exist"):
        AlphaZeroAgent(make_game("tictactoe"), checkpoint=tmp_path / "missing.pt")


def test_device_auto_falls_back_to_cpu_without_cuda() -> None:
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected
    with pytest.raises(BoardgymError, match="unknown alphazero device='warp-drive'; use auto, cpu or cuda"):
        resolve_device("warp-drive")
    with pytest.raises(BoardgymError, match="unknown --device 'warp-drive'"):
        resolve_device("warp-drive", "--device")
    if not torch.cuda.is_available():
        with pytest.raises(BoardgymError, match="alphazero device='cuda' asked for but CUDA is not available"):
            AlphaZeroAgent(make_game("tictactoe"), pretrained=True, device="cuda")


def test_temperature_moves_samples_only_the_opening(tmp_path: Path) -> None:
    game = make_game("connect_four")
    path = _checkpoint(tmp_path, game)
    agent = make_agent(f"alphazero:checkpoint={path},simulations=32,temperature=1,temperature_moves=1", game)
    later = game.apply(game.apply(game.initial_state(), 3), 3)
    openings, replies = set(), set()
    for seed in range(8):
        agent.reset(seed=seed)
        openings.add(agent.act(game, game.initial_state()))
        agent.tree.reset()  # the same fresh search for the second move, whatever the first was
        replies.add(agent.act(game, later))
    assert len(openings) > 1  # drawn in proportion to visits
    assert len(replies) == 1  # greedy from the second move on


def test_checkpoints_of_the_old_alphazero_format_still_load(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    payload = torch.load(_checkpoint(tmp_path, game), weights_only=True)
    del payload["game_signature"]
    payload.update(format="boardgym-alphazero-v1", game="tictactoe", game_params="{}")
    torch.save(payload, tmp_path / "old.pt")
    agent = AlphaZeroAgent(game, checkpoint=tmp_path / "old.pt", simulations=2)
    assert agent.act(game, game.initial_state()) in game.legal_actions(game.initial_state())
    with pytest.raises(BoardgymError, match="trained on tictactoe"):
        AlphaZeroAgent(make_game("connect_four"), checkpoint=tmp_path / "old.pt")


def test_last_info_shows_visits_or_the_policy(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    path = _checkpoint(tmp_path, game)
    searcher = make_agent(f"alphazero:checkpoint={path},simulations=16", game, seed=0)
    searcher.act(game, game.initial_state())
    assert sum(searcher.last_info["visits"].values()) == 16 and -1 <= searcher.last_info["value"] <= 1
    policy_only = make_agent(f"alphazero:checkpoint={path},simulations=0", game, seed=0)
    policy_only.act(game, game.initial_state())
    assert set(policy_only.last_info["policy"]) == set(range(9))
    assert sum(policy_only.last_info["policy"].values()) == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("name, params", [("connect_four", {}), ("tictactoe", {}), ("hex", {"size": 4})])
def test_symmetries_average_the_network_over_the_images(tmp_path: Path, name: str, params: dict) -> None:
    """With ``symmetries=true`` a position and each of its images get the same value and the
    same priors, moved with the actions; each is the mean of the plain network over the images."""
    import numpy as np

    from boardgym.agents.alphazero.network_leaf import NetworkEvaluator

    game = make_game(name, **params)
    agent = make_agent(f"alphazero:checkpoint={_checkpoint(tmp_path, game)},simulations=0", game)
    plain = NetworkEvaluator(agent.network, cache_size=0)
    averaged = NetworkEvaluator(agent.network, cache_size=0, symmetries=True)
    state = game.initial_state()
    for action in game.legal_actions(state)[1:3]:  # a position with no symmetry of its own
        state = game.apply(state, action)
    images = game.symmetric_states(state)
    priors, values = averaged.evaluate(game, [image for image, _ in images])
    plain_priors, plain_values = plain.evaluate(game, [image for image, _ in images])
    assert not np.allclose(plain_values, plain_values[0])  # the untrained network is not symmetric
    np.testing.assert_allclose(values, plain_values.mean(), rtol=1e-5)
    legal = game.legal_mask(state)
    expected = np.mean([plain_priors[k][actions] for k, (_, actions) in enumerate(images)], axis=0)
    np.testing.assert_allclose(priors[0], expected, atol=1e-6)
    for k, (_, actions) in enumerate(images):
        np.testing.assert_allclose(priors[k][actions], priors[0], atol=1e-6)  # each image's, moved back
    assert np.all(priors[0][~legal] == 0) and abs(priors[0].sum() - 1) < 1e-5
    agent = make_agent(f"alphazero:checkpoint={_checkpoint(tmp_path, game)},simulations=8,symmetries=true", game)
    assert agent.act(game, state) in game.legal_actions(state)


def row_by_row(evaluator):
    """``evaluator`` (a ``BatchEvaluator``) called on one position at a time: the same numbers
    for a position whatever else is in the batch (a network's float rounding differs, about
    1e-7, with the size of the batch it computes)."""

    def evaluate(planes: torch.Tensor, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        rows = [evaluator(planes[k : k + 1], legal[k : k + 1]) for k in range(len(planes))]
        return torch.cat([p for p, _ in rows]), torch.cat([v for _, v in rows])

    return evaluate


def _positions(game, count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(5))):
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        if not game.is_terminal(state):
            positions.append(state)
    return positions


def test_a_states_batched_search_does_not_depend_on_the_rest_of_the_batch() -> None:
    game = make_game("tictactoe")
    agent = make_agent("alphazero:pretrained=true,search=batched,simulations=24", game, seed=0)
    search = agent.batched_search
    search.evaluator = row_by_row(search.evaluator)  # cache on, as the agent keeps it
    positions = _positions(game, 10, seed=4)
    positions += positions[:3]  # a position twice in one call: evaluated once
    rules = search.rules
    together = search.search(rules.from_scalar_states(positions))
    fresh = make_agent("alphazero:pretrained=true,search=batched,simulations=24", game, seed=0).batched_search
    fresh.evaluator = row_by_row(fresh.evaluator)
    for k, state in enumerate(positions):  # alone, in a search whose cache is empty, then warm
        alone = fresh.search(rules.from_scalar_states([state]))
        assert torch.equal(alone.visits[0], together.visits[k]) and torch.equal(alone.q[0], together.q[k])
        assert int(alone.action[0]) == int(together.action[k])
    # with the network's own batches: the same moves here, values within its rounding
    plain = make_agent("alphazero:pretrained=true,search=batched,simulations=24", game, seed=0).batched_search
    batch = plain.search(rules.from_scalar_states(positions))
    for k, state in enumerate(positions):
        alone = plain.search(rules.from_scalar_states([state]))
        assert int(alone.action[0]) == int(batch.action[k])
        assert float(alone.value[0]) == pytest.approx(float(batch.value[k]), abs=1e-4)


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_act_batch_makes_each_players_own_move(temperature: float) -> None:
    game = make_game("tictactoe")
    spec = f"alphazero:pretrained=true,search=batched,simulations=16,temperature={temperature}"
    leader = make_agent(spec, game, seed=0)
    assert isinstance(leader, BatchAgent) and leader.acts_in_batches
    leader.batched_search.evaluator = row_by_row(leader.batched_search.evaluator)
    players = [leader, *(leader.fork() for _ in range(5))]
    assert {p.batch_key for p in players} == {leader.batch_key}
    positions = _positions(game, 6, seed=7)
    for seed, player in enumerate(players):
        player.reset(seed=seed)
    moves = [leader.act_batch(game, positions, players) for _ in range(3)]  # draws advance per player
    for seed, state in enumerate(positions):
        alone = make_agent(spec, game, seed=0)
        alone.batched_search.evaluator = row_by_row(alone.batched_search.evaluator)
        alone.reset(seed=seed)
        assert [alone.act(game, state) for _ in range(3)] == [step[seed] for step in moves]
        assert alone.last_info["visits"] == players[seed].last_info["visits"]
        assert alone.moves_played == players[seed].moves_played == 3
    assert leader.act_batch(game, [], []) == []
    with pytest.raises(BoardgymError, match="2 states for 1 players"):
        leader.act_batch(game, positions[:2], players[:1])
    tree = make_agent("alphazero:pretrained=true,simulations=8", game, seed=0)
    assert not tree.acts_in_batches  # the tree search moves game by game
    assert tree.act_batch(game, positions[:2], [tree, tree.fork()]) == [
        make_agent("alphazero:pretrained=true,simulations=8", game, seed=0).act(game, s) for s in positions[:2]
    ]
