"""The graded position sets: positions with the exact value of every legal move.

A ``GradedPosition`` holds a state, the ply it was reached at and, for every legal move, the
move's exact game-theoretic value for the player to move: 1 (the move keeps a win), 0 (a
draw), -1 (a loss). Only positions where some move is worse than the best are kept (elsewhere
no move can be a mistake). Each set is fixed and versioned (``GradingSet.version``): a generated set
is rebuilt identically from its seed; Connect Four's is a data file shipped in the package,
solved once by ``build_connect_four_set`` (``benchmarks/build_connect_four_grade_set.py``).

Oracles: tic-tac-toe and Hex 3x3 by the perfect agent's memoised search; Nim by the nim-sum
rule; Hex 4x4 by a memoised win/loss search over its bitboards (Hex has no draws); Quixo 3x3 (with a
move limit of at most 30) by the perfect agent's search of the game as played; Connect Four by
the exact solver's win/draw/loss search.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardgym.agents.nim_perfect import mover_wins
from boardgym.agents.perfect import PerfectAgent
from boardgym.game import Game
from boardgym.games.connect_four import ConnectFour
from boardgym.games.hex import Hex
from boardgym.games.hex import stones as hex_stones
from boardgym.games.nim import Nim
from boardgym.games.quixo import Quixo
from boardgym.runs import atomic_write_text
from boardgym.solve.connect_four import Solver, SolveTimeout, state_from_moves, winning_cells
from boardgym.types import Action, BoardgymError

DATA = Path(__file__).parent / "data"
CONNECT_FOUR_FILE = DATA / "connect_four_grade_v1.txt"
_SIGN = {"W": 1, "D": 0, "L": -1}


@dataclass(frozen=True)
class GradedPosition:
    """A position, the ply it was reached at and every legal move's exact value (1/0/-1)."""

    state: Any
    ply: int
    values: dict[Action, int]
    label: str = ""

    @property
    def best(self) -> int:
        return max(self.values.values())


# -- Connect Four: the shipped file -------------------------------------------------------


def varied_game_moves(rng: random.Random, plies: int) -> str | None:
    """Moves of a game of "careful random" play (take a win, block a threat, avoid a move
    that hands the opponent a win, else random; a fully random move one time in four),
    stopped after ``plies`` moves; ``None`` if the game ended first."""
    game = ConnectFour()
    state = game.initial_state()
    moves = []
    for _ in range(plies):
        if game.is_terminal(state):
            return None
        legal = game.legal_actions(state)
        current, mask, _ = state
        if rng.random() < 0.25:
            choice = rng.choice(legal)
        else:
            bottom = [(mask + (1 << (7 * c))) & (0b111111 << (7 * c)) for c in legal]
            mine = winning_cells(current, mask)
            theirs = winning_cells(current ^ mask, mask)
            wins = [c for c, b in zip(legal, bottom, strict=True) if b & mine]
            blocks = [c for c, b in zip(legal, bottom, strict=True) if b & theirs]
            safe = [c for c, b in zip(legal, bottom, strict=True) if not (b << 1) & theirs]
            choice = rng.choice(wins or blocks or safe or legal)
        state = game.apply(state, choice)
        moves.append(str(choice + 1))
    return None if game.is_terminal(state) else "".join(moves)


def build_connect_four_set(
    path: Path,
    *,
    plies: range = range(4, 35),
    per_ply: int = 8,
    early: int = 11,
    seed: int = 2024,
    time_limit: float = 20.0,
    attempts: int = 6,
    log: Callable[[str], None] = print,
) -> None:
    """Solve ``per_ply`` positions at each ply of ``plies`` (half as many before ply ``early``,
    where solving is slowest) from careful-random play and write
    them to ``path``: every legal move's value by the solver's win/draw/loss search. A position
    is dropped when solving its moves takes over ``time_limit`` CPU seconds or when all its moves
    have the same value; up to ``attempts`` games are tried per slot."""
    rng = random.Random(seed)
    solver = Solver(table_limit=3_000_000, clock=time.process_time)
    lines: list[str] = []
    started = time.perf_counter()
    dropped_slow = dropped_flat = 0
    for ply in plies:
        for _ in range(per_ply if ply >= early else max(1, per_ply // 2)):
            for _ in range(attempts):
                moves = varied_game_moves(rng, ply)
                if moves is None:
                    continue
                state = state_from_moves(moves)
                deadline = time.process_time() + time_limit
                values = {}
                try:
                    for column in ConnectFour().legal_actions(state):
                        values[column] = _weak_move_value(solver, state, column, deadline)
                except SolveTimeout:
                    dropped_slow += 1
                    continue
                if len(set(values.values())) == 1:
                    dropped_flat += 1
                    continue
                text = "".join("-" if c not in values else "LDW"[values[c] + 1] for c in range(7))
                lines.append(f"{moves} {text}")
                break
        log(f"ply {ply}: {len(lines)} positions so far, {time.perf_counter() - started:.0f} s")
        _write_set(
            path,
            lines,
            seed,
            per_ply,
            early,
            range(plies.start, ply + 1),
            time_limit,
            attempts,
            time.perf_counter() - started,
            dropped_slow,
            dropped_flat,
        )


def _write_set(
    path: Path,
    lines: list[str],
    seed: int,
    per_ply: int,
    early: int,
    plies: range,
    time_limit: float,
    attempts: int,
    elapsed: float,
    dropped_slow: int,
    dropped_flat: int,
) -> None:
    """The set so far, with a header saying how it was built (rewritten after every ply)."""
    header = [
        "# boardgym Connect Four grading set, version 1: one position per line,",
        "# '<moves, columns 1-7> <value of each column a-g for the player to move: W win, D draw, L loss, - full>'.",
        f"# Built by boardgym.evaluate.grade_sets.build_connect_four_set(seed={seed}, per_ply={per_ply}, early={early},",
        f"# plies={plies.start}-{plies.stop - 1}, time_limit={time_limit} CPU s, attempts={attempts}) in {elapsed:.0f} s;",
        f"# {len(lines)} positions,",
        f"# {dropped_slow} dropped as too slow to solve, {dropped_flat} because every move had the same value.",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, "\n".join(header + lines) + "\n")


def _weak_move_value(solver: Solver, state: Any, column: Action, deadline: float) -> int:
    """The win/draw/loss value (1/0/-1) of playing ``column`` for the player to move."""
    rules = ConnectFour()
    child = rules.apply(state, column)
    if rules.is_terminal(child):  # the mover's disc won, or filled the board
        return int(rules.returns(child)[rules.current_player(state)])
    return -solver.solve(child, weak=True, deadline=deadline)


def read_connect_four_set(path: Path = CONNECT_FOUR_FILE) -> list[GradedPosition]:
    """The positions of a Connect Four set file (the shipped one, or one written by
    ``build_connect_four_set``): one ``<moves> <seven values>`` line each, ``#`` lines skipped."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise BoardgymError(
            f"cannot read the Connect Four position set {str(path)!r}: {error.strerror or error}; "
            "pass a file written by boardgym.evaluate.grade_sets.build_connect_four_set"
        ) from None
    except UnicodeDecodeError:
        raise BoardgymError(f"{str(path)!r} is not a text file of '<moves> <7 values>' lines") from None
    rules = ConnectFour()
    positions = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            moves, values_text = line.split()
            if len(values_text) != 7:
                raise KeyError(values_text)
            values = {c: _SIGN[v] for c, v in enumerate(values_text) if v != "-"}
        except (ValueError, KeyError):
            raise BoardgymError(f"line {number} of {path} is not '<moves> <7 values>': {line!r}") from None
        try:
            state = state_from_moves(moves)
        except BoardgymError as error:
            raise BoardgymError(f"line {number} of {path}: {error}") from None
        legal = rules.legal_actions(state) if not rules.is_terminal(state) else []
        if not legal or sorted(values) != sorted(legal):
            raise BoardgymError(
                f"line {number} of {path}: the values must give each legal move of {moves!r} "
                f"(columns {''.join('abcdefg'[c] for c in legal) or 'none: the game is over'}) and '-' for full ones: {line!r}"
            )
        positions.append(GradedPosition(state, len(moves), values, moves))
    if not positions:
        raise BoardgymError(f"{path} holds no positions ('<moves> <7 values>' lines)")
    return positions


# -- generated sets ---------------------------------------------------------------------


def _reachable(game: Game) -> Iterator[tuple[Any, int]]:
    """Every non-terminal position reachable from the start, once each, with its ply."""
    start = game.initial_state()
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        state, ply = queue.popleft()
        yield state, ply
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            if child not in seen and not game.is_terminal(child):
                seen.add(child)
                queue.append((child, ply + 1))


def _by_perfect_agent(game: Game) -> list[GradedPosition]:
    agent = PerfectAgent(game, seed=0)
    positions = []
    for state, ply in _reachable(game):
        values = {a: (v > 0) - (v < 0) for a, v in agent.action_values(state).items()}
        if len(set(values.values())) > 1:
            positions.append(GradedPosition(state, ply, values))
    return positions


def tictactoe_set(game: Game) -> list[GradedPosition]:
    """Every reachable tic-tac-toe position where some move is worse than the best."""
    return _by_perfect_agent(game)


def nim_set(game: Game) -> list[GradedPosition]:
    """Every Nim position reachable from the game's heaps, valued by the nim-sum rule."""
    assert isinstance(game, Nim)
    positions = []
    for state, ply in _reachable(game):
        values = {}
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            if game.is_terminal(child):
                values[action] = 1 if game.returns(child)[game.current_player(state)] > 0 else -1
            else:
                values[action] = -1 if mover_wins(game.heaps_of(child), game.misere, game.k) else 1
        if len(set(values.values())) > 1:
            positions.append(GradedPosition(state, ply, values))
    return positions


def _sampled_set(
    game: Game, values_of: Callable[[Any], dict[Action, int]], *, samples: int, seed: int, plies: int
) -> list[GradedPosition]:
    """Up to ``samples`` distinct positions, each after a seeded random number (below
    ``plies``) of random moves, kept where ``values_of`` says some move is worse than another;
    at most ``samples * 20`` tries."""
    rng = random.Random(seed)
    positions: list[GradedPosition] = []
    seen = set()
    tries = 0
    while len(positions) < samples and tries < samples * 20:
        tries += 1
        state = game.initial_state()
        ply = rng.randrange(0, plies)
        for _ in range(ply):
            if game.is_terminal(state):
                break
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        if game.is_terminal(state) or state in seen:
            continue
        seen.add(state)
        values = values_of(state)
        if len(set(values.values())) > 1:
            positions.append(GradedPosition(state, ply, values))
    return positions


def hex_set(game: Game, *, samples: int = 400, seed: int = 7) -> list[GradedPosition]:
    """Hex 3x3: every reachable position; 4x4: ``samples`` positions from seeded random play.
    Values by a memoised win/loss search (Hex has no draws)."""
    assert isinstance(game, Hex)
    if game.swap:
        raise BoardgymError("grading covers Hex without the swap rule; use hex:size=3 or hex:size=4")
    memo: dict[tuple[int, int], bool] = {}
    cells = game.cell_bits

    def mover_wins_hex(mine: int, theirs: int, player: int) -> bool:
        key = (mine, theirs)
        known = memo.get(key)
        if known is None:
            occupied = mine | theirs
            free = [bit for bit in cells if not occupied & bit]
            known = any(game._joins_edges(mine | bit, bit, player) for bit in free) or any(
                not mover_wins_hex(theirs, mine | bit, 1 - player) for bit in free
            )
            memo[key] = known
        return known

    def values_of(state: Any) -> dict[Action, int]:
        player = game.current_player(state)
        boards = hex_stones(state)
        mine, theirs = boards[player], boards[1 - player]
        values = {}
        for action in game.legal_actions(state):
            bit = cells[action]
            if game._joins_edges(mine | bit, bit, player):
                values[action] = 1
            else:
                values[action] = -1 if mover_wins_hex(theirs, mine | bit, 1 - player) else 1
        return values

    positions = []
    if game.size <= 3:
        for state, ply in _reachable(game):
            values = values_of(state)
            if len(set(values.values())) > 1:
                positions.append(GradedPosition(state, ply, values))
        return positions
    if game.size > 4:
        raise BoardgymError(f"Hex grading covers sizes 3 and 4, not {game.size}")
    return _sampled_set(game, values_of, samples=samples, seed=seed, plies=game.size * game.size - 2)


def quixo_set(game: Game, *, samples: int = 400, seed: int = 11) -> list[GradedPosition]:
    """``samples`` 3x3 Quixo positions from seeded random play (plies 0-19, within the move
    limit), valued by the perfect agent's search of the game as played: with its move limit,
    so a win that needs more moves than remain is a draw."""
    assert isinstance(game, Quixo)
    if game.size != 3 or not game.solvable_by_search:
        raise BoardgymError(
            f"Quixo grading covers size 3 with max_moves <= 30 (-p size=3 -p max_moves=20), not {game.params()}"
        )
    agent = PerfectAgent(game, seed=0)

    def values_of(state: Any) -> dict[Action, int]:
        return {a: (v > 0) - (v < 0) for a, v in agent.action_values(state).items()}

    last = min(19, (game.max_moves or 20) - 2)
    return _sampled_set(game, values_of, samples=samples, seed=seed, plies=last + 1)


def connect_four_set(game: Game) -> list[GradedPosition]:
    return read_connect_four_set()


@dataclass(frozen=True)
class GradingSet:
    """A game's graded position set, named by its ``GAMES`` entry (``grading``): ``build``
    makes the positions of a game, ``oracle`` says what values their moves, ``covers`` whether
    the set exists at the game's parameters (``where`` says at which, for the refusal),
    ``cheap`` whether in-training measurement may build it (a few seconds at most), and
    ``version`` changes whenever the positions or their values do."""

    build: Callable[[Game], list[GradedPosition]]
    oracle: str
    where: str
    covers: Callable[[Game], bool] = lambda game: True
    cheap: Callable[[Game], bool] = lambda game: True
    version: int = 1


TICTACTOE = GradingSet(tictactoe_set, "the perfect agent's memoised search", "every position")
NIM = GradingSet(
    nim_set,
    "the nim-sum rule",
    "heaps of at most 40 stones in all",
    covers=lambda game: isinstance(game, Nim) and sum(game.heaps) <= 40,
)
HEX = GradingSet(
    hex_set,
    "a memoised win/loss search over the bitboards (Hex has no draws)",
    "-p size=3 or -p size=4, without swap",
    covers=lambda game: isinstance(game, Hex) and game.size in (3, 4) and not game.swap,
    cheap=lambda game: isinstance(game, Hex) and game.size == 3,
)
QUIXO = GradingSet(
    quixo_set,
    "the perfect agent's search of the game as played (with its move limit)",
    "-p size=3 -p max_moves=20 (size 3, a move limit of at most 30)",
    covers=lambda game: isinstance(game, Quixo) and game.size == 3 and game.solvable_by_search,
    cheap=lambda game: False,
)
CONNECT_FOUR = GradingSet(connect_four_set, "the exact solver's win/draw/loss search", "the shipped, solved file")
