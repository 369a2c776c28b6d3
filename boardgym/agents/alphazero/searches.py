"""The kinds of AlphaZero search, in one table: what each is called, what it needs and which
self-play engine plays with it. The trainer's ``--search``, its self-play (in this process, in
worker processes, on Ray actors) and the ``alphazero`` agent's ``search=`` all read this table,
so a kind is chosen by name in this one place.

- ``tree``: a scalar ``MCTS`` tree per game (``boardgym.agents.mcts``), its network calls cached;
  the best on CPUs. Self-play: ``boardgym.train.alphazero.tree_selfplay.TreeSelfPlay``.
- ``batched``: every game as tensors on one device and one batched search
  (``boardgym.agents.batched_search``): one network call a simulation for every game; for GPUs,
  games with batched rules only. Self-play: ``boardgym.train.alphazero.batched_selfplay.BatchedSelfPlay``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from boardgym.types import BoardgymError


@dataclass(frozen=True)
class SearchKind:
    """One kind of search: its name, whether it plays on the game's batched rules (every game
    of a process as one batch of tensors, so one process feeds a GPU), whether it has Gumbel
    AlphaZero's root, and where its self-play engine is (``module:class``)."""

    name: str
    batched_rules: bool
    gumbel_root: bool
    engine: str

    def selfplay_engine(self) -> type[Any]:
        """The self-play engine's class (imported when first asked for)."""
        module, _, name = self.engine.partition(":")
        return getattr(importlib.import_module(module), name)


SEARCHES: dict[str, SearchKind] = {
    "tree": SearchKind("tree", False, False, "boardgym.train.alphazero.tree_selfplay:TreeSelfPlay"),
    "batched": SearchKind("batched", True, True, "boardgym.train.alphazero.batched_selfplay:BatchedSelfPlay"),
}


def search_kind(
    name: str, option: str = "--search", gumbel: bool = False, gumbel_option: str = "--gumbel"
) -> SearchKind:
    """The kind called ``name``; an unknown name, or ``gumbel`` with a kind that has no Gumbel
    root, is one sentence naming ``option`` (and ``gumbel_option``)."""
    kind = SEARCHES.get(name)
    given = option if option.endswith("=") else option + " "  # "--search batched", "search=batched"
    if kind is None:
        raise BoardgymError(f"{given}{name!r} is not a search; use {' or '.join(SEARCHES)}")
    if gumbel and not kind.gumbel_root:
        roots = " or ".join(n for n, k in SEARCHES.items() if k.gumbel_root)
        raise BoardgymError(
            f"{gumbel_option} is a root of the {roots} search, not of {name}; add {given}{roots}, or drop "
            f"{gumbel_option}"
        )
    return kind
