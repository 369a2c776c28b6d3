"""The shipped Hex 5x5 and Quixo 4x4 grading sets: read back, spread over the game, and their
keys checked against the solvers (not only against themselves)."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardgym import make_game
from boardgym.evaluate.grade import grade, phase_bounds, position_set
from boardgym.evaluate.solved_sets import read_hex_set, read_quixo_set
from boardgym.solve.hex import HexSolver
from boardgym.solve.quixo import TABLE, QuixoTable, table_folder
from boardgym.types import BoardgymError

QUIXO_TABLE = table_folder(4) / TABLE


def _spread(positions: list) -> None:
    assert len(positions) >= 100
    for position in positions:
        assert len(set(position.values.values())) > 1  # some move is worse than the best
    counts = {name: 0 for name, _, _ in phase_bounds(positions)}
    for name, low, high in phase_bounds(positions):
        counts[name] = sum(low <= p.ply <= high for p in positions)
    assert min(counts.values()) >= 20, counts


def test_hex_5x5_set_is_spread_over_the_game() -> None:
    positions = read_hex_set()
    _spread(positions)
    assert position_set(make_game("hex", size=5)) == positions


def test_hex_5x5_keys_agree_with_the_solver_on_a_sample() -> None:
    positions = read_hex_set()
    solver = HexSolver(5)
    for position in positions[-40::4]:  # the late positions: quick to solve
        assert solver.move_values(position.state) == position.values, position.label


@pytest.mark.slow
def test_hex_5x5_keys_agree_with_the_solver_everywhere() -> None:
    solver = HexSolver(5)
    for position in read_hex_set():
        assert solver.move_values(position.state) == position.values, position.label


def test_quixo_4x4_set_is_spread_over_the_game() -> None:
    positions = read_quixo_set()
    _spread(positions)
    assert position_set(make_game("quixo", size=4)) == positions


def test_quixo_4x4_keys_agree_with_the_table() -> None:
    if not QUIXO_TABLE.exists():
        pytest.skip("the Quixo 4x4 table is not built: run `boardgym solve quixo --size 4` (the slow test builds one)")
    _check_quixo_keys(QuixoTable.load(4))


@pytest.mark.slow
def test_quixo_4x4_keys_agree_with_a_fresh_solve(tmp_path: Path) -> None:
    from boardgym.cli import main

    root = Path("runs") if QUIXO_TABLE.exists() else tmp_path
    if root == tmp_path:
        assert main(["solve", "quixo", "--size", "4", "--root", str(root)]) == 0
    _check_quixo_keys(QuixoTable.load(4, root))


def _check_quixo_keys(table: QuixoTable) -> None:
    for position in read_quixo_set():
        values = {a: v for a, (v, _) in table.move_values(position.state).items()}
        assert values == position.values, position.label


def test_bad_set_lines_are_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "set.txt"
    path.write_text("c3 WWW\n")
    with pytest.raises(BoardgymError, match="line 1"):
        read_hex_set(path)
    path.write_text("................ 0 0 " + "-" * 32 + "\n")
    with pytest.raises(BoardgymError, match="each legal move"):
        read_quixo_set(path)


def test_grading_quixo_4x4_random_makes_mistakes() -> None:
    result = grade(make_game("quixo", size=4), "random", seed=0)
    assert result.positions == len(read_quixo_set()) and result.mistakes > 0
