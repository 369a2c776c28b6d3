"""The measuring stages of ``benchmarks/gpu_check.sh``, one subcommand each; every stage writes
its figures as JSON into the folder it is given, and ``table`` prints them as one table.

    python benchmarks/gpu_check.py rules DIR [--device cuda] [--tiny]     # ours beside pgx, random play
    python benchmarks/gpu_check.py network DIR [--device cuda] [--tiny]   # the network at the self-play batch
    python benchmarks/gpu_check.py search DIR [--device cuda] [--tiny]    # one search, eager and captured
    python benchmarks/gpu_check.py selfplay DIR [--device cuda] [--tiny]  # bench selfplay beside pgx + mctx
    python benchmarks/gpu_check.py table DIR                               # the table of what was measured

(The train stage is ``benchmarks/gpu_check_train.py``; its rows join the table.)

Sizes (``--tiny``: small enough for a CPU test): rules at B=4,096 and 65,536 (64, 256);
Connect Four's shipped 5x64 network at the self-play batch 8,192 (64, a random 1x8); one PUCT
search of 200 simulations over 8,192 games after 4 moves (8 simulations, 8 games); self-play
with 8,192 games in flight, PUCT at 200 simulations and Gumbel's root at 32 (4 games, 4 and 4).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gpu_check_train import table_rows as train_rows

from boardgym.agents.alphazero.agent import load_network
from boardgym.agents.alphazero.network import AlphaZeroNet, build_network, folded_for_inference, inference_copy
from boardgym.agents.alphazero.network_leaf import NetworkBatchEvaluator
from boardgym.agents.alphazero.pretrained import pretrained_file
from boardgym.agents.batched_search import BatchedMCTS
from boardgym.batch import batched
from boardgym.bench import optional_import, rows
from boardgym.bench.selfplay_speed import GpuSampler
from boardgym.games import make_game

RULES = ("tictactoe", "connect_four", "hex")


def sizes(tiny: bool) -> dict[str, Any]:
    if tiny:
        return {"batches": (64, 256), "seconds": 0.2, "batch": 64, "search": 8, "sims": 8, "games": 4, "gsims": 4}
    return {
        "batches": (4096, 65536),
        "seconds": 2.0,
        "batch": 8192,
        "search": 8192,
        "sims": 200,
        "games": 8192,
        "gsims": 32,
    }


def network_for(game: Any, device: torch.device, tiny: bool) -> AlphaZeroNet:
    """The shipped network of ``game`` (a random 1x8 one when ``tiny``), on ``device``."""
    if tiny:
        torch.manual_seed(0)
        return build_network(game, blocks=1, channels=8).to(device).eval()
    return load_network(pretrained_file(game), game, device)


def busy(device: torch.device) -> GpuSampler:
    """The GPU's load sampled while a block runs (``mean()`` None on a CPU)."""
    return GpuSampler(device)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


# -- the stages ------------------------------------------------------------------------------------
def stage_rules(device: torch.device, tiny: bool) -> dict[str, Any]:
    """Random play with auto-reset, steps/s: ours and pgx's (``bench batched``'s own loops)."""
    from boardgym.bench.batched_speed import batched_rate, pgx_rate

    size = sizes(tiny)
    pgx = optional_import("pgx")
    found: dict[str, Any] = {}
    for game, row in rows("batched", wanted=RULES):
        if game == "hex" and row.params.get("size", 11) != 11:
            continue
        for batch in size["batches"]:
            ours = batched_rate(game, row, batch, str(device), size["seconds"])[0]
            peer = pgx_rate(row.settings["pgx"], batch, size["seconds"])[0] if pgx and row.settings.get("pgx") else None
            found[f"{game} B={batch}"] = {"ours": ours, "pgx": peer}
    if pgx:
        import jax

        found["pgx device"] = str(jax.devices()[0].platform)
    return found


def stage_network(device: torch.device, tiny: bool) -> dict[str, Any]:
    """The network's forward pass at the self-play batch, positions/s, in the ways a search can
    call it; and how far the inference copy's priors are from float32's."""
    game = make_game("connect_four")
    batch = sizes(tiny)["batch"]
    network = network_for(game, device, tiny)
    rules = batched(game, device=device)
    generator = torch.Generator(device=device).manual_seed(0)
    state = rules.init(batch, generator)
    for _ in range(6):
        state = rules.step(state, rules.random_actions(state, generator), auto_reset=True, generator=generator)
    planes, legal = rules.observation(state, state.current_player), rules.legal_mask(state)
    folded = NetworkBatchEvaluator(folded_for_inference(network), amp=device.type == "cuda")
    fast = NetworkBatchEvaluator(inference_copy(network))
    ways: dict[str, Callable[[], Any]] = {
        "folded, float32 (fp16 autocast on CUDA), NCHW": lambda: folded(planes, legal)
    }
    if device.type == "cuda":
        ways["inference copy: fp16, channels_last"] = lambda: fast(planes, legal)
        ways["the same in a CUDA graph"] = graphed(lambda: fast(planes, legal), device)
        compiled = NetworkBatchEvaluator(torch.compile(inference_copy(network)))  # type: ignore[arg-type]
        ways["the same, torch.compile, in a CUDA graph"] = graphed(lambda: compiled(planes, legal), device)
    found: dict[str, Any] = {"batch": batch}
    with torch.inference_mode():
        for name, call in ways.items():
            found[name] = batch / seconds_per_call(call, device)
        want = folded(planes, legal)[0].float()
        found["inference copy's largest prior difference"] = float((fast(planes, legal)[0] - want).abs().max())
    return found


def graphed(call: Callable[[], Any], device: torch.device) -> Callable[[], Any]:
    """``call`` captured as a CUDA graph after three warm-up calls on a side stream."""
    stream = torch.cuda.Stream(device)
    stream.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(stream), torch.inference_mode():
        for _ in range(3):
            call()
    torch.cuda.current_stream(device).wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.inference_mode():
        call()
    return graph.replay


def seconds_per_call(call: Callable[[], Any], device: torch.device, repeats: int = 20) -> float:
    """The median time of ``call`` (device events on CUDA), after warm-up calls."""
    for _ in range(3):
        call()
    sync(device)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        sync(device)
        times.append(time.perf_counter() - started)
    return float(np.median(times))


def stage_search(device: torch.device, tiny: bool) -> dict[str, Any]:
    """One PUCT search of Connect Four games after 4 moves: eager, then captured (its first
    search records the graphs, the second only replays), the same visits either way."""
    size = sizes(tiny)
    game = make_game("connect_four")
    network = inference_copy(network_for(game, device, tiny))
    rules = batched(game, device=device)
    found: dict[str, Any] = {"games": size["search"], "simulations": size["sims"]}
    state = rules.init(size["search"])
    opening = BatchedMCTS(rules, NetworkBatchEvaluator(network), simulations=4, capture=False)
    for _ in range(4):
        state = rules.step(state, opening.search(state, np.random.default_rng(0)).action)
    results = {}
    for name, capture in (("eager", False), ("captured", True)):
        search = BatchedMCTS(rules, NetworkBatchEvaluator(network), simulations=size["sims"], capture=capture)
        for round_ in ("first", "second"):
            sync(device)
            started = time.perf_counter()
            with busy(device) as sampler:
                results[name] = search.search(state)
                sync(device)
            seconds = time.perf_counter() - started
            found[f"{name}, {round_} search: seconds"] = seconds
            found[f"{name}, {round_} search: GPU busy"] = sampler.mean()
        found[f"{name}: positions/s"] = size["search"] / seconds
        found[f"{name}: captured"] = search.tactics.capture
    found["same visits eager and captured"] = bool(torch.equal(results["eager"].visits, results["captured"].visits))
    return found


SELFPLAY_SECONDS = {"batched": 55, "gumbel": 35, "mctx": 45, "mctx_gumbel": 35}
"""Each self-play row's own deadline (a row past it is written down as stopped; the others run)."""
TRAIN_ROW_SECONDS = 58
"""The deadline of the one row run beside the train stage (its warm-up: half a batch of games)."""


def stage_selfplay(device: torch.device, tiny: bool, folder: Path, train_from: str | None = None) -> dict[str, Any]:
    """``boardgym bench selfplay``, one run per row under its own deadline (our PUCT and Gumbel
    rows, then pgx + mctx's), each run's table parsed. ``train_from`` (the train stage runs
    too): only the row that plays as that stage's trainer (``gpu_check_train.bench_settings``:
    its search, simulations, games in flight and network), a quarter of a batch a timed round."""
    size = sizes(tiny)
    network = ["--blocks", "1", "--channels", "8"] if tiny else ["--pretrained"]
    deadlines = dict(SELFPLAY_SECONDS)
    simulations = {"batched": size["sims"], "gumbel": size["gsims"]}
    games, per_round = size["games"], max(2, size["games"] // 2)
    found: dict[str, Any] = {}
    if train_from is not None:
        from gpu_check_train import bench_settings

        wanted = bench_settings(train_from, tiny)
        found["settings"] = wanted
        deadlines = {wanted["source"]: TRAIN_ROW_SECONDS}
        simulations[wanted["source"]] = wanted["simulations"]
        games, per_round = wanted["games in flight"], max(2, wanted["games in flight"] // 4)
        network = ["--pretrained"] if wanted["network"].endswith("shipped") else ["--blocks", "5", "--channels", "64"]
    log = []
    for source, seconds in deadlines.items():
        command = [sys.executable, "-m", "boardgym.cli", "bench", "selfplay", "--games", "connect_four"]
        command += ["--sources", source, "--device", str(device.type)]
        command += ["--simulations", str(simulations["batched"]), "--gumbel-simulations", str(simulations["gumbel"])]
        command += ["--games-per-round", str(per_round), "--batch-games", str(games)]
        command += ["--rounds", "1", "--train-steps", "1", "--threads", "4", *network]
        log.append("$ " + " ".join(command[1:]))
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, check=False, timeout=seconds * (3 if tiny else 1)
            )
        except subprocess.TimeoutExpired as stopped:
            found[source] = f"stopped at its deadline of {seconds * (3 if tiny else 1)} s"
            log.append(_text(stopped.stdout) + _text(stopped.stderr))
            continue
        log.append(done.stdout + done.stderr)
        for line in done.stdout.splitlines():
            cells = [cell.strip() for cell in line.split("|")]
            if line.startswith("  | ") and len(cells) > 7 and re.match(r"[\d,]+$", cells[2]):
                found[cells[1]] = {
                    "positions/s": _number(cells[2]),
                    "network calls/s": _number(cells[4]),
                    "mean batch": _number(cells[5]),
                    "GPU busy": cells[7],
                    "host µs a position": _number(cells[8]) if len(cells) > 9 else None,
                }
        (folder / "selfplay_bench.txt").write_text("\n".join(log))
    (folder / "selfplay_bench.txt").write_text("\n".join(log))
    return found


def _number(cell: str) -> float | None:
    try:
        return float(cell.replace(",", ""))
    except ValueError:
        return None


def _text(value: bytes | str | None) -> str:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return value or ""


# -- the table -------------------------------------------------------------------------------------
def table(folder: Path) -> str:
    """Every stage's figures as one markdown table (a stage that did not finish: its row says so)."""
    read = {name: _load(folder / f"{name}.json") for name in ("rules", "network", "search", "selfplay")}
    lines = ["| stage | what | ours | peer | ours / peer | GPU busy |", "|---|---|---:|---:|---:|---:|"]
    rules = read["rules"]
    if rules is None:
        lines.append("| rules | not measured (see rules.log) | | | | |")
    else:
        for key, value in rules.items():
            if isinstance(value, dict):
                peer = value["pgx"]
                ratio = f"{value['ours'] / peer:.2f}x" if peer else "n/a"
                lines.append(f"| rules, steps/s | {key} | {_short(value['ours'])} | {_short(peer)} | {ratio} | |")
    network = read["network"]
    if network is None:
        lines.append("| network | not measured (see network.log) | | | | |")
    else:
        for key, value in network.items():
            if key != "batch" and "difference" not in key:
                lines.append(f"| network, positions/s at {network['batch']:,} | {key} | {_short(value)} | | | |")
        difference = network["inference copy's largest prior difference"]
        lines.append(f"| network | the inference copy's largest prior difference | {difference:.2g} | | | |")
    search = read["search"]
    if search is None:
        lines.append("| search | not measured (see search.log) | | | | |")
    else:
        what = f"{search['games']:,} games, {search['simulations']} sims"
        for name in ("eager", "captured"):
            busy_ = search.get(f"{name}, second search: GPU busy")
            how = name if name == "eager" or search["captured: captured"] else "capture asked: eager here"
            lines.append(
                f"| one search, positions/s | {what}, {how} (first search {search[f'{name}, first search: seconds']:.2f} s) "
                f"| {_short(search[f'{name}: positions/s'])} | | | {_percent(busy_)} |"
            )
        lines.append(
            f"| one search | same visits eager and captured | {search['same visits eager and captured']} | | | |"
        )
    selfplay = read["selfplay"]
    if selfplay is None:
        lines.append("| self-play | not measured (see selfplay.log) | | | | |")
    else:
        rows_ = {key: value for key, value in selfplay.items() if isinstance(value, dict)}
        pairs: tuple[tuple[str, str, str, str], ...] = (("batched", "batched --device", "mctx", "mctx muzero_policy"),)
        pairs += (("gumbel", "batched --gumbel", "mctx_gumbel", "mctx gumbel_muzero_policy"),)
        for source, ours, peer_source, peer in pairs:
            mine = next(((k, v) for k, v in rows_.items() if k.startswith(ours)), None)
            theirs = next(((k, v) for k, v in rows_.items() if peer in k), None)
            if mine is None:
                alone = "not run (the train stage's row only)" if "settings" in selfplay else None
                why = selfplay.get(source, alone or "not measured (see selfplay_bench.txt)")
                lines.append(f"| self-play | {ours}: {why} | | | | |")
                continue
            speed = mine[1]["positions/s"]
            other = theirs[1]["positions/s"] if theirs else None
            ratio = f"{speed / other:.2f}x" if other else selfplay.get(peer_source, "n/a")
            lines.append(
                f"| self-play, positions/s | {mine[0]} | {_short(speed)} | {_short(other)} | {ratio} | {mine[1]['GPU busy']} |"
            )
            host = mine[1].get("host µs a position")
            if host is not None:
                lines.append(f"| self-play, host µs a position | {mine[0]} | {host:.1f} | | | |")
    lines += train_rows(folder, selfplay)
    return "\n".join(lines)


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _short(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    if value >= 1e3:
        return f"{value / 1e3:.1f}k"
    return f"{value:.0f}"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=("rules", "network", "search", "selfplay", "table"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--train-from", choices=("shipped", "random"), help="selfplay: the train stage's row only")
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    if args.stage == "table":
        print(table(args.folder))
        return 0
    device = batched("tictactoe", device=args.device).device
    torch.set_num_threads(min(4, os.cpu_count() or 1))
    if args.stage == "selfplay":
        found = stage_selfplay(device, args.tiny, args.folder, args.train_from)
    else:
        found = {"rules": stage_rules, "network": stage_network, "search": stage_search}[args.stage](device, args.tiny)
    (args.folder / f"{args.stage}.json").write_text(json.dumps(found, indent=1))
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
