"""The games: pure rules, one module per game, and ``GAMES``, the one table of them.

``make_game(name, **params)`` builds a game by the name that the CLI, agent specs, gym ids and
run folders share. Adding a game means writing its rules module and adding its line here; the
envs (``boardgym.envs``), agents and training scripts need no change. Nothing here imports
gymnasium, pettingzoo or torch.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from boardgym.game import Game
from boardgym.registry import Entry, check_value, lookup, parse_value
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class GameEntry(Entry):
    """``target``: the Game class; ``gym_name``: the id ``boardgym/<gym_name>-v0``;
    ``gym_entry_point``: the single-agent env class (puzzles bring their own)."""

    gym_name: str = ""
    gym_entry_point: str = "boardgym.envs.single_agent:SingleAgentEnv"


_HERE = "boardgym.games"

GAMES: dict[str, GameEntry] = {
    "tictactoe": GameEntry(f"{_HERE}.tictactoe:TicTacToe", "Tic-Tac-Toe, 3x3, 9 actions (cells)", "TicTacToe"),
    "connect_four": GameEntry(
        f"{_HERE}.connect_four:ConnectFour", "Connect Four, 7x6, 7 actions (columns)", "ConnectFour"
    ),
    "nim": GameEntry(f"{_HERE}.nim:Nim", "Nim (heaps, misere, max-take k); action = heap * T + take - 1", "Nim"),
    "quixo": GameEntry(f"{_HERE}.quixo:Quixo", "Quixo, 5x5 (size 3-5), 44 actions (border cube, end)", "Quixo"),
    "quarto": GameEntry(f"{_HERE}.quarto:Quarto", "Quarto, 4x4, 32 actions (place 0-15, choose 16-31)", "Quarto"),
    "hex": GameEntry(f"{_HERE}.hex:Hex", "Hex, 11x11 (size 3-19, swap rule), size^2 actions (cells)", "Hex"),
    "rastros": GameEntry(f"{_HERE}.rastros:Rastros", "Rastros, 8x8, 8 actions (step directions)", "Rastros"),
    "setcover": GameEntry(
        f"{_HERE}.setcover:SetCover",
        "set covering puzzle (1 player); action = take set i",
        "SetCover",
        "boardgym.envs.setcover_env:SetCoverEnv",
    ),
    "blackbox": GameEntry(
        f"{_HERE}.blackbox:BlackBox",
        "lab 9 black-box bits problem (1 player); gym env: one genome per step",
        "BlackBox",
        "boardgym.envs.blackbox_env:BlackBoxEnv",
    ),
}


def game_class(name: str) -> type[Game]:
    """The Game class registered as ``name``."""
    cls: type[Game] = lookup(GAMES, name, "game").load()
    return cls


def make_game(name: str, **params: Any) -> Game:
    """Build a game by its registry name, e.g. ``make_game("nim", heaps=(3, 4, 5), misere=True)``.

    Every value is typed by the constructor's annotations: text is read (``misere="false"``
    is ``False``, ``size="7"`` is ``7``), so a parameter typed at a prompt means what it says,
    and other values are checked (``misere=2``, ``heaps=(3.5,)`` and ``size=5.0`` are refused,
    never truncated or taken as true)."""
    cls = game_class(name)
    annotations = game_parameters(cls)
    unknown = sorted(set(params) - set(annotations))
    if unknown:
        raise BoardgymError(
            f"unknown parameter(s) {', '.join(unknown)} for game {name!r}; "
            f"it takes: {', '.join(annotations) or 'no parameters'}"
        )
    hints = _hints(cls)
    typed = {
        key: parse_value(value, annotations[key], name=key)
        if isinstance(value, str)
        else check_value(value, hints.get(key, Any), name=key)
        for key, value in params.items()
    }
    return cls(**typed)


def game_parameters(cls: type[Game]) -> dict[str, Any]:
    """The constructor parameters of a Game class with their annotations (``Any`` where none),
    where an annotation that admits text keeps the text for the constructor to read."""
    hints = _hints(cls)
    params: dict[str, Any] = {}
    for param in inspect.signature(cls.__init__).parameters.values():
        if param.name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, Any)
        params[param.name] = str if _admits_text(annotation) else annotation
    return params


def parse_game_params(items: Iterable[str] | None, game: str | None = None) -> dict[str, Any]:
    """``["size=5", "heaps=3,4,5", "misere=true"]`` -> ``{"size": 5, "heaps": (3, 4, 5), "misere": True}``
    (the ``-p KEY=VALUE`` options of the CLI). With ``game``, each value is read by the
    annotation of that game's parameter; without, the text is kept for ``make_game`` to read."""
    annotations = game_parameters(game_class(game)) if game is not None else {}
    params: dict[str, Any] = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise BoardgymError(f"cannot read game parameter {item!r}; write KEY=VALUE, e.g. -p size=7")
        if key in params:
            raise BoardgymError(f"game parameter {key!r} is given twice; give it once")
        params[key] = parse_value(text, annotations[key], name=key) if key in annotations else text.strip()
    return params


def _hints(cls: type[Game]) -> dict[str, Any]:
    return typing.get_type_hints(cls.__init__)


def _admits_text(annotation: Any) -> bool:
    if annotation is str:
        return True
    origin = typing.get_origin(annotation)
    return origin in (typing.Union, types.UnionType) and str in typing.get_args(annotation)


__all__ = ["GAMES", "GameEntry", "game_class", "game_parameters", "make_game", "parse_game_params"]
