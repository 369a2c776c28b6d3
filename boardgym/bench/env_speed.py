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

import argparse
import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from boardgym.bench import optional_import
from boardgym.config import positive_int, positive_number, seed_value
from boardgym.games import make_game


@dataclass(frozen=True)
class Pairing:
    """One row of the benchmark: our game (name, params) and the peer's equivalent, if any."""

    game: str
    params: dict[str, Any]
    pettingzoo: str | None = None  # module under pettingzoo.classic
    openspiel: str | None = None  # pyspiel game name
    openspiel_params: dict[str, Any] | None = None
    label: str | None = None

    @property
    def name(self) -> str:
        return self.label or self.game


PAIRINGS: list[Pairing] = [
    Pairing("tictactoe", {}, "tictactoe_v3", "tic_tac_toe"),
    Pairing("connect_four", {}, "connect_four_v3", "connect_four"),
    Pairing("nim", {}, None, "nim", {"pile_sizes": "1;3;5;7;9", "is_misere": False}),
    Pairing("quixo", {}),
    Pairing("quarto", {}),
    Pairing("hex", {}, None, "hex", {"board_size": 11}, label="hex 11x11"),
    Pairing("hex", {"size": 19}, None, "hex", {"board_size": 19}, label="hex 19x19"),
    Pairing("rastros", {}),
]


def _names(pairings: list[Pairing]) -> list[str]:
    """What ``--games`` accepts: each row's game and label (``hex`` is both Hex rows)."""
    return list(dict.fromkeys(name for p in pairings for name in (p.game, p.name)))


def main(argv: list[str] | None = None, prog: str = "boardgym bench envs") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    names = _names(PAIRINGS)
    parser.add_argument("--seconds", type=positive_number, default=1.0, help="time per measurement")
    parser.add_argument(
        "--rounds", type=positive_int, default=3, help="alternating rounds; the best of each side is kept"
    )
    parser.add_argument("--games", nargs="+", default=None, help=f"only these rows (default: all): {', '.join(names)}")
    parser.add_argument("--seed", type=seed_value, default=0)
    parser.add_argument(
        "--clock",
        choices=["cpu", "wall"],
        default="cpu",
        help="rules API rows: steps per CPU-second of this process (default; fair on a shared machine) "
        "or per wall-clock second",
    )
    args = parser.parse_args(argv)
    _CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter
    unknown = [name for name in args.games or () if name not in names]
    if unknown:
        parser.error(f"no row {unknown[0]!r} in this benchmark; --games takes: {', '.join(names)}")
    rows = [p for p in PAIRINGS if args.games is None or p.name in args.games or p.game in args.games]
    pyspiel = optional_import("pyspiel")
    missing_peer = pyspiel is None
    print(
        f"random play; steps/s (higher is better), best of {args.rounds} alternating rounds "
        f"of {args.seconds:g} s each\n"
    )
    print("AEC loop (agent_iter / last / step)")
    _header("ours", "PettingZoo")
    for pairing in rows:
        ours = partial(aec_steps_per_second, _our_aec_env(pairing))
        peer, note = None, "no peer game"
        if pairing.pettingzoo:
            module = optional_import(f"pettingzoo.classic.{pairing.pettingzoo}")  # needs pygame, rlcard...
            if module is None:
                note, missing_peer = "PettingZoo classic not installed", True
            else:
                peer = partial(aec_steps_per_second, module.env())
        _row(pairing.name, *_best_of(ours, peer, args), note)
    print(f"\nrules API (random playouts; steps per {'CPU-' if args.clock == 'cpu' else ''}second)")
    _header("ours", "OpenSpiel")
    for pairing in rows:
        ours = partial(rules_steps_per_second, make_game(pairing.game, **pairing.params))
        peer, note = None, "no peer game"
        if pairing.openspiel and pyspiel is None:
            note = "OpenSpiel not installed"
        elif pairing.openspiel:
            peer = partial(
                openspiel_steps_per_second, pyspiel.load_game(pairing.openspiel, pairing.openspiel_params or {})
            )
        _row(pairing.name, *_best_of(ours, peer, args), note)
    if missing_peer:
        print("\nfor the peer libraries: pip install -e '.[bench]'")
    return 0


def _best_of(
    ours: Callable[[float, int], float], peer: Callable[[float, int], float] | None, args: argparse.Namespace
) -> tuple[float, float | None]:
    """Alternate ours and the peer for a few rounds and keep each one's best, so that a
    burst of load on the machine does not land on one side only."""
    best_ours, best_peer = 0.0, 0.0
    for round_ in range(args.rounds):
        best_ours = max(best_ours, ours(args.seconds, args.seed + round_))
        if peer is not None:
            best_peer = max(best_peer, peer(args.seconds, args.seed + round_))
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


def rules_steps_per_second(game: Any, seconds: float, seed: int) -> float:
    """Moves per second of random playouts through our rules API: per move one
    ``is_terminal``, one ``legal_actions`` and one ``apply``, called on the rules object."""
    draw = random.Random(seed).random
    clock = _CLOCK[0]
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


def _our_aec_env(pairing: Pairing) -> Any:
    module = importlib.import_module(f"boardgym.envs.{pairing.game}_v0")
    return module.env(**pairing.params)


def _header(ours: str, peer: str) -> None:
    print(f"  {'game':<16}{ours:>14}{peer:>14}{'ratio':>9}")


def _row(name: str, ours: float, peer: float | None, note: str) -> None:
    if peer is None:
        print(f"  {name:<16}{ours:>14,.0f}{'-':>14}{'':>9}  ({note})")
    else:
        print(f"  {name:<16}{ours:>14,.0f}{peer:>14,.0f}{ours / peer:>8.2f}x")
