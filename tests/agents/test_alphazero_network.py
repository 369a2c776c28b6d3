"""The policy/value network: shapes, value range, masking, architecture round trip."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from boardgym import make_game
from boardgym.agents.alphazero.network import AlphaZeroNet, build_network, masked_log_policy, masked_policy
from boardgym.types import BoardgymError

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("name", ["tictactoe", "connect_four", "nim"])
def test_shapes_and_value_range(name: str) -> None:
    game = make_game(name)
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=8).eval()
    planes = torch.randn(5, *game.observation_shape) * 10
    logits, value = network(planes)
    assert logits.shape == (5, game.num_actions)
    assert value.shape == (5,)
    assert torch.all(value.abs() <= 1.0)


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 3)])
def test_flat_and_single_plane_observations_fit(shape: tuple[int, ...]) -> None:
    network = AlphaZeroNet(shape, 6, blocks=1, channels=4).eval()
    logits, value = network(torch.zeros(2, *shape))
    assert logits.shape == (2, 6) and value.shape == (2,)


@settings(max_examples=60, deadline=None)
@given(
    legal_bits=st.lists(st.booleans(), min_size=9, max_size=9).filter(any),
    scale=st.floats(min_value=0.0, max_value=1e4),
    seed=st.integers(0, 2**16),
)
def test_masked_policy_never_puts_mass_on_illegal_moves(legal_bits: list[bool], scale: float, seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(3, 9, generator=generator) * scale
    legal = torch.tensor([legal_bits] * 3)
    probs = masked_policy(logits, legal)
    assert torch.all(probs[~legal] == 0.0)
    assert torch.allclose(probs.sum(-1), torch.ones(3))
    log_probs = masked_log_policy(logits, legal)
    assert torch.all(torch.isfinite(log_probs))
    assert torch.allclose(log_probs[legal].exp(), probs[legal], atol=1e-6)


def test_masked_policy_in_float16_logits_stays_exact() -> None:
    logits = torch.full((1, 4), 60000.0, dtype=torch.float16)  # near the float16 maximum
    legal = torch.tensor([[False, True, False, True]])
    probs = masked_policy(logits, legal)
    assert probs.dtype == torch.float32
    assert probs[0].tolist() == [0.0, 0.5, 0.0, 0.5]


def test_architecture_round_trip_rebuilds_the_same_function() -> None:
    game = make_game("connect_four")
    torch.manual_seed(1)
    network = build_network(game, blocks=2, channels=8, value_hidden=16).eval()
    copy = AlphaZeroNet.from_architecture(network.architecture()).eval()
    copy.load_state_dict(network.state_dict())
    planes = torch.from_numpy(np.stack([game.observation(game.initial_state(), 0)] * 2))
    for a, b in zip(network(planes), copy(planes), strict=True):
        assert torch.equal(a, b)


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(BoardgymError, match="channels"):
        AlphaZeroNet((2, 3, 3), 9, channels=0)
    with pytest.raises(BoardgymError, match="observation shape"):
        AlphaZeroNet((1, 2, 3, 4), 9)


def test_the_inference_copy_in_half_precision_answers_as_the_network() -> None:
    """On a CPU the inference copy is the folded float32 network; the CUDA copy (float16,
    channels_last, made here by hand on the CPU) is given its planes in its dtype and layout by
    the batch evaluator and answers as the float32 network to float16's rounding."""
    from boardgym.agents.alphazero.network import inference_copy
    from boardgym.agents.alphazero.network_leaf import NetworkBatchEvaluator

    game = make_game("connect_four")
    torch.manual_seed(0)
    network = build_network(game, blocks=2, channels=16).eval()
    copy = inference_copy(network)
    assert next(copy.parameters()).dtype == torch.float32 and not any(p.requires_grad for p in copy.parameters())
    half = copy.half().to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    planes = torch.rand(64, *game.observation_shape).round()
    legal = torch.rand(64, game.num_actions) > 0.3
    legal[:, 0] = True
    want_priors, want_values = NetworkBatchEvaluator(network)(planes, legal)
    priors, values = NetworkBatchEvaluator(half)(planes, legal)
    assert priors.dtype == values.dtype == torch.float32
    assert torch.allclose(priors, want_priors, atol=1e-2) and torch.allclose(values, want_values, atol=1e-2)
    assert bool((priors[~legal] == 0).all())
