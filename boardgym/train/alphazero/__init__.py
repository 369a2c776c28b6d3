"""AlphaZero: self-play with PUCT search, a replay buffer, and a residual policy/value network.

    boardgym train alphazero --game tictactoe
    python -m boardgym.train.alphazero --game connect_four --blocks 3 --channels 48 --simulations 48
        --games-per-iteration 96 --parallel-games 48 --temperature-moves 10 --max-minutes 120   (one line)

Each iteration: ``games_per_iteration`` self-play games, ``parallel_games`` at a time with all
their leaves evaluated in one network call (``selfplay``); their positions (with the game's
symmetries) go into a bounded replay buffer (``buffer``); ``train_steps`` minibatches of policy
cross-entropy + value squared error; every ``eval_every`` iterations a few games against fixed
opponents and against the network of the previous evaluation (an Elo curve). Silver et al.
2018 is the model; defaults are sized for Tic-Tac-Toe on a CPU.

Writes ``<root>/<game>/alphazero/<run-name>/`` (``TrainingRun``: an existing run is never
overwritten; ``--resume`` continues it): ``config.json``, TensorBoard events, ``checkpoint.pt``
(the latest state, for ``--resume``) with ``replay-<iteration>.pt`` (the replay buffer of
that iteration: written first, then ``checkpoint.pt`` naming it, then the older replay files
removed, so that a run killed anywhere leaves a checkpoint whose replay file is there) and, at
the end, ``final.pt`` (what ``alphazero:checkpoint=PATH`` loads; ``checkpoint.pt`` loads too).
``--device auto`` uses CUDA when available, with float16 autocast there; ``--workers N`` plays
self-play in N processes (``workers``; default ``auto``: one per CPU core this process may use,
at most 8; ``config.json`` records the number as ``workers_used``), each running its copy of the
network on ``--worker-device`` (default ``cpu``: faster than many processes sharing one GPU);
``--backend ray --actors N [--address ADDR]`` plays it in N Ray actors, here or across a cluster
(``ray_actors``; the same loop, files, tags and ``--resume``; docs/cluster.md); ``--max-minutes``
bounds the wall time.

The modules, one concern each: ``config`` (``Config``, its defaults and checks), ``loop``
(``train``, ``main``, the training steps and the measurement), ``checkpoints`` (the
checkpoint/replay-file pairs, ``--resume``, ``--init``, ``--replay``), ``selfplay`` (batched
lock-step self-play), ``buffer`` (the replay buffer and the symmetries' augmentation),
``workers`` (self-play in processes), ``ray_actors`` (self-play in Ray actors) and ``solved``
(``--solver-targets`` and ``--solved-positions``: targets from the Connect Four solver, and
with ``--solver-targets`` from the Hex and Quixo solvers). What
plays a trained network (the agent, the network, its leaf evaluator) is ``boardgym.agents.alphazero``.
"""

from boardgym.train.alphazero.checkpoints import REPLAY_FORMAT
from boardgym.train.alphazero.config import (
    LR_SCHEDULES,
    METHOD,
    SELFPLAY_BACKENDS,
    Config,
    resolve_worker_device,
    resolve_workers,
    solved_plies,
    worker_device_name,
)
from boardgym.train.alphazero.loop import main, scheduled_rates, train

__all__ = [
    "LR_SCHEDULES",
    "METHOD",
    "REPLAY_FORMAT",
    "SELFPLAY_BACKENDS",
    "Config",
    "main",
    "resolve_worker_device",
    "resolve_workers",
    "scheduled_rates",
    "solved_plies",
    "train",
    "worker_device_name",
]
