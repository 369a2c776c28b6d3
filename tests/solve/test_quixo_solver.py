"""Quixo's retrograde solve: consistency with the scalar rules, known values, resuming.

"Quixo Is Solved" (Tanaka, Bonnet, Tixeuil and Tamura, 2020, arXiv:2007.15895) solves 5x5 (a
draw) by the same method and analyses the smaller boards. The checks here are that the table
is the fixed point of the rules (every position the best of its moves), that the 3x3 value
equals the one an independent search of the game as played finds, and the 4x4 value this
solve gives: a first-player win in 21 plies. The paper's values for the smaller boards are in
its body, not its English abstract. The abstract of its Japanese version (Game Programming
Workshop 2020, IPSJ, pp. 181-188, "Quixoの強解決") says that 4x4 and 3x3 were analysed the
same way and concrete winning sequences found (so neither is a draw), and a summary of the
paper (Hacker News item 31593726: "draw at optimal play on a 5x5 board, win for first player
on smaller boards") says whose: both agree with 3x3 and 4x4 here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boardgym import BoardgymError, make_agent
from boardgym.cli import main
from boardgym.games.quixo import Quixo
from boardgym.solve import quixo as quixo_solver
from boardgym.solve.quixo import (
    CHECKPOINT,
    DRAW,
    INFO,
    TABLE,
    WIN,
    QuixoTable,
    inconsistencies,
    solve,
    table_folder,
)


@pytest.fixture(scope="module")
def table3() -> QuixoTable:
    return QuixoTable(3, *solve(3, log=lambda text: None))


def test_every_3x3_position_is_the_best_of_its_moves(table3: QuixoTable) -> None:
    assert table3.values.size == 3**9
    assert inconsistencies(table3, sample=3**9) == []


def test_3x3_is_a_first_player_win_in_7_plies_as_the_move_limited_search_finds(table3: QuixoTable) -> None:
    rules = Quixo(size=3, max_moves=None)
    assert table3.value(rules.initial_state()) == (1, 7)
    # The perfect agent's search of the game with a 20-ply limit (another algorithm, the
    # game as played) finds the same win in 7.
    limited = Quixo(size=3, max_moves=20)
    assert make_agent("perfect", limited).value(limited.initial_state()) == 10_000 - 7


def test_a_corrupted_table_is_found(table3: QuixoTable) -> None:
    broken = QuixoTable(3, table3.values.copy(), table3.distance.copy())
    broken.values[100] = DRAW if broken.values[100] != DRAW else WIN
    assert len(inconsistencies(broken, sample=3**9)) >= 1


def test_solve_command_caches_with_a_checksum(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "quixo", "--size", "3", "--root", str(tmp_path)]) == 0
    assert "Quixo 3x3 (no move limit) is a first-player win in 7 plies" in capsys.readouterr().out
    folder = table_folder(3, tmp_path)
    info = json.loads((folder / INFO).read_text())
    assert info["positions"] == 3**9 and info["start"] == "win"
    assert not (folder / CHECKPOINT).exists()
    loaded = QuixoTable.load(3, tmp_path)
    expected = solve(3, log=lambda text: None)
    assert np.array_equal(loaded.values, expected[0]) and np.array_equal(loaded.distance, expected[1])
    # A second run reads the cache; a changed file fails its checksum with one sentence.
    assert main(["solve", "quixo", "--size", "3", "--root", str(tmp_path)]) == 0
    data = bytearray((folder / TABLE).read_bytes())
    data[-10] ^= 0xFF
    (folder / TABLE).write_bytes(bytes(data))
    with pytest.raises(BoardgymError, match="checksum"):
        QuixoTable.load(3, tmp_path)


def test_a_missing_table_says_how_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match=r"run `boardgym solve quixo --size 4` first"):
        QuixoTable.load(4, tmp_path)
    with pytest.raises(BoardgymError, match=r"boardgym solve quixo --size 4"):
        make_agent(f"perfect:root={tmp_path}", Quixo(size=4))


def test_interrupted_solve_resumes_without_losing_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quixo_solver, "_CHECKPOINT_EVERY", 0.0)
    calls = []

    def interrupt_after_a_few(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 8:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve(3, folder=tmp_path, progress=interrupt_after_a_few, log=lambda text: None)
    assert (tmp_path / CHECKPOINT).exists()
    resumed_from = []
    values, distance = solve(3, folder=tmp_path, progress=lambda done, total: resumed_from.append(done), log=print)
    assert resumed_from[0] == calls[-1] > 0  # every pair solved before the interrupt was kept
    expected = solve(3, log=lambda text: None)
    assert np.array_equal(values, expected[0]) and np.array_equal(distance, expected[1])


def test_perfect_plays_quixo_3x3_without_a_short_limit_and_wins() -> None:
    game = Quixo(size=3)  # the default 100-ply limit: beyond the move-limited search
    for seed in range(3):
        agents = {0: make_agent("perfect", game, seed=seed), 1: make_agent("random", game, seed=seed)}
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, agents[game.current_player(state)].act(game, state))
        assert game.returns(state)[0] == 1.0 and state.moves <= 7


@pytest.mark.slow
def test_4x4_is_a_first_player_win_and_consistent_on_100000_positions(tmp_path: Path) -> None:
    """Builds the 4x4 table (minutes) unless the runs root already holds it."""
    root = Path("runs") if (table_folder(4) / TABLE).exists() else tmp_path
    if root == tmp_path:
        assert main(["solve", "quixo", "--size", "4", "--root", str(root)]) == 0
    table = QuixoTable.load(4, root)
    assert table.value(Quixo(size=4).initial_state()) == (1, 21)
    assert inconsistencies(table, sample=100_000, seed=1) == []


@pytest.mark.parametrize("seat", [0, 1])
def test_perfect_never_loses_quixo_4x4_to_mcts(seat: int) -> None:
    """Needs the 4x4 table (`boardgym solve quixo --size 4`); a few games from each seat."""
    if not (table_folder(4) / TABLE).exists():
        pytest.skip("the Quixo 4x4 table is not built: run `boardgym solve quixo --size 4` first")
    game = Quixo(size=4)
    for seed in range(2):
        agents = {
            seat: make_agent("perfect", game, seed=seed),
            1 - seat: make_agent("mcts:simulations=100", game, seed=seed),
        }
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, agents[game.current_player(state)].act(game, state))
        assert game.returns(state)[seat] >= 0
        if seat == 0:
            assert game.returns(state)[0] == 1.0  # a first-player win: perfect as X wins
