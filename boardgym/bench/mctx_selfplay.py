"""The peer of the batched self-play: pgx's rules searched by mctx, the way pgx's AlphaZero
example plays (``boardgym bench selfplay --sources mctx mctx_gumbel``).

B games of pgx's version of the game in flight, one jitted call a move: the search
(``mctx.muzero_policy``, PUCT with Dirichlet noise at the root, or ``mctx.gumbel_muzero_policy``,
16 actions considered) over ``jax.vmap(env.step)``, then the move in every game, finished games
started again (``pgx.experimental.auto_reset``). The network is the shape of ours (a 3x3
convolution, ``blocks`` residual blocks of ``channels`` channels, the policy head's two planes
and the value head's plane and hidden layer; batch norms folded away, as in our inference
copy), written in plain jax with random weights: a speed peer, not a player. Positions per
second are moves times games in flight over the wall time, as our rows count a position a move
of a game. Needs jax, pgx and mctx (the ``bench`` extra); where one is missing the row says so.
"""

from __future__ import annotations

import importlib.util
import math
import time
from dataclasses import dataclass
from typing import Any

PGX_NAMES = {"tictactoe": "tic_tac_toe", "connect_four": "connect_four", "hex": "hex"}
"""Our games that pgx has, by our name (pgx's Hex is 11x11, with the swap move)."""

MOVES_A_ROUND = 8
"""Moves of every game in flight timed in a round."""


def missing() -> str | None:
    """Why the mctx row cannot run here (a package missing), or None."""
    for package in ("jax", "pgx", "mctx"):
        if importlib.util.find_spec(package) is None:
            return f"{package} is not installed (pip install 'boardgym[bench]')"
    return None


@dataclass
class MctxRound:
    positions: int
    seconds: float
    cpu_seconds: float
    """This process's CPU time (every thread of it: jax's too)."""
    simulations: int


class MctxSelfPlay:
    """Self-play of ``game`` (our name) on pgx + mctx: ``batch`` games in flight, ``simulations``
    a move, ``gumbel`` for Gumbel's root, a random ``blocks`` x ``channels`` network, on
    ``device`` (``cpu`` or ``cuda``: jax's GPU)."""

    def __init__(
        self,
        game: str,
        *,
        batch: int,
        simulations: int,
        gumbel: bool,
        blocks: int,
        channels: int,
        value_hidden: int = 64,
        device: str = "cpu",
        seed: int = 0,
    ) -> None:
        import jax
        import jax.numpy as jnp
        import mctx
        import pgx
        from pgx.experimental import auto_reset

        if game not in PGX_NAMES:
            raise ValueError(f"pgx has no {game}; the mctx row plays {', '.join(PGX_NAMES)}")
        platform = "gpu" if device.startswith("cuda") else "cpu"
        try:
            self.device = jax.devices(platform)[0]
        except RuntimeError:
            raise ValueError(f"jax has no {platform} device here (install jax[cuda12] for the GPU)") from None
        env = pgx.make(PGX_NAMES[game])
        self.batch, self.simulations = batch, simulations
        key = jax.random.PRNGKey(seed)
        with jax.default_device(self.device):
            init_key, params_key, self._key = jax.random.split(key, 3)
            self._state = jax.jit(jax.vmap(env.init))(jax.random.split(init_key, batch))
            shape = self._state.observation.shape[1:]
            self._params = _random_network(params_key, shape, env.num_actions, blocks, channels, value_hidden)

        def forward(params: Any, observation: Any) -> tuple[Any, Any]:
            return _forward(params, observation.astype(jnp.float32))

        def recurrent_fn(params: Any, rng_key: Any, action: Any, state: Any) -> tuple[Any, Any]:
            del rng_key
            player = state.current_player
            state = jax.vmap(env.step)(state, action)
            logits, value = forward(params, state.observation)
            logits = logits - jnp.max(logits, axis=-1, keepdims=True)
            logits = jnp.where(state.legal_action_mask, logits, jnp.finfo(logits.dtype).min)
            reward = state.rewards[jnp.arange(state.rewards.shape[0]), player]
            value = jnp.where(state.terminated, 0.0, value)
            discount = jnp.where(state.terminated, 0.0, -jnp.ones_like(value))
            output = mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits, value=value)
            return output, state

        def move(params: Any, state: Any, key: Any) -> tuple[Any, Any]:
            search_key, reset_key = jax.random.split(key)
            logits, value = forward(params, state.observation)
            root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
            invalid = ~state.legal_action_mask
            if gumbel:
                output = mctx.gumbel_muzero_policy(
                    params,
                    search_key,
                    root,
                    recurrent_fn,
                    simulations,
                    invalid_actions=invalid,
                    max_num_considered_actions=16,
                )
            else:
                output = mctx.muzero_policy(
                    params,
                    search_key,
                    root,
                    recurrent_fn,
                    simulations,
                    invalid_actions=invalid,
                    dirichlet_alpha=0.3,
                    dirichlet_fraction=0.25,
                )
            keys = jax.random.split(reset_key, state.observation.shape[0])
            state = jax.vmap(auto_reset(env.step, env.init))(state, output.action, keys)
            return state, output.action_weights

        self._move = jax.jit(move)

    def play(self, moves: int = MOVES_A_ROUND) -> MctxRound:
        """``moves`` moves of every game in flight, timed (the first call also compiles)."""
        import jax

        started, cpu_started = time.perf_counter(), time.process_time()
        with jax.default_device(self.device):
            for _ in range(moves):
                self._key, key = jax.random.split(self._key)
                self._state, weights = self._move(self._params, self._state, key)
            jax.block_until_ready((self._state, weights))
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
        return MctxRound(moves * self.batch, seconds, cpu_seconds, moves * self.simulations)


def _random_network(key: Any, shape: tuple[int, ...], actions: int, blocks: int, channels: int, hidden: int) -> Any:
    """Random weights of our network's shape (He-initialised; batch norms folded: biases)."""
    import jax
    import jax.numpy as jnp

    height, width, planes = shape if len(shape) == 3 else (1, 1, int(math.prod(shape)))
    keys = iter(jax.random.split(key, 4 + 2 * blocks + 4))

    def conv(k: int, into: int, out: int) -> dict[str, Any]:
        scale = math.sqrt(2.0 / (k * k * into))
        return {"w": jax.random.normal(next(keys), (k, k, into, out)) * scale, "b": jnp.zeros(out)}

    def dense(into: int, out: int) -> dict[str, Any]:
        return {"w": jax.random.normal(next(keys), (into, out)) * math.sqrt(1.0 / into), "b": jnp.zeros(out)}

    cells = height * width
    return {
        "stem": conv(3, planes, channels),
        "tower": [(conv(3, channels, channels), conv(3, channels, channels)) for _ in range(blocks)],
        "policy": conv(1, channels, 2),
        "policy_out": dense(2 * cells, actions),
        "value": conv(1, channels, 1),
        "value_hidden": dense(cells, hidden),
        "value_out": dense(hidden, 1),
    }


def _forward(params: Any, observation: Any) -> tuple[Any, Any]:
    """Policy logits and values of a batch of pgx observations (NHWC; a flat one as 1x1)."""
    import jax
    import jax.numpy as jnp

    x = observation if observation.ndim == 4 else observation.reshape(observation.shape[0], 1, 1, -1)

    def conv(layer: dict[str, Any], x: Any) -> Any:
        out = jax.lax.conv_general_dilated(x, layer["w"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return out + layer["b"]

    x = jax.nn.relu(conv(params["stem"], x))
    for first, second in params["tower"]:
        x = jax.nn.relu(conv(second, jax.nn.relu(conv(first, x))) + x)
    policy = jax.nn.relu(conv(params["policy"], x)).reshape(x.shape[0], -1)
    logits = policy @ params["policy_out"]["w"] + params["policy_out"]["b"]
    value = jax.nn.relu(conv(params["value"], x)).reshape(x.shape[0], -1)
    value = jax.nn.relu(value @ params["value_hidden"]["w"] + params["value_hidden"]["b"])
    value = jnp.tanh(value @ params["value_out"]["w"] + params["value_out"]["b"])[:, 0]
    return logits, value
