"""A game's page on the documentation site: its table, parameters, actions at the start,
observation, manual and the players that know it, the code that makes its envs, and the
animated GIF of a short seeded game (``boardgym.cli.docs`` places them)."""

from __future__ import annotations

import functools
import inspect
import io
import sys
import typing
from typing import Any, NamedTuple

from boardgym.cli.docs_text import rst_to_markdown
from boardgym.games import Demo

MAX_DEMO_MOVES = 60


def demo_of(name: str) -> Demo:
    """The demo game of ``name``: its entry's ``demo``, or its defaults with MCTS against random."""
    from boardgym.games import GAMES

    entry = GAMES[name]
    if entry.demo is not None:
        return entry.demo
    players = entry.load().num_players
    return Demo({}, ("mcts:simulations=50", "random")[:players] if players <= 2 else ("random",) * players)


class DemoFiles(NamedTuple):
    """What the demo game of a game gives its pages."""

    gif: bytes
    """The whole game, animated."""
    caption: str
    """Who played and how it ended, in a sentence."""
    picture: bytes
    """A PNG of a position two thirds of the way through, for the games' index."""


def demo_gif(name: str) -> DemoFiles:
    """An animated GIF of the demo game of ``name`` drawn by ``boardgym.draw``, a sentence
    saying who played and how it ended, and a picture from the game."""
    from PIL import Image

    from boardgym import draw
    from boardgym.agents.registry import make_agent
    from boardgym.games import make_game

    demo = demo_of(name)
    game = make_game(name, **demo.params)
    agents = [make_agent(spec, game, seed=demo.seed + i) for i, spec in enumerate(demo.agents)]
    state, history = game.initial_state(), list[int]()
    frames = [draw.png(game, state)]
    while not game.is_terminal(state) and len(history) < MAX_DEMO_MOVES:
        action = agents[game.current_player(state) % len(agents)].act(game, state)
        state = game.apply(state, action)
        history.append(action)
        frames.append(draw.png(game, state, history))
    # a fast octree palette a frame: a quarter of the time of the GIF writer's own quantizer
    images = [
        Image.open(io.BytesIO(frame)).convert("RGB").quantize(colors=128, method=Image.Quantize.FASTOCTREE)
        for frame in frames
    ]
    out = io.BytesIO()
    durations = [700] * (len(images) - 1) + [3000]
    images[0].save(out, "GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)
    sides = draw.side_names(game)
    if game.num_players == 1:
        players = f"`{demo.agents[0]}`"
    else:
        players = ", ".join(f"`{spec}` ({side})" for spec, side in zip(demo.agents, sides, strict=False))
    ended = "game over" if game.is_terminal(state) else f"the first {len(history)} moves"
    returns = ", ".join(f"{r:g}" for r in game.returns(state))
    params = ", ".join(f"{k}={v}" for k, v in demo.params.items())
    caption = (
        f"{players}{' on ' + params if params else ''} (agents seeded from {demo.seed}): {len(history)} moves, "
        f"{ended}, returns {returns}."
    )
    return DemoFiles(out.getvalue(), caption, frames[(2 * (len(frames) - 1)) // 3])


def game_section(name: str) -> str:
    """The generated part of a game's page (everything below its title)."""
    from boardgym.games import GAMES, game_class, game_parameters, gym_id, make_game

    entry = GAMES[name]
    cls = game_class(name)
    game = make_game(name)
    lines = [f"{entry.summary[:1].upper()}{entry.summary[1:]}.", ""]
    lines += ["| | |", "|---|---|", f"| `make_game` name | `{name}` |", f"| Gymnasium id | `{gym_id(name)}` |"]
    if entry.env:
        lines.append(f"| PettingZoo env | `{entry.env}.env()` |")
    lines.append(f"| players | {game.num_players} |")
    lines.append(f"| batched rules | {'yes' if entry.batched else 'no'} |")
    lines += ["", f"![A short game of {name}]({name}.gif)", "", f"*{demo_gif_caption(name)}*", ""]
    lines += ["## In code", "", "```python", env_snippet(name), "```", ""]

    signature = inspect.signature(cls.__init__)
    params = game_parameters(cls)
    lines += ["## Parameters", ""]
    if params:
        takers = "`make_game`, `gym.make`" + (", the AEC `env()`" if entry.env else "")
        lines += [f"{takers}; on the command line `-p KEY=VALUE`.", ""]
        lines += ["| parameter | type | default |", "|---|---|---|"]
        for key in params:
            default = signature.parameters[key].default
            hint = typing.get_type_hints(cls.__init__).get(key, Any)
            lines.append(f"| `{key}` | `{_type_name(hint)}` | `{default!r}` |")
    else:
        lines.append("None.")
    lines += ["", "## Actions at the start", ""]
    state = game.initial_state()
    legal = game.legal_actions(state)
    lines += [
        f"{len(legal)} legal of {game.num_actions}; the first as action = typed form (what `boardgym play` reads):",
        "",
    ]
    lines.append(
        ", ".join(f"{a} = `{game.action_to_str(state, a)}`" for a in legal[:12]) + ("..." if len(legal) > 12 else ".")
    )
    planes = game.observation(state, game.current_player(state))
    lines += ["", "## Observation", "", f"`{planes.dtype}` planes of shape `{tuple(planes.shape)}` at the defaults."]
    manual = entry.env or entry.gym_entry_point.partition(":")[0]
    module = sys.modules.get(manual) or __import__(manual, fromlist=["_"])
    if module.__doc__:
        lines += ["", "## Manual", "", f"The docstring of `{manual}`.", "", rst_to_markdown(module.__doc__)]
    if entry.heuristics or entry.ladder:
        lines += ["## Computer players", ""]
        if entry.heuristics:
            evals = ", ".join(f"`{e}`" for e in entry.heuristics)
            lines.append(f"- `minimax:eval=...`: {evals} (the first is the default), and `random`.")
        if entry.ladder:
            lines.append("- The reference ladder (`boardgym ladder`): " + ", ".join(f"`{s}`" for s in entry.ladder))
    return "\n".join(lines) + "\n"


@functools.cache
def demo_gif_cached(name: str) -> DemoFiles:
    """``demo_gif``, made once a process (the page and the build both ask for it)."""
    return demo_gif(name)


def demo_gif_caption(name: str) -> str:
    return demo_gif_cached(name)[1]


def _type_name(hint: Any) -> str:
    if isinstance(hint, type):
        return hint.__name__
    return str(hint).replace("typing.", "").replace("collections.abc.", "")


def env_snippet(name: str) -> str:
    """The code that makes ``name``'s envs: ``gym.make`` (the opponent inside, for a
    two-player game), ``gym.make_vec`` (the native vector env on the batched rules where the
    game has them, Gymnasium's ``SyncVectorEnv`` otherwise) and, for a two-player game, its
    PettingZoo AEC env with both seats."""
    from boardgym.games import GAMES, gym_id, make_game

    entry, env_id = GAMES[name], gym_id(name)
    two_players = make_game(name).num_players == 2
    opponent = ', opponent="random"' if two_players else ""
    mode = "vector_entry_point" if entry.batched else "sync"
    lines = [
        "import gymnasium as gym",
        "",
        "import boardgym  # registers the gym ids",
        "",
        f'env = gym.make("{env_id}"{opponent})' + ("  # you play one seat" if two_players else ""),
        "observation, info = env.reset(seed=0)",
        "# the batched rules, every game in one call"
        if entry.batched
        else "# Gymnasium's SyncVectorEnv of gym.make envs",
        "envs = gym.make_vec(",
        f'    "{env_id}",',
        "    num_envs=8,",
        f'    vectorization_mode="{mode}",',
        *(['    opponent="random",'] if two_players else []),
        ")",
        "observations, infos = envs.reset(seed=0)",
    ]
    if two_players:
        module = entry.env.rpartition(".")[2] if entry.env else ""
        lines += [""]
        if module:
            lines += [f"from boardgym.envs import {module}", "", f"aec = {module}.env()  # PettingZoo: both seats"]
        else:
            lines += ["from boardgym.envs import aec_env", "", f'aec = aec_env("{name}")  # PettingZoo: both seats']
        lines += ["aec.reset(seed=0)"]
    return "\n".join(lines)
