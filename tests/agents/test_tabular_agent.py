"""The tabular agent and its checkpoint format."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from boardgym import make_agent, make_game
from boardgym.agents.tabular import FORMAT, TabularAgent, ValueTable, decode_state, encode_state
from boardgym.checkpoints import save_checkpoint
from boardgym.types import BoardgymError


def write_table(path: Path, game, rows: dict) -> Path:
    table = ValueTable(game)
    table.rows.update(rows)
    payload = table.to_payload()
    payload.update(method="qlearning")
    return save_checkpoint(path, payload, format=FORMAT, game=game)


def test_state_encoding_round_trips() -> None:
    game = make_game("quixo", size=3)
    state = game.apply(game.initial_state(), 0)
    flat = encode_state(state)
    assert flat == (*state.stones, state.player, state.moves, state.outcome)  # nested tuples flattened
    assert decode_state(game.initial_state(), flat) == state
    nim = make_game("nim", heaps=(1, 3, 5))  # a state that is one int
    after = nim.apply(nim.initial_state(), 6)
    assert encode_state(after) == (after,) and decode_state(nim.initial_state(), (after,)) == after
    with pytest.raises(BoardgymError, match="another game"):
        decode_state(game.initial_state(), flat[:-1])


def test_checkpoint_loads_with_weights_only_and_plays_the_best_action(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    start = game.initial_state()
    actions = tuple(game.legal_actions(start))
    values = [0.0] * 9
    values[4] = 0.5  # the centre
    path = write_table(tmp_path / "t.pt", game, {start: [actions, values]})
    payload = torch.load(path, weights_only=True)
    assert payload["keys"].shape == (1, 1) and payload["values"].dtype == torch.float64
    agent = make_agent(f"qlearning:checkpoint={path}", game, seed=0)
    assert isinstance(agent, TabularAgent)
    assert all(agent.act(game, start) == 4 for _ in range(5))
    # A state the table never saw: still a legal move, and counted.
    after = game.apply(game.apply(start, 0), 1)
    assert agent.act(game, after) in game.legal_actions(after)
    assert agent.unseen_states == 1


def test_ties_are_broken_by_the_seeded_generator(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    start = game.initial_state()
    path = write_table(tmp_path / "t.pt", game, {start: [tuple(range(9)), [1.0] * 9]})
    picks = [make_agent(f"montecarlo:checkpoint={path}", game, seed=s).act(game, start) for s in range(20)]
    assert len(set(picks)) > 1
    again = [make_agent(f"montecarlo:checkpoint={path}", game, seed=s).act(game, start) for s in range(20)]
    assert picks == again


def test_clear_errors_for_missing_foreign_or_mismatched_checkpoints(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    with pytest.raises(BoardgymError, match="checkpoint=PATH|trained table"):
        TabularAgent(game)
    with pytest.raises(BoardgymError, match="does not exist"):
        make_agent(f"qlearning:checkpoint={tmp_path / 'missing.pt'}", game)
    save_checkpoint(tmp_path / "other.pt", {}, format="something else", game=game)
    with pytest.raises(BoardgymError, match="not a boardgym.tabular/1 checkpoint"):
        make_agent(f"qlearning:checkpoint={tmp_path / 'other.pt'}", game)
    nim = make_game("nim", heaps=(2, 3))
    path = write_table(tmp_path / "nim.pt", nim, {nim.initial_state(): [(0, 1), [0.0, 0.0]]})
    with pytest.raises(BoardgymError, match="same game and parameters"):
        make_agent(f"qlearning:checkpoint={path}", make_game("nim", heaps=(2, 4)))


def test_a_table_of_states_in_an_older_layout_is_refused_by_name(tmp_path: Path) -> None:
    game = make_game("tictactoe")
    start = game.initial_state()
    path = write_table(tmp_path / "t.pt", game, {start: [tuple(range(9)), [0.0] * 9]})
    payload = torch.load(path, weights_only=True)
    # Tic-tac-toe states were five ints (boards, player, outcome, key) before they were one code.
    payload["keys"] = torch.zeros((1, 5), dtype=torch.int64)
    save_checkpoint(path, payload, format=FORMAT, game=game)
    with pytest.raises(BoardgymError, match=r"t\.pt' stores tictactoe states as 5 ints.*train it again"):
        make_agent(f"qlearning:checkpoint={path}", game)
