"""The table of games: one line per game, used by ``make_game``, the gym ids, the CLI,
agent specs and run folders. Adding a game means adding its line here."""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any

from boardgym.game import Game
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class GameEntry:
    """``rules``: "module:Class" of the Game; ``gym_name``: the id ``boardgym/<gym_name>-v0``;
    ``gym_entry_point``: the single-agent env class (puzzles bring their own)."""

    rules: str
    gym_name: str
    summary: str
    gym_entry_point: str = "boardgym.envs.single_agent:SingleAgentEnv"


GAMES: dict[str, GameEntry] = {
    "tictactoe": GameEntry("boardgym.envs.tictactoe:TicTacToe", "TicTacToe", "Tic-Tac-Toe, 3x3, 9 actions (cells)"),
    "connect_four": GameEntry(
        "boardgym.envs.connect_four:ConnectFour", "ConnectFour", "Connect Four, 7x6, 7 actions (columns)"
    ),
    "nim": GameEntry("boardgym.envs.nim:Nim", "Nim", "Nim (heaps, misere, max-take k); action = heap * T + take - 1"),
    "quixo": GameEntry("boardgym.envs.quixo:Quixo", "Quixo", "Quixo, 5x5 (size 3-5), 44 actions (border cube, end)"),
    "quarto": GameEntry("boardgym.envs.quarto:Quarto", "Quarto", "Quarto, 4x4, 32 actions (place 0-15, choose 16-31)"),
    "hex": GameEntry("boardgym.envs.hex:Hex", "Hex", "Hex, 11x11 (size 3-19, swap rule), size^2 actions (cells)"),
    "rastros": GameEntry("boardgym.envs.rastros:Rastros", "Rastros", "Rastros, 8x8, 8 actions (step directions)"),
    "setcover": GameEntry(
        "boardgym.envs.setcover:SetCover",
        "SetCover",
        "set covering puzzle (1 player); action = take set i",
        "boardgym.envs.setcover_env:SetCoverEnv",
    ),
    "blackbox": GameEntry(
        "boardgym.envs.blackbox:BlackBox",
        "BlackBox",
        "lab 9 black-box bits problem (1 player); gym env: one genome per step",
        "boardgym.envs.blackbox_env:BlackBoxEnv",
    ),
}


def game_class(name: str) -> type:
    entry = _entry(name)
    module, _, cls = entry.rules.partition(":")
    return getattr(importlib.import_module(module), cls)


def make_game(name: str, **params: Any) -> Game:
    """Build a game by its registry name, e.g. ``make_game("nim", heaps=(3, 4, 5), misere=True)``."""
    cls = game_class(name)
    accepted = [p for p in inspect.signature(cls).parameters if p != "self"]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise BoardgymError(
            f"unknown parameter(s) {', '.join(unknown)} for game {name!r}; "
            f"it takes: {', '.join(accepted) or 'no parameters'}"
        )
    return cls(**params)


def _entry(name: str) -> GameEntry:
    try:
        return GAMES[name]
    except KeyError:
        raise BoardgymError(f"unknown game {name!r}; known games: {', '.join(GAMES)}") from None


def parse_game_params(items: list[str] | None) -> dict[str, Any]:
    """``["size=5", "heaps=3,4,5", "misere=true"]`` -> ``{"size": 5, "heaps": (3, 4, 5), "misere": True}``
    (the ``--param KEY=VALUE`` options of the CLI)."""
    params: dict[str, Any] = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise BoardgymError(f"cannot read game parameter {item!r}; write KEY=VALUE, e.g. --param size=7")
        params[key.strip()] = _parse_value(text.strip())
    return params


def _parse_value(text: str) -> Any:
    if "," in text:
        return tuple(_parse_value(part) for part in text.split(",") if part.strip())
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
