"""The pgx + mctx peer of the batched self-play: it plays where jax, pgx and mctx are installed,
and its rows step aside, saying why, where they are not."""

from __future__ import annotations

import pytest

from boardgym.bench import mctx_selfplay
from boardgym.bench.selfplay_speed import main

pytest.importorskip("mctx", reason="mctx is in the bench extra: pip install 'boardgym[bench]'")
pytest.importorskip("pgx", reason="pgx is in the bench extra: pip install 'boardgym[bench]'")


def test_the_peer_plays_moves_of_every_game_in_flight() -> None:
    peer = mctx_selfplay.MctxSelfPlay(
        "tictactoe", batch=3, simulations=4, gumbel=False, blocks=1, channels=4, value_hidden=4
    )
    played = peer.play(moves=2)
    assert played.positions == 6 and played.simulations == 8 and played.seconds > 0
    with pytest.raises(ValueError, match="pgx has no quixo"):
        mctx_selfplay.MctxSelfPlay("quixo", batch=1, simulations=1, gumbel=False, blocks=1, channels=1)


@pytest.mark.slow
def test_the_bench_prints_both_peer_rows_beside_ours(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--games", "tictactoe", "--sources", "batched", "mctx", "mctx_gumbel", "--rounds", "1"]
    argv += ["--games-per-round", "2", "--simulations", "3", "--gumbel-simulations", "4", "--train-steps", "1"]
    assert main([*argv, "--blocks", "1", "--channels", "4"]) == 0
    out = capsys.readouterr().out
    rows = {line.split("|")[1].strip(): line.split("|") for line in out.splitlines() if line.startswith("  | ")}
    for label in (
        "pgx + mctx muzero_policy --device cpu (3 sims)",
        "pgx + mctx gumbel_muzero_policy --device cpu (4 sims)",
    ):
        assert float(rows[label][2].replace(",", "")) > 0  # positions/s
        assert float(rows[label][5]) == 2  # mean batch: the games in flight


def test_the_peer_rows_step_aside_where_they_cannot_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mctx_selfplay, "missing", lambda: "mctx is not installed (pip install 'boardgym[bench]')")
    argv = ["--games", "tictactoe", "--sources", "batched", "mctx", "--rounds", "1", "--games-per-round", "2"]
    assert main([*argv, "--simulations", "2", "--train-steps", "1", "--blocks", "1", "--channels", "4"]) == 0
    out = capsys.readouterr().out
    assert "(no pgx + mctx rows: mctx is not installed" in out and "muzero_policy" not in out
