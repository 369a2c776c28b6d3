"""Registers ``boardgym/<Game>-v0`` with Gymnasium for every game in the table.

Gymnasium 1.x wrappers no longer pass unknown attributes through to the env inside, so the
``action_masks()`` of our envs would be out of reach on what ``gym.make`` returns (it wraps
the env in ``PassiveEnvChecker`` and ``OrderEnforcing``). Every id whose env has masks is
therefore registered with one more wrapper, ``ActionMasks``, applied last by ``gym.make``:
``gym.make("boardgym/Hex-v0").action_masks()`` works, and so do sb3-contrib's
``get_action_masks`` and anything that calls ``env.get_wrapper_attr("action_masks")``.
A wrapper a user adds on top hides it again, as Gymnasium intends; ``get_wrapper_attr`` or
``env.unwrapped.action_masks()`` reach it through any number of wrappers.
"""

from __future__ import annotations

import gymnasium as gym
from gymnasium.envs.registration import WrapperSpec

from boardgym.games import GAMES, gym_id
from boardgym.types import Mask

ACTION_MASKS = WrapperSpec("ActionMasks", "boardgym.envs.registration:ActionMasks", {})


class ActionMasks(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """The outermost wrapper of a ``gym.make`` env: ``action_masks()`` of the env inside."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)

    def action_masks(self) -> Mask:
        """The legal actions of the position the learner is to move in (see the env's docstring
        for the mask once an episode has ended)."""
        masks = self.env.get_wrapper_attr("action_masks")
        return masks()


def register_envs() -> None:
    """Register ``boardgym/<gym_name>-v0`` for every game of ``GAMES`` not registered yet (a
    game whose env takes any action of its space, ``masked=False``, gets no mask wrapper)."""
    for name, entry in GAMES.items():
        env_id = gym_id(name)
        if env_id not in gym.registry:
            wrappers = (ACTION_MASKS,) if entry.masked else ()
            gym.register(
                id=env_id, entry_point=entry.gym_entry_point, kwargs={"game": name}, additional_wrappers=wrappers
            )
