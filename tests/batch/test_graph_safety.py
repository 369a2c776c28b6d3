"""The batched rules can run captured: for every game (and the variants that take another path),
a step with auto-reset, a random action, the legal mask and the observation make no
synchronising operation when the rules are sync-free, and ``torch.compile(fullgraph=True)`` of
the step gives the eager results to the bit; the checker itself catches each kind of host read."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from boardgym.batch import batched
from boardgym.batch.graph_safety import assert_no_sync, assert_same, compile_fullgraph, syncs
from boardgym.games import GAMES
from boardgym.types import BoardgymError

VARIANTS: list[tuple[str, dict[str, Any]]] = [(name, {}) for name, entry in GAMES.items() if entry.batched]
VARIANTS += [("hex", {"size": 5, "swap": True}), ("nim", {"heaps": [40] * 5}), ("quixo", {"max_moves": 8})]
IDS = [f"{name}{params or ''}" for name, params in VARIANTS]


def _positions(name: str, params: dict[str, Any], batch: int = 16, moves: int = 12) -> tuple[Any, Any]:
    """Sync-free rules and a batch a few random moves in (some games over, some illegal moves)."""
    rules = batched(name, sync_free=True, **params)
    generator = torch.Generator().manual_seed(3)
    state = rules.init(batch, generator)
    for ply in range(moves):
        actions = rules.random_actions(state, generator)
        if ply % 5 == 4:  # now and then an action out of range or illegal
            actions = torch.where(torch.arange(batch) % 3 == 0, actions + 1, actions)
        state = rules.step(state, actions, auto_reset=ply % 4 == 0, generator=generator)
    return rules, state


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=IDS)
def test_a_sync_free_step_reads_nothing_on_the_host(name: str, params: dict[str, Any]) -> None:
    rules, state = _positions(name, params)
    generator = torch.Generator().manual_seed(5)
    actions = assert_no_sync(rules.random_actions, state, generator)
    assert_no_sync(rules.step, state, actions, auto_reset=True, generator=generator)
    assert_no_sync(rules.step, state, actions, where=torch.arange(len(actions)) % 2 == 0)
    assert_no_sync(rules.restart, state, state.terminated)
    assert_no_sync(rules.legal_mask, state)
    assert_no_sync(rules.observation, state, state.current_player)
    # step_unchecked never looks, whatever the flag, and plays as the looking step does
    looking = batched(name, sync_free=False, **params)
    after = assert_no_sync(looking.step_unchecked, state, actions, auto_reset=True)
    assert_same(after, looking.step(state, actions, auto_reset=True))


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=IDS)
def test_a_compiled_step_with_auto_reset_matches_eager_to_the_bit(name: str, params: dict[str, Any]) -> None:
    rules, state = _positions(name, params)
    compiled = compile_fullgraph(lambda s, a: rules.step_unchecked(s, a, auto_reset=True))
    generator = torch.Generator().manual_seed(9)
    for _ in range(6):
        actions = rules.random_actions(state, generator)
        eager = rules.step_unchecked(state, actions, auto_reset=True)
        assert_same(compiled(state, actions), eager)
        state = eager


def test_the_checker_names_each_host_read() -> None:
    x = torch.arange(6)
    mask = x > 2
    reads = {
        "item": lambda: x.sum().item(),
        "bool": lambda: bool(mask.any()),
        "nonzero": lambda: mask.nonzero(),
        "mask index": lambda: x[mask],
        "masked_select": lambda: x.masked_select(mask),
        "numpy": lambda: x.numpy().any(),
        "tolist": lambda: x.tolist(),
        "equal": lambda: torch.equal(x, x),
    }
    for what, read in reads.items():
        assert syncs(read)[1], what
    assert syncs(lambda: torch.where(mask, x, 0).sum() + x.index_select(0, x % 3))[1] == []
    with pytest.raises(AssertionError, match="nonzero"):
        assert_no_sync(lambda: mask.nonzero())


def test_a_graph_break_fails_the_compile() -> None:
    def looks(x: torch.Tensor) -> torch.Tensor:
        return x + 1 if bool(x.sum() > 0) else x

    with pytest.raises(Exception, match="(?i)data-dependent|graph break|unsupported"):
        compile_fullgraph(looks)(torch.ones(3))


def test_assert_same_sees_one_bit() -> None:
    a = torch.tensor([0.0, 1.0])
    assert_same((a, {"k": [a]}), (a.clone(), {"k": [a.clone()]}))
    with pytest.raises(AssertionError, match="values differ"):
        assert_same(torch.tensor([0.0]), torch.tensor([-0.0]))
    with pytest.raises(AssertionError, match="int64"):
        assert_same(torch.tensor([1]), torch.tensor([1.0]))


def test_a_captured_play_needs_cuda_and_the_cpu_never_builds_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from boardgym.batch.capture import CapturedPlay
    from boardgym.bench import batched_speed, rows

    with pytest.raises(BoardgymError, match="a captured step needs CUDA"):
        CapturedPlay(batched("tictactoe"), 4)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("built on a CPU")

    monkeypatch.setattr(batched_speed, "CapturedPlay", refuse)
    game, row = next((g, r) for g, r in rows("batched") if g == "tictactoe")
    wall, cpu = batched_speed.batched_rate(game, row, 8, "cpu", 0.05, capture=True)
    assert wall > 0 and cpu > 0
