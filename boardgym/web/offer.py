"""What the play page offers (``GET /api/meta``): the games with their parameters and suggested
agents, the agents and their keys, the checkpoints the server was started with (by NAME; their
paths never reach the browser) and its limits; ``checkpoints_from`` reads ``--checkpoint
NAME=PATH``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from boardgym.agents.registry import AGENTS, agent_class, spec_parameters
from boardgym.game import Game
from boardgym.games import GAMES, game_class, game_parameters, make_game
from boardgym.registry import read_pairs
from boardgym.types import BoardgymError


def checkpoints_from(items: Sequence[str]) -> dict[str, str]:
    """``["az=runs/hex/alphazero/s0/final.pt"]`` -> ``{"az": "alphazero:checkpoint=..."}``: the
    agent that plays a checkpoint is read from the file's format."""
    pairs = read_pairs(items, what="--checkpoint", example="--checkpoint az=runs/hex/alphazero/s0/final.pt")
    checkpoints: dict[str, str] = {}
    for name, path in pairs.items():
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", name) or not path:
            raise BoardgymError(
                f"cannot read --checkpoint {name}={path}; write NAME=PATH with a short NAME of letters, digits, - _ ."
            )
        checkpoints[name] = f"{checkpoint_agent(path)}:checkpoint={Path(path).resolve()}"
    return checkpoints


def checkpoint_agent(path: str | Path) -> str:
    """The agent name that plays the checkpoint in ``path``, from its ``format`` (an SB3 zip:
    ``ppo``; a Tianshou ``state_dict``, which has none: ``tianshou``)."""
    from boardgym.agents import coevolved, evolved_nim, neat_agent, ppo, tabular, torch_policy
    from boardgym.agents.alphazero import agent as alphazero
    from boardgym.agents.sb3_zip import is_sb3_zip
    from boardgym.checkpoints import load_checkpoint

    agents = {
        tabular.FORMAT: "qlearning",
        ppo.FORMAT: "ppo",
        evolved_nim.FORMAT: "es",
        neat_agent.FORMAT: "neat",
        coevolved.FORMAT: "coevolved",
        alphazero.FORMAT: "alphazero",
        torch_policy.FORMAT: "torch",
    }
    if Path(path).is_file() and is_sb3_zip(Path(path)):
        return "ppo"
    payload = load_checkpoint(path)
    kind = agents.get(str(payload.get("format")))
    if (
        kind is None
        and "format" not in payload
        and any(str(key).startswith(torch_policy.TIANSHOU_PREFIXES) for key in payload)
    ):
        kind = "tianshou"
    if kind is None:
        raise BoardgymError(
            f"checkpoint {str(path)!r} has format {payload.get('format')!r}, which no agent plays; pass a final.pt "
            "written by `boardgym train`, an SB3 zip, a Tianshou state_dict or a file of save_policy "
            "(docs/guides/bring-your-model.md)"
        )
    return kind


def page_offer(checkpoints: Mapping[str, str], move_seconds: float, max_sessions: int) -> dict[str, Any]:
    games = []
    for name, entry in GAMES.items():
        cls = game_class(name)
        default = make_game(name)
        params = []
        for key in game_parameters(cls):
            value = entry.web_defaults.get(key, default.params().get(key))
            params.append({"name": key, "default": param_text(value)})
        games.append(
            {
                "name": name,
                "summary": entry.summary,
                "players": default.num_players,
                "params": params,
                "agents": suggested_agents(default, entry.opponents),
            }
        )
    agents = [
        {"name": name, "summary": entry.summary, "params": sorted(spec_parameters_of(name))}
        for name, entry in AGENTS.items()
        if name != "human"
    ]
    named = []
    for name, spec in checkpoints.items():
        named.append({"name": f"@{name}", "agent": spec.partition(":")[0]})
    return {
        "games": games,
        "agents": agents,
        "checkpoints": named,
        "limits": {"move_seconds": move_seconds, "max_sessions": max_sessions},
    }


def spec_parameters_of(name: str) -> list[str]:
    try:
        return [key for key in spec_parameters(agent_class(name)) if key != "checkpoint"]
    except Exception:  # an agent whose module cannot load here (a missing extra)
        return []


def suggested_agents(game: Game, own: Sequence[str] = ()) -> list[str]:
    """The agents the page suggests for ``game``: the generic ones, with the game's own
    (``opponents`` of its entry) after them, or before them for a puzzle."""
    if game.num_players == 1:
        return [*own, "random"]
    generic = ["random", "minimax:depth=2", "mcts:simulations=300", "mcts:time=2"]
    if game.solvable_by_search:
        generic.append("perfect")
    return [*generic, *own]


def param_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)
