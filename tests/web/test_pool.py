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


def test_waiting_moves_are_served_address_by_address() -> None:
    """One worker; address x's clients x1, x2, x3 each ask for a move (fresh cookies, so fresh
    clients), then y's only client: y's move comes second, not after all of x's, and a move
    past x's share of waiting moves is refused whatever client asks."""
    tictactoe = make_game("tictactoe")
    start = tictactoe.initial_state()

    async def scenario() -> tuple[list[str], str]:
        pool = AgentPool(workers=1, move_seconds=60.0, address_waiting=2)
        await pool.start()
        try:
            await pool.act("warm", "tictactoe", {}, "random", 0, start)  # the worker has started
            done: list[str] = []

            async def move(name: str) -> None:
                await pool.act(name, "tictactoe", {}, "mcts:simulations=300", 0, start, client=name, address=name[0])
                done.append(name)

            tasks = [asyncio.create_task(move(name)) for name in ("x1", "x2", "x3", "y1")]
            await asyncio.sleep(0)  # all four are queued, x1 on the worker
            with pytest.raises(BoardgymError) as refused:
                await pool.act("x4", "tictactoe", {}, "random", 0, start, client="x4", address="x")
            await asyncio.gather(*tasks)
            return done, str(refused.value)
        finally:
            pool.close()

    with ThreadPoolExecutor(1) as thread:
        done, refusal = thread.submit(asyncio.run, scenario()).result()
    assert done == ["x1", "y1", "x2", "x3"], done
    assert "your network address already has 3 agent moves thinking or waiting" in refusal, refusal


def test_one_address_leaves_a_worker_to_the_others() -> None:
    pool = AgentPool(workers=4)
    assert pool.address_running == 3
    assert AgentPool(workers=1).address_running == 1
    with pytest.raises(BoardgymError, match="address_running=0"):
        AgentPool(workers=2, address_running=0)
