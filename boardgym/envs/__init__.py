"""Environments over the rules in ``boardgym.games``: the PettingZoo AEC modules
``<game>_v0`` (one generic env, ``core.py``), the single-agent Gymnasium env registered as
``boardgym/<Game>-v0`` (``single_agent.py``) and the puzzles' own Gymnasium envs.

``aec_env("hex", size=7)`` is the AEC env of any registered two-player game: its ``<game>_v0``
module's ``env`` where its ``GAMES`` entry names one, else the same generic env built from the
game's name (a new game needs no env module to have one)."""

from __future__ import annotations

from typing import Any

from boardgym.games import entry_of
from boardgym.registry import load


def aec_env(game: str, **kwargs: Any) -> Any:
    """``env(**kwargs)`` of the game's PettingZoo module (``render_mode`` and the game's
    parameters), or of the generic one (``boardgym.envs.core.make_env_fns``)."""
    entry = entry_of(game)
    if entry is not None and entry.env:
        return load(f"{entry.env}:env")(**kwargs)
    from boardgym.envs.core import make_env_fns

    return make_env_fns(game)[0](**kwargs)
