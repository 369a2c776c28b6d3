"""Agent specs: ``name:key=value,key=value`` strings shared by the CLI, tournaments and the
single-agent envs. ``make_agent("mcts:simulations=800", game)``.

Each agent is a class taking ``(game, *, seed=None, **params)``; the spec's keys are checked
against the keyword-only parameters of simple type (int, float, bool, str, Path and Optional
of those) and converted by their annotations. Adding an agent means adding its line to AGENTS.
"""

from __future__ import annotations

import inspect
import types
import typing
from pathlib import Path
from typing import Any

from boardgym.agents.base import Agent
from boardgym.game import Game
from boardgym.registry import Entry, lookup, parse_value, read_pairs
from boardgym.types import BoardgymError

AgentEntry = Entry
"""A line of ``AGENTS``: the agent class as "module:Class" (imported only when used) and a summary."""

AGENTS: dict[str, Entry] = {
    "random": Entry("boardgym.agents.random_agent:RandomAgent", "uniformly random legal moves"),
    "human": Entry("boardgym.agents.human:HumanAgent", "a person typing moves at the terminal"),
    "perfect": Entry(
        "boardgym.agents.perfect:PerfectAgent",
        "exact play by memoised search (small games) or the exact solvers (Hex up to 5x5, Quixo 3x3 and 4x4)",
    ),
    "qlearning": Entry("boardgym.agents.tabular:TabularAgent", "greedy play from a Q-learning table (checkpoint=)"),
    "montecarlo": Entry("boardgym.agents.tabular:TabularAgent", "greedy play from a Monte Carlo table (checkpoint=)"),
    "ppo": Entry("boardgym.agents.ppo:PPOAgent", "a MaskablePPO policy (checkpoint=, deterministic=)"),
    "torch": Entry(
        "boardgym.agents.torch_policy:TorchPolicyAgent",
        "an MLP policy saved with save_policy: CleanRL-style, RLlib (checkpoint=)",
    ),
    "tianshou": Entry(
        "boardgym.agents.torch_policy:TianshouAgent", "a Tianshou policy's state_dict on Net (checkpoint=, activation=)"
    ),
    "es": Entry("boardgym.agents.evolved_nim:EvolvedNimAgent", "an evolved Nim genome (checkpoint=)"),
    "coevolved": Entry(
        "boardgym.agents.coevolved:CoevolvedAgent", "alpha-beta with coevolved weights (checkpoint=, depth=)"
    ),
    "neat": Entry("boardgym.agents.neat_agent:NeatAgent", "a NEAT-evolved network (checkpoint=)"),
    "mcts": Entry("boardgym.agents.mcts:MCTSAgent", "UCT tree search with random rollouts (simulations=, time=, c=)"),
    "minimax": Entry(
        "boardgym.agents.minimax:MinimaxAgent", "alpha-beta with iterative deepening (depth=, time=, eval=, exact=)"
    ),
    "nimsum": Entry(
        "boardgym.agents.nim_perfect:NimSumAgent", "perfect Nim by the nim-sum rule (normal, misere, max-take k)"
    ),
    "alphazero": Entry(
        "boardgym.agents.alphazero.agent:AlphaZeroAgent",
        "PUCT on a trained network (checkpoint= or pretrained=true, symmetries=)",
    ),
    "astar": Entry(
        "boardgym.agents.astar_agent:AStarAgent", "A*, optimal on 1-player puzzles (max_nodes=, time_limit=)"
    ),
    "ucs": Entry(
        "boardgym.agents.astar_agent:UCSAgent", "uniform-cost search on 1-player puzzles (max_nodes=, time_limit=)"
    ),
    "greedy": Entry("boardgym.agents.greedy_cover:GreedyCoverAgent", "set cover: most new elements (random_ties=)"),
    "solver": Entry(
        "boardgym.agents.solver:SolverAgent", "Connect Four's exact solver within a budget (time= seconds a move)"
    ),
}

_SIMPLE = (int, float, bool, str, Path)


def make_agent(spec: str | Agent, game: Game, seed: int | None = None) -> Agent:
    """Build an agent from a spec string (an Agent object is returned as it is)."""
    if not isinstance(spec, str):
        return spec
    cls, kwargs = read_spec(spec)
    agent = cls(game, seed=seed, **kwargs)
    agent.spec = spec
    return agent


def read_spec(spec: str) -> tuple[type, dict[str, Any]]:
    """The agent class a spec names and its keys as typed values, without building the agent
    (so without loading a checkpoint or searching): each unknown name, unknown key or value of
    the wrong type is one sentence naming the spec."""
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
        try:
            kwargs[key] = parse_value(text, accepted[key], name=key)
        except BoardgymError as error:
            raise BoardgymError(f"{error} (in agent spec {spec!r})") from None
    return cls, kwargs


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:simulations=800,c=1.4"`` -> ``("mcts", {"simulations": "800", "c": "1.4"})``."""
    name, _, rest = spec.strip().partition(":")
    items = filter(None, (part.strip() for part in rest.split(",")))
    pairs = read_pairs(items, what=f"agent spec {spec!r}", example="minimax:depth=3", form="name:key=value,key=value")
    return name.strip(), pairs


def agent_class(name: str) -> type:
    cls: type = lookup(AGENTS, name, "agent").load()
    return cls


def spec_parameters(cls: type) -> dict[str, type]:
    """The keyword-only parameters a spec may set, with their types."""
    init = cls.__init__  # type: ignore[misc]  # the class's own constructor, read for its signature
    hints = typing.get_type_hints(init)
    accepted: dict[str, type] = {}
    for param in inspect.signature(init).parameters.values():
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
