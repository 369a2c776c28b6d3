"""The agent pool on its own: moves in worker processes, errors as one sentence, the cap."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from boardgym import make_game
from boardgym.types import BoardgymError
from boardgym.web.pool import AgentPool, AgentTimeout, spec_label


def test_spec_labels_hide_checkpoint_paths() -> None:
    assert spec_label("alphazero:checkpoint=/home/me/run/final.pt,simulations=40") == "alphazero:simulations=40"
    assert spec_label("qlearning:checkpoint=/x.pt") == "qlearning"
    assert spec_label("mcts:simulations=5") == "mcts:simulations=5"


def test_moves_errors_and_the_cap() -> None:
    game = make_game("tictactoe")

    async def scenario() -> None:
        pool = AgentPool(workers=1, move_seconds=1.0)
        await pool.start()
        try:
            move = await pool.act("s:1", "tictactoe", {}, "mcts:simulations=30", 0, game.initial_state())
            assert move.action in range(9) and move.seconds >= 0 and sum(move.info["visits"].values()) == 30
            with pytest.raises(BoardgymError, match="unknown agent 'god'"):
                await pool.act("s:2", "tictactoe", {}, "god", 0, None)
            with pytest.raises(AgentTimeout, match="did not move within the 1 s cap"):
                await pool.act(
                    "s:3",
                    "connect_four",
                    {},
                    "mcts:simulations=100000000",
                    0,
                    make_game("connect_four").initial_state(),
                )
            again = await pool.act("s:1", "tictactoe", {}, "random", 0, game.initial_state())  # a new worker
            assert again.action in range(9)
            pool.forget("s:1")
        finally:
            pool.close()

    # In a thread of its own: the browser tests' playwright keeps an event loop in this one.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, scenario()).result()


def test_bad_pool_settings_are_refused() -> None:
    with pytest.raises(BoardgymError, match="workers=0"):
        AgentPool(workers=0)
    with pytest.raises(BoardgymError, match="move_seconds=-1"):
        AgentPool(move_seconds=-1)
