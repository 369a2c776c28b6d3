"""``boardgym solve blackbox``: run a black-box optimiser over instances and seeds, with a
progress bar, a summary table and a fitness-vs-calls plot.

    boardgym solve blackbox --instance 10 --seed 0
    boardgym solve blackbox --instance 1,2,5,10 --seeds 10 --algorithm linkage
    boardgym solve blackbox --instance 2 --algorithm steady_state --max-calls 100000

Writes ``results.json`` (every run: best fitness, calls, curve) and ``fitness.png`` (best
fitness against calls, one line per run) into ``runs/blackbox/<algorithm>/<run-name>/``.
Algorithms are described in ``boardgym.solve.blackbox``.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from boardgym.config import (
    Options,
    config_to_dict,
    option,
    options_from_argv,
    progress_bar,
    progress_option,
    seed_option,
)
from boardgym.games.blackbox import BlackBoxProblem, check_instance
from boardgym.runs import RUNS_ROOT, RunFolder, atomic_write_text
from boardgym.solve.blackbox import OPTIMISERS, RunResult, run

SEED_000_CALLS = 142_705
"""Calls seed report 000 spent over instances 1, 2, 5 and 10 (reaching 97.1%, 47.6%, 19.3%, 29.0%)."""


@dataclass(frozen=True)
class Config(Options):
    """Optimise the black-box bit-string problem and plot best fitness against fitness calls."""

    instance: tuple[int, ...] = option((10,), "instance number(s) a, comma separated, e.g. 1,2,5,10", minimum=1)
    algorithm: str = option("linkage", f"one of: {', '.join(OPTIMISERS)}", choices=tuple(OPTIMISERS))
    seed: int = seed_option(0, "seed of the first run")
    seeds: int = option(1, "runs per instance: seeds seed, seed+1, ...", minimum=1)
    max_calls: int = option(200_000, "fitness-call budget of each run", minimum=1)
    target: float = option(
        1.0,
        "stop a run once its best fitness reaches this (1.0 is reachable when a divides the length)",
        above=0,
        maximum=1,
    )
    genome_length: int = option(1000, "bits per genome", minimum=1)
    run_name: str | None = option(None, "run folder name under <root>/blackbox/<algorithm>/ (default: seed and time)")
    root: str = option(str(RUNS_ROOT), "the runs root the run folder goes under")
    progress: bool = progress_option()
    plot: bool = option(True, "draw fitness.png")

    def check(self) -> None:
        for instance in self.instance:
            check_instance(instance, self.genome_length)


def main(argv: list[str] | None = None, prog: str = "boardgym solve blackbox") -> int:
    config = options_from_argv(Config, argv, prog)
    folder = RunFolder.named(config.root, "blackbox", config.algorithm, config.run_name, seed=config.seed)
    with folder.open(what="solve run", resumable=False):
        results = [
            _run_with_progress(config, instance, seed)
            for instance in config.instance
            for seed in range(config.seed, config.seed + config.seeds)
        ]
        print(summary_table(results))
        atomic_write_text(folder.path / "results.json", json.dumps(_to_json(config, results), indent=2) + "\n")
        if config.plot:
            plot_curves(results, folder.path / "fitness.png", config.algorithm)
    print(f"results: {folder.path}")
    return 0


def summary_table(results: list[RunResult]) -> str:
    """Per instance: runs, runs that reached 1.0, median best fitness and median calls."""
    lines = [f"{'instance':>8} {'runs':>5} {'solved':>6} {'median fitness':>15} {'median calls':>13}"]
    total = 0.0
    for instance in sorted({r.instance for r in results}):
        runs = [r for r in results if r.instance == instance]
        calls = statistics.median(r.calls for r in runs)
        total += calls
        fitness = statistics.median(r.best_fitness for r in runs)
        solved = sum(r.solved for r in runs)
        lines.append(f"{instance:>8} {len(runs):>5} {solved:>6} {fitness:>15.4f} {calls:>13,.0f}")
    lines.append(f"sum of median calls: {total:,.0f} (seed report 000 spent {SEED_000_CALLS:,})")
    return "\n".join(lines)


def plot_curves(results: list[RunResult], path: Path, algorithm: str) -> Path:
    """Best fitness against calls, one line per run, coloured by instance (matplotlib Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    colours = plt.get_cmap("tab10")
    instances = sorted({r.instance for r in results})
    for result in results:
        calls = [c for c, _ in result.curve] + [result.calls]
        values = [f for _, f in result.curve] + [result.best_fitness]
        index = instances.index(result.instance)
        label = f"a = {result.instance}" if result.seed == min(r.seed for r in results) else None
        axes.step(calls, values, where="post", color=colours(index % 10), alpha=0.7, label=label)
    axes.set_xscale("log")
    axes.set_xlabel("fitness calls")
    axes.set_ylabel("best fitness")
    axes.set_ylim(0, 1.02)
    axes.set_title(f"black-box problem: {algorithm}")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def _run_with_progress(config: Config, instance: int, seed: int) -> RunResult:
    bar = progress_bar(
        config.progress,
        total=config.max_calls,
        desc=f"{config.algorithm} a={instance} seed={seed}",
        unit="call",
        leave=False,
        mininterval=0.2,
    )
    best = [-1.0]

    def on_call(calls: int, fitness: float) -> None:
        bar.update(1)
        if fitness > best[0]:
            best[0] = fitness
            bar.set_postfix(best=f"{fitness:.4f}", refresh=False)

    try:
        result = run(
            config.algorithm,
            BlackBoxProblem(instance, config.genome_length),
            seed=seed,
            max_calls=config.max_calls,
            target=config.target,
            on_call=on_call,
        )
    finally:
        bar.close()
    status = "reached 1.0" if result.solved else f"best {result.best_fitness:.4f}"
    print(f"{config.algorithm} a={instance} seed={seed}: {status} in {result.calls:,} calls", flush=True)
    return result


def _to_json(config: Config, results: list[RunResult]) -> dict:
    return {
        "config": config_to_dict(config),
        "runs": [
            {
                "instance": r.instance,
                "seed": r.seed,
                "best_fitness": r.best_fitness,
                "calls": r.calls,
                "solved": r.solved,
                "curve": [list(point) for point in r.curve],
            }
            for r in results
        ],
    }


if __name__ == "__main__":
    sys.exit(main())
