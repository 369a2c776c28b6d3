"""The graded sets of Hex 5x5 and Quixo 4x4: shipped files, solved once by the exact solvers.

Both are built like the Connect Four set (``boardgym.evaluate.grade_sets``): positions reached
by seeded play (random moves, a win taken when one is there, a move that loses at once
avoided), spread over the early, middle
and late game, kept only where some move is worse than the best, each legal move valued
exactly. ``build_hex_set`` values them with ``boardgym.solve.hex.HexSolver``;
``build_quixo_set`` with the retrograde table of ``boardgym solve quixo --size 4`` (the game
without a move limit). The readers check every line against the rules; the tests check the
values against the solvers.

``HEX`` and ``QUIXO`` are the two games' ``GradingSet``s (named by their ``GAMES`` entries):
the generated sets of ``grade_sets`` for Hex 3x3 and 4x4 and Quixo 3x3, these files for
Hex 5x5 and Quixo 4x4.

Hex lines: ``<moves, cell names> <25 values, W/L, '-' for a stone>``, a1 b1 ... e5 order.
Quixo lines: ``<16 cells, . X O, a1 b1 ... d4> <player to move 0/1> <ply> <32 values, W/D/L,
'-' where illegal>``, in action order.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardgym.evaluate.grade_sets import DATA, GradedPosition, GradingSet, hex_set, quixo_set
from boardgym.game import Game
from boardgym.games.hex import Hex
from boardgym.games.quixo import Quixo, QuixoState
from boardgym.runs import RUNS_ROOT, atomic_write_text
from boardgym.types import BoardgymError

HEX_FILE = DATA / "hex_5x5_grade_v1.txt"
QUIXO_FILE = DATA / "quixo_4x4_grade_v1.txt"
_SIGN = {"W": 1, "D": 0, "L": -1}
_LETTER = {1: "W", 0: "D", -1: "L"}


def played_positions(
    game: Game, rng: random.Random, plies: range, per_ply: int, attempts: int = 20, careful: bool = False
) -> list[tuple[list[int], Any]]:
    """``per_ply`` distinct positions at each ply of ``plies`` from seeded random play that
    takes a winning move when it has one and avoids one that loses at once (``attempts``
    games tried a slot); ``careful`` also avoids a move after which the opponent wins at once
    (games then last longer: more late positions)."""
    found: list[tuple[list[int], Any]] = []
    seen = set()
    for ply in plies:
        for _ in range(per_ply):
            for _ in range(attempts):
                state, moves = game.initial_state(), []
                for _ in range(ply):
                    if game.is_terminal(state):
                        break
                    legal = game.legal_actions(state)
                    mover = game.current_player(state)
                    results = {a: _result_at_once(game, state, a, mover) for a in legal}
                    wins = [a for a in legal if results[a] > 0]
                    safe = [a for a in legal if results[a] == 0]
                    if careful and not wins:
                        safe = [a for a in safe if not _opponent_wins_next(game, game.apply(state, a))] or safe
                    action = rng.choice(wins or safe or legal)
                    state = game.apply(state, action)
                    moves.append(action)
                if game.is_terminal(state) or len(moves) != ply or state in seen:
                    continue
                seen.add(state)
                found.append((moves, state))
                break
    return found


def build_hex_set(
    path: Path = HEX_FILE,
    *,
    plies: range = range(4, 24),
    per_ply: int = 12,
    seed: int = 5,
    log: Callable[[str], None] = print,
) -> int:
    """Solve every move of positions of seeded play on 5x5 Hex and write the set to ``path``;
    returns the number of positions kept."""
    from boardgym.solve.hex import HexSolver

    game = Hex(size=5)
    solver = HexSolver(5)
    started = time.perf_counter()
    lines = []
    for moves, state in played_positions(game, random.Random(seed), plies, per_ply):
        values = solver.move_values(state)
        if len(set(values.values())) > 1:
            text = "".join(_LETTER[values[a]] if a in values else "-" for a in range(25))
            lines.append(f"{''.join(game.action_to_str(state, a) for a in moves) or '-'} {text}")
    header = [
        "# boardgym Hex 5x5 grading set, version 1: '<moves> <value of each cell a1..e5 for the player to move:",
        "# W win, L loss, - a stone>'. Built by boardgym.evaluate.solved_sets.build_hex_set("
        f"plies={plies.start}-{plies.stop - 1}, per_ply={per_ply}, seed={seed})",
        f"# in {time.perf_counter() - started:.0f} s with boardgym.solve.hex.HexSolver; {len(lines)} positions.",
    ]
    return _write_set(path, header, lines, log)


def _write_set(path: Path, header: list[str], lines: list[str], log: Callable[[str], None]) -> int:
    """Write a set's header and positions atomically; returns the number of positions."""
    atomic_write_text(path, "\n".join(header + lines) + "\n")
    log(f"{len(lines)} positions written to {path}")
    return len(lines)


def read_hex_set(path: Path = HEX_FILE) -> list[GradedPosition]:
    game = Hex(size=5)
    positions = []
    for number, line in _lines(path):
        try:
            moves_text, values_text = line.split()
            state, plies = game.initial_state(), 0
            for cell in [] if moves_text == "-" else _cells(moves_text):
                state = game.apply(state, game.parse_action(state, cell))
                plies += 1
            values = {a: _SIGN[v] for a, v in enumerate(values_text) if v != "-"}
        except (ValueError, KeyError, BoardgymError):
            raise BoardgymError(f"line {number} of {path} is not '<moves> <25 values>': {line!r}") from None
        if len(values_text) != 25 or sorted(values) != game.legal_actions(state):
            raise BoardgymError(f"line {number} of {path}: the values must give each empty cell: {line!r}")
        positions.append(GradedPosition(state, plies, values, moves_text))
    return positions


def build_quixo_set(
    path: Path = QUIXO_FILE,
    *,
    plies: range = range(0, 40),
    per_ply: int = 8,
    seed: int = 13,
    root: Path | str = RUNS_ROOT,
    log: Callable[[str], None] = print,
) -> int:
    """Value every move of positions of seeded play on 4x4 Quixo with the retrograde table
    (under ``root``) and write the set to ``path``; returns the number of positions kept."""
    from boardgym.solve.quixo import QuixoTable

    table = QuixoTable.load(4, root)
    game = Quixo(size=4)
    lines = []
    for _, state in played_positions(game, random.Random(seed), plies, per_ply, careful=True):
        values = {a: v for a, (v, _) in table.move_values(state).items()}
        if len(set(values.values())) > 1:
            text = "".join(_LETTER[values[a]] if a in values else "-" for a in range(game.num_actions))
            lines.append(f"{_board_text(state)} {state.player} {state.moves} {text}")
    header = [
        "# boardgym Quixo 4x4 grading set, version 1: '<cells a1..d4: . X O> <player to move> <ply>",
        "# <value of each action for the player to move: W win, D draw, L loss, - illegal>', the game without",
        f"# a move limit. Built by boardgym.evaluate.solved_sets.build_quixo_set(plies={plies.start}-{plies.stop - 1},",
        f"# per_ply={per_ply}, seed={seed}) from `boardgym solve quixo --size 4`'s table; {len(lines)} positions.",
    ]
    return _write_set(path, header, lines, log)


def read_quixo_set(path: Path = QUIXO_FILE) -> list[GradedPosition]:
    game = Quixo(size=4)
    positions = []
    for number, line in _lines(path):
        try:
            board, player_text, ply_text, values_text = line.split()
            x = sum(1 << i for i, c in enumerate(board) if c == "X")
            o = sum(1 << i for i, c in enumerate(board) if c == "O")
            state = QuixoState((x, o), int(player_text), int(ply_text), -1)
            values = {a: _SIGN[v] for a, v in enumerate(values_text) if v != "-"}
        except (ValueError, KeyError):
            raise BoardgymError(
                f"line {number} of {path} is not '<board> <player> <ply> <32 values>': {line!r}"
            ) from None
        if len(board) != 16 or len(values_text) != game.num_actions or sorted(values) != game.legal_actions(state):
            raise BoardgymError(f"line {number} of {path}: the values must give each legal move: {line!r}")
        positions.append(GradedPosition(state, state.moves, values, board))
    return positions


def _board_text(state: QuixoState) -> str:
    x, o = state.stones
    return "".join("X" if x >> i & 1 else "O" if o >> i & 1 else "." for i in range(16))


def _cells(text: str) -> list[str]:
    cells, rest = [], text
    while rest:
        cells.append(rest[:2])
        rest = rest[2:]
    return cells


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise BoardgymError(f"cannot read the position set {str(path)!r}: {error.strerror or error}") from None
    return [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip() and not line.startswith("#")]


def _opponent_wins_next(game: Game, state: Any) -> bool:
    mover = game.current_player(state)
    return any(_result_at_once(game, state, a, mover) > 0 for a in game.legal_actions(state))


def _result_at_once(game: Game, state: Any, action: int, mover: int) -> float:
    """1 if ``action`` wins at once for ``mover``, -1 if it loses at once, else 0."""
    child = game.apply(state, action)
    return game.returns(child)[mover] if game.is_terminal(child) else 0.0


def hex_graded(game: Game) -> list[GradedPosition]:
    """Hex 3x3 and 4x4: ``grade_sets.hex_set``; 5x5: the shipped file."""
    assert isinstance(game, Hex)
    return read_hex_set() if game.size == 5 and not game.swap else hex_set(game)


def quixo_graded(game: Game) -> list[GradedPosition]:
    """Quixo 3x3: ``grade_sets.quixo_set``; 4x4: the shipped file."""
    assert isinstance(game, Quixo)
    return read_quixo_set() if game.size == 4 else quixo_set(game)


HEX = GradingSet(
    hex_graded,
    "3x3 and 4x4: a memoised win/loss search over the bitboards (Hex has no draws); 5x5: the shipped file "
    "valued by boardgym.solve.hex",
    "-p size=3, 4 or 5, without swap",
    covers=lambda game: isinstance(game, Hex) and game.size in (3, 4, 5) and not game.swap,
    cheap=lambda game: isinstance(game, Hex) and game.size in (3, 5),
)
QUIXO = GradingSet(
    quixo_graded,
    "3x3: the perfect agent's search of the game as played (with its move limit); 4x4: the shipped file "
    "valued by the retrograde table of boardgym solve quixo --size 4 (no move limit)",
    "-p size=3 -p max_moves=20 (size 3, a move limit of at most 30), or -p size=4",
    covers=lambda game: isinstance(game, Quixo) and (game.size == 3 and game.solvable_by_search or game.size == 4),
    cheap=lambda game: isinstance(game, Quixo) and (game.size == 4 or game.size == 3 and game.solvable_by_search),
)
