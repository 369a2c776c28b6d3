"""Search agents against a reference agent over many games, seats alternated.

Prints wins/draws/losses of agent A with a 95% Wilson interval and A's thinking time per
whole game (the sum over its own moves, from ``play_match``'s clock). Games are spread over
worker processes; game ``i`` is seeded from ``(seed, i)`` so results do not depend on them.

    python benchmarks/search_strength.py quarto "minimax:depth=2" random --games 400
    python benchmarks/search_strength.py hex "minimax:depth=4,eval=dijkstra" \\
        "minimax:depth=3,eval=dijkstra" -p size=7 --games 400 --workers 2
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from boardgym.agents.registry import read_spec
from boardgym.config import REQUIRED, game_params_option, option, options_from_argv, seed_option
from boardgym.config import Options as BaseOptions
from boardgym.evaluate.match import DRAW, play_match
from boardgym.evaluate.ratings import wilson_interval
from boardgym.games import make_game
from boardgym.procs import WorkerPool


@dataclass(frozen=True)
class Options(BaseOptions):
    """Search agents against a reference agent over many games, seats alternated."""

    game: str = option(REQUIRED, "the game (boardgym list games)", positional=True, metavar="GAME")
    agent_a: str = option(REQUIRED, "agent spec, e.g. minimax:depth=2", positional=True, metavar="A")
    agent_b: str = option(REQUIRED, "agent spec, e.g. random", positional=True, metavar="B")
    game_params: dict[str, Any] = game_params_option()
    games: int = option(400, "games, seats alternated", minimum=1)
    workers: int = option(1, "worker processes", minimum=1)
    seed: int = seed_option(0)

    def check(self) -> None:
        make_game(self.game, **self.game_params)
        for spec in (self.agent_a, self.agent_b):
            read_spec(spec)


def main(argv: list[str] | None = None, prog: str = "boardgym bench strength") -> int:
    args = options_from_argv(Options, argv, prog)
    params = args.game_params
    tasks = [(args.game, params, args.agent_a, args.agent_b, args.seed, i) for i in range(args.games)]
    start = time.perf_counter()
    if args.workers > 1:
        with WorkerPool(args.workers, start_method=None) as pool:
            results = list(pool.map(_play, tasks, chunksize=4))
    else:
        results = [_play(task) for task in tasks]
    wins = sum(1 for r in results if r[0] == 1)
    draws = sum(1 for r in results if r[0] == 0)
    losses = len(results) - wins - draws
    low, high = wilson_interval(wins, len(results))
    a_seconds = sum(r[1] for r in results) / len(results)
    b_seconds = sum(r[2] for r in results) / len(results)
    plies = sum(r[3] for r in results) / len(results)
    print(
        f"{args.game} {params or ''}: A = {args.agent_a}  vs  B = {args.agent_b}, {len(results)} games, seats alternated"
    )
    print(
        f"  A wins {wins}, draws {draws}, losses {losses}: win rate {wins / len(results):.1%} (95% CI {low:.1%}-{high:.1%})"
    )
    print(f"  A thinks {a_seconds:.3f} s per game, B {b_seconds:.3f} s; {plies:.1f} plies per game")
    print(f"  wall time {time.perf_counter() - start:.0f} s with {args.workers} worker(s)")
    return 0


def _play(task: tuple[str, dict[str, Any], str, str, int, int]) -> tuple[int, float, float, int]:
    """(A's result +1/0/-1, A's seconds, B's seconds, plies) of game ``index``; A sits in
    seat 0 in even games and seat 1 in odd ones."""
    name, params, agent_a, agent_b, seed, index = task
    game = make_game(name, **params)
    seat_a = index % 2
    seats = [agent_a, agent_b] if seat_a == 0 else [agent_b, agent_a]
    record = play_match(game, seats, seed, index=index, record_moves=False)
    result = 0 if record.winner == DRAW else 1 if record.winner == seat_a else -1
    seconds = [record.seconds_per_move[s] * record.moves_per_seat[s] for s in (0, 1)]
    return result, seconds[seat_a], seconds[1 - seat_a], record.num_moves
