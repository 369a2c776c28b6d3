"""Random play, ours against the peer libraries, in one run.

Two measurements:

- **AEC loop**: the standard PettingZoo loop (``agent_iter``, ``last``, a random legal action
  from the mask, ``step``) through our ``<game>_v0.env()`` and PettingZoo's ``classic`` envs.
- **Rules API**: random playouts straight on the rules (``legal_actions``/``apply``) against
  OpenSpiel's C++ games through their Python binding (``legal_actions``/``apply_action``).

Both sides use the same Python random-choice code, so the ratio compares the libraries. A peer
that is not installed is skipped with a note (``pip install -e ".[bench]"``).

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


def main(argv: list[str] | None = None, prog: str = "boardgym bench envs") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the best of each side is kept")
    parser.add_argument("--games", nargs="*", default=None, help="only these rows (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
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
    print("\nrules API (random playouts)")
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
    """Moves per second of random playouts through our rules API."""
    return _playouts(lambda: game.initial_state(), game.is_terminal, game.legal_actions, game.apply, seconds, seed)


def openspiel_steps_per_second(game: Any, seconds: float, seed: int) -> float:
    """Moves per second of random playouts through OpenSpiel's Python binding."""

    def apply(state: Any, action: int) -> Any:
        state.apply_action(action)
        return state

    return _playouts(
        game.new_initial_state, lambda s: s.is_terminal(), lambda s: s.legal_actions(), apply, seconds, seed
    )


def _playouts(
    initial: Callable[[], Any],
    is_terminal: Callable[[Any], bool],
    legal_actions: Callable[[Any], list[int]],
    apply: Callable[[Any, int], Any],
    seconds: float,
    seed: int,
) -> float:
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = initial()
        while not is_terminal(state):
            legal = legal_actions(state)
            state = apply(state, legal[rng.randrange(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


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
