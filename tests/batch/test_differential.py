"""The batched rules against the scalar rules, move for move: every game with batched rules, at
several parameter variants, plays random games (with illegal and out-of-range actions mixed in)
on both, and after every step the legal masks, players to move, terminal flags, rewards, moves
played, observation planes (from both seats) and the states themselves (converted) agree; with
auto-reset too, and with ``where`` leaving some games out of some steps. The default run plays a few thousand positions per variant; ``-m slow`` a
million per game (and on CUDA too where a GPU is present)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

from boardgym.batch import batched
from boardgym.game import Game
from boardgym.games import GAMES, make_game

VARIANTS: dict[str, list[dict[str, Any]]] = {
    "tictactoe": [{}],
    "connect_four": [{}],
    "nim": [
        {},
        {"heaps": (1, 2, 3), "misere": True},
        {"heaps": (4, 5), "k": 2},
        {"heaps": 7},  # one heap
        {"heaps": (1000,), "misere": True},  # the largest heap: 1,000 actions
        {"heaps": (20, 30, 40, 50), "k": 6},  # large heaps, a max-take: too many positions to tabulate
        {"heaps": (1,) * 64, "misere": True},  # the most heaps: a key beyond 64 bits
    ],
    "hex": [{"size": 3}, {"size": 5, "swap": True}, {"size": 11}, {"size": 19, "swap": True}],
    "quixo": [{"size": 3, "max_moves": 12}, {"size": 4}, {}],
    "quarto": [{}],
    "rastros": [{}],
}
"""Parameter variants of each game; a game with batched rules but no line here plays at its
defaults."""


def label(params: dict[str, Any]) -> str:
    """The test id's words for ``params``: their repr, a long run of one value as ``(v,)*n``."""

    def short(value: Any) -> str:
        if isinstance(value, tuple) and len(value) > 8 and len(set(value)) == 1:
            return f"({value[0]!r},)*{len(value)}"
        return repr(value)

    return "{" + ", ".join(f"{key!r}: {short(value)}" for key, value in params.items()) + "}" if params else ""


CASES = [
    pytest.param(name, params, id=f"{name}{label(params)}")
    for name, entry in GAMES.items()
    if entry.batched
    for params in VARIANTS.get(name, [{}])
]
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


class Reference:
    """The scalar rules stepped as ``BatchedGame.step`` promises: an illegal action ends the
    game with -1 for its player; a finished game stays as it is."""

    def __init__(self, game: Game, batch: int) -> None:
        self.game = game
        self.states = [game.initial_state()] * batch
        self.done = [False] * batch
        self.illegal = [False] * batch
        self.rewards = np.zeros((batch, 2), dtype=np.float32)
        self.ended = [False] * batch
        self.steps = [0] * batch

    def step(self, actions: list[int], auto_reset: bool = False, where: list[bool] | None = None) -> None:
        game = self.game
        self.rewards[:] = 0
        self.ended = [False] * len(actions)
        for i, action in enumerate(actions):
            if self.done[i] or (where is not None and not where[i]):
                continue
            state = self.states[i]
            if 0 <= action < game.num_actions and action in game.legal_actions(state):
                state = game.apply(state, action)
                self.states[i] = state
                self.steps[i] += 1
                if game.is_terminal(state):
                    self.done[i] = self.ended[i] = True
                    self.rewards[i] = game.returns(state)
            else:
                self.done[i] = self.ended[i] = self.illegal[i] = True
                self.rewards[i, game.current_player(state)] = -1.0
            if auto_reset and self.ended[i]:
                self.states[i] = game.initial_state()
                self.done[i] = self.illegal[i] = False
                self.steps[i] = 0


def compare(rules: Any, state: Any, reference: Reference) -> None:
    game = reference.game
    batch = len(reference.states)
    legal = rules.legal_mask(state).cpu().numpy()
    over = (state.terminated | state.truncated).cpu().tolist()
    assert over == reference.done
    assert state.ended.cpu().tolist() == reference.ended
    assert state.steps.cpu().tolist() == reference.steps
    np.testing.assert_array_equal(state.rewards.cpu().numpy(), reference.rewards)
    converted = rules.to_scalar_states(state)
    truncated = state.truncated.cpu().tolist()
    players = state.current_player.cpu().tolist()
    planes = [rules.observation(state, player).cpu().numpy() for player in (0, 1)]
    for i in range(batch):
        scalar = reference.states[i]
        expected = np.zeros(game.num_actions, bool) if reference.done[i] else game.legal_mask(scalar).astype(bool)
        assert (legal[i] == expected).all(), f"game {i}: legal {legal[i]} != {expected}"
        assert converted[i] == scalar, f"game {i}: {converted[i]!r} != {scalar!r}"
        assert truncated[i] == (game.is_truncated(scalar) and not reference.illegal[i])
        if not game.is_terminal(scalar):
            assert players[i] == game.current_player(scalar)
        for player in (0, 1):
            np.testing.assert_array_equal(planes[player][i], game.observation(scalar, player))


def play(
    name: str,
    params: dict[str, Any],
    device: str,
    batch: int,
    steps: int,
    seed: int,
    auto_reset: bool,
    build: Callable[..., Any] = batched,
) -> int:
    """Random play (5% of the actions drawn from the whole range and beyond, so illegal ones
    come up, but none in every fourth step: the case where every game moves; every fourth
    step leaves a fifth of the games out by ``where``) on both rules,
    compared after every step; returns the positions compared. ``build`` makes the batched
    rules of a game on a device (default: the game's own)."""
    game = make_game(name, **params)
    rules = build(game, device=device)
    generator = torch.Generator(device=device).manual_seed(seed)
    rng = np.random.default_rng(seed)
    state = rules.init(batch, generator)
    reference = Reference(game, batch)
    compare(rules, state, reference)
    for number in range(steps):
        actions = rules.random_actions(state, generator)
        wild = torch.as_tensor(rng.random(batch) < (0.05 if number % 4 != 1 else 0.0), device=device)
        anything = torch.as_tensor(rng.integers(-2, game.num_actions + 2, batch), device=device)
        actions = torch.where(wild, anything, actions)
        where = torch.as_tensor(rng.random(batch) < 0.8, device=device) if number % 4 == 3 else None
        state = rules.step(state, actions, auto_reset=auto_reset, where=where)
        reference.step(actions.cpu().tolist(), auto_reset, None if where is None else where.cpu().tolist())
        compare(rules, state, reference)
        if not auto_reset and all(reference.done):
            break
    return batch * steps


@pytest.mark.parametrize(("name", "params"), CASES)
@pytest.mark.parametrize("device", DEVICES)
def test_batched_rules_agree_with_the_scalar_rules(name: str, params: dict[str, Any], device: str) -> None:
    play(name, params, device, batch=64, steps=60, seed=1, auto_reset=False)


@pytest.mark.parametrize(("name", "params"), CASES)
@pytest.mark.parametrize("device", DEVICES)
def test_auto_reset_starts_a_new_game_in_every_finished_slot(name: str, params: dict[str, Any], device: str) -> None:
    play(name, params, device, batch=32, steps=80, seed=2, auto_reset=True)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_conversions_round_trip(name: str, params: dict[str, Any]) -> None:
    game = make_game(name, **params)
    rules = batched(game)
    rng = np.random.default_rng(3)
    states, moves = [], []
    for _ in range(40):
        state, played = game.initial_state(), 0
        for _ in range(int(rng.integers(0, 30))):
            if game.is_terminal(state):
                break
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
            played += 1
        states.append(state)
        moves.append(played)
    batch = rules.from_scalar_states(states)
    assert rules.to_scalar_states(batch) == states
    reference = Reference(game, len(states))
    reference.states = list(states)
    reference.done = [game.is_terminal(s) for s in states]
    # a Nim state does not record how many moves reached it: a batch made from one counts the fewest
    reference.steps = moves if name != "nim" else batch.steps.tolist()
    compare(rules, batch, reference)


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name, entry in GAMES.items() if entry.batched])
@pytest.mark.parametrize("device", DEVICES)
def test_a_million_positions_per_game(name: str, device: str) -> None:
    positions = 0
    variants = VARIANTS.get(name, [{}])
    seed = 0
    while positions < 1_000_000:
        params = variants[seed % len(variants)]
        positions += play(name, params, device, batch=1024, steps=100, seed=seed, auto_reset=True)
        seed += 1
