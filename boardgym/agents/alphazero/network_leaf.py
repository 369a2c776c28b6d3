"""The network as a tree-search leaf evaluator (the ``Evaluator`` protocol of
``boardgym.agents.leaf``), so the same search runs on random rollouts or on a network.

``NetworkBatchEvaluator`` is the same network as the batched search's evaluator
(``boardgym.agents.batched_search``): tensors in, tensors out, on the network's device.

One ``evaluate`` call is one forward pass over the whole batch of leaves. Results are cached
by state while the weights stay the same (``clear_cache`` after every training step): small
games revisit the same positions many times within one round of self-play.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from boardgym.agents.alphazero.network import AlphaZeroNet, masked_policy
from boardgym.game import Game, HasSymmetries
from boardgym.types import BoardgymError


class NetworkEvaluator:
    """Priors (the masked policy) and values of ``network`` for the player to move.

    ``device``: where the network lives; ``amp``: float16 autocast (CUDA only);
    ``cache_size``: positions remembered between calls (0 disables the cache);
    ``symmetries``: average the network over the images of each position under the game's
    symmetries (``HasSymmetries``; Connect Four: the mirror), priors mapped back to the
    position's actions: one network call over all the images, a steadier estimate.
    """

    def __init__(
        self,
        network: AlphaZeroNet,
        *,
        device: str | torch.device = "cpu",
        amp: bool = False,
        cache_size: int = 200_000,
        symmetries: bool = False,
    ) -> None:
        self.network = network
        self.symmetries = symmetries
        self.device = torch.device(device)
        self.amp = amp and self.device.type == "cuda"
        self.cache_size = cache_size
        self._cache: dict[Any, tuple[np.ndarray, float]] = {}
        self.calls = 0
        self.positions = 0  # evaluated by the network, cache hits excluded
        self.seconds = 0.0  # wall time in the network calls (the results are copied back: no wait missed)

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        priors = np.empty((len(states), game.num_actions), dtype=np.float32)
        values = np.empty(len(states), dtype=np.float32)
        cache = self._cache
        missing: list[int] = []
        for i, state in enumerate(states):
            hit = cache.get(state) if self.cache_size else None
            if hit is None:
                missing.append(i)
            else:
                priors[i], values[i] = hit
        if missing:
            fresh_priors, fresh_values = self.forward(game, [states[i] for i in missing])
            priors[missing] = fresh_priors
            values[missing] = fresh_values
            if self.cache_size:
                if len(cache) + len(missing) > self.cache_size:
                    cache.clear()
                for row, i in enumerate(missing):
                    cache[states[i]] = (fresh_priors[row], float(fresh_values[row]))
        return priors, values

    def forward(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """One network call over ``states`` (no cache)."""
        if game.num_actions != self.network.num_actions:
            raise BoardgymError(
                f"the network has {self.network.num_actions} actions but {game!r} has {game.num_actions}; "
                "use a checkpoint trained on this game with these parameters"
            )
        self.calls += 1
        self.positions += len(states)
        if self.symmetries and isinstance(game, HasSymmetries):
            return self._averaged(game, states)
        planes = np.stack([game.observation(s, game.current_player(s)) for s in states])
        legal = np.stack([game.legal_mask(s) for s in states])
        started = time.perf_counter()
        found = self._call(planes, legal)
        self.seconds += time.perf_counter() - started
        return found

    def _averaged(self, game: Any, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """``forward`` over every image of each state, priors mapped back and averaged."""
        images, maps, owners = [], [], []
        for i, state in enumerate(states):
            player = game.current_player(state)
            for image, actions in game.symmetric_states(state):
                images.append(game.observation(image, player))
                maps.append(actions)
                owners.append(i)
        legal = np.stack([game.legal_mask(s) for s in states])
        # an image's legal actions are those of the state, moved: mask[actions[a]] = legal[a]
        image_legal = np.zeros((len(images), game.num_actions), dtype=bool)
        for row, (actions, i) in enumerate(zip(maps, owners, strict=True)):
            image_legal[row, actions] = legal[i]
        priors, values = self._call(np.stack(images), image_legal)
        total_priors = np.zeros((len(states), game.num_actions), dtype=np.float32)
        total_values = np.zeros(len(states), dtype=np.float32)
        counts = np.zeros(len(states), dtype=np.float32)
        for row, (actions, i) in enumerate(zip(maps, owners, strict=True)):
            total_priors[i] += priors[row][actions]  # the prior of a is the image's of actions[a]
            total_values[i] += values[row]
            counts[i] += 1
        return total_priors / counts[:, None], total_values / counts

    def _call(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One network call: masked priors and values of these planes."""
        network = self.network
        was_training = network.training
        if was_training:  # eval() walks every module: only when needed
            network.eval()
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.float16, enabled=self.amp):
            x = torch.from_numpy(planes).to(self.device, non_blocking=True)
            mask = torch.from_numpy(legal).to(self.device, non_blocking=True)
            logits, value = network(x)
            policy = masked_policy(logits, mask)
        if was_training:
            network.train()
        return policy.cpu().numpy(), value.float().cpu().numpy()

    def clear_cache(self) -> None:
        self._cache.clear()

    @property
    def mean_batch(self) -> float:
        return self.positions / self.calls if self.calls else 0.0

    def reset_stats(self) -> None:
        self.calls = self.positions = 0


class NetworkBatchEvaluator:
    """An AlphaZero network as a ``BatchEvaluator``: one forward pass per call, in inference
    mode, float16 autocast on CUDA when ``amp``; a network in half precision
    (``network.inference_copy``) is given its planes in its dtype and channels_last layout.
    ``calls`` and ``positions`` count its work; with ``timed``, ``seconds`` adds up the time of
    the calls: their wall time on a CPU, on CUDA the time between two events recorded around
    each call on its stream (read, with one wait, when ``seconds`` is asked for: no call waits
    for its result). A call recorded into a CUDA graph is not timed, and the search that
    records and replays it keeps the counts right (``batched_tactics``)."""

    def __init__(self, network: AlphaZeroNet, *, amp: bool = False, timed: bool = False) -> None:
        self.network = network
        parameter = next(network.parameters())
        self.device = parameter.device
        self.dtype = parameter.dtype
        self.amp = amp and self.device.type == "cuda" and self.dtype == torch.float32
        self.timed = timed
        self.calls = 0
        self.positions = 0
        self._seconds = 0.0
        self._events: list[tuple[Any, Any]] = []  # CUDA: (start, end) of the calls not yet added up

    @property
    def seconds(self) -> float:
        """The time spent in the calls so far (``timed`` only; 0 otherwise)."""
        if self._events:
            torch.cuda.synchronize(self.device)
            self._seconds += sum(start.elapsed_time(end) for start, end in self._events) / 1000
            self._events.clear()
        return self._seconds

    def __call__(self, planes: torch.Tensor, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        network = self.network
        was_training = network.training
        if was_training:
            network.eval()
        recorded = self.device.type == "cuda" and torch.cuda.is_current_stream_capturing()
        self.calls += 1
        self.positions += len(planes)
        on_cuda = self.timed and self.device.type == "cuda" and not recorded
        if on_cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        started = time.perf_counter() if self.timed else 0.0
        x = planes.to(self.device, self.dtype)
        if self.dtype != torch.float32 and x.dim() == 4:
            x = x.contiguous(memory_format=torch.channels_last)
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.float16, enabled=self.amp):
            logits, value = network(x)
            policy = masked_policy(logits, legal.to(self.device))
        if on_cuda:
            end.record()
            self._events.append((start, end))
        elif self.timed and not recorded:
            self._seconds += time.perf_counter() - started
        if was_training:
            network.train()
        return policy, value.float()

    def reset_stats(self) -> None:
        self.calls = self.positions = 0
        self._seconds = 0.0
        self._events.clear()
