"""AlphaZero networks shipped with the package: ``alphazero:pretrained=true``.

One file per game in this folder (``<game>.pt``, an ordinary AlphaZero checkpoint whose
tensors are stored in float16 to keep the package small; loading turns them back into
float32), each trained for one set of game parameters (the game's default, or the size named
in its ``GAMES`` entry). The command that trained each one and its budget are in the game's
entry (``pretrained=``, a ``boardgym.games.Pretrained``) and in docs/pretrained.md.
``python -m boardgym.agents.alphazero.pretrained runs/<game>/alphazero/<run>/final.pt`` writes
a run's network here.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import torch

from boardgym.checkpoints import game_signature
from boardgym.game import Game
from boardgym.games import GAMES, Pretrained, entry_of, param_text
from boardgym.types import BoardgymError


def shipped_networks() -> dict[str, Pretrained]:
    """The shipped networks by game: each game's ``pretrained`` in ``GAMES``."""
    return {name: entry.pretrained for name, entry in GAMES.items() if entry.pretrained is not None}


def shipped_file(game_name: str) -> Path:
    """Where the network for ``game_name`` lives inside the installed package."""
    return Path(str(resources.files(__package__).joinpath(f"{game_name}.pt")))


def pretrained_file(game: Game) -> Path:
    """The shipped network for ``game``, after checking that one exists for ``game`` with
    these parameters; otherwise one sentence that says what exists and how to get one."""
    game_entry = entry_of(game)
    entry = game_entry.pretrained if game_entry is not None else None
    train = f"boardgym train alphazero --game {game.name}"
    if entry is None:
        shipped = ", ".join(e.describe(n) for n, e in shipped_networks().items()) or "none"
        raise BoardgymError(
            f"no pretrained alphazero network ships for {game.name} (pretrained: {shipped}); "
            f"train one with `{train}` and pass alphazero:checkpoint=PATH"
        )
    wanted = game_signature(_Named(game.name, {**game.params(), **entry.params}))
    if game_signature(game) != wanted:
        options = " ".join(f"-p {k}={param_text(v)}" for k, v in entry.params.items())
        hint = f" (boardgym play {game.name} {options} ...)" if options else ""
        raise BoardgymError(
            f"the pretrained alphazero network for {game.name} was trained on {entry.describe(game.name)}, "
            f"not on {game.name} {' '.join(f'{k}={param_text(v)}' for k, v in game.params().items())}; "
            f"play that size{hint}, or train one for these parameters with `{train}` and pass "
            "alphazero:checkpoint=PATH"
        )
    path = shipped_file(game.name)
    if not path.is_file():
        raise BoardgymError(
            f"the pretrained alphazero network for {game.name} is missing from this installation ({str(path)!r}); "
            "reinstall boardgym"
        )
    return path


def to_float32(state_dict: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Floating tensors as float32 (shipped files store them in float16), the rest as they are."""
    return {k: v.float() if v.is_floating_point() else v for k, v in state_dict.items()}


def to_float16(state_dict: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Floating tensors as float16 for shipping, the rest (BatchNorm counters) as they are."""
    return {k: v.detach().cpu().half() if v.is_floating_point() else v.detach().cpu() for k, v in state_dict.items()}


@dataclass
class _Named:
    """A game name with parameters, for ``game_signature`` without building the game."""

    name: str
    values: dict[str, Any]

    def params(self) -> dict[str, Any]:
        return self.values
