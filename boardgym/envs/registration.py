"""Registers ``boardgym/<Game>-v0`` with Gymnasium for every game in the table."""

from __future__ import annotations

import gymnasium as gym

from boardgym.games import GAMES


def register_envs() -> None:
    for name, entry in GAMES.items():
        env_id = f"boardgym/{entry.gym_name}-v0"
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry.gym_entry_point, kwargs={"game": name})
