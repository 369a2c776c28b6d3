"""Random play on the batched rules captured as one CUDA graph at a fixed batch: each
``replay()`` draws a random legal action for every game and steps them all, auto-reset on, with
one launch instead of one per tensor operation (an eager step is launch-bound on a GPU).

The captured code is the sync-free path (``BatchedGame.step_unchecked`` and ``random_actions``
with ``sync_free`` on): no host read, every shape from the batch size, so the graph holds for
every replay. The state lives in static buffers, updated in place by each replay; ``state``
is a view of them (copy it to keep one). The random draws come from the device's default
generator (``torch.cuda.manual_seed``), which CUDA graphs advance per replay.

CUDA only: a CPU has no graphs to capture (``CapturedPlay`` there is one sentence). The bench
(``boardgym bench batched``) uses it on CUDA unless ``--no-capture``, and falls back to the
eager loop, saying why, where capture fails.
"""

from __future__ import annotations

import copy
from typing import Any

import torch

from boardgym.batch.core import BatchedGame
from boardgym.types import BoardgymError


class CapturedPlay:
    """Random play with auto-reset on ``rules`` (on CUDA), ``batch`` games, as one CUDA graph."""

    def __init__(self, rules: BatchedGame[Any], batch: int, warmup: int = 3) -> None:
        if rules.device.type != "cuda":
            raise BoardgymError(f"a captured step needs CUDA; these rules are on {rules.device}: step them eagerly")
        free = copy.copy(rules)
        free.sync_free = True
        self.rules = free
        self.state = free.init(batch)
        stream = torch.cuda.Stream(device=free.device)
        stream.wait_stream(torch.cuda.current_stream(free.device))
        with torch.cuda.stream(stream):  # warm up: tables, caches and the allocator, off the capture
            for _ in range(warmup):
                self._advance()
        torch.cuda.current_stream(free.device).wait_stream(stream)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self._advance()

    def _advance(self) -> None:
        """One random step of every game, written into the state's own tensors."""
        state = self.state
        after = self.rules.step_unchecked(state, self.rules.random_actions(state), auto_reset=True)
        for name, value in zip(state._fields, state, strict=True):
            value.copy_(getattr(after, name))

    def replay(self) -> None:
        """One more random step of every game (asynchronous, as any CUDA work)."""
        self.graph.replay()
