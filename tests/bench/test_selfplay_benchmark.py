"""``boardgym bench selfplay``: the cost model's arithmetic, and a tiny run printing every part."""

from __future__ import annotations

import pytest

from boardgym.bench.selfplay_speed import CostInputs, actors_one_learner_feeds, main, predict
from boardgym.types import BoardgymError

INPUTS = CostInputs(
    weights_bytes=1_000_000,
    position_bytes=100.0,
    actor_positions_per_s=50.0,
    learner_samples_per_s=40_000.0,
    positions_per_game=10.0,
    replay_ratio=4.0,
    games_per_actor=16,
    gbit_per_s=8.0,
)


def test_the_model_counts_actors_bytes_and_time() -> None:
    one = predict(INPUTS, machines=1, cores=16)
    assert one.actors == 14  # a core per machine for Ray, one more for the learner
    positions = 14 * 16 * 10
    assert one.selfplay_positions_per_s == 14 * 50
    assert one.learner_positions_per_s == 10_000  # 40k samples/s at 4 samples per position
    assert one.bytes_per_iteration == 1_000_000 + positions * 100
    seconds = positions / 700 + positions / 10_000 + one.bytes_per_iteration / 1e9
    assert one.seconds_per_iteration == pytest.approx(seconds)
    assert one.positions_per_s == pytest.approx(positions / seconds)
    many = predict(INPUTS, machines=64, cores=16)
    assert many.actors == 64 * 15 - 1
    assert many.bytes_per_iteration == 64 * 1_000_000 + many.actors * 160 * 100
    assert many.positions_per_s < many.learner_positions_per_s  # the learner bounds the loop
    assert actors_one_learner_feeds(INPUTS) == 200  # 40k / (4 x 50)


def test_a_tiny_run_prints_speeds_bytes_and_the_prediction(capsys) -> None:
    argv = ["--games", "tictactoe", "--sources", "local", "--rounds", "1", "--games-per-round", "2"]
    assert main([*argv, "--simulations", "2", "--train-steps", "1", "--blocks", "1", "--channels", "4"]) == 0
    out = capsys.readouterr().out
    for text in (
        "local --workers 1",
        "weights (pickled state_dict)",
        "a position as float32",
        "samples/s",
        "one learner feeds",
        "one actor (one core)",
        "per CPU-second",
        "| 64 |",
    ):
        assert text in out
    assert "112 bytes (18 plane values, 9 policy, 1 value)" in out  # tic-tac-toe: 2 planes of 3x3, float32


def test_batched_rows_beside_the_per_process_ones(capsys) -> None:
    argv = ["--games", "connect_four", "--sources", "local", "batched", "gumbel", "--rounds", "1"]
    argv += ["--games-per-round", "2", "--simulations", "3", "--gumbel-simulations", "4", "--train-steps", "1"]
    assert main([*argv, "--blocks", "1", "--channels", "4"]) == 0
    out = capsys.readouterr().out
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("  | ")}
    assert "local --workers 1" in rows
    batched = rows["batched --device cpu (3 sims)"].split("|")
    gumbel = rows["batched --gumbel --device cpu (4 sims)"].split("|")
    for row in (batched, gumbel):
        assert float(row[2].replace(",", "")) > 0  # positions/s
        assert float(row[5]) <= 2  # mean batch: at most the games in flight
        assert row[6].strip().endswith("%")  # time in the network
        assert row[7].strip() == "n/a"  # no GPU on the CPU


def test_the_shipped_network_can_play_the_rows(capsys) -> None:
    argv = ["--games", "connect_four", "--pretrained", "--sources", "batched", "--rounds", "1"]
    assert main([*argv, "--games-per-round", "2", "--simulations", "2", "--train-steps", "1"]) == 0
    assert "network 5x64 (shipped)" in capsys.readouterr().out


def test_bad_settings_are_refused() -> None:
    with pytest.raises(BoardgymError, match="--rounds 0 must be at least 1"):
        main(["--rounds", "0"])
    with pytest.raises(BoardgymError, match="--games-per-round 1 must be at least 2"):
        main(["--games-per-round", "1"])
