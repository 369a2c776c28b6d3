"""An exact Hex solver: a win/loss depth-first search with a transposition table.

Hex has no draws, so a position's value is one bit: does the player to move win? The search
(``HexSolver.mover_wins``) is an AND/OR search over the rules' own bitboards
(``boardgym.games.hex``, row stride ``size + 1``) with the cheap prunings of the Hex solvers
of Hayward et al. ("Solving 7x7 Hex", 2003; Benzene's depth-first solver):

- **Win in one**: a player wins at once by filling an empty cell that touches (or lies on)
  both of its edge groups; the mover with such a cell has won.
- **Must-play**: when the opponent has two such cells, the mover (who cannot win at once)
  has lost; with one, that cell is the mover's only move.
- **Must-play sets from proofs**: a search returns, with its result, a proof: cells such
  that the winner still wins when every other empty cell is given to the loser. A losing
  mover's move outside the proof of a move already refuted loses to the same answer, so the
  mover only tries the cells that every proof found so far uses (and the position's proof is
  their union). Extra stones never hurt their owner in Hex, which makes this sound.
- **Transposition table** keyed by the position up to the board's half turn (the one symmetry
  that keeps each colour's edges), the player to move included; it holds results and proofs.
- **Move ordering**: cells by how few empty cells the shortest chains of both sides through
  them need (a 0-1 breadth-first search from each edge, on the bitboards), fewest first.

``HexSolver(size).first_moves()`` values every first move (``first_moves_with_swap()`` with
the pie rule); ``move_values(state)`` every legal move of any position (the oracle of the Hex
5x5 grading set); ``winning_move(state)`` one winning move from one search (the ``perfect``
agent). ``boardgym solve hex --size 5`` prints the first moves' tables, with and without the
swap rule, with their time and node count; it keeps each value as it is found under the runs
root (``<root>/hex/solved/size-N/first-moves.json``), so Ctrl-C loses nothing and the same
command resumes.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.config import Options, option, options_from_argv
from boardgym.games.hex import BLACK, Hex, HexState, stones
from boardgym.runs import RUNS_ROOT, RunLock, atomic_write_text
from boardgym.types import Action, BoardgymError

_CHECK_EVERY = 0xFFFF  # nodes between two calls of the progress hook


class HexSolver:
    """Win/loss search for Hex on a ``size`` board (``swap``: the rules' pie rule); the table
    is kept between calls.

    ``nodes`` counts the positions searched since the solver was made;
    ``table_limit`` caps the table (it is cleared, keeping nothing, when it grows past it)."""

    def __init__(self, size: int, *, swap: bool = False, table_limit: int = 8_000_000) -> None:
        self.rules = Hex(size=size, swap=swap)
        self.size = size
        self.table: dict[int, tuple[bool, int]] = {}
        self.table_limit = table_limit
        self._counter = [0]
        self._winner = [0]  # the winning cell of the last node the search found won
        self.progress: Callable[[int], None] | None = None
        n, stride = size, size + 1
        self._width = (n - 1) * (stride + 1) + 1  # the half turn is bit i -> bit width - 1 - i
        centre = (n - 1) / 2
        order = sorted(range(n * n), key=lambda a: (abs(a // n - centre) + abs(a % n - centre), a))
        self._order = [self.rules.cell_bits[a] for a in order]
        self._search = self._make_search()

    @property
    def nodes(self) -> int:
        return self._counter[0]

    # -- public -------------------------------------------------------------------------------
    def mover_wins(self, black: int, white: int, player: int) -> bool:
        """Whether the player to move wins the position with these bitboards (no swap to come)."""
        return self._root(black, white, player, False)

    def _root(self, black: int, white: int, player: int, fresh: bool) -> bool:
        if sys.getrecursionlimit() < 2000:
            sys.setrecursionlimit(2000)
        rules = self.rules
        groups = []
        for side in (player, 1 - player):
            bits = (black, white)[side]
            near, far = rules.edges[side]
            groups += [rules.flood(bits & near, bits), rules.flood(bits & far, bits)]
        mine, theirs = (black, white) if player == BLACK else (white, black)
        return self._search(mine, theirs, player, (groups[0], groups[1], groups[2], groups[3]), fresh)[0]

    def value(self, state: HexState) -> int:
        """1 if the player to move in ``state`` wins, -1 if they lose (a finished game: its
        result for the player to move). While the swap may still come, the search looks
        through it: the first move is worth the worse of its two answers, and White's first
        answer the better of swapping and playing on."""
        rules = self.rules
        player = rules.current_player(state)
        if rules.is_terminal(state):
            return int(rules.returns(state)[player])
        black, white = stones(state)
        if rules.swap and rules._swap_ahead(state):
            if rules._swap_allowed(state):
                plays_on = self.mover_wins(black, white, player)
                return 1 if plays_on or self.value(rules.apply(state, rules.num_cells)) < 0 else -1
            return max(-self.value(rules.apply(state, action)) for action in rules.legal_actions(state))
        return 1 if self.mover_wins(black, white, player) else -1

    def winning_move(self, state: HexState) -> Action | None:
        """A move that wins for the player to move, from one search of ``state`` (None when
        every move loses). Not for a position where the swap may still come."""
        rules = self.rules
        if rules.is_terminal(state) or (rules.swap and rules._swap_ahead(state)):
            raise BoardgymError("winning_move needs an unfinished Hex position with no swap to come")
        black, white = stones(state)
        player = rules.current_player(state)
        self._winner[0] = 0
        if not self._root(black, white, player, True):
            return None
        return rules.cell_bits.index(self._winner[0])

    def move_values(self, state: HexState) -> dict[Action, int]:
        """Every legal move's value for the player to move: 1 wins, -1 loses."""
        rules = self.rules
        return {action: -self.value(rules.apply(state, action)) for action in rules.legal_actions(state)}

    def first_moves(self) -> dict[Action, int]:
        """The first player's (Black's) value of every opening cell (with the swap rule when
        the solver's rules have it: a cell wins only if it wins whether White swaps or not)."""
        return self.move_values(self.rules.initial_state())

    def first_moves_with_swap(self) -> dict[Action, int]:
        """Black's value of every opening cell when White may swap, from this solver's rules
        without swap (its table shared with ``first_moves``): a cell wins only if it wins
        both when White plays on and when White swaps (then White holds the mirrored cell
        and Black moves)."""
        plays_on = {action: self.first_move_value(action) for action in range(self.rules.num_cells)}
        return {action: min(value, self.swapped_value(action)) for action, value in plays_on.items()}

    def first_move_value(self, action: Action) -> int:
        """Black's value of the first stone ``action`` (with the swap rule when the solver's
        rules have it): 1 wins, -1 loses."""
        rules = self.rules
        return -self.value(rules.apply(rules.initial_state(), action))

    def swapped_value(self, action: Action) -> int:
        """Black's value of the first stone ``action`` once White swaps it (White then holds
        the mirrored cell and Black moves), from this solver's rules without swap."""
        n = self.size
        y, x = divmod(action, n)
        return 1 if self.mover_wins(0, self.rules.cell_bits[x * n + y], BLACK) else -1

    # -- the search ---------------------------------------------------------------------------
    def _make_search(self) -> Callable[..., tuple[bool, int]]:
        rules = self.rules
        board = rules.board_bits
        edges = rules.edges
        flood = rules.flood
        neighbours = rules.neighbours
        table = self.table
        order = self._order
        width = self._width
        low = (1 << width) - 1
        shift = 2 * width
        counter = self._counter
        solver = self

        def half_turn(bits: int) -> int:
            return int(format(bits, f"0{width}b")[::-1], 2)

        def grow(group: int, stones: int, bit: int, around: int) -> int:
            """``group`` (stones joined to an edge) after ``bit`` joined it: the stones it newly reaches."""
            rest = stones ^ group
            touching = around & rest
            return group | (flood(bit | touching, rest) if touching else bit)

        def layers(stones: int, empty: int, edge: int) -> list[int]:
            """The cells (``stones`` or ``empty``) reached from ``edge`` through at most k
            empty cells, for k = 1, 2, ... until nothing new is reached."""
            reached = flood(stones & edge, stones)
            out: list[int] = []
            while True:
                grown = flood(reached | ((neighbours(reached) | edge) & empty), stones)
                if grown == reached:
                    return out
                out.append(grown)
                reached = grown

        def through(stones: int, empty: int, near: int, far: int, score: dict[int, int]) -> None:
            """Add to each empty cell's score the fewest empty cells of a chain of ``stones``
            through it from edge to edge (an unreachable cell counts the whole board)."""
            for edge in (near, far):
                reach = layers(stones, empty, edge)
                for bit in score:
                    for k, cells in enumerate(reach):
                        if bit & cells:
                            score[bit] += k
                            break
                    else:
                        score[bit] += 64

        winner = self._winner

        def search(
            mine: int, theirs: int, me: int, groups: tuple[int, int, int, int], fresh: bool = False
        ) -> tuple[bool, int]:
            """Whether the mover wins, and a proof: cells outside it may all be given to the
            loser without changing the result (see the module doc). ``groups``: the mover's
            stones joined to its near and far edges, then the opponent's."""
            counter[0] += 1
            if not counter[0] & _CHECK_EVERY:
                if solver.progress is not None:
                    solver.progress(counter[0])
            key = mine | theirs << width if me == BLACK else theirs | mine << width | 1 << shift
            image = half_turn(key & low) | half_turn(key >> width & low) << width | key >> shift << shift
            turned = image < key
            if turned:
                key = image
            known = None if fresh else table.get(key)
            if known is not None:
                return known[0], half_turn(known[1]) if turned else known[1]
            empty = board & ~(mine | theirs)
            my_near, my_far, their_near, their_far = groups
            near, far = edges[me]
            wins = empty & (neighbours(my_near) | near) & (neighbours(my_far) | far)
            if wins:
                winner[0] = wins & -wins
                result = True, winner[0] | my_near | my_far
            else:
                their_edges = edges[1 - me]
                threats = empty & (neighbours(their_near) | their_edges[0]) & (neighbours(their_far) | their_edges[1])
                chains = their_near | their_far
                if threats & (threats - 1):
                    result = False, threats | chains
                else:
                    if threats:
                        must, proof = threats, threats | chains
                        candidates = [threats]
                    else:
                        must, proof = empty, 0
                        score = {bit: 0 for bit in order if bit & empty}
                        through(mine, empty, near, far, score)
                        through(theirs, empty, their_edges[0], their_edges[1], score)
                        candidates = sorted(score, key=score.__getitem__)
                    result = False, 0
                    for bit in candidates:
                        if not bit & must:
                            continue
                        around = neighbours(bit)
                        stones = mine | bit
                        new_near = grow(my_near, stones, bit, around) if bit & near or around & my_near else my_near
                        new_far = grow(my_far, stones, bit, around) if bit & far or around & my_far else my_far
                        child_wins, child_proof = search(
                            theirs, stones, 1 - me, (their_near, their_far, new_near, new_far)
                        )
                        if not child_wins:
                            winner[0] = bit
                            result = True, child_proof | bit
                            break
                        must &= child_proof
                        proof |= child_proof
                    else:
                        result = False, proof
            if len(table) >= solver.table_limit:
                table.clear()
            table[key] = (result[0], half_turn(result[1]) if turned else result[1])
            return result

        return search


def opening_table(size: int, values: dict[Action, int]) -> str:
    """The first moves' values drawn on the board: W where Black's first stone wins, L where it loses."""
    rules = Hex(size=size)
    letters = rules.render(rules.initial_state()).split("\n")[0]
    lines = [letters]
    for y in range(size):
        row = " ".join("W" if values[y * size + x] > 0 else "L" for x in range(size))
        lines.append(" " * y + f"{y + 1:>3}  {row}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Config(Options):
    """Solve Hex's first moves (with and without the swap rule), print them on the board and
    keep them under the runs root (Ctrl-C keeps every value found; the same command resumes)."""

    size: int = option(5, "board size", minimum=3, maximum=7)
    table_limit: int = option(
        20_000_000, "transposition table entries before it is cleared (about 150 bytes each)", minimum=1000
    )
    root: str = option(str(RUNS_ROOT), "the runs root the values are kept under (<root>/hex/solved/size-N/)")
    force: bool = option(False, "solve again even if every value is already kept")


FIRST_MOVES = "first-moves.json"
_TABLES = ("without_swap", "with_swap")


def results_folder(size: int, root: Path | str = RUNS_ROOT) -> Path:
    """Where ``boardgym solve hex --size N`` keeps its first moves' values."""
    return Path(root) / "hex" / "solved" / f"size-{size}"


def load_first_moves(path: Path, size: int) -> dict[str, Any]:
    """The first moves' values kept in ``path`` (``{"without_swap": [...], "with_swap": [...]}``:
    per cell, a1 ... by rows, 1 wins, -1 loses, None not solved yet; with ``nodes``, ``seconds``
    and ``cpu_seconds`` spent on them so far), or one sentence saying what is wrong and what to do."""
    cells = size * size
    try:
        data = json.loads(path.read_text())
        problem = None
        if not isinstance(data, dict) or data.get("size") != size:
            problem = f"it is not the file of Hex {size}x{size}"
        elif any(
            not isinstance(data.get(name), list)
            or len(data[name]) != cells
            or any(value not in (1, -1, None) or isinstance(value, bool) for value in data[name])
            for name in _TABLES
        ):
            problem = f"its tables are not {cells} values of 1, -1 or null each"
        elif not all(
            isinstance(data.get(name), int | float) and not isinstance(data[name], bool) and data[name] >= 0
            for name in ("nodes", "seconds", "cpu_seconds")
        ):
            problem = "its nodes, seconds or cpu_seconds are not counts"
    except (OSError, UnicodeDecodeError, ValueError) as error:
        problem = f"it cannot be read ({error})"
    if problem is not None:
        raise BoardgymError(
            f"{path} holds no Hex first moves this command can resume: {problem}; delete it, or pass --force "
            "to solve again"
        )
    return data


def main(argv: list[str] | None = None, prog: str = "boardgym solve hex") -> int:
    from tqdm import tqdm

    config = options_from_argv(Config, argv, prog=prog)
    size, cells = config.size, config.size**2
    folder = results_folder(size, config.root)
    path = folder / FIRST_MOVES
    with RunLock(folder, elsewhere="pass another --root"):
        if path.exists() and not config.force:
            kept = load_first_moves(path, size)
        else:
            kept = {
                "size": size,
                **{name: [None] * cells for name in _TABLES},
                "nodes": 0,
                "seconds": 0,
                "cpu_seconds": 0,
            }
        todo = [(name, cell) for name in _TABLES for cell in range(cells) if kept[name][cell] is None]
        if todo and len(todo) < 2 * cells:
            print(f"resuming from {path}: {2 * cells - len(todo)} of {2 * cells} first-move values already solved")
        solver = HexSolver(size, table_limit=config.table_limit)
        started, cpu = time.perf_counter(), time.process_time()
        spent = {"nodes": kept["nodes"], "seconds": kept["seconds"], "cpu_seconds": kept["cpu_seconds"]}

        def keep() -> None:
            kept["nodes"] = spent["nodes"] + solver.nodes
            kept["seconds"] = round(spent["seconds"] + time.perf_counter() - started, 1)
            kept["cpu_seconds"] = round(spent["cpu_seconds"] + time.process_time() - cpu, 1)
            atomic_write_text(path, json.dumps(kept) + "\n")

        if todo:
            bar = tqdm(todo, desc=f"Hex {size}x{size} first moves", unit="move", disable=None)
            solver.progress = lambda nodes: bar.set_postfix_str(f"{nodes:,} nodes", refresh=False)
            try:
                for name, cell in bar:
                    if name == "without_swap":
                        value = solver.first_move_value(cell)
                    else:
                        value = min(kept["without_swap"][cell], solver.swapped_value(cell))
                    kept[name][cell] = value
                    keep()
            except KeyboardInterrupt:
                bar.close()
                keep()
                done = sum(value is not None for name in _TABLES for value in kept[name])
                print(
                    f"\ninterrupted: {done} of {2 * cells} first-move values kept in {path}; "
                    "run the same command to resume",
                    file=sys.stderr,
                )
                return 130
            bar.close()
            keep()
        for name in _TABLES:
            values = dict(enumerate(kept[name]))
            rule = "with the swap rule" if name == "with_swap" else "without swap"
            print(
                f"Hex {size}x{size} {rule}: the first player {'wins' if max(values.values()) > 0 else 'loses'}; "
                f"W/L: Black's first stone wins/loses"
            )
            print(opening_table(size, values) + "\n")
        print(
            f"{kept['seconds']} s ({kept['cpu_seconds']} CPU s) and {kept['nodes']:,} nodes in all"
            + ("" if todo else f", solved before; kept in {path} (--force to solve again)")
        )
    return 0


__all__ = ["FIRST_MOVES", "Config", "HexSolver", "load_first_moves", "main", "opening_table", "results_folder"]
