"""The AlphaZero trainer's settings: ``Config`` (every option of ``boardgym train alphazero``,
with its default and help) and the checks a config passes before the run folder opens
(``_check``), with the readers of the options that take words (``--workers``,
``--worker-device``, ``--solved-plies``). The self-play options (search, simulations, noise,
move schedule) are declared once in ``selfplay.SelfPlaySettings``, which ``Config`` extends;
the benchmarks read every default from ``Config``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import torch

from boardgym.agents.alphazero.agent import resolve_device
from boardgym.agents.alphazero.network import ARCHITECTURE_BOUNDS
from boardgym.agents.alphazero.searches import SEARCHES, search_kind
from boardgym.cluster import check_address
from boardgym.config import option
from boardgym.games import GAMES
from boardgym.train.alphazero.selfplay import SelfPlaySettings
from boardgym.train.training_run import RunConfig
from boardgym.types import BoardgymError

METHOD = "alphazero"
LR_SCHEDULES = ("constant", "cosine")
SELFPLAY_BACKENDS: dict[str, str] = {
    "local": "self-play in this process, or in --workers processes",
    "ray": "self-play in --actors Ray actors, here or on the cluster at --address (pip install 'boardgym[ray]')",
}


@dataclass(frozen=True)
class Config(SelfPlaySettings, RunConfig):
    """AlphaZero self-play training (defaults: Tic-Tac-Toe on a CPU)."""

    seed: int = option(0, "seed of every random choice (self-play, noise, minibatches, measurement)")
    eval_every: int = option(5, "measure every N iterations (0: never; with N, the last iteration always)")
    eval_games: int = option(20, "games per opponent per measurement, seats alternated")
    resume: bool = option(False, "continue the run named --run-name from its checkpoint.pt and replay.pt")
    device: str = option("auto", "auto (CUDA when available), cpu or cuda")
    amp: bool = option(True, "float16 autocast for network calls and training (CUDA only)")
    threads: int = option(1, "torch CPU threads (self-play is Python-bound; 1 is best on small machines)", minimum=1)
    workers: str | int = option(
        "auto", "self-play processes: auto (one per CPU core, at most 8) or N (1: self-play in this process)"
    )
    backend: str = option(
        "local",
        "where self-play runs: local (this process, or --workers processes) or ray (--actors Ray actors)",
        choices=tuple(SELFPLAY_BACKENDS),
    )
    actors: int = option(
        2,
        "self-play Ray actors with --backend ray (a CPU each, and with --worker-device auto or cuda a GPU share "
        "where there are GPUs)",
        minimum=1,
    )
    worker_device: str = option(
        "cpu",
        "where --workers processes and Ray actors run the network: cpu, auto (CUDA when available) or cuda; "
        "small board-game networks play faster on CPU (docs/pretrained.md)",
        choices=("cpu", "auto", "cuda"),
    )
    address: str | None = option(
        None,
        "with --backend ray: the Ray cluster (auto, HOST:PORT of the head, ray://HOST:10001); default: "
        "$RAY_ADDRESS, else a Ray started on this machine (docs/cluster.md)",
    )
    iterations: int = option(60, "self-play / training iterations", minimum=1)
    max_minutes: float = option(
        0.0, "stop after the iteration that would end past this many minutes (0: no limit)", minimum=0
    )
    games_per_iteration: int = option(64, "self-play games per iteration", minimum=0)
    parallel_games: int = option(64, "self-play games played at once (their leaves share each network call)", minimum=1)
    blocks: int = option(2, "residual blocks", minimum=1, maximum=ARCHITECTURE_BOUNDS["blocks"][1])
    channels: int = option(32, "channels per convolution", minimum=1, maximum=ARCHITECTURE_BOUNDS["channels"][1])
    value_hidden: int = option(
        64, "hidden units of the value head", minimum=1, maximum=ARCHITECTURE_BOUNDS["value_hidden"][1]
    )
    init: str | None = option(
        None,
        "start from these weights instead of random ones: 'pretrained' (the network shipped for this game) or "
        "the path of an alphazero checkpoint; --blocks/--channels/--value-hidden must match it (--resume continues "
        "from the run's own checkpoint instead)",
    )
    buffer_size: int = option(20_000, "replay buffer capacity in positions (symmetric copies included)", minimum=1)
    replay: str | None = option(
        None,
        "start the replay buffer from this replay file (a run's replay-N.pt; its newest --buffer-size rows); with "
        "--games-per-iteration 0 the run only trains on it (--resume restores the run's own buffer instead)",
    )
    solver_targets: int = option(
        0,
        "positions with at least N stones (cubes in Quixo) train on the solver's win/draw/loss and the moves that "
        "keep it, not on the self-play result and visits; Connect Four, Hex up to 5x5, Quixo 3x3 and 4x4 "
        "(0: off; docs/training/alphazero.md)",
        minimum=0,
    )
    solver_limit: float = option(
        5.0,
        "CPU seconds per position for --solver-targets; a position that takes longer keeps its self-play targets",
        above=0,
    )
    solved_positions: int = option(
        0,
        "Connect Four: before the first iteration, put N positions of careful-random play at --solved-plies into "
        "the replay buffer, with the solver's win/draw/loss and a policy uniform over the moves that keep it "
        "(positions the network's own games rarely reach; none of the shipped grading set; 0: off)",
        minimum=0,
    )
    solved_plies: str = option("20-40", "stones on the board of the --solved-positions positions, FIRST-LAST")
    batch_size: int = option(128, "training minibatch size", minimum=1)
    train_steps: int = option(80, "training minibatches per iteration", minimum=0)
    lr: float = option(
        2e-3,
        "AdamW learning rate (with --resume too: the optimizer resumes its moments at this rate)",
        minimum=0,
        hint="0: no learning; e.g. --lr 0.001",
    )
    lr_schedule: str = option(
        "constant",
        "constant (--lr throughout) or cosine (from --lr down to 0 over this command's --iterations, step by "
        "step; with --resume, over the iterations still to run)",
        choices=LR_SCHEDULES,
    )
    weight_decay: float = option(1e-4, "AdamW weight decay", minimum=0, hint="e.g. --weight-decay 0.0001")
    eval_simulations: int = option(48, "simulations per move of the measured network (and of a bare 'mcts')", minimum=1)
    eval_opponents: str = option(
        "random;mcts;minimax;perfect",
        "';'-separated agent specs to measure against ('mcts' alone gets --eval-simulations); "
        "specs not registered or not playable on this game are skipped",
    )

    def check(self) -> None:
        super().check()
        resolve_workers(self.workers)
        if self.games_per_iteration == 0 and self.replay is None and not self.resume and not self.solved_positions:
            raise BoardgymError(
                "--games-per-iteration 0 plays no self-play games, so there is nothing to train on; give --replay "
                "FILE (or --solved-positions N) or play at least 1 game per iteration"
            )
        if self.solved_positions:
            solved_plies(self.solved_plies)
        elif self.solved_plies != Config.solved_plies:
            raise BoardgymError(
                f"--solved-plies {self.solved_plies!r} does nothing without --solved-positions N; add the number of "
                "solved positions to put in the buffer, or drop --solved-plies"
            )
        if self.backend == "ray":
            check_address(self.address)
        elif self.address is not None:
            raise BoardgymError(f"--address {self.address!r} is for --backend ray; drop it or add --backend ray")


def resolve_workers(value: str | int) -> int:
    """``--workers``: ``auto`` is one process per CPU core this process may run on (at most
    8; self-play is Python-bound, so each core plays its share of the games), else a count."""
    if isinstance(value, str) and value.strip().lower() == "auto":
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            cores = os.cpu_count() or 1
        return max(1, min(cores, 8))
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1 or str(count) != str(value).strip():
        raise BoardgymError(f"--workers {value!r} must be auto or a whole number of processes, at least 1")
    return count


def resolve_worker_device(value: str) -> torch.device:
    """``--worker-device``: as ``--device`` (``auto``: CUDA when available), for self-play
    workers. Its default is ``cpu``: with one small network per process, 15 CPU workers played
    3.6 times as many positions a second as 15 workers sharing an H200 (docs/pretrained.md)."""
    return resolve_device(worker_device_name(value), "--worker-device")


def worker_device_name(value: str) -> str:
    """``--worker-device`` checked by name only (Ray actors resolve it on their own nodes)."""
    name = value.strip().lower()
    if name not in ("cpu", "auto", "cuda"):
        raise BoardgymError(f"unknown --worker-device {value!r}; use cpu, auto or cuda")
    return name


def solved_plies(text: str) -> range:
    """The plies of ``--solved-plies FIRST-LAST`` (Connect Four: 1 to 41 stones)."""
    first, _, last = text.partition("-")
    try:
        plies = range(int(first), int(last) + 1)
    except ValueError:
        plies = range(0)
    if not plies or plies.start < 1 or plies.stop > 42:
        raise BoardgymError(
            f"--solved-plies {text!r} is not FIRST-LAST with 1 <= FIRST <= LAST <= 41 stones; e.g. --solved-plies 20-40"
        )
    return plies


def _check(config: Config) -> None:
    """What a config is checked against before the run folder opens besides its declared rules
    (``Config.check``): the devices of this machine and the files it names."""
    if resolve_workers(config.workers) > 1 and config.backend != "ray":
        resolve_worker_device(config.worker_device)
    kind = search_kind(config.search)
    if kind.batched_rules:
        entry = GAMES.get(config.game)
        if entry is None or not entry.batched:
            have = ", ".join(name for name, known in GAMES.items() if known.batched)
            others = " or ".join(name for name, other in SEARCHES.items() if not other.batched_rules)
            raise BoardgymError(
                f"--search {kind.name} needs a game with batched rules; {config.game} has none (games with them: "
                f"{have}); use --search {others}"
            )
    if config.replay is not None and not Path(config.replay).is_file():
        raise BoardgymError(
            f"--replay {config.replay!r} is not a file; pass a replay file of an alphazero run (runs/GAME/alphazero/"
            "RUN/replay-N.pt)"
        )
