"""Agent specs: ``name:key=value,key=value`` strings shared by the CLI, tournaments and the
single-agent envs. ``make_agent("mcts:simulations=800", game)``.

Each agent is a class taking ``(game, *, seed=None, **params)``; the spec's keys are checked
against the keyword-only parameters of simple type (int, float, bool, str, Path and Optional
of those) and converted by their annotations. Adding an agent means adding its line to AGENTS.
"""

from __future__ import annotations

import importlib
import inspect
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.agents.base import Agent
from boardgym.game import Game
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class AgentEntry:
    """``cls``: "module:Class" of the agent (imported only when used); ``summary``: one line."""

    cls: str
    summary: str


AGENTS: dict[str, AgentEntry] = {
    "random": AgentEntry("boardgym.agents.random_agent:RandomAgent", "uniformly random legal moves"),
    "human": AgentEntry("boardgym.agents.human:HumanAgent", "a person typing moves at the terminal"),
    "perfect": AgentEntry("boardgym.agents.perfect:PerfectAgent", "exact play by memoised search (small games only)"),
    "qlearning": AgentEntry(
        "boardgym.agents.tabular:TabularAgent", "greedy play from a Q-learning table (checkpoint=)"
    ),
    "montecarlo": AgentEntry(
        "boardgym.agents.tabular:TabularAgent", "greedy play from a Monte Carlo table (checkpoint=)"
    ),
    "ppo": AgentEntry("boardgym.agents.ppo:PPOAgent", "a MaskablePPO policy (checkpoint=, deterministic=)"),
    "es": AgentEntry("boardgym.agents.evolved_nim:EvolvedNimAgent", "an evolved Nim genome (checkpoint=)"),
    "coevolved": AgentEntry(
        "boardgym.agents.coevolved:CoevolvedAgent", "alpha-beta with coevolved weights (checkpoint=, depth=)"
    ),
    "neat": AgentEntry("boardgym.agents.neat_agent:NeatAgent", "a NEAT-evolved network (checkpoint=)"),
    "mcts": AgentEntry(
        "boardgym.agents.mcts:MCTSAgent", "UCT tree search with random rollouts (simulations=, time=, c=)"
    ),
    "minimax": AgentEntry(
        "boardgym.agents.minimax:MinimaxAgent", "alpha-beta with iterative deepening (depth=, time=, eval=, exact=)"
    ),
    "nimsum": AgentEntry(
        "boardgym.agents.nim_perfect:NimSumAgent", "perfect Nim by the nim-sum rule (normal, misere, max-take k)"
    ),
    "alphazero": AgentEntry(
        "boardgym.agents.alphazero.agent:AlphaZeroAgent", "PUCT on a trained network (checkpoint=)"
    ),
    "astar": AgentEntry(
        "boardgym.agents.astar:AStarAgent", "A*, optimal on 1-player puzzles (max_nodes=, time_limit=)"
    ),
    "ucs": AgentEntry(
        "boardgym.agents.astar:UCSAgent", "uniform-cost search on 1-player puzzles (max_nodes=, time_limit=)"
    ),
    "greedy": AgentEntry(
        "boardgym.agents.greedy_cover:GreedyCoverAgent", "set cover: most new elements (random_ties=)"
    ),
}

_SIMPLE = (int, float, bool, str, Path)


def make_agent(spec: str | Agent, game: Game, seed: int | None = None) -> Agent:
    """Build an agent from a spec string (an Agent object is returned as it is)."""
    if not isinstance(spec, str):
        return spec
    name, params = parse_spec(spec)
    cls = agent_class(name)
    accepted = spec_parameters(cls)
    kwargs: dict[str, Any] = {}
    for key, text in params.items():
        if key not in accepted:
            raise BoardgymError(
                f"agent {name!r} has no parameter {key!r} (in spec {spec!r}); "
                f"it takes: {', '.join(f'{k}=<{t.__name__}>' for k, t in accepted.items()) or 'no parameters'}"
            )
        kwargs[key] = _convert(text, accepted[key], key, spec)
    agent = cls(game, seed=seed, **kwargs)
    agent.spec = spec
    return agent


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:simulations=800,c=1.4"`` -> ``("mcts", {"simulations": "800", "c": "1.4"})``."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BoardgymError(
                f"cannot read {item!r} in agent spec {spec!r}; write name:key=value,key=value, e.g. minimax:depth=3"
            )
        params[key.strip()] = value.strip()
    return name.strip(), params


def agent_class(name: str) -> type:
    try:
        entry = AGENTS[name]
    except KeyError:
        raise BoardgymError(f"unknown agent {name!r}; known agents: {', '.join(AGENTS)}") from None
    module, _, cls = entry.cls.partition(":")
    return getattr(importlib.import_module(module), cls)


def spec_parameters(cls: type) -> dict[str, type]:
    """The keyword-only parameters a spec may set, with their types."""
    hints = typing.get_type_hints(cls.__init__)
    accepted: dict[str, type] = {}
    for param in inspect.signature(cls.__init__).parameters.values():
        if param.kind is not param.KEYWORD_ONLY or param.name == "seed":
            continue
        kind = _simple_type(hints.get(param.name))
        if kind is not None:
            accepted[param.name] = kind
    return accepted


def _simple_type(annotation: Any) -> type | None:
    if annotation in _SIMPLE:
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) == 1 and options[0] in _SIMPLE:
            return options[0]
    return None


def _convert(text: str, kind: type, key: str, spec: str) -> Any:
    try:
        if kind is bool:
            lowered = text.lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError
            return lowered in ("true", "1", "yes")
        return kind(text)
    except ValueError:
        raise BoardgymError(f"{key}={text!r} in agent spec {spec!r} must be {_type_name(kind)}") from None


def _type_name(kind: type) -> str:
    return {int: "an integer", float: "a number", bool: "true or false", str: "text", Path: "a path"}.get(
        kind, kind.__name__
    )
