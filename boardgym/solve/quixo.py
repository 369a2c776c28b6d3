"""Quixo solved by retrograde analysis: every position's value and distance to the end.

The method of "Quixo Is Solved" (Tanaka, Bonnet, Tixeuil and Tamura, 2020, arXiv:2007.15895):
value iteration inside backward induction. The rules are ``boardgym.games.quixo``'s without a
move limit (``max_moves=None``): a game can then go on for ever, and a position that neither
side can force to a win is a draw.

- **Positions** are seen from the side to move: each cell is blank, the mover's or the
  opponent's, and a position's index is its base-3 number (digit 0 blank, 1 the mover's, 2 the
  opponent's; cell ``i`` the digit of ``3**i``): ``3**16`` = 43,046,721 positions on 4x4,
  19,683 on 3x3. A position where the mover has a line is won (whatever the opponent has: the
  previous move made it, and a move that completes the opponent's line loses); one where
  only the opponent has a line is lost.
- **Backward induction over blanks.** A move never adds a blank: taking a blank makes it the
  mover's, taking an own cube keeps the count. So the positions fall in classes by (blanks,
  the mover's cubes, the opponent's cubes); a class's moves lead to a class with one blank
  fewer (solved before it) or, by moving an own cube, to its mirror class (the two counts
  swapped, the same blanks). Classes are solved from 0 blanks up, each class with its mirror.
- **Value iteration** inside a pair of classes, vectorised in numpy over every position and
  move at once: a position is won once a move leads to a position lost for the opponent, lost
  once every move leads to a won one; distances (plies to the end under best play: the winner
  hurries, the loser delays) are relaxed in the same sweeps until nothing changes. What is
  still open then is a draw.

The table: ``values`` (0 draw, 1 won, 2 lost for the side to move; stored 4 a byte) and
``distance`` (plies to the end, 0 for draws and finished positions), cached under the runs
root in ``<root>/quixo/solved/size-<n>/table.npz`` with its SHA-256 in ``table.json``.
``boardgym solve quixo --size 4`` builds it; it checkpoints after every pair of classes
(at most one a minute), so Ctrl-C keeps what was computed and the same command resumes.
``QuixoTable.load(size)`` reads it back (checksum checked) for the ``perfect`` agent, the
grading set and AlphaZero's ``--solver-targets``.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from boardgym.config import Options, option, options_from_argv
from boardgym.games.quixo import Quixo, QuixoState
from boardgym.runs import RUNS_ROOT, RunLock, atomic_write_bytes, atomic_write_text
from boardgym.types import Action, BoardgymError

DRAW, WIN, LOSS = 0, 1, 2
TABLE, INFO, CHECKPOINT = "table.npz", "table.json", "checkpoint.npz"
_CHECKPOINT_EVERY = 60.0  # seconds between two checkpoints


@dataclass(frozen=True)
class Config(Options):
    """Solve Quixo (no move limit) by retrograde analysis and cache the table under the runs root."""

    size: int = option(4, "board size (3 or 4)", minimum=3, maximum=4)
    root: str = option(str(RUNS_ROOT), "the runs root the table is cached under (<root>/quixo/solved/size-N/)")
    force: bool = option(False, "solve again even if a checked table is already cached")


def table_folder(size: int, root: Path | str = RUNS_ROOT) -> Path:
    return Path(root) / "quixo" / "solved" / f"size-{size}"


class Geometry:
    """The board's base-3 indexing and its moves as bit operations (from ``Quixo``'s pushes)."""

    def __init__(self, size: int) -> None:
        self.rules = Quixo(size=size, max_moves=None)
        self.size = size
        self.cells = size * size
        self.count = 3**self.cells
        masks = np.arange(1 << self.cells, dtype=np.int64)
        weights = 3 ** np.arange(self.cells, dtype=np.int64)
        bits = (masks[:, None] >> np.arange(self.cells)) & 1
        self.ternary = (bits * weights).sum(axis=1).astype(np.int32)  # mask -> sum of 3**i over its bits
        self.lines = [int(line) for line in self.rules.lines]
        # Base-3 digits in two halves: index = low + 3**half * high.
        self.half = self.cells // 2
        self._low = _digits_to_masks(self.half)
        self._high = _digits_to_masks(self.cells - self.half)

    def masks(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The mover's and the opponent's bitboards of positions given by index."""
        low, high = np.divmod(index, 3**self.half)[::-1]
        mine = self._low[0][low] | self._high[0][high] << self.half
        theirs = self._low[1][low] | self._high[1][high] << self.half
        return mine.astype(np.int64), theirs.astype(np.int64)

    def has_line(self, bits: np.ndarray) -> np.ndarray:
        found = np.zeros(bits.shape, dtype=bool)
        for line in self.lines:
            found |= (bits & line) == line
        return found

    def children(self, mine: np.ndarray, theirs: np.ndarray, sentinel: int) -> np.ndarray:
        """``(positions, actions)`` indices of every move's result seen from the next mover;
        ``sentinel`` where the move is illegal (the source cube is the opponent's)."""
        out = np.empty((len(mine), len(self.rules.pushes)), dtype=np.int32)
        for action, push in enumerate(self.rules.pushes):
            keep = ~push.span
            new_mine = (mine & keep) | ((mine & push.slide) << push.up >> push.down) | push.insert
            new_theirs = (theirs & keep) | ((theirs & push.slide) << push.up >> push.down)
            child = self.ternary[new_theirs] + 2 * self.ternary[new_mine]
            out[:, action] = np.where(theirs & push.source, sentinel, child)
        return out


class QuixoTable:
    """A solved Quixo board: ``values`` and ``distance`` by position index (see module doc)."""

    def __init__(self, size: int, values: np.ndarray, distance: np.ndarray) -> None:
        self.size = size
        self.geometry = Geometry(size)
        self.values = values
        self.distance = distance

    @classmethod
    def load(cls, size: int, root: Path | str = RUNS_ROOT) -> QuixoTable:
        """The cached table, its checksum checked; one sentence saying how to build it if absent."""
        folder = table_folder(size, root)
        path, info_path = folder / TABLE, folder / INFO
        if not path.exists() or not info_path.exists():
            raise BoardgymError(
                f"Quixo {size}x{size} is not solved yet under {str(Path(root))!r}: run "
                f"`boardgym solve quixo --size {size}` first (about 2 CPU minutes and 1.6 GB for 4x4) and try again"
            )
        data = path.read_bytes()
        info = json.loads(info_path.read_text())
        if hashlib.sha256(data).hexdigest() != info.get("sha256"):
            raise BoardgymError(
                f"{path} does not match the checksum in {info_path}; delete the folder and run "
                f"`boardgym solve quixo --size {size}` again"
            )
        with np.load(io.BytesIO(data)) as arrays:
            values = np.unpackbits(arrays["values"], bitorder="little")[: 2 * 3 ** (size * size)]
            values = (values[0::2] | values[1::2] << 1).astype(np.uint8)
            return cls(size, values, arrays["distance"])

    def index_of(self, state: QuixoState) -> int:
        mine, theirs = state.stones[state.player], state.stones[1 - state.player]
        ternary = self.geometry.ternary
        return int(ternary[mine]) + 2 * int(ternary[theirs])

    def value(self, state: QuixoState) -> tuple[int, int]:
        """(1 won / 0 draw / -1 lost for the side to move, plies to the end) of ``state``; a
        finished game's result for the side to move, 0 plies."""
        rules = self.geometry.rules
        if state.outcome != -1:
            return int(rules.returns(state)[state.player]), 0
        index = self.index_of(state)
        return _SIGN[self.values[index]], int(self.distance[index])

    def move_values(self, state: QuixoState) -> dict[Action, tuple[int, int]]:
        """Every legal move's (value for the mover, plies to the end after it, the move included)."""
        rules = self.geometry.rules
        state = state._replace(moves=0, outcome=-1) if state.outcome == -1 else state
        scored = {}
        for action in rules.legal_actions(state):
            child = rules.apply(state, action)
            value, plies = self.value(child)
            scored[action] = (-value, plies + 1)
        return scored


_SIGN = {DRAW: 0, WIN: 1, LOSS: -1}


def inconsistencies(table: QuixoTable, *, sample: int, seed: int = 0) -> list[str]:
    """Positions (``sample`` unfinished ones drawn at random, or every position when there are
    fewer) whose value or
    distance is not the best of their moves' as the scalar rules play them; empty when the
    table is consistent. Each entry names the position's index and what differs."""
    geometry = table.geometry
    rules = geometry.rules
    rng = np.random.default_rng(seed)
    count = geometry.count
    if sample >= count:
        indices = np.arange(count, dtype=np.int64)
    else:  # unfinished positions only: most boards hold a line, and those are checked by the rules alone
        picked = np.zeros(0, dtype=np.int64)
        while len(picked) < sample:
            draw = rng.integers(0, count, size=2 * sample)
            mine, theirs = geometry.masks(draw)
            picked = np.unique(np.concatenate([picked, draw[~(geometry.has_line(mine) | geometry.has_line(theirs))]]))
        indices = rng.permutation(picked)[:sample]
    mines, theirs_all = geometry.masks(indices)
    problems = []
    for index, mine, theirs in zip(indices.tolist(), mines.tolist(), theirs_all.tolist(), strict=True):
        stored, plies = _SIGN[int(table.values[index])], int(table.distance[index])
        if rules._has_line(mine) or rules._has_line(theirs):
            expected = (1 if rules._has_line(mine) else -1), 0
        else:
            state = QuixoState((mine, theirs), 0, 0, -1)
            scored = table.move_values(state)
            best = max(value for value, _ in scored.values())
            lengths = [length for value, length in scored.values() if value == best]
            expected = best, (min(lengths) if best > 0 else max(lengths) if best < 0 else 0)
        if (stored, plies) != expected:
            problems.append(f"position {index}: stored {(stored, plies)}, its moves give {expected}")
    return problems


def solve(
    size: int,
    *,
    folder: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    log: Callable[[str], None] = print,
) -> tuple[np.ndarray, np.ndarray]:
    """Solve Quixo ``size`` x ``size``; with ``folder``, checkpoint there and resume from it.
    ``progress(done, total)`` is called with the positions solved so far."""
    geometry = Geometry(size)
    count = geometry.count
    values = np.zeros(count + 1, dtype=np.uint8)
    distance = np.zeros(count + 1, dtype=np.uint16)
    values[count] = WIN  # the sentinel child of an illegal move: neutral for both tests
    done_pairs: set[tuple[int, int, int]] = set()
    checkpoint = folder / CHECKPOINT if folder is not None else None
    if checkpoint is not None and checkpoint.exists():
        with np.load(checkpoint) as saved:
            values[:count], distance[:count] = saved["values"], saved["distance"]
            done_pairs = {tuple(int(v) for v in row) for row in saved["done"]}  # type: ignore[misc]
        log(f"resuming from {checkpoint}: {len(done_pairs)} pairs of classes already solved")
    classes = _classes(geometry)
    total = count
    solved = sum(len(classes[key]) for key in classes if _pair_key(key) in done_pairs)
    if progress:
        progress(solved, total)
    last_save = time.monotonic()
    try:
        for blanks in range(geometry.cells + 1):
            for mine in range(geometry.cells - blanks + 1):
                theirs = geometry.cells - blanks - mine
                pair = _pair_key((blanks, mine, theirs))
                if mine > theirs or pair in done_pairs:
                    continue
                keys = [(blanks, mine, theirs)] + ([(blanks, theirs, mine)] if mine != theirs else [])
                indices = np.concatenate([classes[key] for key in keys])
                _solve_pair(geometry, indices, values, distance)
                done_pairs.add(pair)
                solved += len(indices)
                if progress:
                    progress(solved, total)
                if checkpoint is not None and time.monotonic() - last_save > _CHECKPOINT_EVERY:
                    _save_checkpoint(checkpoint, values, distance, done_pairs)
                    last_save = time.monotonic()
    except KeyboardInterrupt:
        if checkpoint is not None:
            _save_checkpoint(checkpoint, values, distance, done_pairs)
            log(
                f"\ninterrupted: {solved:,} of {total:,} positions kept in {checkpoint}; run the same command to resume"
            )
        raise
    return values[:count], distance[:count]


def main(argv: list[str] | None = None, prog: str = "boardgym solve quixo") -> int:
    from tqdm import tqdm

    config = options_from_argv(Config, argv, prog=prog)
    folder = table_folder(config.size, config.root)
    with RunLock(folder, elsewhere="pass another --root"):
        if not config.force and (folder / TABLE).exists():
            table = QuixoTable.load(config.size, config.root)
            print(_summary(table, json.loads((folder / INFO).read_text())))
            return 0
        started, cpu = time.perf_counter(), time.process_time()
        bar = tqdm(total=3 ** (config.size**2), unit="pos", unit_scale=True, desc=f"Quixo {config.size}x{config.size}")

        def progress(done: int, total: int) -> None:
            bar.update(done - bar.n)

        try:
            values, distance = solve(config.size, folder=folder, progress=progress, log=bar.write)
        except KeyboardInterrupt:
            bar.close()
            return 130
        bar.close()
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
        info = write_table(folder, config.size, values, distance, seconds=seconds, cpu_seconds=cpu_seconds)
        (folder / CHECKPOINT).unlink(missing_ok=True)
        print(_summary(QuixoTable.load(config.size, config.root), info))
    return 0


def write_table(
    folder: Path, size: int, values: np.ndarray, distance: np.ndarray, *, seconds: float, cpu_seconds: float
) -> dict[str, object]:
    """Write ``table.npz`` (values 2 bits a position, distances) and ``table.json`` (checksum,
    counts, times) atomically; returns the info."""
    bits = np.stack([values & 1, values >> 1 & 1], axis=1).reshape(-1).astype(np.uint8)
    small = distance.astype(np.uint8) if distance.max() < 256 else distance
    buffer = io.BytesIO()
    np.savez_compressed(buffer, values=np.packbits(bits, bitorder="little"), distance=small)
    data = buffer.getvalue()
    atomic_write_bytes(folder / TABLE, data)
    counts = np.bincount(values, minlength=3)
    info: dict[str, object] = {
        "size": size,
        "positions": int(values.size),
        "won": int(counts[WIN]),
        "lost": int(counts[LOSS]),
        "drawn": int(counts[DRAW]),
        "start": ("draw", "win", "loss")[int(values[0])],
        "longest": int(distance.max()),
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu_seconds, 1),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    atomic_write_text(folder / INFO, json.dumps(info, indent=2) + "\n")
    return info


def _summary(table: QuixoTable, info: dict[str, object]) -> str:
    start = table.geometry.rules.initial_state()
    value, plies = table.value(start)
    outcome = {1: f"a first-player win in {plies} plies", 0: "a draw", -1: f"a second-player win in {plies} plies"}
    return (
        f"Quixo {table.size}x{table.size} (no move limit) is {outcome[value]}. "
        f"{info['positions']:,} positions: {info['won']:,} won, {info['lost']:,} lost, {info['drawn']:,} drawn "
        f"for the side to move; longest forced end {info['longest']} plies; solved in {info['seconds']} s "
        f"({info['cpu_seconds']} CPU s); sha256 {str(info['sha256'])[:16]}..."
    )


def _pair_key(key: tuple[int, int, int]) -> tuple[int, int, int]:
    blanks, mine, theirs = key
    return (blanks, min(mine, theirs), max(mine, theirs))


def _classes(geometry: Geometry) -> dict[tuple[int, int, int], np.ndarray]:
    """Every class's position indices (int32, ascending), by (blanks, mover's, opponent's)."""
    count, cells = geometry.count, geometry.cells
    label = np.empty(count, dtype=np.uint16)
    for start, index in _chunks(count):
        mover, opponent = geometry.masks(index)
        label[start : start + len(index)] = _popcount(mover) * (cells + 1) + _popcount(opponent)
    order = np.argsort(label, kind="stable").astype(np.int32)
    bounds = np.searchsorted(label[order], np.arange((cells + 1) ** 2 + 1))
    del label
    classes: dict[tuple[int, int, int], np.ndarray] = {}
    for mine in range(cells + 1):
        for theirs in range(cells + 1 - mine):
            code = mine * (cells + 1) + theirs
            classes[(cells - mine - theirs, mine, theirs)] = order[bounds[code] : bounds[code + 1]]
    return classes


def _solve_pair(geometry: Geometry, indices: np.ndarray, values: np.ndarray, distance: np.ndarray) -> None:
    """Value iteration over one class and its mirror; the classes below are already solved."""
    mine, theirs = geometry.masks(indices)
    mine_line, their_line = geometry.has_line(mine), geometry.has_line(theirs)
    values[indices[mine_line]] = WIN
    values[indices[~mine_line & their_line]] = LOSS
    distance[indices[mine_line | their_line]] = 0
    open_ = ~(mine_line | their_line)
    indices, mine, theirs = indices[open_], mine[open_], theirs[open_]
    if not len(indices):
        return
    children = geometry.children(mine, theirs, geometry.count)
    del mine, theirs
    while True:
        child_values = values[children]
        child_distance = distance[children]
        lost_child = child_values == LOSS
        won = lost_child.any(axis=1)
        lost = ~won & (child_values == WIN).all(axis=1)
        win_plies = np.where(lost_child, child_distance, np.uint16(65535)).min(axis=1) + 1
        loss_plies = child_distance.max(axis=1) + 1
        new_values = np.where(won, WIN, np.where(lost, LOSS, DRAW)).astype(np.uint8)
        new_distance = np.where(won, win_plies, np.where(lost, loss_plies, 0)).astype(np.uint16)
        if np.array_equal(new_values, values[indices]) and np.array_equal(new_distance, distance[indices]):
            return
        values[indices] = new_values
        distance[indices] = new_distance


def _save_checkpoint(path: Path, values: np.ndarray, distance: np.ndarray, done: set[tuple[int, int, int]]) -> None:
    buffer = io.BytesIO()
    rows = np.array(sorted(done), dtype=np.int16).reshape(-1, 3)
    np.savez(buffer, values=values[:-1], distance=distance[:-1], done=rows)
    atomic_write_bytes(path, buffer.getvalue())


def _chunks(count: int, size: int = 1 << 22) -> Iterator[tuple[int, np.ndarray]]:
    for start in range(0, count, size):
        yield start, np.arange(start, min(count, start + size), dtype=np.int64)


def _popcount(bits: np.ndarray) -> np.ndarray:
    counts = np.zeros(bits.shape, dtype=np.uint16)
    while True:
        nonzero = bits != 0
        if not nonzero.any():
            return counts
        counts += nonzero
        bits = bits & (bits - 1)


def _digits_to_masks(digits: int) -> tuple[np.ndarray, np.ndarray]:
    """For every base-3 number of ``digits`` digits: the bits of its 1 digits and of its 2 digits."""
    numbers = np.arange(3**digits, dtype=np.int64)
    ones = np.zeros(numbers.shape, dtype=np.int64)
    twos = np.zeros(numbers.shape, dtype=np.int64)
    for place in range(digits):
        digit = numbers // 3**place % 3
        ones |= (digit == 1).astype(np.int64) << place
        twos |= (digit == 2).astype(np.int64) << place
    return ones, twos


if __name__ == "__main__":
    sys.exit(main())
