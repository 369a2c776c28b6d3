"""``boardgym solve setcover``: greedy, A* (and optionally uniform-cost search) on set cover
instances, checked against the exact optimum.

    boardgym solve setcover --problem-size 50 --num-sets 100 --density 0.2 --seed 1
    boardgym solve setcover --problem-size 20 --num-sets 50 --seeds 10 --ucs

The exact optimum comes from brute force over combinations of sets for tiny instances and
from the integer program ``min sum x  s.t.  A x >= 1, x binary`` (``scipy.optimize.milp``)
otherwise. The table and a ``results.json`` go to ``runs/setcover/astar/<run-name>/``.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardgym.config import Options, config_to_dict, option, options_from_argv, seed_option
from boardgym.games.setcover import SetCover, SetCoverState
from boardgym.runs import RUNS_ROOT, RunFolder, atomic_write_text
from boardgym.solve.astar import SearchResult, search
from boardgym.types import Action, BoardgymError

BRUTE_FORCE_LIMIT = 2_000_000
"""Brute force is used while the number of set combinations to try stays under this."""


@dataclass(frozen=True)
class Config(Options):
    """Solve random (or given) set cover instances with greedy and A*, and check optimality."""

    problem_size: int = option(50, "elements to cover", minimum=1)
    num_sets: int = option(100, "random sets to choose from", minimum=1)
    density: float = option(0.2, "probability that an element is in a set", above=0, maximum=1)
    seed: int = seed_option(1, "instance seed (the first one with --seeds)")
    seeds: int = option(1, "how many instances: seeds seed, seed+1, ...", minimum=1)
    sets: str | None = option(None, "an explicit instance instead, e.g. '0 1 2;2 3;3 4' (sets separated by ';')")
    max_nodes: int = option(2_000_000, "node budget of each search (expansions)", minimum=1)
    time_limit: float = option(60.0, "time budget of each search, seconds", above=0)
    ucs: bool = option(False, "also run uniform-cost search (A* without its heuristic) to compare nodes")
    exact: bool = option(True, "check against the exact optimum (brute force or scipy milp)")
    run_name: str | None = option(None, "run folder name under <root>/setcover/astar/ (default: seed and time)")
    root: str = option(str(RUNS_ROOT), "the runs root the run folder goes under")

    def check(self) -> None:
        if self.sets is not None:
            SetCover(sets=self.sets)


def exact_cover_size(game: SetCover) -> int:
    """The size of a smallest cover: brute force when cheap, else the integer program. The
    greedy cover bounds the sizes brute force has to try."""
    if _combinations_up_to(game.num_sets, len(greedy_cover(game))) <= BRUTE_FORCE_LIMIT:
        return brute_force_cover_size(game)
    return milp_cover_size(game)


def greedy_cover(game: SetCover, state: SetCoverState | None = None) -> list[Action]:
    """The sets the greedy rule takes from ``state`` (default: the start) to a cover."""
    state = game.initial_state() if state is None else state
    actions = []
    while not game.is_terminal(state):
        action = game.greediest_sets(state)[0]
        actions.append(action)
        state = game.apply(state, action)
    return actions


def brute_force_cover_size(game: SetCover) -> int:
    """Try every combination of 1, 2, ... sets until one covers everything."""
    for size in range(1, game.num_sets + 1):
        for combination in itertools.combinations(game.masks, size):
            union = 0
            for mask in combination:
                union |= mask
            if union == game.universe:
                return size
    raise BoardgymError(f"{game!r} has no cover")


def milp_cover_size(game: SetCover) -> int:
    """Solve ``min sum x  s.t.  A x >= 1, x in {0, 1}`` with ``scipy.optimize.milp``."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    incidence = np.array([[mask >> e & 1 for mask in game.masks] for e in range(game.problem_size)], dtype=float)
    result = milp(
        c=np.ones(game.num_sets),
        constraints=LinearConstraint(incidence, lb=np.ones(game.problem_size), ub=np.inf),
        integrality=np.ones(game.num_sets),
        bounds=Bounds(0, 1),
    )
    if not result.success:
        raise BoardgymError(f"scipy milp could not solve {game!r}: {result.message}")
    return int(round(result.fun))


def solve_instance(game: SetCover, config: Config) -> dict[str, Any]:
    """Greedy, A*, optionally UCS and the exact optimum on one instance, as a table row."""
    greedy = greedy_cover(game)
    astar = search(game, game.initial_state(), max_nodes=config.max_nodes, time_limit=config.time_limit)
    _check_cover(game, astar)
    row: dict[str, Any] = {"instance": _describe(game), "greedy": len(greedy), **_search_row("astar", astar)}
    if config.ucs:
        ucs = search(
            game, game.initial_state(), use_heuristic=False, max_nodes=config.max_nodes, time_limit=config.time_limit
        )
        _check_cover(game, ucs)
        row.update(_search_row("ucs", ucs))
    if config.exact:
        row["optimum"] = exact_cover_size(game)
    row["sets"] = sorted(astar.actions)
    return row


def main(argv: list[str] | None = None, prog: str = "boardgym solve setcover") -> int:
    config = options_from_argv(Config, argv, prog)
    folder = RunFolder.named(config.root, "setcover", "astar", config.run_name, seed=config.seed)
    rows = []
    with folder.open(what="solve run", resumable=False):
        print(_header(config))
        for game in _instances(config):
            if isinstance(game, str):
                print(game)
                continue
            row = solve_instance(game, config)
            rows.append(row)
            print(_format_row(row, config), flush=True)
        results = folder.path / "results.json"
        atomic_write_text(results, json.dumps({"config": config_to_dict(config), "rows": rows}, indent=2))
    print(f"results: {results}")
    if config.exact and any(r["astar_optimal"] and r["astar_cost"] != r["optimum"] for r in rows):
        raise BoardgymError("A* returned a cover larger than the optimum; please report this instance")
    return 0


def _instances(config: Config) -> Iterator[SetCover | str]:
    """The instances to solve; in a batch (``--seeds`` > 1) an unsolvable draw is reported
    as a line of text and skipped, a single one is an error."""
    if config.sets is not None:
        yield SetCover(sets=config.sets)
        return
    for seed in range(config.seed, config.seed + config.seeds):
        try:
            yield SetCover(config.problem_size, config.num_sets, config.density, seed)
        except BoardgymError as error:
            if config.seeds == 1:
                raise
            yield f"{config.problem_size}/{config.num_sets}/{config.density:g} seed {seed}: skipped, {error}"


def _search_row(prefix: str, result: SearchResult) -> dict[str, Any]:
    return {
        f"{prefix}_cost": result.cost,
        f"{prefix}_optimal": result.optimal,
        f"{prefix}_lower_bound": result.lower_bound,
        f"{prefix}_nodes": result.nodes_expanded,
        f"{prefix}_seconds": round(result.seconds, 4),
    }


def _check_cover(game: SetCover, result: SearchResult) -> None:
    state = game.initial_state()
    for action in result.actions:
        state = game.apply(state, action)
    assert game.is_terminal(state), "search returned a non-cover"


def _describe(game: SetCover) -> str:
    if game.seed is None:
        return f"given {game.num_sets} sets over {game.problem_size}"
    return f"{game.problem_size}/{game.num_sets}/{game.density:g} seed {game.seed}"


def _header(config: Config) -> str:
    columns = f"{'instance':<26} {'greedy':>6} {'A*':>6} {'A* nodes':>9} {'A* s':>7}"
    if config.ucs:
        columns += f" {'UCS':>6} {'UCS nodes':>10} {'UCS s':>7}"
    if config.exact:
        columns += f" {'optimum':>7}"
    return columns


def _format_row(row: dict[str, Any], config: Config) -> str:
    def cost(prefix: str) -> str:
        value = str(row[f"{prefix}_cost"])
        return value if row[f"{prefix}_optimal"] else f"<={value} (>={row[f'{prefix}_lower_bound']})"

    text = (
        f"{row['instance']:<26} {row['greedy']:>6} {cost('astar'):>6} {row['astar_nodes']:>9} "
        f"{row['astar_seconds']:>7.3f}"
    )
    if config.ucs:
        text += f" {cost('ucs'):>6} {row['ucs_nodes']:>10} {row['ucs_seconds']:>7.3f}"
    if config.exact:
        text += f" {row['optimum']:>7}"
    return text


def _combinations_up_to(n: int, k: int) -> int:
    return sum(math.comb(n, size) for size in range(1, min(n, k) + 1))


if __name__ == "__main__":
    sys.exit(main())
