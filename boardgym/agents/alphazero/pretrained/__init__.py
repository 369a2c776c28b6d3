"""AlphaZero networks shipped with the package: ``alphazero:pretrained=true``.

One file per game in this folder (``<game>.pt``, an ordinary AlphaZero checkpoint whose
tensors are stored in float16 to keep the package small; loading turns them back into
float32), each trained for one set of game parameters (the game's default, or the size named
in ``PRETRAINED``). The command that trained each one and its budget are in ``PRETRAINED`` and
in the README (Pretrained networks). ``python -m boardgym.agents.alphazero.pretrained
runs/<game>/alphazero/<run>/final.pt`` writes a run's network here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import torch

from boardgym.checkpoints import game_signature
from boardgym.game import Game
from boardgym.types import BoardgymError


@dataclass(frozen=True)
class Pretrained:
    """A shipped network: the game parameters it was trained for, the command that trained it
    and its compute budget (wall time, machine, iterations)."""

    params: dict[str, Any] = field(default_factory=dict)
    command: str = ""
    budget: str = ""

    def describe(self, game_name: str) -> str:
        """``hex size=7`` (or just ``tictactoe``)."""
        text = " ".join(f"{k}={_text(v)}" for k, v in self.params.items())
        return f"{game_name} {text}".strip()


PRETRAINED: dict[str, Pretrained] = {
    "tictactoe": Pretrained(
        command="boardgym train alphazero --game tictactoe --run-name pretrained --workers 1",
        budget="60 iterations (3,840 self-play games at 48 simulations), 5 min 16 s wall on 2 shared CPU cores",
    ),
    "connect_four": Pretrained(
        command="boardgym train alphazero --game connect_four --run-name t17 --init "
        "runs/connect_four/alphazero/t16/final.pt --replay runs/connect_four/alphazero/t16/replay-5.pt "
        "--solved-positions 100000 --solved-plies 23-38 --seed 15 --games-per-iteration 0 --iterations 6 "
        "--train-steps 800 --batch-size 512 --lr 0.0002 --lr-schedule cosine --blocks 5 --channels 64 "
        "--buffer-size 600000 --workers 2 --threads 2 --eval-every 0: the last of a chain (docs/pretrained.md, "
        "tenth and eleventh runs); before it, the 3 x 48 network's self-play with --solver-targets 16 on an H100 "
        "machine, a 5 x 64 network trained on that buffer on its GPU, then runs t12-t16 on the 2 CPU cores with "
        "--solved-positions",
        budget="3 x 48 network: 232 self-play iterations, 70 min on a third of a CPU core then 185 min on 2; then "
        "7.6 + 3.3 min on an H100 machine with 16 cores (3,000 self-play games, 105,028 rows; the 5 x 64 network's "
        "15 iterations of 1,000 steps beside them); then about 1 h 25 min on the 2 CPU cores: 250,000 solved "
        "positions of careful-random play (41 min of solving) and 14 training iterations of 600-800 steps",
    ),
    "quixo": Pretrained(
        params={"size": 5, "max_moves": 100},
        command="boardgym train alphazero --game quixo --run-name pretrained --blocks 2 --channels 32 "
        "--simulations 32 --games-per-iteration 32 --parallel-games 32 --temperature-moves 8 --train-steps 40 "
        "--batch-size 128 --buffer-size 30000 --iterations 67 --eval-every 5 --eval-games 10 --eval-opponents "
        '"random;mcts:simulations=200" --workers auto',
        budget="67 iterations (2,144 self-play games at 32 simulations), 26 min on 2 CPU cores (2 self-play workers)",
    ),
    "hex": Pretrained(
        params={"size": 7},
        command="boardgym train alphazero --game hex -p size=7 --run-name pretrained --blocks 2 --channels 32 "
        "--simulations 32 --games-per-iteration 32 --parallel-games 32 --temperature-moves 6 --train-steps 40 "
        "--batch-size 128 --buffer-size 30000 --iterations 5 --eval-every 4 --eval-games 10 --eval-opponents "
        '"random;mcts:simulations=200" --workers 1, then the same options with --run-name pretrained2 --init '
        "pretrained --iterations 100 --workers auto (the first run's network as then shipped, in float16), then "
        "that run resumed (--resume) with --iterations 300",
        budget="5 iterations (160 self-play games at 32 simulations), 27 min wall on 2 CPU cores shared with "
        "four other sessions; then 300 iterations (9,600 games at 32 simulations), 10 min 38 s and 16 min 36 s "
        "wall on the 2 idle CPU cores (2 self-play workers)",
    ),
}


def shipped_file(game_name: str) -> Path:
    """Where the network for ``game_name`` lives inside the installed package."""
    return Path(str(resources.files(__package__).joinpath(f"{game_name}.pt")))


def pretrained_file(game: Game) -> Path:
    """The shipped network for ``game``, after checking that one exists for ``game`` with
    these parameters; otherwise one sentence that says what exists and how to get one."""
    entry = PRETRAINED.get(game.name)
    train = f"boardgym train alphazero --game {game.name}"
    if entry is None:
        shipped = ", ".join(e.describe(n) for n, e in PRETRAINED.items()) or "none"
        raise BoardgymError(
            f"no pretrained alphazero network ships for {game.name} (pretrained: {shipped}); "
            f"train one with `{train}` and pass alphazero:checkpoint=PATH"
        )
    wanted = game_signature(_Named(game.name, {**game.params(), **entry.params}))
    if game_signature(game) != wanted:
        options = " ".join(f"-p {k}={_text(v)}" for k, v in entry.params.items())
        hint = f" (boardgym play {game.name} {options} ...)" if options else ""
        raise BoardgymError(
            f"the pretrained alphazero network for {game.name} was trained on {entry.describe(game.name)}, "
            f"not on {game.name} {' '.join(f'{k}={_text(v)}' for k, v in game.params().items())}; "
            f"play that size{hint}, or train one for these parameters with `{train}` and pass "
            "alphazero:checkpoint=PATH"
        )
    path = shipped_file(game.name)
    if not path.is_file():
        raise BoardgymError(
            f"the pretrained alphazero network for {game.name} is missing from this installation ({str(path)!r}); "
            "reinstall boardgym"
        )
    return path


def to_float32(state_dict: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Floating tensors as float32 (shipped files store them in float16), the rest as they are."""
    return {k: v.float() if v.is_floating_point() else v for k, v in state_dict.items()}


def to_float16(state_dict: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Floating tensors as float16 for shipping, the rest (BatchNorm counters) as they are."""
    return {k: v.detach().cpu().half() if v.is_floating_point() else v.detach().cpu() for k, v in state_dict.items()}


@dataclass
class _Named:
    """A game name with parameters, for ``game_signature`` without building the game."""

    name: str
    values: dict[str, Any]

    def params(self) -> dict[str, Any]:
        return self.values


def _text(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    return json.dumps(value) if isinstance(value, bool) else str(value)
