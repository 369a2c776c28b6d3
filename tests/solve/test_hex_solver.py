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
