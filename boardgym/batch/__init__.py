"""Batched rules in torch: thousands of games of one kind stepped in one call, on the CPU or a
GPU (``boardgym.batch.core`` says how a batch looks and steps). Each game's batched rules are
named by its ``GAMES`` entry (``batched=``)::

    from boardgym.batch import batched
    rules = batched("connect_four", device="cuda")
    state = rules.init(4096)
    state = rules.step(state, rules.random_actions(state), auto_reset=True)

This is the one layer above ``boardgym.games`` that imports torch for the rules; the rules
themselves stay free of it.
"""

from __future__ import annotations

from typing import Any

import torch

from boardgym.batch.core import COMMON, BatchedGame, cat_rows, put_rows, resolve_device, take_rows, where_rows
from boardgym.game import Game
from boardgym.games import GAMES, entry_of, make_game
from boardgym.registry import load, lookup
from boardgym.types import BoardgymError


def batched(
    game: str | Game, device: str | torch.device = "cpu", *, sync_free: bool | None = None, **params: Any
) -> BatchedGame[Any]:
    """The batched rules of ``game`` (a name and its parameters, or a ``Game``) on ``device``;
    ``sync_free`` (default: on off the CPU) never reads a value on the host (see ``core``)."""
    if isinstance(game, str):
        lookup(GAMES, game, "game")
        game = make_game(game, **params)
    elif params:
        raise BoardgymError("give the game's parameters to make_game, or its name and the parameters here")
    entry = entry_of(game)
    if entry is None or not entry.batched:
        have = ", ".join(name for name, known in GAMES.items() if known.batched)
        raise BoardgymError(f"{game.name} has no batched rules; games with them: {have}")
    rules: BatchedGame[Any] = load(entry.batched)(game, device=device)
    if sync_free is not None:
        rules.sync_free = bool(sync_free)
    return rules


__all__ = ["COMMON", "BatchedGame", "batched", "cat_rows", "put_rows", "resolve_device", "take_rows", "where_rows"]
