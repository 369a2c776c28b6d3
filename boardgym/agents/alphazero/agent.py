"""The AlphaZero player: PUCT search guided by a trained network.

``make_agent("alphazero:checkpoint=runs/tictactoe/alphazero/s0-.../checkpoint.pt,simulations=200", game)``,
or ``make_agent("alphazero:pretrained=true", game)`` for the network shipped with the package
(``boardgym.agents.alphazero.pretrained``).
The search is ``boardgym.agents.mcts.MCTS`` with ``c_puct`` set and a ``NetworkEvaluator``:
the same class that plays with random rollouts. ``simulations=0`` plays the network's policy
alone (the legal move of highest prior).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardgym.agents.alphazero.network import AlphaZeroNet
from boardgym.agents.alphazero.network_leaf import NetworkBatchEvaluator, NetworkEvaluator
from boardgym.agents.alphazero.pretrained import pretrained_file, to_float32
from boardgym.agents.alphazero.searches import search_kind
from boardgym.agents.base import Agent, BaseAgent
from boardgym.agents.batched_search import BatchedMCTS
from boardgym.agents.mcts import MCTS
from boardgym.batch import batched
from boardgym.batch.core import resolve_device as _resolve_device
from boardgym.checkpoints import (
    check_finite,
    check_parameter_count,
    checkpoint_content,
    load_checkpoint,
    save_checkpoint,
)
from boardgym.game import Game
from boardgym.types import Action, BoardgymError

FORMAT = "boardgym.alphazero/1"
NETWORK_KEYS = ("architecture", "state_dict")


class AlphaZeroAgent(BaseAgent):
    """Plays the most visited move of a PUCT search over the network's priors and values.

    Parameters: ``checkpoint`` (a file written by ``boardgym train alphazero``) or
    ``pretrained`` (true: the network shipped for this game: tictactoe, connect_four, quixo 5x5, hex 7x7),
    ``simulations`` per move (0: the network's policy alone), ``c_puct`` (exploration),
    ``batch`` (leaves per network call, virtual loss between them), ``temperature`` (0: most
    visited move; 1: draw in proportion to visits), ``temperature_moves`` (apply the
    temperature to this many of the agent's first moves of each game only; 0: to every move), ``reuse`` (keep the subtree of the move
    played), ``device`` (cpu, cuda or auto), ``threads`` (torch CPU threads of this process;
    1 suits the small networks of board games, 0 leaves torch's setting alone), ``symmetries``
    (true: average the network over the board's symmetries at every leaf, e.g. Connect Four's
    mirror, in one call over all the images: a steadier estimate, for a batch as many times
    larger as the board has symmetries (2 on Connect Four and Hex, 8 on tic-tac-toe and
    Quixo); false, the default: the position alone, as self-play evaluates it), ``search``
    (``tree``, the default: ``MCTS``; ``batched``: the tensor search of
    ``boardgym.agents.batched_search`` over the game's batched rules on ``device``, nothing
    reused between moves; ``act_batch`` searches many games' positions in one call, as
    ``boardgym evaluate`` does with ``--batch-games``), ``gumbel`` (with ``search=batched``: Gumbel AlphaZero's
    root, its deterministic choice: sequential halving without the Gumbel sample).
    """

    def __init__(
        self,
        game: Game,
        *,
        seed: int | None = None,
        checkpoint: Path | None = None,
        pretrained: bool = False,
        simulations: int = 200,
        c_puct: float = 1.5,
        batch: int = 1,
        temperature: float = 0.0,
        temperature_moves: int = 0,
        reuse: bool = True,
        device: str = "cpu",
        threads: int = 1,
        symmetries: bool = False,
        search: str = "tree",
        gumbel: bool = False,
        network: AlphaZeroNet | None = None,
    ) -> None:
        super().__init__(game, seed=seed)
        if threads > 0 and resolve_device(device).type == "cpu":
            torch.set_num_threads(threads)
        if simulations < 0:
            raise BoardgymError(f"alphazero simulations={simulations} must be 0 (policy only) or more")
        if not 0 <= temperature < math.inf:
            raise BoardgymError(f"alphazero temperature={temperature} must be a finite number, 0 or more")
        if temperature_moves < 0:
            raise BoardgymError(f"alphazero temperature_moves={temperature_moves} must be 0 or more")
        kind = search_kind(search, "alphazero search=", gumbel=gumbel, gumbel_option="alphazero gumbel=true")
        if pretrained and (checkpoint is not None or network is not None):
            raise BoardgymError("alphazero takes either pretrained=true or checkpoint=PATH, not both; drop one of them")
        if pretrained:
            network = load_network(pretrained_file(game), game, device=resolve_device(device))
        elif network is None:
            network = load_network(checkpoint, game, device=resolve_device(device))
        self.network = network
        self.simulations = simulations
        self.temperature = temperature
        self.temperature_moves = temperature_moves
        self.moves_played = 0  # this game's, for temperature_moves
        self.reuse = reuse
        self.evaluator = NetworkEvaluator(
            network, device=next(network.parameters()).device, cache_size=50_000, symmetries=symmetries
        )
        self.tree = MCTS(
            game, self.evaluator, simulations=max(1, simulations), c_puct=c_puct, batch_size=batch, rng=self.rng
        )
        self.batched_search: BatchedMCTS | None = None
        if kind.batched_rules:
            rules = batched(game, device=next(network.parameters()).device)
            self.batched_search = BatchedMCTS(
                rules,
                NetworkBatchEvaluator(network),
                simulations=max(1, simulations),
                c_puct=c_puct,
                gumbel=gumbel,
                cache=50_000,
            )

    def act(self, game: Game, state: Any) -> Action:
        if self.simulations == 0:
            priors, values = self.evaluator.evaluate(game, [state])
            legal = game.legal_actions(state)
            self.last_info = {"policy": {int(a): float(priors[0][a]) for a in legal}, "value": float(values[0])}
            return int(np.argmax(priors[0]))
        if self.batched_search is not None:
            return self._act_batched(state)
        if not self.reuse:
            self.tree.reset()
        root = self.tree.search(state)
        sampling = self.temperature_moves == 0 or self.moves_played < self.temperature_moves
        action = self.tree.choose(root, self.temperature if sampling else 0.0)
        self.last_info = self.tree.summary(root)
        self.moves_played += 1
        self.tree.advance(action)
        return action

    def _act_batched(self, state: Any) -> Action:
        """One move of the batched search (a batch of one position)."""
        return self.act_batch(self.game, [state], [self])[0]

    @property
    def acts_in_batches(self) -> bool:
        """True with ``search=batched`` (and simulations): ``act_batch`` searches every state
        given in one ``BatchedMCTS`` call (``boardgym.agents.base.BatchAgent``)."""
        return self.batched_search is not None and self.simulations > 0

    @property
    def batch_key(self) -> Hashable:
        return id(self.batched_search)

    def fork(self) -> AlphaZeroAgent:
        """A player for another game that shares this one's network, caches and search, with
        a generator and move count of its own (reset it for its game); for ``act_batch``."""
        other = copy.copy(self)
        other.rng = copy.deepcopy(self.rng)  # reset per game, as any agent
        other.moves_played = 0
        other.last_info = {}
        other.tree = copy.copy(self.tree)  # the tree search's own tree (search=tree keeps it between moves)
        other.tree.reset()
        other.tree.reseed(other.rng)
        return other

    def act_batch(self, game: Game, states: Sequence[Any], players: Sequence[Agent]) -> list[Action]:
        """``players[k]``'s move in ``states[k]`` (this agent and its forks), every state
        searched in one call of the batched search: one network call a simulation for all. A
        state's search does not depend on the others (its tree is its own row; only the
        network's float rounding in a larger batch differs, about 1e-7 of a value). Each
        player's generator draws its temperature's sample, as ``act`` does."""
        if len(states) != len(players):
            raise BoardgymError(f"act_batch got {len(states)} states for {len(players)} players; give one each")
        if not states:
            return []
        if not self.acts_in_batches:
            return [player.act(game, state) for player, state in zip(players, states, strict=True)]
        search = self.batched_search
        assert search is not None
        started = time.perf_counter()
        found = search.search(search.rules.from_scalar_states(list(states)), self.rng, gumbel_noise=False)
        seconds = (time.perf_counter() - started) / len(states)
        visits_all, chosen, values = found.visits.cpu(), found.action.cpu().tolist(), found.value.cpu().tolist()
        actions: list[Action] = []
        for k, player in enumerate(players):
            if not isinstance(player, AlphaZeroAgent):
                raise BoardgymError(f"act_batch of {self.spec!r} was handed {player!r}; give it its own forks only")
            sampling = player.temperature_moves == 0 or player.moves_played < player.temperature_moves
            if sampling and player.temperature > 0 and not search.gumbel:
                weights = visits_all[k].double().numpy() ** (1.0 / player.temperature)
                action = int(player.rng.choice(len(weights), p=weights / weights.sum()))
            else:
                action = int(chosen[k])
            visits = visits_all[k].tolist()
            player.last_info = {
                "visits": {a: int(n) for a, n in enumerate(visits) if n > 0},
                "value": float(values[k]),
                "simulations": search.simulations,
                "seconds": seconds,
            }
            player.moves_played += 1
            actions.append(action)
        return actions

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.moves_played = 0
        self.tree.reset()
        self.tree.rng = self.rng


def resolve_device(device: str, option: str = "alphazero device=") -> torch.device:
    """``auto`` -> CUDA when available, else CPU; ``cpu``, ``cuda``, ``cuda:N`` checked (the
    batched rules' ``resolve_device``). ``option`` names the setting in the messages."""
    return _resolve_device(device, option)


def checkpoint_payload(network: AlphaZeroNet, **extra: Any) -> dict[str, Any]:
    """What a checkpoint holds besides the stamps of ``save_checkpoint``: the network's
    architecture and tensors (plain types only: ``weights_only=True`` loads it)."""
    return {
        "architecture": network.architecture(),
        "state_dict": {k: v.detach().cpu() for k, v in network.state_dict().items()},
        **extra,
    }


def save_network(path: Path | str, network: AlphaZeroNet, game: Game, **extra: Any) -> Path:
    """Write ``network`` (and ``extra``) as an AlphaZero checkpoint for ``game``."""
    return save_checkpoint(path, checkpoint_payload(network, **extra), format=FORMAT, game=game)


def load_network(path: Path | str | None, game: Game, device: str | torch.device = "cpu") -> AlphaZeroNet:
    """The network stored in ``path``, checked against ``game``, in eval mode on ``device``."""
    payload = load_checkpoint(path, format=FORMAT, game=game, required=NETWORK_KEYS, method="alphazero")
    with checkpoint_content(path, method="alphazero", game=game):
        return network_from_payload(payload, device)


def network_from_payload(payload: dict[str, Any], device: str | torch.device = "cpu") -> AlphaZeroNet:
    """The network of a payload that ``load_checkpoint`` has checked."""
    architecture, weights = payload["architecture"], payload["state_dict"]
    if not isinstance(weights, dict):
        raise TypeError("state_dict is not a dict of tensors")
    with torch.device("meta"):  # the architecture's shapes, bounded, no memory: a file may not ask for a huge network
        declared = AlphaZeroNet.from_architecture(architecture).state_dict()
    shapes = {key: tuple(value.shape) for key, value in declared.items()}
    check_parameter_count(sum(value.numel() for value in declared.values()), "the checkpoint")
    stored = {key: tuple(value.shape) if torch.is_tensor(value) else None for key, value in weights.items()}
    if shapes != stored:
        wrong = sorted(set(shapes) ^ set(stored)) or sorted(k for k in shapes if shapes[k] != stored[k])
        raise ValueError(f"the weights do not match the architecture (first at {wrong[0]})")
    check_finite(weights, "state_dict")
    network = AlphaZeroNet.from_architecture(architecture)
    network.load_state_dict(to_float32(weights))  # shipped files hold float16
    return network.to(device).eval()
