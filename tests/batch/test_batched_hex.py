"""Hex's batched rules (``boardgym.batch.hex``) on positions of their own, against the scalar
rules: wins through long winding chains (the union-find's deep trees), the swap, finished
games, every size, trees built by ``from_scalar_states`` played on, and random actions that
are legal and uniform."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from boardgym.batch.hex import BatchedHex, HexBatch
from boardgym.games.hex import Hex, HexState


def agree(rules: BatchedHex, state: HexBatch, scalars: list[HexState]) -> None:
    """The batch holds these scalar states: stones, player, outcome, legal moves (mask and
    ``is_legal``), observation planes from both seats."""
    game = rules.game
    assert rules.to_scalar_states(state) == scalars
    mask = rules.legal_mask(state).numpy()
    over = state.terminated.tolist()
    for i, scalar in enumerate(scalars):
        assert over[i] == game.is_terminal(scalar)
        np.testing.assert_array_equal(mask[i], game.legal_mask(scalar))
    for action in range(game.num_actions):
        legal = rules.is_legal(state, torch.full((len(scalars),), action)).numpy()
        live = ~np.array(over)
        np.testing.assert_array_equal(legal[live], mask[live, action])
    for player in (0, 1):
        planes = rules.observation(state, player).numpy()
        for i, scalar in enumerate(scalars):
            np.testing.assert_array_equal(planes[i], game.observation(scalar, player))


def snake(n: int, transpose: bool = False) -> list[int]:
    """The cells of a winding chain from one of Black's edges to the other (White's with
    ``transpose``): full rows 0, 4, 8... joined by three-cell links at alternate ends."""
    full = list(range(0, n, 4))
    cells = {(x, y) for y in full for x in range(n)}
    for i, y in enumerate(full):
        end = n - 1 if i % 2 == 0 else 0
        for link in range(y + 1, min(y + 4, n)):
            cells.add((end, link))
    if transpose:
        cells = {(y, x) for x, y in cells}
    return sorted(y * n + x for x, y in cells)


@pytest.mark.parametrize("size", [7, 11, 19])
@pytest.mark.parametrize("winner", [0, 1])
def test_a_win_through_a_long_winding_chain(size: int, winner: int) -> None:
    """The winner lays a winding chain edge to edge in a random order, the other fills the
    cells beside it (never a chain of its own edge to edge); the chain's last stone, one all
    ways through it take, wins, not one before, in every game of the batch."""
    game = Hex(size)
    rules = BatchedHex(game)
    batch = 4
    path = snake(size, transpose=winner == 1)
    rest = [a for a in range(size * size) if a not in path]
    rng = random.Random(size * 2 + winner)
    orders = []
    # The middle of row 4 (column 4 for White) is on every way through the chain: laid last.
    critical = 4 * size + size // 2 if winner == 0 else (size // 2) * size + 4
    for _ in range(batch):
        chain = rng.sample([a for a in path if a != critical], len(path) - 1) + [critical]
        filler = rng.sample(rest, len(rest))
        moves = []
        if winner == 1:  # Black moves first: a stone beside the chain
            moves.append(filler.pop())
        for k, cell in enumerate(chain):
            moves.append(cell)
            if k < len(chain) - 1:
                moves.append(filler.pop())
        orders.append(moves)
    state = rules.init(batch)
    scalars = [game.initial_state()] * batch
    for t in range(len(orders[0])):
        actions = [moves[t] for moves in orders]
        state = rules.step(state, torch.tensor(actions))
        scalars = [game.apply(s, a) for s, a in zip(scalars, actions, strict=True)]
        last = t == len(orders[0]) - 1
        assert state.terminated.tolist() == [last] * batch
        if t % 10 == 0 or t >= len(orders[0]) - 2:
            agree(rules, state, scalars)
        else:
            assert rules.to_scalar_states(state) == scalars
    expected = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
    assert state.rewards.tolist() == [expected] * batch
    assert state.ended.all()


@pytest.mark.parametrize("size", [3, 5, 11])
def test_the_swap(size: int) -> None:
    """White's swap puts a White stone on the mirror of Black's (the same cell on the
    diagonal) and Black moves again; the swap is legal only there; played later it is illegal
    (the game ends, -1 for the player who chose it)."""
    game = Hex(size, swap=True)
    rules = BatchedHex(game)
    swap = size * size
    firsts = [1, size, 0, size * size - 1, size + 2]  # b1, a2, a1 and the far corner (on the diagonal), c2
    batch = len(firsts)
    state = rules.init(batch)
    scalars = [game.initial_state()] * batch
    assert not rules.legal_mask(state)[:, swap].any()
    state = rules.step(state, torch.tensor(firsts))
    scalars = [game.apply(s, a) for s, a in zip(scalars, firsts, strict=True)]
    agree(rules, state, scalars)
    assert rules.legal_mask(state)[:, swap].all()
    state = rules.step(state, torch.full((batch,), swap))
    scalars = [game.apply(s, swap) for s in scalars]
    agree(rules, state, scalars)
    assert state.current_player.tolist() == [0] * batch
    colours = rules.colours(state)
    for i, first in enumerate(firsts):
        y, x = divmod(first, size)
        assert colours[i, x * size + y] == 1 and (colours[i] != 3).sum() == 1  # White's one stone, mirrored
    assert rules.to_scalar_states(rules.from_scalar_states(scalars)) == scalars
    # Black plays on (the centre: empty in every game); then White's swap is illegal.
    state = rules.step(state, torch.full((batch,), 4))
    scalars = [game.apply(s, 4) for s in scalars]
    agree(rules, state, scalars)
    assert not rules.legal_mask(state)[:, swap].any()
    state = rules.step(state, torch.full((batch,), swap))
    assert state.terminated.all() and state.rewards.tolist() == [[0.0, -1.0]] * batch
    assert rules.to_scalar_states(state) == scalars


def test_a_finished_game_stays_finished() -> None:
    """Once a game is over its mask is empty, a step leaves it as it is (rewards 0, not ended
    again), random actions for it are harmless; with auto-reset it starts again."""
    game = Hex(3)
    rules = BatchedHex(game)
    state = rules.init(2)
    for action in (0, 1, 3, 2, 6):  # Black a1, a2, a3 down the first column: wins at a3
        state = rules.step(state, torch.tensor([action, action]))
    assert state.terminated.all() and state.rewards.tolist() == [[1.0, -1.0]] * 2
    assert not rules.legal_mask(state).any()
    before = rules.to_scalar_states(state)
    again = rules.step(state, rules.random_actions(state))
    assert rules.to_scalar_states(again) == before
    assert not again.ended.any() and not again.rewards.any()
    fresh = rules.step(state, torch.tensor([4, 4]), auto_reset=True)
    assert rules.to_scalar_states(fresh) == before  # finished before this step: not reset now
    state = rules.init(2)
    for action in (0, 1, 3, 2):
        state = rules.step(state, torch.tensor([action, action]))
    state = rules.step(state, torch.tensor([6, 4]), auto_reset=True)  # the first game ends, the second goes on
    assert state.ended.tolist() == [True, False]
    assert rules.to_scalar_states(state)[0] == game.initial_state()
    assert state.rewards.tolist() == [[1.0, -1.0], [0.0, 0.0]]
    assert state.steps.tolist() == [0, 5]


def test_a_step_never_changes_the_state_it_is_given() -> None:
    rules = BatchedHex(Hex(5))
    generator = torch.Generator().manual_seed(0)
    state = rules.init(64, generator)
    for _ in range(40):
        kept = [field.clone() for field in state]
        after = rules.step(state, rules.random_actions(state, generator), auto_reset=True)
        for field, copy in zip(state, kept, strict=True):
            assert torch.equal(field, copy)
        state = after


@pytest.mark.parametrize("size", range(3, 20))
@pytest.mark.parametrize("swap", [False, True])
def test_every_size_plays_as_the_scalar_rules(size: int, swap: bool) -> None:
    """Random games (a few illegal actions among them) to their end on both rules."""
    game = Hex(size, swap)
    rules = BatchedHex(game)
    generator = torch.Generator().manual_seed(size)
    rng = np.random.default_rng(size)
    batch = 6
    state = rules.init(batch, generator)
    scalars = [game.initial_state()] * batch
    done = [False] * batch
    for t in range(size * size + 2):
        actions = rules.random_actions(state, generator)
        wild = torch.as_tensor(rng.random(batch) < 0.01)
        actions = torch.where(wild, torch.as_tensor(rng.integers(0, game.num_actions, batch)), actions)
        state = rules.step(state, actions)
        for i, action in enumerate(actions.tolist()):
            if not done[i]:
                if action in game.legal_actions(scalars[i]):
                    scalars[i] = game.apply(scalars[i], action)
                    done[i] = game.is_terminal(scalars[i])
                else:
                    done[i] = True
                    assert state.rewards[i, game.current_player(scalars[i])] == -1.0
        assert (state.terminated.tolist()) == done
        if t % 7 == 0 or all(done):
            assert rules.to_scalar_states(state) == scalars
        if all(done):
            break
    assert all(done)


@pytest.mark.parametrize(("size", "swap"), [(4, True), (7, False), (11, False), (19, True)])
def test_positions_from_the_scalar_rules_play_on(size: int, swap: bool) -> None:
    """Mid-game positions (swap pending among them) converted to a batch, then played to the
    end on both rules: the trees ``from_scalar_states`` builds hold their chains."""
    game = Hex(size, swap)
    rules = BatchedHex(game)
    rng = random.Random(size)
    scalars = []
    for length in [0, 1, 2, 3, *range(5, size * size, max(1, size * size // 12))]:
        scalar = game.initial_state()
        for _ in range(length):
            if game.is_terminal(scalar):
                break
            scalar = game.apply(scalar, rng.choice(game.legal_actions(scalar)))
        scalars.append(scalar)
    state = rules.from_scalar_states(scalars)
    agree(rules, state, scalars)
    generator = torch.Generator().manual_seed(size)
    while not all(game.is_terminal(s) for s in scalars):
        actions = rules.random_actions(state, generator)
        state = rules.step(state, actions)
        scalars = [
            s if game.is_terminal(s) else game.apply(s, a) for s, a in zip(scalars, actions.tolist(), strict=True)
        ]
        assert rules.to_scalar_states(state) == scalars
    agree(rules, state, scalars)


@pytest.mark.parametrize(("size", "swap", "stones"), [(5, False, 6), (11, False, 112), (5, True, 1), (19, False, 300)])
def test_random_actions_are_legal_and_uniform(size: int, swap: bool, stones: int) -> None:
    """Many copies of one position: every random action is legal, and each legal one comes up
    about equally often (the tries, and near a full board the mask's draw)."""
    game = Hex(size, swap)
    rules = BatchedHex(game)
    rng = random.Random(stones)
    scalar = game.initial_state()
    while (size * size - len(game.legal_actions(scalar)) + (1 if swap and game.legal_mask(scalar)[-1] else 0)) < stones:
        legal = [a for a in game.legal_actions(scalar) if a != game.swap_action]
        after = game.apply(scalar, rng.choice(legal))
        if not game.is_terminal(after):
            scalar = after
    batch = 40_000
    one = rules.from_scalar_states([scalar])
    state = type(one)(*(field.expand(batch, *field.shape[1:]).clone() for field in one))
    actions = rules.random_actions(state, torch.Generator().manual_seed(1)).numpy()
    legal = game.legal_actions(scalar)
    assert set(actions.tolist()) <= set(legal)
    counts = np.bincount(actions, minlength=game.num_actions)[legal]
    expected = batch / len(legal)
    assert np.abs(counts - expected).max() < 5 * np.sqrt(expected)


def test_a_batch_made_after_a_swap_counts_the_swap_as_a_move() -> None:
    game = Hex(size=5, swap=True)
    rules = BatchedHex(game)
    played = rules.step(rules.init(1), torch.tensor([3]))
    played = rules.step(played, torch.tensor([game.num_actions - 1]))  # the swap
    (scalar,) = rules.to_scalar_states(played)
    made = rules.from_scalar_states([scalar, game.apply(scalar, 0)])
    assert played.steps.tolist() == [2] and made.steps.tolist() == [2, 3]
    assert made.current_player.tolist() == [0, 1]


def test_restart_leaves_the_state_it_was_given_as_it_was() -> None:
    rules = BatchedHex(Hex(size=5))
    state = rules.step(rules.init(3), torch.tensor([0, 1, 2]))
    board = state.board.clone()
    rules.restart(state, torch.tensor([True, False, True]))
    assert torch.equal(state.board, board)
