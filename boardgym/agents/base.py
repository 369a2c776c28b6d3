"""The agent protocol: ``act(game, state) -> action``, plus ``reset`` and ``observe_outcome``; ``BatchAgent``,
the capability of moving in many games at once."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardgym.game import Game
from boardgym.types import Action, Player


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a legal action for the player on move in ``state``."""

    def act(self, game: Game, state: Any) -> Action: ...

    def reset(self, seed: int | None = None) -> None: ...


class BaseAgent:
    """Holds the game, a seeded generator and the spec the agent was made from.

    Subclasses take ``game`` and keyword-only parameters with simple types (int, float,
    bool, str, Path, or Optional of them); ``make_agent`` reads those from the spec string.

    ``last_info`` is what the latest ``act`` found, for display (``boardgym serve`` shows it
    beside the move); empty for agents that find nothing worth showing. Keys, where they apply:
    ``visits`` ({action: root visit count} of a tree search), ``policy`` ({action: probability}
    where no search ran), ``value`` (the position's value for the agent on move, -1..1),
    ``simulations``, ``depth``, ``nodes``, ``score`` (alpha-beta's value in its own units).
    Filled once per move from what the search already keeps, so it costs the search nothing.
    """

    def __init__(self, game: Game, *, seed: int | None = None) -> None:
        self.game = game
        self.rng = np.random.default_rng(seed)
        self.spec = type(self).__name__
        self.last_info: dict[str, Any] = {}

    def act(self, game: Game, state: Any) -> Action:
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; a seed makes the agent's choices reproducible from here on."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def observe_outcome(self, game: Game, state: Any, player: Player) -> None:
        """Called once at the end of a game with the final state and this agent's seat."""

    def __repr__(self) -> str:
        return self.spec


@runtime_checkable
class BatchAgent(Agent, Protocol):
    """An agent that can move in many games at once: one search for all of them (the batched
    tree search of ``boardgym.agents.batched_search``: one network call a simulation for every
    game). A tournament asks with ``isinstance(agent, BatchAgent) and agent.acts_in_batches``.

    Each game has a player of its own (this agent or one of its ``fork``s), reset for its game
    like any agent, so a game's draws and counters are its own; ``act_batch(game, states,
    players)`` returns the move ``players[k]`` makes in ``states[k]``, for every ``k``: the move
    ``players[k].act(game, states[k])`` would make, whatever the other states of the call
    (each player's ``last_info`` is set as ``act`` sets it). ``players`` all share this agent's
    search: the same ``batch_key``."""

    @property
    def acts_in_batches(self) -> bool:
        """Whether ``act_batch`` searches the states together (False: ask ``act`` game by game)."""
        ...

    @property
    def batch_key(self) -> Hashable:
        """The same for this agent and its forks: the players one ``act_batch`` may serve."""
        ...

    def fork(self) -> BatchAgent:
        """Another player of this agent for another game: its own generator and per-game
        state, this agent's network and search shared."""
        ...

    def act_batch(self, game: Game, states: Sequence[Any], players: Sequence[Agent]) -> list[Action]: ...
