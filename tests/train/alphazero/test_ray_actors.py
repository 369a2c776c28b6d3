"""Self-play in Ray actors: the same games as the process pool's split and seeds, an actor
lost mid-iteration asked again (nothing lost, nothing twice), a dead actor replaced, and the
GPU share that makes an actor pick CUDA (exercised here with a GPU that Ray is only told of)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch

from boardgym import make_game
from boardgym.agents.alphazero.network import build_network
from boardgym.train.alphazero.ray_actors import RaySelfPlayPool, SelfPlayActor
from boardgym.train.alphazero.selfplay import SelfPlayResult, SelfPlaySettings
from boardgym.train.alphazero.workers import merge_results, play_share, split_games
from boardgym.types import BoardgymError

SETTINGS = SelfPlaySettings(simulations=4, random_opening_moves=1)
GAME = make_game("tictactoe")


def first_to_mark(marker: str) -> bool:
    """Create ``marker``; True for the one caller that created it (race-free across processes)."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


@pytest.fixture(scope="module")
def network():
    torch.manual_seed(0)
    return build_network(GAME, blocks=1, channels=8, value_hidden=8).eval()


class DiesWhenArmed(SelfPlayActor):
    """Ends its own process in the middle of a ``play`` once ``folder/armed`` exists: the first
    actor to get there, once (it leaves ``folder/died``)."""

    folder = ""

    def play(self, *args: Any, **kwargs: Any) -> SelfPlayResult:
        if os.path.exists(os.path.join(self.folder, "armed")) and first_to_mark(os.path.join(self.folder, "died")):
            os._exit(1)
        return super().play(*args, **kwargs)


@pytest.fixture(scope="module")
def pool(ray_with_a_gpu, tmp_path_factory) -> Iterator[RaySelfPlayPool]:
    """Two CPU actors for the module (starting actors is what takes time)."""
    folder = tmp_path_factory.mktemp("actors")
    actor = type("DiesWhenArmedHere", (DiesWhenArmed,), {"folder": str(folder)})
    pool = RaySelfPlayPool(2, GAME, device="cpu", amp=False, actor_class=actor)
    pool.folder = folder  # type: ignore[attr-defined]
    yield pool
    pool.close()


def expected(network, games: int, actors: int, seed: tuple[int, ...]) -> SelfPlayResult:
    """What the actors must send: each share played here with the same seed words."""
    weights = network.state_dict()
    return merge_results(
        [
            play_share(GAME, network.architecture(), weights, "cpu", False, share, max(1, share), SETTINGS, [*seed, w])
            for w, share in enumerate(split_games(games, actors))
            if share
        ]
    )


def same_positions(a: SelfPlayResult, b: SelfPlayResult) -> bool:
    return (
        a.games == b.games
        and a.outcomes == b.outcomes
        and a.records == b.records
        and len(a.positions(GAME)) == len(b.positions(GAME))
        and all(
            sa == sb and np.array_equal(pa, pb) and va == vb
            for (sa, pa, va), (sb, pb, vb) in zip(a.positions(GAME), b.positions(GAME), strict=True)
        )
    )


def test_actors_play_the_games_the_split_and_seeds_say(pool, network) -> None:
    before = pool.reasked
    played = pool.play_seeded(network, 5, parallel=4, settings=SETTINGS, seed=(3, 1))
    assert played.games == 5 and played.seconds > 0
    assert same_positions(played, expected(network, 5, 2, (3, 1)))
    assert pool.reasked == before
    assert pool.gpu_share == 0.0 and [w["device"] for w in pool.where()] == ["cpu", "cpu"]


def test_an_actor_lost_mid_iteration_is_asked_again(pool, network, capsys) -> None:
    before, said = pool.reasked, bool(pool._said)
    (pool.folder / "armed").touch()
    try:
        played = pool.play_seeded(network, 4, parallel=2, settings=SETTINGS, seed=(5, 2))
    finally:
        (pool.folder / "armed").unlink()
    assert (pool.folder / "died").exists()
    assert pool.reasked > before
    assert same_positions(played, expected(network, 4, 2, (5, 2)))  # nothing lost, nothing twice
    assert capsys.readouterr().err.count("died mid-iteration") == (0 if said else 1)  # said, once
    again = pool.play_seeded(network, 4, parallel=2, settings=SETTINGS, seed=(5, 3))  # the restarted actor goes on
    assert same_positions(again, expected(network, 4, 2, (5, 3)))


def test_an_actor_killed_for_good_is_replaced(pool, network, ray_with_a_gpu, capsys) -> None:
    before, said = pool.reasked, bool(pool._said)
    lost = pool.actors[1]
    ray_with_a_gpu.kill(lost, no_restart=True)
    played = pool.play_seeded(network, 4, parallel=2, settings=SETTINGS, seed=(1, 1))
    assert pool.reasked > before and pool.actors[1] is not lost
    assert capsys.readouterr().err.count("died mid-iteration") == (0 if said else 1)  # once in the pool's life
    assert same_positions(played, expected(network, 4, 2, (1, 1)))


def test_actors_take_a_gpu_share_where_the_cluster_has_gpus(ray_with_a_gpu) -> None:
    with RaySelfPlayPool(1, GAME, device="auto") as gpu_pool:
        assert gpu_pool.gpu_share == 1.0
        where = gpu_pool.where()[0]
        assert where["cuda_visible"] == "0"  # Ray handed the actor the GPU
        assert where["device"] == ("cuda" if torch.cuda.is_available() else "cpu")


def test_more_actors_than_cpus_is_refused(ray_with_a_gpu) -> None:
    with pytest.raises(BoardgymError, match="--actors 4 needs 4 CPUs, but the Ray cluster has 3"):
        RaySelfPlayPool(4, GAME, device="cpu")
    with pytest.raises(BoardgymError, match="--actors 0 must be at least 1"):
        RaySelfPlayPool(0, GAME, device="cpu")


def test_actors_that_find_no_free_cpu_are_an_error_not_a_wait(pool, ray_with_a_gpu) -> None:
    with pytest.raises(
        BoardgymError, match="of 2 self-play actors did not start within 0.5 s; the Ray cluster has . CPUs free"
    ):
        RaySelfPlayPool(2, GAME, device="cpu", start_timeout=0.5)  # the module's pool holds two of the three
