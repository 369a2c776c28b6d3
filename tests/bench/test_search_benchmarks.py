"""The search benchmarks run end to end on tiny budgets and print their tables."""

from __future__ import annotations

from boardgym.bench import search_speed, search_strength
from boardgym.cli import main


def test_search_speed_prints_every_table(capsys) -> None:
    assert main(["bench", "search", "--seconds", "0.02", "--rounds", "1", "--games", "connect_four"]) == 0
    out = capsys.readouterr().out
    assert "MCTS, random rollouts" in out and "connect_four" in out
    assert "alpha-beta (ours)" in out and "connect_four d6" in out
    assert "minimax:depth=6" in out


def test_our_mcts_rate_is_positive() -> None:
    from boardgym import make_game

    game = make_game("tictactoe")
    assert search_speed.our_mcts_rate(game, 0.01, 0, game_playouts=False) > 0


def test_strength_script_counts_every_game(capsys) -> None:
    assert search_strength.main(["tictactoe", "minimax:exact=true", "random", "--games", "6"]) == 0
    out = capsys.readouterr().out
    assert "6 games" in out and "losses 0" in out
