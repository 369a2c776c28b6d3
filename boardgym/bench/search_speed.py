"""Search speed, ours against OpenSpiel, in one run.

Three tables:

- **MCTS** with one random rollout per leaf, UCT ``c = 1.4``, no solver, fresh searches of
  ``SIMULATIONS`` simulations from the opening position on every side: simulations per
  CPU-second of the process (other work on a shared machine slows neither side) of our
  ``MCTS`` (with the game's own random playout and with the generic
  ``legal_actions``/``apply`` loop) next to OpenSpiel's Python ``MCTSBot`` (its
  ``RandomRolloutEvaluator``) and its C++ ``pyspiel.MCTSBot``, on Hex 7x7 and Connect Four.
- **Alpha-beta**: nodes per second and time per move of our ``AlphaBeta`` on a few settings,
  and the time to solve Tic-Tac-Toe from the start next to OpenSpiel's Python
  ``alpha_beta_search`` (which has no transposition table).
- **Time per move** of agent specs from the opening position.

Each side runs in alternating rounds and keeps its best round, so a burst of load on the
machine does not land on one side only. A missing OpenSpiel is skipped with a note.

    boardgym bench search [--seconds 2] [--rounds 3] [--games hex connect_four]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from boardgym.agents.heuristics import make_heuristic
from boardgym.agents.leaf import RolloutEvaluator
from boardgym.agents.mcts import MCTS
from boardgym.agents.minimax import AlphaBeta
from boardgym.agents.registry import make_agent
from boardgym.bench import RoundsOptions, label, optional_import, rows
from boardgym.config import options_from_argv
from boardgym.games import make_game

UCT_C = 1.4
SIMULATIONS = 1000
"""Simulations per search on every side (a fresh search from the start each time), so that
the trees, and the depth of their selections, are alike."""


@dataclass(frozen=True)
class Options(RoundsOptions):
    """Search speed, ours against OpenSpiel, in one run."""

    BENCHES = ("search", "alphabeta", "move")


def main(argv: list[str] | None = None, prog: str = "boardgym bench search") -> int:
    args = options_from_argv(Options, argv, prog)
    pyspiel = optional_import("pyspiel")
    python_mcts = optional_import("open_spiel.python.algorithms.mcts")
    wanted = args.games

    print(
        f"MCTS, random rollouts, UCT c={UCT_C}: simulations per CPU-second, fresh searches of {SIMULATIONS} "
        f"simulations from the start, best of {args.rounds} rounds\n"
    )
    print(f"  {'game':<14}{'ours':>10}{'ours gen.':>11}{'OS python':>11}{'OS C++':>10}{'ours/py':>9}{'ours/C++':>10}")
    for name, row in rows("search", wanted=wanted):
        game = make_game(name, **row.params)
        sides: dict[str, Callable[[float, int], float] | None] = {
            "ours": partial(our_mcts_rate, game, game_playouts=True),
            "generic": partial(our_mcts_rate, game, game_playouts=False),
            "python": None,
            "cpp": None,
        }
        if pyspiel is not None:
            peer = pyspiel.load_game(row.openspiel or name)
            sides["python"] = partial(openspiel_python_rate, peer)
            sides["cpp"] = partial(openspiel_cpp_rate, peer)
        best = _best_of(sides, args)
        ours, generic, py, cpp = best["ours"], best["generic"], best["python"], best["cpp"]
        print(
            f"  {label(name, row):<14}{ours:>10,.0f}{generic:>11,.0f}{_num(py):>11}{_num(cpp):>10}"
            f"{_ratio(ours, py):>9}{_ratio(ours, cpp):>10}"
        )
    if pyspiel is None or python_mcts is None:
        print("  (OpenSpiel not installed: pip install -e '.[bench]')")
    print("  ours: with the game's own random playout; ours gen.: the generic legal_actions/apply loop")

    print("\nalpha-beta (ours): iterative deepening, transposition table, from the start")
    print(f"  {'setting':<22}{'nodes':>10}{'seconds':>10}{'nodes/s':>11}")
    for name, row in rows("alphabeta", wanted=wanted):
        game = make_game(name, **row.params)
        search = AlphaBeta(game, make_heuristic(game, row.settings["eval"]), depth=row.settings["depth"])
        result = search.search(game.initial_state())
        print(
            f"  {row.label or name:<22}{result.nodes:>10,}{result.seconds:>10.3f}{result.nodes / result.seconds:>11,.0f}"
        )
    if wanted is None or "tictactoe" in wanted:
        ours_s, peer_s = solve_tictactoe(pyspiel)
        peer_text = f"{peer_s:.3f} s" if peer_s is not None else "-"
        ratio = f"{peer_s / ours_s:.1f}x" if peer_s is not None else ""
        print(f"  solve tic-tac-toe: ours {ours_s:.3f} s, OpenSpiel alpha_beta_search {peer_text}  {ratio}")

    print("\ntime per move from the start (seconds, best of rounds)")
    for name, row in rows("move", wanted=wanted):
        game, spec = make_game(name, **row.params), row.settings["spec"]
        seconds = min(time_one_move(game, spec, args.seed + r) for r in range(args.rounds))
        print(f"  {name + ' ' + _size(row.params):<18}{spec:<34}{seconds:>8.3f}")
    return 0


def our_mcts_rate(game: Any, seconds: float, seed: int, *, game_playouts: bool) -> float:
    """Simulations per CPU-second of repeated fresh searches from the start."""
    rng = np.random.default_rng(seed)
    tree = MCTS(
        game, RolloutEvaluator(rng=rng, game_playouts=game_playouts), simulations=SIMULATIONS, c_uct=UCT_C, rng=rng
    )
    state = game.initial_state()
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        tree.reset()
        tree.search(state)
        done += SIMULATIONS
    return done / (time.process_time() - start)


def openspiel_python_rate(game: Any, seconds: float, seed: int) -> float:
    from open_spiel.python.algorithms import mcts

    random_state = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, random_state)
    bot = mcts.MCTSBot(game, UCT_C, SIMULATIONS, evaluator, random_state=random_state, solve=False)
    state = game.new_initial_state()
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        bot.mcts_search(state)
        done += SIMULATIONS
    return done / (time.process_time() - start)


def openspiel_cpp_rate(game: Any, seconds: float, seed: int) -> float:
    import pyspiel

    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(game, evaluator, UCT_C, SIMULATIONS, 1000, False, seed, False)
    state = game.new_initial_state()
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        bot.step(state)
        done += SIMULATIONS
    return done / (time.process_time() - start)


def solve_tictactoe(pyspiel: Any) -> tuple[float, float | None]:
    """Seconds to find the value of the tic-tac-toe start: ours (exact alpha-beta) and
    OpenSpiel's Python ``alpha_beta_search`` to full depth."""
    game = make_game("tictactoe")
    start = time.perf_counter()
    value = AlphaBeta(game, make_heuristic(game)).search(game.initial_state()).value
    ours = time.perf_counter() - start
    assert value == 0, "tic-tac-toe is a draw"
    if pyspiel is None:
        return ours, None
    from open_spiel.python.algorithms import minimax

    peer_game = pyspiel.load_game("tic_tac_toe")
    start = time.perf_counter()
    peer_value, _ = minimax.alpha_beta_search(peer_game, maximum_depth=10)
    peer = time.perf_counter() - start
    assert peer_value == 0
    return ours, peer


def time_one_move(game: Any, spec: str, seed: int) -> float:
    agent = make_agent(spec, game, seed=seed)
    state = game.initial_state()
    start = time.perf_counter()
    agent.act(game, state)
    return time.perf_counter() - start


def _best_of(sides: dict[str, Callable[[float, int], float] | None], args: Options) -> dict[str, Any]:
    best: dict[str, Any] = {name: (0.0 if measure is not None else None) for name, measure in sides.items()}
    for round_ in range(args.rounds):
        for name, measure in sides.items():
            if measure is not None:
                best[name] = max(best[name], measure(args.seconds, args.seed + round_))
    return best


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _ratio(ours: float, peer: float | None) -> str:
    return "" if not peer else f"{ours / peer:.2f}x"


def _size(params: dict[str, Any]) -> str:
    return f"{params['size']}x{params['size']}" if "size" in params else ""
