"""``--solver-targets`` beyond Connect Four: the Hex and Quixo oracles (``game_oracle``) checked
against the solvers, and tiny training runs that take their targets and log ``eval/mistake_rate``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from boardgym.agents.perfect import PerfectAgent
from boardgym.game import Game
from boardgym.games import make_game
from boardgym.games.quixo import QuixoState
from boardgym.solve.hex import HexSolver
from boardgym.solve.quixo import QuixoTable, solve
from boardgym.train.alphazero.config import Config
from boardgym.train.alphazero.loop import train
from boardgym.train.alphazero.solved import SolverTargets, game_oracle
from boardgym.types import BoardgymError

pytestmark = pytest.mark.usefixtures("one_torch_thread")

TINY: dict[str, Any] = dict(
    iterations=1,
    games_per_iteration=4,
    parallel_games=4,
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
    solver_limit=20.0,
)


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # runs/ goes under tmp_path
    return tmp_path


def random_positions(game: Game, count: int, seed: int) -> list[Any]:
    """``count`` unfinished positions of random play, a few plies each."""
    rng = random.Random(seed)
    states: list[Any] = []
    while len(states) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(1, 7)):
            if game.is_terminal(state):
                break
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        if not game.is_terminal(state):
            states.append(state)
    return states


def test_hex_oracle_agrees_with_exhaustive_search_and_with_the_solver() -> None:
    small = make_game("hex", size=3)
    oracle, perfect = game_oracle(small, limit=10.0), PerfectAgent(small)
    assert oracle is not None
    for state in random_positions(small, 12, seed=1):  # 3x3: the perfect agent's exhaustive search
        assert oracle(state) == {a: int(np.sign(v)) for a, v in perfect.action_values(state).items()}
    game = make_game("hex", size=4)
    oracle, solver = game_oracle(game, limit=10.0), HexSolver(4)
    assert oracle is not None
    for state in random_positions(game, 6, seed=2):
        assert oracle(state) == solver.move_values(state)


def test_quixo_oracle_agrees_with_the_retrograde_table() -> None:
    game = make_game("quixo", size=3)  # the default move limit: the table, not the search
    oracle, table = game_oracle(game, limit=10.0), QuixoTable(3, *solve(3, log=lambda text: None))
    assert oracle is not None
    for state in random_positions(game, 12, seed=3):
        values = oracle(state)
        assert values == {a: v for a, (v, _) in table.move_values(state).items()}
        assert max(values.values()) == table.value(state)[0]


def test_hex_oracle_gives_up_past_its_limit() -> None:
    oracle = game_oracle(make_game("hex", size=5), limit=1e-6)
    assert oracle is not None
    assert oracle(make_game("hex", size=5).initial_state()) is None  # the empty 5x5 board takes minutes


@pytest.mark.parametrize(
    ("game", "named"),
    [(make_game("hex", size=7), "hex 7x7"), (make_game("quixo"), "quixo 5x5"), (make_game("tictactoe"), "tictactoe")],
)
def test_games_and_sizes_without_an_oracle_are_named(game: Game, named: str) -> None:
    with pytest.raises(BoardgymError, match=f"hex up to 5x5 and quixo 3x3 and 4x4, not {named}: drop the option"):
        SolverTargets(game, min_ply=1, limit=1.0)
    with pytest.raises(BoardgymError, match="--solved-positions needs an exact solver; boardgym has one for connect"):
        SolverTargets(make_game("hex", size=3), min_ply=1, limit=1.0, option="--solved-positions")


def test_quixo_4x4_without_its_table_says_how_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(BoardgymError, match="run `boardgym solve quixo --size 4` first"):
        SolverTargets(make_game("quixo", size=4), min_ply=1, limit=1.0, root=str(tmp_path))


def _scalars(folder: Path) -> dict[str, float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder))
    events.Reload()
    return {tag: events.Scalars(tag)[-1].value for tag in events.Tags()["scalars"]}


def test_hex_training_takes_the_solver_values_and_logs_its_mistake_rate(in_tmp: Path) -> None:
    path = train(Config(**TINY, game="hex", game_params={"size": 3}, run_name="exact", solver_targets=1))
    scalars = _scalars(path.parent)
    assert "eval/mistake_rate" in scalars
    assert scalars["solver/selfplay_solved"] == scalars["solver/selfplay_eligible"] > 0
    replay = torch.load(path.parent / "replay-1.pt", weights_only=True)
    solver, checked = HexSolver(3), 0
    bits = solver.rules.cell_bits
    for planes, value in zip(replay["planes"].float().numpy(), replay["value"].numpy(), strict=True):
        mine, theirs = (sum(bits[a] for a in np.flatnonzero(plane.ravel())) for plane in planes[:2])
        if mine | theirs:  # the empty board has no stone: below --solver-targets 1, its self-play result stays
            player = 0 if planes[2].any() else 1
            black, white = (mine, theirs) if player == 0 else (theirs, mine)
            assert value == (1 if solver.mover_wins(black, white, player) else -1)
            checked += 1
    assert checked


def test_quixo_training_takes_the_table_values(in_tmp: Path) -> None:
    path = train(Config(**TINY, game="quixo", game_params={"size": 3}, run_name="exact", solver_targets=1))
    scalars = _scalars(path.parent)
    assert scalars["solver/selfplay_solved"] == scalars["solver/selfplay_eligible"] > 0
    table = QuixoTable(3, *solve(3, log=lambda text: None))
    replay = torch.load(path.parent / "replay-1.pt", weights_only=True)
    checked = 0
    for planes, value in zip(replay["planes"].float().numpy(), replay["value"].numpy(), strict=True):
        mine, theirs = (sum(1 << int(i) for i in np.flatnonzero(plane.ravel())) for plane in planes)
        if mine | theirs:  # seen from the mover: player 0's cubes are the mover's
            assert value == table.value(QuixoState((mine, theirs), player=0, moves=0, outcome=-1))[0]
            checked += 1
    assert checked


def test_quixo_with_a_move_limit_logs_its_mistake_rate(in_tmp: Path) -> None:
    params = {"size": 3, "max_moves": 20}  # the grading set's game: values from the search with the limit
    path = train(Config(**TINY, game="quixo", game_params=params, run_name="exact", solver_targets=1))
    scalars = _scalars(path.parent)
    assert "eval/mistake_rate" in scalars
    assert scalars["solver/selfplay_solved"] == scalars["solver/selfplay_eligible"] > 0


def test_replay_rows_are_relabelled_only_for_connect_four(in_tmp: Path) -> None:
    first = train(Config(**TINY, game="hex", game_params={"size": 3}, run_name="first"))
    with pytest.raises(BoardgymError, match="relabels --replay rows only for connect_four, not hex"):
        train(
            Config(
                **TINY,
                game="hex",
                game_params={"size": 3},
                run_name="second",
                replay=str(first.parent / "replay-1.pt"),
                solver_targets=1,
            )
        )
    assert not (in_tmp / "runs/hex/alphazero/second").exists()
