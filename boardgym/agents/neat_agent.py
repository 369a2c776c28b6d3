"""Play with a network evolved by ``boardgym train neat`` (NEAT, neat-python).

Two ways for a network to choose a move (the run's ``mode``):

- ``policy``: the network reads the observation planes of the position, from the mover's
  point of view, and has one output per action; the best-scoring legal action is played.
- ``afterstate``: the network reads the planes of the position each legal move leaves (still
  from the mover's point of view) and scores it with its single output; the best-scoring
  move is played. A move that ends the game is scored by the rules instead: a win is taken
  at once, a loss avoided when there is anything else.

The checkpoint stores the winning genome's feed-forward phenotype as JSON (nodes in
evaluation order with bias, response, activation and weighted inputs), so it loads with
``torch.load(weights_only=True)`` and plays without neat-python. ``Network`` evaluates it one
layer at a time with numpy, for a whole batch of positions at once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from boardgym.agents.base import BaseAgent
from boardgym.checkpoints import checkpoint_content, load_checkpoint
from boardgym.game import Game
from boardgym.types import Action, BoardgymError

FORMAT = "boardgym.neat/1"
MODES = ("policy", "afterstate")

_ACTIVATIONS = {
    "tanh": lambda z: np.tanh(np.clip(2.5 * z, -60.0, 60.0)),
    "sigmoid": lambda z: 1.0 / (1.0 + np.exp(-np.clip(5.0 * z, -60.0, 60.0))),
    "relu": lambda z: np.maximum(z, 0.0),
    "identity": lambda z: z,
}
ACTIVATIONS = tuple(_ACTIVATIONS)


class Network:
    """A feed-forward phenotype: ``inputs`` and ``outputs`` node keys, and ``nodes`` in
    evaluation order as ``[layer, key, bias, response, activation, [[input, weight], ...]]``."""

    def __init__(self, inputs: list[int], outputs: list[int], nodes: list[list[Any]]) -> None:
        self.spec = {"inputs": list(inputs), "outputs": list(outputs), "nodes": nodes}
        order = list(inputs) + [node[1] for node in nodes]
        index = {key: i for i, key in enumerate(order)}
        self.size = len(order)
        self.num_inputs = len(inputs)
        self.layers: list[Any] = []  # (index, weights, bias, response, activation) tuples or _MixedLayer
        for layer in sorted({node[0] for node in nodes}):
            members = [node for node in nodes if node[0] == layer]
            weights = np.zeros((self.size, len(members)))
            for column, (_, _, _, _, _, links) in enumerate(members):
                for source, weight in links:
                    weights[index[source], column] += weight
            activation = members[0][4]
            if any(node[4] != activation for node in members) or activation not in _ACTIVATIONS:
                self.layers.append(_MixedLayer(members, index, weights))
                continue
            self.layers.append(
                (
                    np.array([index[node[1]] for node in members]),
                    weights,
                    np.array([node[2] for node in members]),
                    np.array([node[3] for node in members]),
                    _ACTIVATIONS[activation],
                )
            )
        # Outputs the genome does not connect stay 0, as in neat-python.
        self.output_index = np.array([index.get(key, -1) for key in outputs])

    @classmethod
    def from_json(cls, text: str) -> Network:
        spec = json.loads(text)
        return cls(spec["inputs"], spec["outputs"], spec["nodes"])

    def to_json(self) -> str:
        return json.dumps(self.spec)

    def activate(self, batch: np.ndarray) -> np.ndarray:
        """Outputs ``(len(batch), outputs)`` for inputs ``(len(batch), inputs)``."""
        values = np.zeros((batch.shape[0], self.size + 1))  # the extra last column reads 0
        values[:, : self.num_inputs] = batch
        for layer in self.layers:
            if isinstance(layer, _MixedLayer):
                layer.apply(values)
                continue
            positions, weights, bias, response, activation = layer
            values[:, positions] = activation(bias + response * (values[:, : self.size] @ weights))
        return values[:, self.output_index]


class _MixedLayer:
    """A layer whose nodes use different activations: evaluated node by node."""

    def __init__(self, members: list[list[Any]], index: dict[int, int], weights: np.ndarray) -> None:
        unknown = {node[4] for node in members} - set(_ACTIVATIONS)
        if unknown:
            raise BoardgymError(f"activation(s) {', '.join(sorted(unknown))} are not supported; use {ACTIVATIONS}")
        self.members = [
            (index[node[1]], weights[:, i], node[2], node[3], _ACTIVATIONS[node[4]]) for i, node in enumerate(members)
        ]

    def apply(self, values: np.ndarray) -> None:
        size = values.shape[1] - 1
        for position, weights, bias, response, activation in self.members:
            values[:, position] = activation(bias + response * (values[:, :size] @ weights))


def choose_move(game: Game, network: Network, mode: str, state: Any, rng: np.random.Generator) -> Action:
    """The move ``network`` plays in ``state`` (see the module docstring); ties at random."""
    player = game.current_player(state)
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    if mode == "policy":
        scores = network.activate(game.observation(state, player).reshape(1, -1))[0][legal]
    else:
        children = [game.apply(state, action) for action in legal]
        planes = np.stack([game.observation(child, player).reshape(-1) for child in children])
        scores = network.activate(planes)[:, 0]
        for i, child in enumerate(children):
            if game.is_terminal(child):
                result = game.returns(child)[player]
                scores[i] = 1e9 if result > 0 else -1e9 if result < 0 else scores[i]
    best = np.flatnonzero(scores >= scores.max() - 1e-12)
    return legal[int(best[rng.integers(len(best))])] if len(best) > 1 else legal[int(best[0])]


class NeatAgent(BaseAgent):
    """The champion network of a ``boardgym train neat`` run."""

    def __init__(self, game: Game, *, seed: int | None = None, checkpoint: Path | None = None) -> None:
        super().__init__(game, seed=seed)
        payload = load_checkpoint(checkpoint, format=FORMAT, game=game, required=("mode", "network"), method="neat")
        with checkpoint_content(checkpoint, method="neat", game=game):
            if payload["mode"] not in MODES:
                raise ValueError(f"mode {payload['mode']!r} is none of {', '.join(MODES)}")
            self.mode = str(payload["mode"])
            self.network = Network.from_json(payload["network"])
            # One move from the start: the network must read this game's planes and score its actions.
            choose_move(game, self.network, self.mode, game.initial_state(), np.random.default_rng(0))

    def act(self, game: Game, state: Any) -> Action:
        return choose_move(game, self.network, self.mode, state, self.rng)
