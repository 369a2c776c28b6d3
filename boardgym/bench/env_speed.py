"""Random play, ours against the peer libraries, in one run.

Two measurements:

- **AEC loop**: the standard PettingZoo loop (``agent_iter``, ``last``, a random legal action
  from the mask, ``step``) through our ``<game>_v0.env()`` and PettingZoo's ``classic`` envs.
- **Rules API**: random playouts straight on the rules (``legal_actions``/``apply``) against
  OpenSpiel's C++ games through their Python binding (``legal_actions``/``apply_action``).

Both sides run the same loop, call for call: one terminal test, one legal-move list and one
move per step, each a direct method call (ours on the rules object, OpenSpiel's on the state),
and the same random picker (``legal[int(random() * len(legal))]``, ``random.Random``); so the
ratio compares the libraries.
A peer that is not installed is skipped with a note (``pip install -e ".[bench]"``).

    boardgym bench envs [--seconds 2] [--games tictactoe connect_four ...]
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from boardgym.bench import RoundsOptions, label, optional_import, rows
from boardgym.config import option, options_from_argv
from boardgym.envs import aec_env
from boardgym.games import make_game


@dataclass(frozen=True)
class Options(RoundsOptions):
    """Random play, ours against the peer libraries, in one run: steps per second."""

    BENCHES = ("envs",)

    clock: str = option(
        "cpu",
        "rules API rows: steps per CPU-second of this process (fair on a shared machine) or per wall-clock second",
        choices=("cpu", "wall"),
    )


def main(argv: list[str] | None = None, prog: str = "boardgym bench envs") -> int:
    options = options_from_argv(Options, argv, prog)
    _CLOCK[0] = time.process_time if options.clock == "cpu" else time.perf_counter
    chosen = rows(*Options.BENCHES, wanted=options.games)
    pyspiel = optional_import("pyspiel")
    missing_peer = pyspiel is None
    print(
        f"random play; steps/s (higher is better), best of {options.rounds} alternating rounds "
        f"of {options.seconds:g} s each\n"
    )
    print("AEC loop (agent_iter / last / step)")
    _header("ours", "PettingZoo")
    for game, row in chosen:
        ours = partial(aec_steps_per_second, aec_env(game, **row.params))
        peer, note = None, "no peer game"
        if row.pettingzoo:
            module = optional_import(f"pettingzoo.classic.{row.pettingzoo}")  # needs pygame, rlcard...
            if module is None:
                note, missing_peer = "PettingZoo classic not installed", True
            else:
                peer = partial(aec_steps_per_second, module.env())
        _row(label(game, row), *_best_of(ours, peer, options), note)
    print(f"\nrules API (random playouts; steps per {'CPU-' if options.clock == 'cpu' else ''}second)")
    _header("ours", "OpenSpiel")
    for game, row in chosen:
        ours = partial(rules_steps_per_second, make_game(game, **row.params))
        peer, note = None, "no peer game"
        if row.openspiel and pyspiel is None:
            note = "OpenSpiel not installed"
        elif row.openspiel:
            peer = partial(openspiel_steps_per_second, pyspiel.load_game(row.openspiel, row.openspiel_params))
        _row(label(game, row), *_best_of(ours, peer, options), note)
    if missing_peer:
        print("\nfor the peer libraries: pip install -e '.[bench]'")
    return 0


def _best_of(
    ours: Callable[[float, int], float], peer: Callable[[float, int], float] | None, options: Options
) -> tuple[float, float | None]:
    """Alternate ours and the peer for a few rounds and keep each one's best, so that a
    burst of load on the machine does not land on one side only."""
    best_ours, best_peer = 0.0, 0.0
    for round_ in range(options.rounds):
        best_ours = max(best_ours, ours(options.seconds, options.seed + round_))
        if peer is not None:
            best_peer = max(best_peer, peer(options.seconds, options.seed + round_))
    return best_ours, None if peer is None else best_peer


def aec_steps_per_second(env: Any, seconds: float, seed: int) -> float:
    """Steps per second of the standard AEC loop with uniformly random legal actions."""
    rng = random.Random(seed)
    steps, episode = 0, 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + episode)
        episode += 1
        for _agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start)


def rules_steps_per_second(game: Any, seconds: float, seed: int, clock: Callable[[], float] | None = None) -> float:
    """Moves per second of random playouts through our rules API: per move one
    ``is_terminal``, one ``legal_actions`` and one ``apply``, called on the rules object; per
    second of ``clock`` (default: ``--clock``'s)."""
    draw = random.Random(seed).random
    clock = clock or _CLOCK[0]
    steps = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        for _ in range(PLAYOUTS_PER_CLOCK):
            state = game.initial_state()
            while not game.is_terminal(state):
                legal = game.legal_actions(state)
                state = game.apply(state, legal[int(draw() * len(legal))])
                steps += 1
    return steps / (clock() - start)


def openspiel_steps_per_second(game: Any, seconds: float, seed: int) -> float:
    """Moves per second of random playouts through OpenSpiel's Python binding: per move one
    ``is_terminal``, one ``legal_actions`` and one ``apply_action``, called on the state. The
    same loop as ``rules_steps_per_second``, call for call, with the same random picker."""
    draw = random.Random(seed).random
    clock = _CLOCK[0]
    steps = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        for _ in range(PLAYOUTS_PER_CLOCK):
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[int(draw() * len(legal))])
                steps += 1
    return steps / (clock() - start)


PLAYOUTS_PER_CLOCK = 8
"""Playouts between two looks at the clock (a look at the CPU clock is a system call)."""
_CLOCK: list[Callable[[], float]] = [time.process_time]
"""The clock of the rules API rows (``--clock``): this process's CPU time by default, so that
other work on a shared machine slows neither side."""


def _header(ours: str, peer: str) -> None:
    print(f"  {'game':<16}{ours:>14}{peer:>14}{'ratio':>9}")


def _row(name: str, ours: float, peer: float | None, note: str) -> None:
    if peer is None:
        print(f"  {name:<16}{ours:>14,.0f}{'-':>14}{'':>9}  ({note})")
    else:
        print(f"  {name:<16}{ours:>14,.0f}{peer:>14,.0f}{ours / peer:>8.2f}x")
