"""What the batched rules check of a state from outside: its structure at every public entry
(one sentence naming the field), its values in ``check_state`` (fuzzed: a state it accepts plays
as the scalar state it stands for), garbage given to ``from_scalar_states``, and a step that
always ends (Hex's root walk on a forest from another size or with a cycle)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium as gym
import pytest
import torch

import boardgym  # noqa: F401  (registers the envs)
from boardgym.batch import batched
from boardgym.games import GAMES, make_game
from boardgym.types import BoardgymError

BATCHED = [name for name, entry in GAMES.items() if entry.batched]
VARIANTS: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in BATCHED]
VARIANTS += [("hex", {"size": 5, "swap": True}), ("nim", {"heaps": [40] * 5}), ("quixo", {"max_moves": 8})]
IDS = [f"{name}{params or ''}" for name, params in VARIANTS]


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """``TimeoutError`` if the block runs past ``seconds`` (a hang fails the test instead of the run)."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _played(
    name: str, params: dict[str, Any], batch: int = 24, moves: int = 14, seed: int = 1, rules: Any = None
) -> tuple[Any, Any]:
    rules = rules or batched(name, **params)
    generator = torch.Generator().manual_seed(seed)
    state = rules.init(batch, generator)
    for ply in range(moves):
        state = rules.step(state, rules.random_actions(state, generator), auto_reset=ply == 3, generator=generator)
    return rules, state


# -- the structure ---------------------------------------------------------------------------------
def test_a_state_of_another_game_size_or_batch_is_one_sentence_at_every_entry() -> None:
    hex11, hex7 = batched("hex"), batched("hex", size=7)
    state = hex11.init(4)
    actions = torch.tensor([0, 10, 20, 48])
    entries = {
        "step": lambda s: hex7.step(s, actions),
        "restart": lambda s: hex7.restart(s, torch.zeros(4, dtype=torch.bool)),
        "observation": lambda s: hex7.observation(s, 0),
        "to_scalar_states": hex7.to_scalar_states,
        "check_state": hex7.check_state,
        "legal_mask": hex7.legal_mask,
        "random_actions": hex7.random_actions,
    }
    for entry, call in entries.items():
        with pytest.raises(BoardgymError, match=r"state\.board has shape \(4, 126\), not \(4, 54\)"):
            call(state)
        with pytest.raises(BoardgymError, match="not a HexBatch"):
            call(batched("connect_four").init(4))
        with pytest.raises(BoardgymError, match="not a HexBatch"):
            call(None)
        assert entry
    bad = {
        "steps": (state._replace(steps=torch.zeros(3, dtype=torch.long)), r"state\.steps has shape \(3,\)"),
        "dtype": (state._replace(steps=state.steps.int()), r"state\.steps is torch\.int32"),
        "device": (state._replace(steps=state.steps.to("meta")), r"state\.steps is on meta"),
        "type": (state._replace(steps=[0, 0, 0, 0]), r"state\.steps is a list, not a tensor"),
    }
    for what, (broken, sentence) in bad.items():
        with pytest.raises(BoardgymError, match=sentence):
            hex11.step(broken, actions)
        assert what


# -- the values ------------------------------------------------------------------------------------
def test_the_issue_s_inconsistent_states_are_refused_naming_the_field() -> None:
    four = batched("connect_four")
    with pytest.raises(BoardgymError, match=r"state\.mover has discs where state\.occupied has none"):
        four.check_state(four.init(1)._replace(mover=torch.tensor([15])))
    tictactoe = batched("tictactoe")
    with pytest.raises(BoardgymError, match=r"state\.current_player is not 0 or 1 in game\(s\) 0, 1, 2"):
        tictactoe.check_state(tictactoe.init(3)._replace(current_player=torch.tensor([2, 5, -1])))
    hex11 = batched("hex")
    state = hex11.init(1)
    board = state.board.clone()
    board[0, 5] = 7
    with pytest.raises(BoardgymError, match=r"state\.board"):
        hex11.check_state(state._replace(board=board))


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=IDS)
def test_every_state_play_makes_passes_and_round_trips(name: str, params: dict[str, Any]) -> None:
    rules, state = _played(name, params, moves=40)
    rules.check_state(state)
    rules.check_state(rules.from_scalar_states(rules.to_scalar_states(state)))


def _mutated(rules: Any, state: Any, generator: torch.Generator) -> Any:
    """``state`` with one field of one game set to a random value: a random one, or one bit flipped."""
    fields = state._fields
    name = fields[int(torch.randint(len(fields), (1,), generator=generator))]
    value = getattr(state, name).clone()
    row = int(torch.randint(len(value), (1,), generator=generator))
    flat = value[row].view(-1)
    at = int(torch.randint(flat.numel(), (1,), generator=generator))
    choice = int(torch.randint(3, (1,), generator=generator))
    if value.dtype == torch.bool:
        flat[at] = ~flat[at]
    elif value.dtype.is_floating_point:
        flat[at] = float(
            torch.tensor([-2.0, -1.0, 0.0, 0.5, 1.0])[choice + int(torch.randint(2, (1,), generator=generator))]
        )
    elif choice == 0:  # a small value
        flat[at] = int(torch.randint(-3, 2 * max(rules.num_actions, 64), (1,), generator=generator))
    else:  # one bit flipped
        bits = torch.iinfo(value.dtype).bits - 1
        flat[at] = flat[at] ^ (1 << int(torch.randint(bits, (1,), generator=generator)))
    return state._replace(**{name: value})


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=IDS)
def test_fuzz_check_state_refuses_or_the_state_plays_as_its_scalar_state(name: str, params: dict[str, Any]) -> None:
    generator = torch.Generator().manual_seed(11)
    refused = accepted = 0
    rules = batched(name, **params)
    for trial in range(24):
        moves = int(torch.randint(1, 30, (1,), generator=generator))
        rules, state = _played(name, params, batch=6, moves=moves, seed=trial, rules=rules)
        broken = _mutated(rules, state, generator)
        try:
            rules.check_state(broken)
        except BoardgymError as error:
            assert str(error).startswith("state.") and str(error).count(". ") == 0, str(error)
            refused += 1
            with deadline(20):  # refused or not, a step ends: in both modes
                for sync_free in (False, True):
                    rules.sync_free = sync_free
                    try:  # one sentence, or a step that ends (on wrong values)
                        rules.step(broken, rules.random_actions(state, generator))
                    except BoardgymError as error:
                        assert "check_state" in str(error), str(error)
            continue
        accepted += 1
        # accepted: it plays as the scalar state it stands for, wherever both still play
        canonical = rules.from_scalar_states(rules.to_scalar_states(broken))
        same = (canonical.terminated == broken.terminated) & (canonical.truncated == broken.truncated)
        with deadline(20):
            for _ in range(3):
                actions = rules.random_actions(broken, generator)
                broken, canonical = rules.step(broken, actions), rules.step(canonical, actions)
                rules.check_state(broken)
                for row in same.nonzero().view(-1).tolist():
                    assert rules.to_scalar_states(broken)[row] == rules.to_scalar_states(canonical)[row]
                    assert broken.rewards[row].tolist() == canonical.rewards[row].tolist()
    assert refused >= 5, (refused, accepted)


# -- from_scalar_states ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", BATCHED)
def test_garbage_to_from_scalar_states_is_one_sentence(name: str) -> None:
    rules = batched(name)
    other = make_game("quarto" if name != "quarto" else "connect_four").initial_state()
    garbage_values: list[Any] = [None, "abc", [], [None], ["abc"], [other], [(-1, -1, 0)], 7]
    for garbage in garbage_values:
        with pytest.raises(BoardgymError):
            rules.from_scalar_states(garbage)
    try:  # two whole numbers: states of a game whose states are numbers, else one sentence
        made = rules.from_scalar_states((1, 2))
    except BoardgymError:
        return
    assert rules.to_scalar_states(made) == [1, 2]


# -- a step always ends ----------------------------------------------------------------------------
def test_hex_ends_on_a_forest_from_another_size_or_with_a_cycle() -> None:
    hex11 = batched("hex")
    state = hex11.init(1)
    board = state.board.clone()
    board[0, 0], board[0, 1] = 1, 0  # two black cells, each the other's parent
    looped = state._replace(board=board)
    with deadline(20):
        with pytest.raises(BoardgymError, match="does not reach its roots in 7 jumps"):
            hex11.step(looped, torch.tensor([2]))
        hex11.step_unchecked(looped, torch.tensor([2]))  # no look: a fixed number of jumps, a wrong answer
        with pytest.raises(BoardgymError, match=r"state\.board has a parent cycle"):
            hex11.check_state(looped)
        hex7 = batched("hex", size=7)
        wide = hex11.init(4)
        with pytest.raises(BoardgymError, match=r"state\.board has shape"):
            hex7.step(wide, torch.tensor([0, 10, 20, 48]))


@pytest.mark.parametrize("size", [3, 11, 19])
def test_hex_s_trees_stay_within_the_bound_of_the_look_ups(size: int) -> None:
    rules: Any = batched("hex", size=size)
    generator = torch.Generator().manual_seed(size)
    state = rules.init(64, generator)
    for _ in range(size * size):
        state = rules.step(state, rules.random_actions(state, generator))
        assert rules._jumps <= rules.depth == (size * size).bit_length()
    rules.check_state(state)  # the forest too: no tree deeper than the bound


def test_the_vector_env_s_reset_checks_the_state(monkeypatch: pytest.MonkeyPatch) -> None:
    env: Any = gym.make_vec("boardgym/ConnectFour-v0", num_envs=2, vectorization_mode="vector_entry_point")
    checked: list[Any] = []
    monkeypatch.setattr(env.unwrapped.rules, "check_state", checked.append)
    env.reset(seed=0)
    assert len(checked) == 1 and checked[0] is env.unwrapped.state
