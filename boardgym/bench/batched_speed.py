"""The batched rules, side by side in one run with everything else that plays random games:

- **batched rules** (``boardgym.batch``): random play with auto-reset at each batch size, on each
  device present (``--devices``), torch on ``--threads`` threads;
- **pgx** (JAX) on the same games at the same batch sizes (``jit(vmap(step))`` with pgx's
  ``auto_reset`` and a random legal action drawn by ``jax.random.categorical``), on JAX's
  default device, where ``pgx`` is installed (``pip install -e ".[bench]"``);
- **our scalar rules**: random playouts, one game at a time (``bench envs``'s loop);
- **vector envs**: agent steps per second (the learner's random legal move and the opponent's
  random reply) through ``gym.make_vec``: ``SyncVectorEnv`` over ``gym.make``'s envs (the
  existing path, ``--sync-envs`` envs) against the native vector env (``--native-envs``).

Every row gives steps per wall-second and per CPU-second of this process (all its threads:
pgx's XLA runs several), best of ``--rounds`` alternating rounds of ``--seconds`` each, and the
ratios of ours at ``--ratio-batch`` to pgx and to the scalar rules. The rows come from the games'
``GAMES`` entries (``bench=``: ``BenchRow("batched", ...)`` names pgx's game). ``--plot PATH``
also writes the figures as ``PATH.json`` and draws them from there (``plot_speeds``) as
``PATH.png``: steps per CPU-second against batch size, a panel a game.

    boardgym bench batched [--games tictactoe connect_four] [--batches 1 256 4096 65536] [--devices cpu cuda]
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardgym.batch import batched
from boardgym.batch.capture import CapturedPlay
from boardgym.bench import RoundsOptions, label, optional_import, rows
from boardgym.bench.env_speed import rules_steps_per_second
from boardgym.config import option, options_from_argv
from boardgym.games import BenchRow, gym_id, make_game
from boardgym.runs import atomic_write_text

Rate = tuple[float, float]
"""Steps per wall-second and per CPU-second."""


@dataclass(frozen=True)
class Options(RoundsOptions):
    """The batched rules beside pgx, the scalar rules and the vector envs: random play, steps per second."""

    BENCHES = ("batched",)

    batches: tuple[int, ...] = option((1, 256, 4096, 65536), "batch sizes", minimum=1, maximum=2**20, many=True)
    ratio_batch: int = option(4096, "the batch size of the ratios", minimum=1)
    devices: tuple[str, ...] | None = option(
        None, "torch devices (default: cpu, and cuda where there is one)", many=True, metavar="DEVICE"
    )
    threads: int = option(1, "torch CPU threads", minimum=1)
    sync_envs: int = option(64, "envs of the SyncVectorEnv row", minimum=1)
    native_envs: int = option(4096, "envs of the native vector env row", minimum=1)
    pgx: bool = option(True, "measure pgx where it is installed")
    plot: str | None = option(
        None,
        "also write the figures as PATH.json and, from them, a plot of steps per CPU-second by batch size as PATH.png",
    )
    capture: bool = option(True, "on CUDA, play as one captured CUDA graph a step (boardgym.batch.capture)")


def main(argv: list[str] | None = None, prog: str = "boardgym bench batched") -> int:
    options = options_from_argv(Options, argv, prog)
    devices = options.devices or (("cpu", "cuda") if torch.cuda.is_available() else ("cpu",))
    for device in devices:
        batched("tictactoe", device=device)  # an unknown or absent device: one sentence now
    torch.set_num_threads(options.threads)
    pgx = optional_import("pgx") if options.pgx else None
    print(
        f"random play with auto-reset, steps/s per wall-second | per CPU-second, best of {options.rounds} rounds of "
        f"{options.seconds:g} s; torch on {options.threads} thread(s)\n"
    )
    figures = {}
    for game, row in rows(*Options.BENCHES, wanted=options.games):
        figures[label(game, row)] = _game_table(game, row, options, devices, pgx)
    if options.pgx and pgx is None:
        print("pgx is not installed: pip install -e '.[bench]' for its rows")
    if options.plot is not None:
        path = Path(options.plot)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path.with_suffix(".json"), json.dumps(figures, indent=1) + "\n")
        plot_speeds(figures, path.with_suffix(".png"))
        print(f"figures: {path.with_suffix('.json')}; plot: {path.with_suffix('.png')}")
    return 0


def _game_table(game: str, row: BenchRow, options: Options, devices: tuple[str, ...], pgx: Any) -> dict[str, Any]:
    """Print one game's rows; return its figures (steps per wall- and CPU-second) by row:
    ``batches`` (each row's rates by batch size: ours on each device, pgx) and ``single``
    (the rows of one size: the scalar rules, the two vector envs)."""
    print(f"## {label(game, row)}")
    print(f"  {'':<28}" + "".join(f"{'B=' + str(b):>22}" for b in options.batches))
    ours: dict[tuple[str, int], Rate] = {}
    for device in devices:
        rates = [
            _best(partial(batched_rate, game, row, b, device, capture=options.capture), options)
            for b in options.batches
        ]
        ours.update({(device, b): rate for b, rate in zip(options.batches, rates, strict=True)})
        print(f"  {'ours (torch, ' + device + ')':<28}" + "".join(_cell(rate) for rate in rates))
    peer: dict[int, Rate] = {}
    if pgx is not None and row.settings.get("pgx"):
        rates = [_best(partial(pgx_rate, row.settings["pgx"], b), options) for b in options.batches]
        peer = dict(zip(options.batches, rates, strict=True))
        print(f"  {'pgx (JAX, ' + _jax_device() + ')':<28}" + "".join(_cell(rate) for rate in rates))
    scalar_game = make_game(game, **row.params)
    scalar = _best(lambda s: _both(lambda clock: rules_steps_per_second(scalar_game, s / 2, 0, clock)), options)
    print(f"  {'scalar rules (one game)':<28}{_cell(scalar)}")
    sync = _best(lambda s: vector_rate(game, row, "sync", options.sync_envs, s), options)
    native = _best(lambda s: vector_rate(game, row, "vector_entry_point", options.native_envs, s), options)
    print(f"  {'SyncVectorEnv, ' + str(options.sync_envs) + ' envs':<28}{_cell(sync)}")
    print(f"  {'native vector env, ' + str(options.native_envs):<28}{_cell(native)}")
    mine = ours.get(("cpu", options.ratio_batch))
    if mine is not None:
        notes = [f"ours / scalar rules {mine[1] / scalar[1]:.1f}x"]
        if options.ratio_batch in peer:
            notes.insert(0, f"ours / pgx {mine[1] / peer[options.ratio_batch][1]:.1f}x")
        notes.append(f"native / sync vector env {native[1] / sync[1]:.1f}x")
        print(f"  per CPU-second at B={options.ratio_batch} on cpu: " + ", ".join(notes))
    print()
    batches = {f"ours ({device})": {str(b): ours[(device, b)] for b in options.batches} for device in devices}
    if peer:
        batches[f"pgx ({_jax_device()})"] = {str(b): rate for b, rate in peer.items()}
    single = {
        "scalar rules (one game)": scalar,
        f"SyncVectorEnv, {options.sync_envs} envs": sync,
        f"native vector env, {options.native_envs} envs": native,
    }
    return {"batches": batches, "single": single}


def plot_speeds(figures: dict[str, Any], path: Path) -> Path:
    """One panel a game of ``figures`` (``main``'s, as in the JSON): steps per CPU-second
    against batch size on log scales, ours and pgx as lines, the one-size rows as level lines."""
    from matplotlib.figure import Figure  # a bare Figure: the Agg canvas, no pyplot state

    fig = Figure(figsize=(4.2 * min(len(figures), 3), 3.4 * -(-len(figures) // 3)), layout="constrained")
    axes = fig.subplots(-(-len(figures) // 3), min(len(figures), 3), squeeze=False).flat
    for (game, table), ax in zip(figures.items(), axes, strict=False):  # figures first: no panel lost
        for name, rates in table["batches"].items():
            sizes = sorted(rates, key=int)
            ax.plot([int(b) for b in sizes], [rates[b][1] for b in sizes], marker="o", label=name)
        for (name, rate), style in zip(table["single"].items(), (":", "--", "-."), strict=False):
            ax.axhline(rate[1], linestyle=style, color="grey", linewidth=1)
            ax.annotate(name, (1, rate[1]), xycoords=("axes fraction", "data"), ha="right", va="bottom", fontsize=7)
        ax.set(xscale="log", yscale="log", title=game, xlabel="batch size (games)", ylabel="steps per CPU-second")
        ax.legend(fontsize=7, loc="upper left")
    for ax in list(axes):  # the grid's unused panels
        ax.set_visible(False)
    fig.savefig(path, dpi=100)
    return path


def batched_rate(game: str, row: BenchRow, batch: int, device: str, seconds: float, *, capture: bool = True) -> Rate:
    """Random play with auto-reset on the batched rules: steps per wall- and CPU-second; on
    CUDA with ``capture``, each step one replay of a captured graph (eager where capture fails,
    saying why once)."""
    rules = batched(game, device=device, **row.params)
    if capture and rules.device.type == "cuda":
        try:
            played = CapturedPlay(rules, batch)
        except Exception as error:  # noqa: BLE001 - a capture that fails measures the eager loop instead
            if (game, device) not in _CAPTURE_FAILED:
                _CAPTURE_FAILED.add((game, device))
                print(f"  ({game} on {device}: capture failed, eager instead: {type(error).__name__}: {error})")
        else:
            return _replayed(played, batch, seconds)
    generator = torch.Generator(device=rules.device).manual_seed(0)
    state = rules.init(batch, generator)
    for _ in range(3):  # warm the caches and the allocator
        state = rules.step(state, rules.random_actions(state, generator), auto_reset=True)
    sync = torch.cuda.synchronize if rules.device.type == "cuda" else (lambda: None)
    sync()
    steps, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        for _ in range(8):
            state = rules.step(state, rules.random_actions(state, generator), auto_reset=True)
        steps += 8 * batch
        sync()
    return _rates(steps, wall, cpu)


_CAPTURE_FAILED: set[tuple[str, str]] = set()


def _replayed(played: CapturedPlay, batch: int, seconds: float) -> Rate:
    for _ in range(3):
        played.replay()
    torch.cuda.synchronize()
    steps, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        for _ in range(8):
            played.replay()
        steps += 8 * batch
        torch.cuda.synchronize()
    return _rates(steps, wall, cpu)


def pgx_rate(name: str, batch: int, seconds: float) -> Rate:
    """pgx's game ``name`` the same way: ``jit(vmap)`` of its step with auto-reset and a
    categorical draw over the legal mask, ``batch`` games."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(name)
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))

    @jax.jit
    def play(state: Any, key: Any) -> tuple[Any, Any]:
        key, pick, reset = jax.random.split(key, 3)
        logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
        actions = jax.random.categorical(pick, logits, axis=1)
        return step(state, actions, jax.random.split(reset, batch)), key

    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, batch))
    for _ in range(3):
        state, key = play(state, key)
    jax.block_until_ready(state)
    steps, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        for _ in range(8):
            state, key = play(state, key)
        jax.block_until_ready(state)
        steps += 8 * batch
    return _rates(steps, wall, cpu)


def vector_rate(game: str, row: BenchRow, mode: str, envs: int, seconds: float) -> Rate:
    """Agent steps per second through ``gym.make_vec(..., vectorization_mode=mode)`` against a
    random opponent, the learner playing a random legal action (drawn in numpy from the mask)."""
    import gymnasium as gym

    env = gym.make_vec(gym_id(game), num_envs=envs, vectorization_mode=mode, opponent="random", **row.params)
    rng = np.random.default_rng(0)
    _, infos = env.reset(seed=0)
    steps, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        masks = infos["action_mask"]
        _, _, _, _, infos = env.step((rng.random(masks.shape) * masks).argmax(1))
        steps += envs
    env.close()
    return _rates(steps, wall, cpu)


def _best(measure: Callable[[float], Rate], options: Options) -> Rate:
    best = (0.0, 0.0)
    for _ in range(options.rounds):
        wall, cpu = measure(options.seconds)
        best = (max(best[0], wall), max(best[1], cpu))
    return best


def _both(measure: Callable[[Callable[[], float]], float]) -> Rate:
    return measure(time.perf_counter), measure(time.process_time)


def _rates(steps: int, wall: float, cpu: float) -> Rate:
    return steps / (time.perf_counter() - wall), steps / max(time.process_time() - cpu, 1e-9)


def _cell(rate: Rate) -> str:
    return f"{_short(rate[0]):>10} | {_short(rate[1]):<9}"


def _short(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    if value >= 1e3:
        return f"{value / 1e3:.1f}k"
    return f"{value:.0f}"


def _jax_device() -> str:
    import jax

    return str(jax.devices()[0].platform)


if __name__ == "__main__":
    raise SystemExit(main())
