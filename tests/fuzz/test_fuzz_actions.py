"""Mixed legal, illegal and ill-typed actions through the rules API, the AEC env and the gym
env of every game: no exception but the documented ones, no ill-typed value ever played, the
masks always the legal moves. The default run is a few thousand actions per game and
interface; ``-m slow`` runs about a hundred times more."""

from __future__ import annotations

import random
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from fuzz_strategies import is_integer, random_action
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import boardgym  # noqa: F401  (registers the gym ids)
from boardgym.envs.core import BoardgymAECEnv
from boardgym.games import GAMES, make_game
from boardgym.types import BoardgymError, IllegalActionError

SMALL = {"hex": {"size": 5}, "setcover": {"problem_size": 8, "num_sets": 12, "density": 0.3}}
"""Smaller instances where the default one makes each game long (more games per example)."""

TWO_PLAYER = [name for name in GAMES if make_game(name).num_players == 2]
FAST = settings(max_examples=6, deadline=None, database=None, suppress_health_check=list(HealthCheck))
HEAVY = settings(max_examples=100, deadline=None, database=None, suppress_health_check=list(HealthCheck))
PER_EXAMPLE = 500  # actions per example: 6 x 500 = 3,000 per game and interface by default
HEAVY_PER_EXAMPLE = 3_000  # -m slow: 300,000 per game and interface
SEEDS = st.integers(0, 2**32 - 1)


def _game(name: str) -> Any:
    return make_game(name, **SMALL.get(name, {}))


def drive_rules(name: str, seed: int, count: int) -> None:
    rng = random.Random(seed)
    game = _game(name)
    state = game.initial_state()
    for _ in range(count):
        action = random_action(rng, game.num_actions)
        legal = game.legal_actions(state)
        playable = is_integer(action) and int(action) in legal
        try:
            after = game.apply(state, action)
        except IllegalActionError:
            assert not playable, (action, legal)
            continue
        assert playable, f"{name} played {action!r}, legal: {legal}"
        assert after == game.apply(state, int(action))
        state = game.initial_state() if game.is_terminal(after) else after


def drive_aec(name: str, seed: int, count: int) -> None:
    rng = random.Random(seed)
    env = BoardgymAECEnv(_game(name))
    env.reset(seed=0)
    game = env.game
    for _ in range(count):
        if not env.agents:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env.step(None)
                env.last()
            env.reset()
            continue
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            action = None if rng.random() < 0.5 else random_action(rng, game.num_actions)
            if action is None:
                env.step(None)
            else:
                with pytest.raises(BoardgymError, match="only action is None"):
                    env.step(action)
            continue
        observation = env.observe(agent)
        legal = game.legal_actions(env.game_state)
        assert np.flatnonzero(observation["action_mask"]).tolist() == legal
        action = random_action(rng, game.num_actions)
        moves = len(env.moves)
        env.step(action)
        if is_integer(action) and int(action) in legal:
            assert env.moves[moves:] == [int(action)]
        else:
            assert len(env.moves) == moves and env.infos[agent]["illegal_action"] is action
            assert env.rewards[agent] == -1.0


def drive_gym(name: str, seed: int, count: int) -> None:
    rng = random.Random(seed)
    env = gym.make(f"boardgym/{GAMES[name].gym_name}-v0", **SMALL.get(name, {}))
    unwrapped = env.unwrapped
    game = unwrapped.game
    _, info = env.reset(seed=seed)
    for _ in range(count):
        mask = info["action_mask"]
        assert mask.dtype == np.int8
        assert np.flatnonzero(mask).tolist() == game.legal_actions(unwrapped.state)
        action = random_action(rng, game.num_actions)
        state = unwrapped.state
        _, reward, terminated, truncated, info = env.step(action)
        played = is_integer(action) and int(action) in np.flatnonzero(mask).tolist()
        if not played:
            assert "illegal_action" in info
            if game.num_players == 2:
                assert terminated and reward == -1.0
            else:
                assert unwrapped.state == state  # a wasted step
        if terminated or truncated:
            with pytest.raises(BoardgymError, match="call reset"):
                env.step(random_action(rng, game.num_actions))
            _, info = env.reset()


@pytest.mark.parametrize("name", list(GAMES))
@FAST
@given(seed=SEEDS)
def test_rules_api(name: str, seed: int) -> None:
    drive_rules(name, seed, PER_EXAMPLE)


@pytest.mark.parametrize("name", TWO_PLAYER)
@FAST
@given(seed=SEEDS)
def test_aec_env(name: str, seed: int) -> None:
    drive_aec(name, seed, PER_EXAMPLE)


@pytest.mark.parametrize("name", [n for n in GAMES if n != "blackbox"])
@FAST
@given(seed=SEEDS)
def test_gym_env(name: str, seed: int) -> None:
    drive_gym(name, seed, PER_EXAMPLE)


@FAST
@given(
    genome=st.one_of(
        st.lists(st.integers(-1, 2), min_size=0, max_size=12),
        st.lists(st.floats(allow_nan=True), min_size=10, max_size=10),
        st.lists(st.sampled_from([0, 1, True, False, 0.0, 1.0]), min_size=10, max_size=10),
        st.sampled_from([None, "0101010101", np.zeros((2, 5)), np.ones(10, np.int8), [None] * 10, 3]),
    )
)
def test_blackbox_gym_env(genome: Any) -> None:
    env = gym.make("boardgym/BlackBox-v0", instance=2, genome_length=10)
    env.reset(seed=0)
    array = np.asarray(genome, dtype=object) if not isinstance(genome, np.ndarray) else genome
    bits = array.shape == (10,) and all(
        isinstance(v, (bool, int, float, np.integer, np.floating, np.bool_)) and v in (0, 1) for v in array.tolist()
    )
    try:
        _, fitness, terminated, _, info = env.step(genome)
    except BoardgymError:
        assert not bits, genome
        assert env.unwrapped.calls == 0
        return
    assert bits and terminated and 0.0 <= fitness <= 1.0 and info["calls"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GAMES))
@HEAVY
@given(seed=SEEDS)
def test_rules_api_heavy(name: str, seed: int) -> None:
    drive_rules(name, seed, HEAVY_PER_EXAMPLE)


@pytest.mark.slow
@pytest.mark.parametrize("name", TWO_PLAYER)
@HEAVY
@given(seed=SEEDS)
def test_aec_env_heavy(name: str, seed: int) -> None:
    drive_aec(name, seed, HEAVY_PER_EXAMPLE)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in GAMES if n != "blackbox"])
@HEAVY
@given(seed=SEEDS)
def test_gym_env_heavy(name: str, seed: int) -> None:
    drive_gym(name, seed, HEAVY_PER_EXAMPLE)
