"""The Hex solver against published opening values and against a plain search without its
prunings.

Published values: the winning first moves of the small boards are drawn on HexWiki's "Small
boards" page (https://www.hexwiki.net/index.php/Small_boards) after Queenbee's opening page
(http://www.cs.ualberta.ca/~queenbee/openings.html, "the status of all opening moves for
unrestricted Hex on board sizes up to 6x6"): on 4x4 exactly the four cells of the short
diagonal (a4 b3 c2 d1) win. HexWiki's "Open problems" page states a1 and b1 as theoretically
losing first moves and asks whether c3 wins on every board from 5x5 up (it does on 5x5).
The On-Line Encyclopedia of Integer Sequences counts the winning first moves of n x n Hex:
A212188 (n = 1..8: 1, 2, 5, 4, 13, 24, 27, 32) and, up to the board's half turn, A212189
(1, 1, 3, 2, 7, 12, 14, 16).

Cell by cell, the winning first moves are listed in Benzene's `share/swap-moves.txt` (the
University of Alberta's Hex programs: the first moves its player swaps, which are the winning
ones on the solved sizes). That file writes each cell with its row and column exchanged from
the coordinates of Benzene's own solver: its 6x6 list is exactly the mirror image, across the
a1-f6 diagonal, of the 6x6 results in Benzene's `regression/dfpn-solve-6x6.tst` ("play b a3",
then White to move loses, and so on), which are in the coordinates of the regression puzzles
below, the ones this solver reproduces. So the tables here are compared with the file's list
mirrored: on 5x5 the file's d1 and b5 are a4 and e2 here. Benzene's regression puzzles
(`regression/dfs-puzzle.tst` and `dfpn-puzzle.tst`, positions in `regression/sgf/puzzles/`)
give the winner, or the winning moves, of positions set by Hein, Berge, Hayward and Henderson.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import pytest

from boardgym import make_agent
from boardgym.cli import main
from boardgym.games.hex import Hex, stones
from boardgym.solve.hex import FIRST_MOVES, HexSolver, opening_table, results_folder

WINNING_FIRST_MOVES = {1: 1, 2: 2, 3: 5, 4: 4, 5: 13, 6: 24}  # OEIS A212188
UP_TO_THE_HALF_TURN = {1: 1, 2: 1, 3: 3, 4: 2, 5: 7, 6: 12}  # OEIS A212189

# The winning first moves of Benzene's share/swap-moves.txt, as the file writes them.
SWAP_MOVES_FILE = {
    3: "b1 c1 b2 a3 b3",
    4: "d1 c2 b3 a4",
    5: "d1 e1 b2 c2 d2 b3 c3 d3 b4 c4 d4 a5 b5",
    6: "c1 d1 e1 f1 b2 c2 d2 e2 b3 c3 d3 e3 b4 c4 d4 e4 b5 c5 d5 e5 a6 b6 c6 d6",
}
# The first moves after which White to move loses, in Benzene's regression/dfpn-solve-6x6.tst.
DFPN_SOLVE_6X6 = "a3 a4 a5 a6 b2 b3 b4 b5 c2 c3 c4 c5 d2 d3 d4 d5 e2 e3 e4 e5 f1 f2 f3 f4"


def _mirrored(cells: str) -> set[str]:
    """Cells with their column and row exchanged: the mirror image across the diagonal that
    runs from a1 to the opposite corner."""
    return {f"{chr(ord('a') + int(cell[1:]) - 1)}{ord(cell[0]) - ord('a') + 1}" for cell in cells.split()}


def _winning_cells(values: dict[int, int], size: int) -> set[str]:
    return {f"{chr(ord('a') + cell % size)}{cell // size + 1}" for cell, value in values.items() if value > 0}


# Black's first stone on 5x5, a1 ... e5 by rows (W wins, L loses), as the solver finds it.
FIVE = [
    "LLLLW",
    "LWWWW",
    "LWWWL",
    "WWWWL",
    "WLLLL",
]


def _table(values: dict[int, int], size: int) -> list[str]:
    return ["".join("W" if values[y * size + x] > 0 else "L" for x in range(size)) for y in range(size)]


def test_4x4_first_moves_are_the_published_short_diagonal() -> None:
    solver = HexSolver(4)
    assert _table(solver.first_moves(), 4) == ["LLLW", "LLWL", "LWLL", "WLLL"]


def _counts(values: dict[int, int], size: int) -> tuple[int, int]:
    """The winning first moves, and those up to the half turn (cell i and cell n*n - 1 - i)."""
    wins = {cell for cell, value in values.items() if value > 0}
    return len(wins), len({min(cell, size * size - 1 - cell) for cell in wins})


@pytest.mark.parametrize("size", [3, 4])
def test_winning_first_moves_are_as_many_as_oeis_counts(size: int) -> None:
    assert _counts(HexSolver(size).first_moves(), size) == (WINNING_FIRST_MOVES[size], UP_TO_THE_HALF_TURN[size])


def test_benzenes_swap_list_is_its_solvers_6x6_results_mirrored() -> None:
    """Why the file's cells are mirrored before the comparisons: its 6x6 list and the 6x6
    solve of the same program are mirror images, and not equal (each has 24 cells)."""
    assert _mirrored(SWAP_MOVES_FILE[6]) == set(DFPN_SOLVE_6X6.split())
    assert set(SWAP_MOVES_FILE[6].split()) != set(DFPN_SOLVE_6X6.split())
    assert len(SWAP_MOVES_FILE[6].split()) == WINNING_FIRST_MOVES[6]


@pytest.mark.parametrize("size", [3, 4])
def test_first_moves_are_benzenes_cell_by_cell(size: int) -> None:
    assert _winning_cells(HexSolver(size).first_moves(), size) == _mirrored(SWAP_MOVES_FILE[size])


def test_5x5_first_moves_where_benzenes_list_and_its_mirror_differ() -> None:
    """d1 and b5 (in the file as written) lose; a4 wins, and e2 by the half turn. The whole
    table is the slow test below."""
    game = Hex(size=5)
    solver = HexSolver(5)
    start = game.initial_state()
    assert _mirrored(SWAP_MOVES_FILE[5]) ^ set(SWAP_MOVES_FILE[5].split()) == {"a4", "e2", "d1", "b5"}
    values = {cell: solver.first_move_value(game.parse_action(start, cell)) for cell in ("d1", "b5", "a4", "c3")}
    assert values == {"d1": -1, "b5": -1, "a4": 1, "c3": 1}


# Benzene's regression puzzles up to 6x6: (file, size, Black's stones, White's stones, to move,
# the winner or, after "wins:", the winning moves Benzene's solver lists).
BENZENE_PUZZLES = [
    ("3x3-hein-02", 3, "a2 b3", "a1", "white", "white"),
    ("4x4-hein-04", 4, "d1 a4", "c2", "white", "white"),
    ("4x4-hein-05", 4, "a4", "a1", "white", "white"),
    ("4x4-hein-comp-05", 4, "d4", "a4", "black", "black"),
    ("5x5-berge-1", 5, "b2 e2 e3 c3 a5", "a1 d2 d3 c4 b5", "white", "white"),
    ("5x5-berge-comp-1", 5, "a1 e2 d3 b4 c4", "e1 b2 c3 b5 c5", "black", "black"),
    ("5x5-hein-06", 5, "a2 b3 b4", "a3 c3 a5", "white", "wins: c2"),
    ("5x5-hein-comp-06", 5, "c3 a5 c5", "b4 c4 d5", "black", "wins: d3"),
    ("5x5-henderson-11", 5, "e1 c3 a4", "c2 b4", "white", "wins: c4"),
    ("5x5-henderson-12", 5, "e1 c3 a4", "c2 d2 b4", "black", "wins: b3"),
    ("6x6-hein-07", 6, "b3 d3 f3 b4 a5 c5", "c1 e1 a2 c3 e3", "white", "white"),
    ("6x6-henderson-02", 6, "a3 d4 d5", "e2 c4 b6", "black", "wins: b4"),
    pytest.param("6x6-hein-03", 6, "c3 f3 d5", "b1 b5", "white", "white", marks=pytest.mark.slow),
    pytest.param("6x6-henderson-16", 6, "e2 f2 f3 d4", "f1 d3 e5", "white", "wins: e1 b5", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("name", "size", "black", "white", "mover", "expected"), BENZENE_PUZZLES)
def test_benzenes_regression_puzzles(name: str, size: int, black: str, white: str, mover: str, expected: str) -> None:
    """Benzene lists the winning moves among those its inferior-cell analysis keeps: each
    listed move must win here. On 5x5 the listed move is the only winning one, so there the
    whole set is compared; on 6x6 more can win (henderson-02: f1 and f2 as well as b4)."""
    game = Hex(size=size)
    start = game.initial_state()

    def bits(cells: str) -> int:
        return sum(game.cell_bits[game.parse_action(start, cell)] for cell in cells.split())

    state = game.state(bits(black), bits(white), ("black", "white").index(mover))
    solver = HexSolver(size)
    if expected.startswith("wins: ") and size <= 5:
        values = solver.move_values(state)
        assert {game.action_to_str(state, a) for a, v in values.items() if v > 0} == set(expected[6:].split()), name
    elif expected.startswith("wins: "):
        for cell in expected[6:].split():
            assert solver.value(game.apply(state, game.parse_action(state, cell))) < 0, f"{name}: {cell}"
    else:
        assert (mover if solver.value(state) > 0 else ("black", "white")[mover == "black"]) == expected, name


def test_with_swap_every_first_move_loses_and_white_swaps_the_winning_ones() -> None:
    solver = HexSolver(4, swap=True)
    assert set(solver.first_moves().values()) == {-1}
    rules = solver.rules
    after_d1 = rules.apply(rules.initial_state(), rules.parse_action(rules.initial_state(), "d1"))
    values = solver.move_values(after_d1)
    assert values[rules.num_cells] == 1  # swapping a winning stone wins for White


def test_swap_table_from_the_plain_rules_matches_the_swap_rules() -> None:
    assert HexSolver(4).first_moves_with_swap() == HexSolver(4, swap=True).first_moves()


def test_3x3_agrees_with_the_perfect_agent_everywhere() -> None:
    game = Hex(size=3)
    perfect = make_agent("perfect", game)
    solver = HexSolver(3)
    seen, stack = set(), [game.initial_state()]
    while stack:
        state = stack.pop()
        if state in seen or game.is_terminal(state):
            continue
        seen.add(state)
        expected = {a: (v > 0) - (v < 0) for a, v in perfect.action_values(state).items()}
        assert solver.move_values(state) == expected, game.render(state)
        stack += [game.apply(state, a) for a in game.legal_actions(state)]
    assert len(seen) > 1000


def test_5x5_positions_agree_with_a_plain_search() -> None:
    """Positions of random play with 10 to 12 empty cells, every move valued both ways: the
    solver with its must-play proofs and a memoised search that tries every move."""
    game = Hex(size=5)
    solver = HexSolver(5)
    rng = random.Random(3)

    @cache
    def plain(black: int, white: int, player: int) -> bool:
        mine = (black, white)[player]
        for bit in game.cell_bits:
            if (black | white) & bit:
                continue
            if game._joins_edges(mine | bit, bit, player):
                return True
            child = (black | bit, white) if player == 0 else (black, white | bit)
            if not plain(child[0], child[1], 1 - player):
                return True
        return False

    checked = 0
    while checked < 12:
        state = game.initial_state()
        for _ in range(rng.randrange(13, 16)):
            if game.is_terminal(state):
                break
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        if game.is_terminal(state):
            continue
        player = game.current_player(state)
        black, white = stones(state)
        assert solver.value(state) == (1 if plain(black, white, player) else -1), game.render(state)
        checked += 1


def test_solve_command_prints_both_tables_and_keeps_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ["--root", str(tmp_path)]
    assert main(["solve", "hex", "--size", "4", *root]) == 0
    out = capsys.readouterr().out
    assert "Hex 4x4 without swap: the first player wins" in out
    assert "Hex 4x4 with the swap rule: the first player loses" in out
    assert opening_table(4, HexSolver(4).first_moves()) in out
    kept = json.loads((results_folder(4, tmp_path) / FIRST_MOVES).read_text())
    assert kept["without_swap"] == [HexSolver(4).first_moves()[cell] for cell in range(16)]
    assert kept["with_swap"] == [-1] * 16 and kept["nodes"] > 0
    assert main(["solve", "hex", "--size", "4", *root]) == 0  # from what was kept
    again = capsys.readouterr().out
    assert "solved before" in again and opening_table(4, HexSolver(4).first_moves()) in again


def test_interrupted_solve_resumes_without_losing_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ["--root", str(tmp_path)]
    value, calls = HexSolver.value, []

    def interrupted(self: HexSolver, state: object) -> int:
        calls.append(state)
        if len(calls) == 6:  # Ctrl-C while the sixth first move is searched
            raise KeyboardInterrupt
        return value(self, state)  # type: ignore[arg-type]

    monkeypatch.setattr(HexSolver, "value", interrupted)
    assert main(["solve", "hex", "--size", "4", *root]) == 130
    assert "interrupted: 5 of 32 first-move values kept" in capsys.readouterr().err
    kept = json.loads((results_folder(4, tmp_path) / FIRST_MOVES).read_text())
    assert kept["without_swap"][:5] == [-1, -1, -1, 1, -1] and kept["without_swap"][5:] == [None] * 11
    monkeypatch.setattr(HexSolver, "value", value)
    searched, mover_wins = [], HexSolver.mover_wins

    def counted(self: HexSolver, black: int, white: int, player: int) -> bool:
        searched.append((black, white, player))
        return mover_wins(self, black, white, player)

    monkeypatch.setattr(HexSolver, "mover_wins", counted)
    assert main(["solve", "hex", "--size", "4", *root]) == 0
    out = capsys.readouterr().out
    assert "resuming from" in out and "5 of 32 first-move values already solved" in out
    assert len(searched) == 32 - 5  # the kept values are not searched again
    assert opening_table(4, HexSolver(4).first_moves()) in out


@pytest.mark.parametrize(
    "text", ["{", '{"size": 4}', '{"size": 5, "without_swap": [], "with_swap": []}', "[1, 2]", "\udcff"]
)
def test_a_broken_kept_file_is_one_sentence(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = results_folder(4, tmp_path) / FIRST_MOVES
    path.parent.mkdir(parents=True)
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    assert main(["solve", "hex", "--size", "4", "--root", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"boardgym: error: {path} holds no Hex first moves") and "pass --force" in error
    assert error.count("\n") == 1
    assert main(["solve", "hex", "--size", "4", "--root", str(tmp_path), "--force"]) == 0
    assert json.loads(path.read_text())["without_swap"][3] == 1


@pytest.mark.slow
def test_5x5_first_moves_match_the_published_values() -> None:
    """Every opening cell of 5x5 (minutes on one core): the first player wins; c3 wins; a1,
    b1 and their half-turn images lose, as published."""
    solver = HexSolver(5)
    values = solver.first_moves()
    table = _table(values, 5)
    assert table == FIVE
    assert _winning_cells(values, 5) == _mirrored(SWAP_MOVES_FILE[5])  # Benzene's list, cell by cell
    assert _counts(values, 5) == (WINNING_FIRST_MOVES[5], UP_TO_THE_HALF_TURN[5])  # 13 and 7, as OEIS counts
    assert table[2][2] == "W" and table[0][0] == table[0][1] == table[4][4] == table[4][3] == "L"


def test_a_second_solve_of_the_same_root_is_refused_while_one_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardgym.runs import RunLock

    with RunLock(results_folder(4, tmp_path)):  # another solve holds it
        assert main(["solve", "hex", "--size", "4", "--root", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "is in use by process" in error and "pass another --root" in error
    assert main(["solve", "hex", "--size", "4", "--root", str(tmp_path)]) == 0
