"""The training stage of ``benchmarks/gpu_check.sh``: MINUTES of batched self-play and training
of Connect Four's 5x64 network on one device, then its grade and a match against the shipped
network, every step a command of the command line under its own deadline.

    python benchmarks/gpu_check_train.py DIR [--device cuda] [--tiny] [--minutes 6] [--from shipped|random]

1. ``boardgym train alphazero`` (``trainer_flags``), the run folder under ``DIR/runs``; its
   ``final.pt`` is copied to ``DIR/final.pt`` (the last iteration's ``checkpoint.pt`` where the
   trainer was stopped at its deadline) and its TensorBoard events to ``DIR/events/<run>/``;
2. then, side by side (the grade on the CPU, the match on the device):
   ``boardgym grade connect_four`` at 200 simulations, as the shipped network was graded
   (``alphazero:...,simulations=200,batch=8,symmetries=true`` on the CPU), output in
   ``DIR/grade.txt``; and ``boardgym evaluate`` of 200 games against the shipped network, seats
   alternated, the same simulations both sides, every game of the pairing searched together
   (``search=batched``, ``--batch-games 200``), output in ``DIR/match.txt``;
3. ``DIR/train.json``: the figures the table reads (``table_rows``).

``--tiny`` (a CPU, seconds): 2 iterations of 4 games at 8 simulations, the grade on every 28th
position of the shipped set (``--positions``), a 4-game match at 8 simulations.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

SOURCES = ("shipped", "random")
GRADE_GOAL = {"shipped": 0.03, "random": 0.064}
"""The acceptance line: at most this graded mistake rate (0.064: the shipped network's own)."""
MATCH_GOAL = {"shipped": 0.55}
"""The acceptance line: at least this share of the points against the shipped network."""

# Why these settings (the rates are one earlier bench run on one H200, before the trainer's
# self-play was reworked; the stage's own figures are to be measured): from the shipped network,
# PUCT at 200 simulations, the grade's own search depth, about 5,500 positions/s with 8,192
# games in flight; 4,096 games an iteration (about 100,000 positions, some 20 s of self-play), so
# that the network that plays is renewed about 15 times in 6 minutes; 200 steps of 1,024, which
# sample each new position about once (twice counting its mirror image); the shipped network's
# own last rate, 2e-4, falling to 0 (cosine), as the runs that made it ended best. From random
# weights, Gumbel's root at 32 simulations: about 7x PUCT's positions/s on the same card, which a
# network that knows nothing needs more than deep searches; 8,192 games and 400 steps an
# iteration, the trainer's default rate 2e-3 for a fresh network, falling to 0.
ITERATION_SECONDS = {"shipped": 24.0, "random": 14.0}
"""The predicted length of one iteration on one H200 (not measured): sets --iterations, so that
the cosine rate nears 0 as the run ends, and --max-minutes, MINUTES less one iteration (the
trainer runs the iteration that would end past it)."""


def trainer_flags(source: str, minutes: float, device: str, tiny: bool) -> list[str]:
    """The trainer's flags for the stage (the run's name and root apart)."""
    network = ["--blocks", "5", "--channels", "64"] + (["--init", "pretrained"] if source == "shipped" else [])
    schedule = ["--random-start-moves", "16", "--temperature-moves", "8", "--eval-every", "0", "--seed", "0"]
    common = ["--game", "connect_four", "--search", "batched", "--device", device, "--workers", "1"]
    if tiny:
        search = ["--gumbel", "--simulations", "4"] if source == "random" else ["--simulations", "8"]
        sizes = ["--games-per-iteration", "4", "--parallel-games", "4", "--train-steps", "2", "--batch-size", "32"]
        sizes += ["--buffer-size", "10000", "--iterations", "2", "--max-minutes", str(minutes), "--threads", "1"]
        rate = ["--lr", "0.0002" if source == "shipped" else "0.002", "--lr-schedule", "cosine"]
        return common + network + search + sizes + rate + schedule
    iterations = max(2, round(60 * minutes / ITERATION_SECONDS[source]))
    # the trainer stops after the iteration that would end past --max-minutes: one iteration less
    stop = max(minutes / 2, minutes - ITERATION_SECONDS[source] / 60)
    if source == "shipped":
        search = ["--simulations", "200"]
        sizes = ["--games-per-iteration", "4096", "--train-steps", "200", "--buffer-size", "400000"]
        rate = ["--lr", "0.0002"]
    else:
        search = ["--gumbel", "--simulations", "32"]
        sizes = ["--games-per-iteration", "8192", "--train-steps", "400", "--buffer-size", "600000"]
        rate = ["--lr", "0.002"]
    sizes += ["--parallel-games", "8192", "--batch-size", "1024", "--iterations", str(iterations)]
    sizes += ["--max-minutes", f"{stop:.2f}", "--threads", "4"]
    return common + network + search + sizes + rate + ["--lr-schedule", "cosine"] + schedule


def bench_settings(source: str, tiny: bool) -> dict[str, Any]:
    """The settings of ``boardgym bench selfplay``'s row that plays as the trainer does: the
    same search, simulations, games in flight and network (``selfplay`` stage, ``--train-from``)."""
    gumbel = source == "random"
    simulations = (4 if gumbel else 8) if tiny else (32 if gumbel else 200)
    return {
        "source": "gumbel" if gumbel else "batched",
        "simulations": simulations,
        "games in flight": 4 if tiny else 8192,
        "network": "5x64 shipped" if source == "shipped" else "5x64 random",
    }


def trained_settings(flags: list[str]) -> dict[str, Any]:
    """``bench_settings``'s keys, read back from the trainer's flags."""
    value = {flags[i]: flags[i + 1] for i in range(len(flags) - 1) if flags[i].startswith("--")}
    return {
        "source": "gumbel" if "--gumbel" in flags else "batched",
        "simulations": int(value["--simulations"]),
        "games in flight": int(value["--parallel-games"]),
        "network": "5x64 shipped" if value.get("--init") == "pretrained" else "5x64 random",
    }


# -- the stage -------------------------------------------------------------------------------------
def run_stage(folder: Path, device: str, tiny: bool, minutes: float, source: str) -> dict[str, Any]:
    """Train, then grade and match side by side; the figures (also written to ``train.json``)."""
    name = f"train-{source}-{time.strftime('%Y%m%d-%H%M%S')}"
    runs = folder / "runs"
    flags = trainer_flags(source, minutes, device, tiny)
    train = [sys.executable, "-m", "boardgym.cli", "train", "alphazero", *flags, "--root", str(runs)]
    train += ["--run-name", name]
    found: dict[str, Any] = {"from": source, "minutes": minutes, "device": device, "tiny": tiny}
    found["settings"] = trained_settings(flags)
    found["command"] = "boardgym train alphazero " + " ".join(flags)
    started = time.perf_counter()
    found["trainer"] = {"ended": _run(train, folder / "train_run.log", deadline=120 if tiny else 60 * minutes + 20)}
    found["trainer"]["seconds"] = time.perf_counter() - started
    run = runs / "connect_four" / "alphazero" / name
    found["run folder"] = str(run)
    found["trainer"] |= trainer_rate(run)
    found["network"] = _keep(run, folder)
    found["grade"] = found["match"] = {"ended": "not started"}
    (folder / "train.json").write_text(json.dumps(found, indent=1))  # the trainer's figures, whatever follows
    if found["network"] is None:
        return found
    grade, match = commands(folder, name, device, tiny)
    found["grade command"] = " ".join(grade[3:])
    found["match command"] = " ".join(match[3:])
    deadline = 120 if tiny else 70
    with ExitStack() as logs:
        steps = {
            step: subprocess.Popen(
                command, stdout=logs.enter_context((folder / f"{step}.txt").open("w")), stderr=subprocess.STDOUT
            )
            for step, command in (("grade", grade), ("match", match))
        }
        ends = time.perf_counter() + deadline
        for step, process in steps.items():
            try:
                code = process.wait(timeout=max(1.0, ends - time.perf_counter()))
                ended = "done" if code == 0 else f"failed with exit code {code} (see {step}.txt)"
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                ended = f"stopped at its deadline of {deadline} s"
            found[step] = {"ended": ended}
    graded = runs / "connect_four" / "grade" / f"{name}-grade"
    played = runs / "connect_four" / "evaluate" / f"{name}-match"
    found["grade"] |= _grade(graded / "grade.json")
    found["match"] |= _match(played / "summary.json")
    for kept, copy in ((graded / "grade.md", "grade.md"), (played / "report.md", "match.md")):
        if kept.is_file():
            shutil.copyfile(kept, folder / copy)
    (folder / "train.json").write_text(json.dumps(found, indent=1))
    return found


def commands(folder: Path, name: str, device: str, tiny: bool) -> tuple[list[str], list[str]]:
    """The grade and the match of ``DIR/final.pt`` (tiny: a few positions, a short match), their
    run folders named after the training run's ``name``."""
    cli = [sys.executable, "-m", "boardgym.cli"]
    network = folder / "final.pt"
    grade = [*cli, "grade", "connect_four", "--root", str(folder / "runs"), "--run-name", f"{name}-grade"]
    grade += ["--agent", f"alphazero:checkpoint={network},simulations=200,batch=8,symmetries=true,device=cpu"]
    if tiny:
        grade += ["--positions", str(_few_positions(folder))]
    simulations = 8 if tiny else 200
    games = 4 if tiny else 200
    both = f"simulations={simulations},search=batched,device={device}"
    match = [*cli, "evaluate", "connect_four", "--root", str(folder / "runs"), "--run-name", f"{name}-match"]
    match += ["--agents", f"alphazero:checkpoint={network},{both}", f"alphazero:pretrained=true,{both}"]
    match += ["--games", str(games), "--batch-games", str(games), "--workers", "1", "--no-plots"]
    return grade, match


def trainer_rate(run: Path) -> dict[str, Any]:
    """The trainer's own self-play positions/s (positions searched a second, as the bench
    counts them), per iteration, from the run's TensorBoard scalar
    ``perf/selfplay_positions_per_s``; ``positions/s``: the median of the iterations
    after the first (whose searches record their CUDA graphs), or the first alone."""
    try:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    except ImportError:
        return {"positions/s": None, "why": "tensorboard is not installed"}
    events = sorted(run.glob("events.out.tfevents.*"))
    if not events:
        return {"positions/s": None, "iterations": 0}
    rates: list[float] = []
    for path in events:
        reader = EventAccumulator(str(path))
        reader.Reload()
        if "perf/selfplay_positions_per_s" in reader.Tags()["scalars"]:
            rates += [event.value for event in reader.Scalars("perf/selfplay_positions_per_s")]
    later = rates[1:] or rates
    return {
        "positions/s": statistics.median(later) if later else None,
        "iterations": len(rates),
        "per iteration": rates,
    }


def _keep(run: Path, folder: Path) -> str | None:
    """``final.pt`` (else the last iteration's ``checkpoint.pt``) copied to ``DIR/final.pt``, and
    the events to ``DIR/events/<run>/``; which network it is, or None when there is none."""
    events = folder / "events" / run.name  # a folder a run: tensorboard --logdir DIR/events
    events.mkdir(parents=True, exist_ok=True)
    for path in run.glob("events.out.tfevents.*"):
        shutil.copyfile(path, events / path.name)
    for name, what in (("final.pt", "final.pt"), ("checkpoint.pt", "checkpoint.pt: the trainer did not end")):
        if (run / name).is_file():
            temporary = folder / "final.pt.tmp"
            shutil.copyfile(run / name, temporary)
            temporary.replace(folder / "final.pt")
            return what
    return None


def _few_positions(folder: Path) -> Path:
    """Every 28th position of the shipped Connect Four set, as a set file (``--positions``)."""
    from boardgym.evaluate.grade_sets import CONNECT_FOUR_FILE

    lines = [line for line in CONNECT_FOUR_FILE.read_text().splitlines() if line.strip() and not line.startswith("#")]
    path = folder / "grade_positions.txt"
    path.write_text("\n".join(lines[::28]) + "\n")
    return path


def _run(command: list[str], log: Path, deadline: float) -> str:
    with log.open("w") as out:
        try:
            code = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, timeout=deadline, check=False)
        except subprocess.TimeoutExpired:
            return f"stopped at its deadline of {deadline:.0f} s"
    return "done" if code.returncode == 0 else f"failed with exit code {code.returncode} (see {log.name})"


def _grade(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    read = json.loads(path.read_text())
    keys = ("positions", "mistakes", "rate", "low", "high", "seconds")
    return {key: read[key] for key in keys}


def _match(path: Path) -> dict[str, Any]:
    """The trained network's wins, draws, losses and points share (draws half a point)."""
    if not path.is_file():
        return {}
    read = json.loads(path.read_text())
    mine = next(row for row in read["standings"] if "checkpoint=" in row["agent"])
    games = mine["games"]
    points = (mine["wins"] + mine["draws"] / 2) / games if games else None
    return {"games": games, "wins": mine["wins"], "draws": mine["draws"], "losses": mine["losses"], "points": points}


# -- the table -------------------------------------------------------------------------------------
def table_rows(folder: Path, selfplay: dict[str, Any] | None) -> list[str]:
    """The train stage's rows of ``table.md``: each figure beside its acceptance line."""
    path = folder / "train.json"
    if not path.is_file():
        return ["| train | not measured (see train.log) | | | | |"]
    found = json.loads(path.read_text())
    source = found["from"]
    length = "tiny sizes (a CPU: the goals are the GPU run's)" if found["tiny"] else f"{found['minutes']:g} min"
    what = f"{length} from the {source} {'network' if source == 'shipped' else 'weights'}"
    trainer = found["trainer"]
    ended = f"trainer {trainer['ended']} in {trainer['seconds']:.0f} s, {trainer.get('iterations', 0)} iterations"
    lines = [f"| train | {what}: {ended} | | | | |"]
    if found.get("network") is None:
        return lines + ["| train | no network was written (see train_run.log) | | | | |"]
    rate = trainer.get("positions/s")
    bench, moves, note = _bench_rate(selfplay, found["settings"])
    for what, other in (("positions/s", bench), ("searched moves/s, calls x batch / (sims + 1)", moves)):
        ratio = f"{rate / other:.2f}x (goal >= 0.90x)" if rate and other else "n/a"
        lines.append(
            f"| train, self-play positions/s | the trainer's own over the bench's {what} ({note}) "
            f"| {_count(rate)} | {_count(other)} | {ratio} | |"
        )
        note = "the network's calls: on CUDA every leaf is a call, a CPU's cache hits are not"
        if moves is None:
            break
    grade = found["grade"]
    if "rate" in grade:
        shown = f"{grade['rate']:.1%} ({grade['mistakes']}/{grade['positions']}; 95% {grade['low']:.1%}-{grade['high']:.1%})"
        most = GRADE_GOAL[source]
        goal = f"goal <= {most:.1%}: {'met' if grade['rate'] <= most else 'not met'}"
        lines.append(f"| train, graded mistakes at 200 sims | {found['network']} | {shown} | | {goal} | |")
    else:
        lines.append(f"| train, graded mistakes | {grade['ended']} (see grade.txt) | | | | |")
    match = found["match"]
    if "points" in match and match["points"] is not None:
        record = f"{match['wins']}-{match['draws']}-{match['losses']} of {match['games']}"
        shown = f"{match['points']:.1%} ({record})"
        least = MATCH_GOAL.get(source)
        goal = "" if least is None else f"goal >= {least:.0%}: {'met' if match['points'] >= least else 'not met'}"
        lines.append(f"| train, points vs the shipped network | same simulations both sides | {shown} | | {goal} | |")
    else:
        lines.append(f"| train, match vs the shipped network | {match['ended']} (see match.txt) | | | | |")
    return lines


def _bench_rate(selfplay: dict[str, Any] | None, settings: dict[str, Any]) -> tuple[float | None, float | None, str]:
    """The selfplay stage's positions/s at the trainer's settings, the moves its searches made a
    second (network calls/s x mean batch / (simulations + 1), where the bench printed them),
    and what they are (or why there are none)."""
    if selfplay is None:
        return None, None, "the selfplay stage did not run"
    bench = selfplay.get("settings")
    rows = [value for value in selfplay.values() if isinstance(value, dict) and "positions/s" in value]
    if bench is None or not rows:
        return None, None, "no bench row at the trainer's settings (run the stages together)"
    differ = [f"{key} {bench[key]} there, {value} here" for key, value in settings.items() if bench.get(key) != value]
    note = "same search, simulations, games in flight, network" if not differ else "DIFFERENT: " + "; ".join(differ)
    note += "; the trainer: 16 random start moves, training between iterations"
    row = rows[0]
    calls, batch = row.get("network calls/s"), row.get("mean batch")
    moves = calls * batch / (bench["simulations"] + 1) if calls and batch else None
    return row["positions/s"], moves, note


def _count(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--minutes", type=float, default=6.0)
    parser.add_argument("--from", dest="source", choices=SOURCES, default="shipped")
    args = parser.parse_args(argv)
    if not args.minutes > 0:
        parser.error(f"--minutes {args.minutes:g} must be more than 0, e.g. --minutes 6")
    args.folder.mkdir(parents=True, exist_ok=True)
    found = run_stage(args.folder.resolve(), args.device, args.tiny, args.minutes, args.source)
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
