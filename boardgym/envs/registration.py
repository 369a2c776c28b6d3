"""Registers ``boardgym/<Game>-v0`` with Gymnasium for every game in the table.

Gymnasium 1.x wrappers no longer pass unknown attributes through to the env inside, so the
``action_masks()`` of our envs would be out of reach on what ``gym.make`` returns (it wraps
the env in ``PassiveEnvChecker`` and ``OrderEnforcing``). The entry point of every id whose env
has masks (``make_env``) therefore builds that stack itself with one more wrapper outside,
``ActionMasks``: ``gym.make("boardgym/Hex-v0").action_masks()`` works, and so do sb3-contrib's
``get_action_masks`` and anything that calls ``env.get_wrapper_attr("action_masks")``. A
wrapper a user adds on top hides it again, as Gymnasium intends; ``get_wrapper_attr`` or
``env.unwrapped.action_masks()`` reach it through any number of wrappers. (The stack is built
by the entry point rather than named as the spec's ``additional_wrappers`` because Gymnasium
refuses ``vector_entry_point`` on a spec that has them.)

A game with batched rules (``batched=`` in its ``GAMES`` entry) also gets a
``vector_entry_point``, the native vector env (``boardgym.envs.vector``): ``gym.make_vec(id,
num_envs, vectorization_mode="vector_entry_point", ...)``. ``vectorization_mode="sync"`` still
gives ``SyncVectorEnv`` over ``gym.make``'s envs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import EnvSpec

from boardgym.games import GAMES, gym_id, lookup
from boardgym.registry import load
from boardgym.types import Mask

VECTOR_ENTRY_POINT = "boardgym.envs.vector:make_vector_env"


class ActionMasks(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """The outermost wrapper of a ``gym.make`` env: ``action_masks()`` of the env inside."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)

    @property
    def spec(self) -> EnvSpec | None:  # type: ignore[override]  # gym.Wrapper's spec is a property too
        """The id's own spec: ``gym.make(env.spec)`` calls ``make_env`` again, which builds this
        whole stack, so the spec names no wrappers for ``gym.make`` to add around it. Read from
        the env inside, not through ``PassiveEnvChecker.spec``, which deep-copies the spec and
        gives None when its kwargs cannot be copied (an opponent holding a module, say)."""
        spec = self.env.unwrapped.spec
        if spec is None:
            return None
        return replace(spec, additional_wrappers=(), order_enforce=False, disable_env_checker=True)

    def action_masks(self) -> Mask:
        """The legal actions of the position the learner is to move in (see the env's docstring
        for the mask once an episode has ended)."""
        masks = self.env.get_wrapper_attr("action_masks")
        return masks()


def make_env(game: str, **kwargs: Any) -> gym.Env:
    """The env ``gym.make`` gives for ``game``: the game's single-agent env inside the checks
    Gymnasium adds (``PassiveEnvChecker``, ``OrderEnforcing``) and, where it has masks,
    ``ActionMasks`` outside them."""
    entry = lookup(GAMES, game, "game")
    env: gym.Env = load(entry.gym_entry_point)(game=game, **kwargs)
    if not entry.masked:  # gym.make adds the checks around it, as the spec says
        return env
    return ActionMasks(gym.wrappers.OrderEnforcing(gym.wrappers.PassiveEnvChecker(env)))


def register_envs() -> None:
    """Register ``boardgym/<gym_name>-v0`` for every game of ``GAMES`` not registered yet."""
    for name, entry in GAMES.items():
        env_id = gym_id(name)
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point="boardgym.envs.registration:make_env",
                vector_entry_point=VECTOR_ENTRY_POINT if entry.batched else None,
                kwargs={"game": name},
                disable_env_checker=entry.masked,  # make_env adds the checks itself where it masks
                order_enforce=not entry.masked,
            )
