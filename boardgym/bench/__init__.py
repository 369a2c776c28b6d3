"""Speed benchmarks against peer libraries, run side by side in one process (``boardgym bench``).

``BENCHES`` names each benchmark's ``main(argv, prog)`` and its options class; adding one is a
module here with both and one line in the table.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar

from boardgym.config import Options, option, seed_option
from boardgym.games import GAMES, BenchRow
from boardgym.registry import CommandEntry
from boardgym.types import BoardgymError


def _bench(module: str, summary: str) -> CommandEntry:
    return CommandEntry(f"boardgym.bench.{module}:main", summary, f"boardgym.bench.{module}:Options")


BENCHES: dict[str, CommandEntry] = {
    "envs": _bench("env_speed", "random play: our AEC envs and rules vs PettingZoo and OpenSpiel"),
    "search": _bench("search_speed", "MCTS simulations/s and alpha-beta nodes/s vs OpenSpiel's MCTSBot"),
    "selfplay": _bench(
        "selfplay_speed", "AlphaZero self-play positions/s here and on Ray actors; the cluster cost model's figures"
    ),
    "solver": _bench("solver_speed", "the Connect Four solver on Pons's test sets: time per position vs targets"),
    "strength": _bench("search_strength", "search agents against a reference agent over many games, seats alternated"),
    "batched": _bench(
        "batched_speed", "the batched rules at batch sizes up to 65536 vs pgx, the scalar rules and the vector envs"
    ),
}


def rows(*benches: str, wanted: tuple[str, ...] | None = None) -> list[tuple[str, BenchRow]]:
    """``(game, row)`` for the games' rows of ``benches`` (their ``GAMES`` entries' ``bench``),
    only those whose game or label is ``wanted`` when it is given."""
    found = [(name, row) for name, entry in GAMES.items() for row in entry.bench if row.bench in benches]
    return [(game, row) for game, row in found if wanted is None or game in wanted or label(game, row) in wanted]


def label(game: str, row: BenchRow) -> str:
    """A row's name in the tables: its label, or its game's name."""
    return row.label or game


def row_names(*benches: str) -> list[str]:
    """What ``--games`` accepts: the games and the labels of their rows (``hex`` is all Hex rows)."""
    return list(dict.fromkeys(name for game, row in rows(*benches) for name in (game, label(game, row))))


@dataclass(frozen=True)
class RoundsOptions(Options):
    """The options of a benchmark that times its rows in alternating rounds, on the rows of
    ``BENCHES`` (a subclass names its own)."""

    BENCHES: ClassVar[tuple[str, ...]] = ()

    seconds: float = option(1.0, "time per measurement", above=0, maximum=3600)
    rounds: int = option(3, "alternating rounds; the best of each side is kept", minimum=1)
    games: tuple[str, ...] | None = option(
        None, "only these rows, by game or label (default: all)", many=True, metavar="ROW"
    )
    seed: int = seed_option(0)

    def check(self) -> None:
        names = row_names(*self.BENCHES)
        unknown = [name for name in self.games or () if name not in names]
        if unknown:
            raise BoardgymError(f"no row {unknown[0]!r} in this benchmark; --games takes: {', '.join(names)}")


def optional_import(module: str) -> Any:
    """The module, or None where it (or something it needs) is not installed: benchmarks skip
    a peer library that is missing and say so."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
