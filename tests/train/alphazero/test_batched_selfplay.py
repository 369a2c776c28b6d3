"""Self-play on the batched search: its records, and the trainer's ``--search batched`` (the
same run folder, tags and checkpoints, ``--resume``), with ``--gumbel`` too."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from boardgym import make_agent, make_game
from boardgym.agents.alphazero.agent import AlphaZeroAgent
from boardgym.agents.alphazero.network import build_network
from boardgym.agents.batched_search import BatchedMCTS
from boardgym.agents.batched_tactics import DeviceTactics
from boardgym.checkpoints import load_checkpoint
from boardgym.evaluate.match import play_games
from boardgym.train.alphazero import Config, main, resolve_workers, train
from boardgym.train.alphazero.batched_selfplay import DRAW_AHEAD, BatchedSelfPlay, play_batched_games
from boardgym.train.alphazero.selfplay import SelfPlaySettings
from boardgym.types import BoardgymError

pytestmark = pytest.mark.usefixtures("one_torch_thread")

TINY = dict(
    iterations=1,
    games_per_iteration=4,
    parallel_games=3,
    simulations=4,
    blocks=1,
    channels=8,
    value_hidden=8,
    buffer_size=500,
    batch_size=16,
    train_steps=2,
    eval_every=1,
    eval_games=2,
    eval_simulations=2,
    eval_opponents="random",
    device="cpu",
    workers=1,
    search="batched",
)


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("gumbel", [False, True])
def test_batched_selfplay_records_whole_games(gumbel: bool) -> None:
    game = make_game("tictactoe")
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=8).eval()
    settings = SelfPlaySettings(simulations=8, search="batched", gumbel=gumbel)
    played = play_batched_games(game, network, 7, parallel=3, settings=settings, rng=np.random.default_rng(1))
    assert played.games == 7 and len(played.outcomes) == 7
    assert len(played.positions(game)) == played.moves
    assert played.network_calls > 0 and played.mean_batch <= 3
    starts = [state for state, _, _ in played.positions(game) if state == game.initial_state()]
    assert len(starts) == 7
    for state, policy, result in played.positions(game):
        legal = game.legal_mask(state)
        assert policy.sum() == pytest.approx(1.0, abs=1e-5)
        assert not policy[~legal].any()
        assert result in (-1.0, 0.0, 1.0)
    # every game ends with one winner and one loser, or a draw
    outcomes = [sum(o) for o in played.outcomes]
    assert outcomes == [0.0] * 7
    again = play_batched_games(game, network, 7, parallel=3, settings=settings, rng=np.random.default_rng(1))
    assert [r for _, _, r in again.positions(game)] == [r for _, _, r in played.positions(game)]


def test_batched_selfplay_keeps_max_moves_and_random_starts() -> None:
    game = make_game("connect_four")
    network = build_network(game, blocks=1, channels=8).eval()
    settings = SelfPlaySettings(simulations=4, search="batched", max_moves=5, random_start_moves=4)
    played = play_batched_games(game, network, 4, parallel=4, settings=settings, rng=np.random.default_rng(0))
    assert played.games == 4 and played.moves <= 20
    for (start, moves), outcome in zip(played.records, played.outcomes, strict=True):
        state = start
        for action in moves:
            state = game.apply(state, action)
        if game.is_terminal(state):  # won or drawn within the limit
            assert outcome == tuple(game.returns(state))
        else:  # cut at the limit: a draw
            assert len(moves) == 5 and outcome == (0.0, 0.0)


def replayed_games(game: Any, positions: list[tuple[Any, np.ndarray, float]]) -> list[list[Any]]:
    """The records cut into games: each starts at the initial position and every next state is
    one legal move away (a game ends where the next record starts again)."""
    games: list[list[Any]] = []
    for state, _, _ in positions:
        if state == game.initial_state():
            games.append([state])
            continue
        before = games[-1][-1]
        assert any(game.apply(before, action) == state for action in game.legal_actions(before))
        games[-1].append(state)
    return games


def test_continuous_selfplay_keeps_its_games_between_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """keep=True: every call returns whole games once num_games have ended, the batch stays
    full, the games in flight go on in the next call; keep=False with 0 games drains them."""
    searched: list[int] = []  # the games of every search: the batch, and every move made
    search = BatchedMCTS.search
    monkeypatch.setattr(
        BatchedMCTS,
        "search",
        lambda self, roots, *a, **k: searched.append(len(roots.current_player)) or search(self, roots, *a, **k),
    )
    game = make_game("tictactoe")
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=8).eval()
    settings = SelfPlaySettings(simulations=6, search="batched", temperature_moves=9)
    selfplay = BatchedSelfPlay(game)
    rng = np.random.default_rng(3)
    calls = [selfplay.play(network, 5, parallel=4, settings=settings, rng=rng, keep=True) for _ in range(3)]
    assert all(call.games >= 5 for call in calls) and selfplay.in_flight == 4
    assert set(searched) == {4}  # every search of the keep=True calls had a full batch
    calls.append(selfplay.play(network, 0, parallel=4, settings=settings, rng=rng))
    assert selfplay.in_flight == 0 and calls[-1].games == 4
    for call in calls:  # whole games, those begun in an earlier call with their first moves
        games = replayed_games(game, call.positions(game))
        assert len(games) == call.games == len(call.outcomes)
        assert all(5 <= len(moves) <= 9 for moves in games)
        assert sum(len(moves) for moves in games) == len(call.positions(game)) == call.moves
    assert sum(call.moves for call in calls) == sum(searched)  # no move lost between calls
    later = BatchedSelfPlay(game)  # the same seed gives the same games
    rng = np.random.default_rng(3)
    again = later.play(network, 5, parallel=4, settings=settings, rng=rng, keep=True)
    assert [r for _, _, r in again.positions(game)] == [r for _, _, r in calls[0].positions(game)]


def test_a_capturing_search_is_kept_from_call_to_call_its_weights_copied_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where simulations are captured (CUDA) the search and its network's tensors outlive a call,
    the next call's weights copied into them, so the recorded graphs stay valid; the games are
    those a new search plays. Here capture is said to be on, on a CPU."""
    monkeypatch.setattr(DeviceTactics, "capture", property(lambda self: True))
    game = make_game("tictactoe")
    torch.manual_seed(0)
    first, second = (build_network(game, blocks=1, channels=8).eval() for _ in range(2))
    settings = SelfPlaySettings(simulations=6, search="batched")
    selfplay = BatchedSelfPlay(game)
    selfplay.play(first, 2, parallel=2, settings=settings, rng=np.random.default_rng(1))
    kept = selfplay._search
    weights = next(kept.evaluator.network.parameters())  # type: ignore[union-attr]
    played = selfplay.play(second, 2, parallel=2, settings=settings, rng=np.random.default_rng(2))
    assert selfplay._search is kept and next(kept.evaluator.network.parameters()) is weights  # type: ignore[union-attr]
    fresh = BatchedSelfPlay(game).play(second, 2, parallel=2, settings=settings, rng=np.random.default_rng(2))
    assert [r for _, _, r in played.positions(game)] == [r for _, _, r in fresh.positions(game)]
    assert [p.tolist() for _, p, _ in played.positions(game)] == [p.tolist() for _, p, _ in fresh.positions(game)]
    assert played.network_calls == fresh.network_calls  # the kept evaluator's counts start again
    selfplay.play(
        second, 2, parallel=2, settings=dataclasses.replace(settings, simulations=5), rng=np.random.default_rng(2)
    )
    assert selfplay._search is not kept  # other settings: a new search


def test_train_with_batched_search_writes_a_run_and_resumes(in_tmp: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = Config(**{**TINY, "run_name": "batched"})
    path = train(config)
    folder = path.parent
    assert (folder / "checkpoint.pt").is_file() and (folder / "replay-1.pt").is_file()
    events = EventAccumulator(str(folder))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"perf/selfplay_positions_per_s", "perf/network_batch", "eval/win_rate_vs_random"} <= tags
    game = make_game("tictactoe")
    assert play_games(game, make_agent(f"alphazero:checkpoint={path},simulations=4", game, seed=0), "random", 2).games
    second = train(dataclasses.replace(config, iterations=2, resume=True, eval_every=0))
    assert load_checkpoint(second)["step"] == 2


def test_batched_search_in_worker_processes(in_tmp: Path) -> None:
    """--workers auto with --search batched on a CPU is one batched process per core, as the tree
    search's; --workers 2 splits the games over two processes, each a batched search."""
    import json

    one = train(Config(**{**TINY, "workers": "auto", "device": "cpu", "run_name": "auto", "eval_every": 0}))
    assert json.loads((one.parent / "config.json").read_text())["workers_used"] == resolve_workers("auto")
    two = train(Config(**{**TINY, "workers": 2, "run_name": "two", "eval_every": 0}))
    assert json.loads((two.parent / "config.json").read_text())["workers_used"] == 2
    assert load_checkpoint(two)["step"] == 1


def test_command_line_takes_search_and_gumbel(in_tmp: Path) -> None:
    argv = ["--run-name", "cli", "--search", "batched", "--gumbel", "--considered", "4"]
    for key, value in TINY.items():
        if key != "search":
            argv += [f"--{key.replace('_', '-')}", str(value)]
    assert main(argv) == 0
    config = (in_tmp / "runs/tictactoe/alphazero/cli/config.json").read_text()
    assert '"gumbel": true' in config and '"search": "batched"' in config


def test_batched_search_mistakes_are_one_sentence(in_tmp: Path) -> None:
    with pytest.raises(BoardgymError, match="--gumbel"):
        train(Config(**{**TINY, "search": "tree", "gumbel": True}))
    with pytest.raises(BoardgymError, match="batched rules"):
        train(Config(**{**TINY, "game": "setcover"}))
    assert not (in_tmp / "runs").exists()


def test_agent_searches_batched_as_the_tree_does() -> None:
    """With a fixed network, no noise and no reuse, the two searches pick the same moves."""
    game = make_game("connect_four")
    torch.manual_seed(3)
    network = build_network(game, blocks=1, channels=8).eval()
    tree = AlphaZeroAgent(game, network=network, simulations=30, reuse=False, seed=0)
    flat = AlphaZeroAgent(game, network=network, simulations=30, search="batched", seed=0)
    state = game.initial_state()
    for _ in range(6):
        tree.evaluator.clear_cache()
        chosen = tree.act(game, state)
        assert flat.act(game, state) == chosen
        assert flat.last_info["visits"] == tree.last_info["visits"]
        state = game.apply(state, chosen)
    with pytest.raises(BoardgymError, match="search="):
        AlphaZeroAgent(game, network=network, search="fast")


@pytest.mark.slow
@pytest.mark.parametrize("root", ["gumbel", "puct"])
def test_batched_selfplay_plays_tictactoe_perfectly(root: str, in_tmp: Path) -> None:
    """Acceptance: the defaults with --search batched (and --gumbel --simulations 16) lose no
    game against `perfect` in 200 games, 100 from each seat."""
    gumbel = {"gumbel": True, "simulations": 16} if root == "gumbel" else {}
    path = train(Config(run_name="perfect", device="cpu", eval_every=0, search="batched", **gumbel))
    game = make_game("tictactoe")
    agent = AlphaZeroAgent(game, checkpoint=path, seed=0)
    summary = play_games(game, agent, "perfect", 200, seed=1)
    assert summary.losses == 0, str(summary)


@pytest.mark.parametrize(
    ("name", "params"), [("connect_four", {}), ("hex", {"size": 4, "swap": True}), ("quixo", {"size": 3})]
)
@pytest.mark.parametrize(("random_starts", "keep"), [(2, False), (0, False), (0, True)])
def test_rows_are_recorded_on_the_device_and_replay_under_the_scalar_rules(
    name: str, params: dict[str, Any], random_starts: int, keep: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows (planes, policy, legal mask, result) written move by move on the device are what
    the scalar rules say of the positions the records replay to, with no scalar state made during
    play; the trajectories grow past their first length. Games start after random moves (put in
    by self-play) or at the rules' start (restarted by the rules' step), some are cut at the move
    limit, and with ``keep`` games in flight go on from one call to the next."""
    import boardgym.train.alphazero.batched_selfplay as module

    game = make_game(name, **params)
    rules = module.rules_for(game, torch.device("cpu"))

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("self-play read a scalar state of the batch")

    monkeypatch.setattr(type(rules), "to_scalar_states", refused)
    monkeypatch.setattr(module, "_first_length", lambda settings: 2)  # grown at the third move
    monkeypatch.setattr(module, "WRITE_EVERY", 3)  # the moves written into the ring during play too
    draw = module.BatchedSelfPlay._draw
    draws = [0]

    def checked_draw(self: Any, *args: Any) -> torch.Tensor:  # the schedule counts each game's own moves
        np.testing.assert_array_equal(self._first_on_device.numpy(), self._first)
        draws[0] += 1
        return draw(self, *args)

    monkeypatch.setattr(module.BatchedSelfPlay, "_draw", checked_draw)
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=8).eval()
    limit = 30 if random_starts else 7
    settings = SelfPlaySettings(simulations=3, search="batched", max_moves=limit, random_start_moves=random_starts)
    rng = np.random.default_rng(4)
    if keep:
        selfplay = module.BatchedSelfPlay(game)
        calls = [selfplay.play(network, 4, parallel=3, settings=settings, rng=rng, keep=True) for _ in range(3)]
    else:
        calls = [play_batched_games(game, network, 5, parallel=3, settings=settings, rng=rng)]
    cut = 0
    for played in calls:
        assert played.rows is not None and played.games == len(played.records) >= (4 if keep else 5)
        positions = played.positions(game)
        assert len(positions) == played.moves == played.positions_count
        planes, policy, legal, value = (column.numpy() for column in played.rows)
        for index, (state, searched, result) in enumerate(positions):
            np.testing.assert_array_equal(planes[index], game.observation(state, game.current_player(state)))
            np.testing.assert_array_equal(legal[index], game.legal_mask(state))
            assert searched.sum() == pytest.approx(1.0, abs=1e-5) and not searched[~legal[index]].any()
            assert value[index] == result
        first = 0
        for (start, moves), outcome in zip(played.records, played.outcomes, strict=True):
            assert random_starts or start == game.initial_state()
            state = start
            for offset, action in enumerate(moves):
                assert value[first + offset] == outcome[game.current_player(state)]
                state = game.apply(state, action)
            assert game.is_terminal(state) or (len(moves) == limit and outcome == (0.0, 0.0))
            cut += not game.is_terminal(state)
            first += len(moves)
    assert random_starts or cut  # the move limit restarted some games
    assert draws[0]  # the check above ran


def test_a_move_reads_only_which_games_ended_where_the_search_is_sync_free(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the search makes no host read (on CUDA; forced here on the CPU), a move's draw and
    step make none either: the move's one host read is which games ended."""
    import boardgym.train.alphazero.batched_selfplay as module
    from boardgym.batch.graph_safety import assert_no_sync

    game = make_game("connect_four")
    rules = module.rules_for(game, torch.device("cpu"))
    search_for = module.BatchedSelfPlay._search_for

    def sync_free_search(self: Any, *args: Any) -> Any:
        search = search_for(self, *args)
        search.evaluate_all, search.early_exit = True, False  # as on CUDA
        assert search.tactics.sync_free
        return search

    checked = {"draw": 0, "step": 0}
    draw, step_unchecked = module.BatchedSelfPlay._draw, type(rules).step_unchecked

    def checked_draw(self: Any, *args: Any) -> torch.Tensor:
        checked["draw"] += 1
        return assert_no_sync(draw, self, *args)

    def checked_step(self: Any, *args: Any, **kwargs: Any) -> Any:
        checked["step"] += 1
        return assert_no_sync(step_unchecked, self, *args, **kwargs)

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a sync-free move stepped the rules with their looks at the batch")

    monkeypatch.setattr(module.BatchedSelfPlay, "_search_for", sync_free_search)
    monkeypatch.setattr(module.BatchedSelfPlay, "_draw", checked_draw)
    monkeypatch.setattr(type(rules), "step_unchecked", checked_step)
    monkeypatch.setattr(type(rules), "step", refused)
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=8).eval()
    settings = SelfPlaySettings(simulations=2, search="batched", max_moves=9)
    played = module.BatchedSelfPlay(game).play(
        network, 4, parallel=3, settings=settings, rng=np.random.default_rng(0), keep=True
    )
    assert played.games >= 4 and checked["draw"] and checked["step"] > checked["draw"]  # the search's steps too
    for (start, moves), outcome in zip(played.records, played.outcomes, strict=True):
        state = start
        for action in moves:
            state = game.apply(state, action)
        assert game.is_terminal(state) or (len(moves) == 9 and outcome == (0.0, 0.0))


def test_the_moves_uniform_draws_are_drawn_ahead_and_never_used_twice() -> None:
    """A move's draws are a row of a block drawn for DRAW_AHEAD moves; a used-up block or a
    batch of another size draws a new one; the same seed gives the same draws."""

    def draws(seed: int) -> list[torch.Tensor]:
        engine = BatchedSelfPlay(make_game("tictactoe"))
        engine._draws = torch.Generator().manual_seed(seed)
        rows = []
        for width, moves in ((3, DRAW_AHEAD + 5), (2, 4), (4, 2)):
            engine._first, engine._first_on_device = [0] * width, torch.zeros(width, dtype=torch.long)
            for _ in range(moves):
                rows.append(engine._uniform())
                engine._move += 1
        return rows

    rows = draws(0)
    assert [len(row) for row in rows] == [3] * (DRAW_AHEAD + 5) + [2] * 4 + [4] * 2
    values = torch.cat(rows)
    assert values.dtype == torch.float64 and bool(((values >= 0) & (values < 1)).all())
    assert len(set(values.tolist())) == len(values)  # no draw used twice
    assert all(torch.equal(a, b) for a, b in zip(rows, draws(0), strict=True))
    assert not torch.equal(values, torch.cat(draws(1)))
