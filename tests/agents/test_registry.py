"""Agent specs: parsing, typed parameters, and one clear error for each kind of mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardgym import BoardgymError, make_agent, make_game
from boardgym.agents.base import BaseAgent
from boardgym.agents.registry import AGENTS, AgentEntry, parse_spec, spec_parameters

GAME = make_game("tictactoe")


class _Configurable(BaseAgent):
    def __init__(
        self,
        game,
        *,
        seed: int | None = None,
        depth: int = 1,
        time: float | None = None,
        exact: bool = False,
        checkpoint: Path | None = None,
        callback=None,
    ) -> None:
        super().__init__(game, seed=seed)
        self.params = (depth, time, exact, checkpoint)

    def act(self, game, state):
        return game.legal_actions(state)[0]


@pytest.fixture
def configurable(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(AGENTS, "configurable", AgentEntry(f"{__name__}:_Configurable", "test agent"))
    return "configurable"


def test_parse_spec() -> None:
    assert parse_spec("mcts:simulations=800, c=1.4") == ("mcts", {"simulations": "800", "c": "1.4"})
    assert parse_spec("random") == ("random", {})
    with pytest.raises(BoardgymError, match="name:key=value"):
        parse_spec("minimax:depth")


def test_values_are_converted_by_annotation(configurable: str) -> None:
    agent = make_agent(f"{configurable}:depth=3,time=0.5,exact=true,checkpoint=runs/x.pt", GAME)
    assert agent.params == (3, 0.5, True, Path("runs/x.pt"))
    assert agent.spec == f"{configurable}:depth=3,time=0.5,exact=true,checkpoint=runs/x.pt"


def test_only_simple_keyword_parameters_are_settable(configurable: str) -> None:
    assert set(spec_parameters(_Configurable)) == {
        "depth",
        "time",
        "exact",
        "checkpoint",
    }
    with pytest.raises(BoardgymError, match="no parameter 'callback'"):
        make_agent(f"{configurable}:callback=print", GAME)


def test_unknown_agent_lists_the_known_ones() -> None:
    with pytest.raises(BoardgymError, match=r"unknown agent 'alphabeta'.*random.*perfect"):
        make_agent("alphabeta", GAME)


def test_unknown_key_lists_the_accepted_ones(configurable: str) -> None:
    with pytest.raises(BoardgymError, match=r"no parameter 'dpth'.*depth=<int>"):
        make_agent(f"{configurable}:dpth=3", GAME)


def test_bad_value_names_the_key_and_type(configurable: str) -> None:
    with pytest.raises(BoardgymError, match=r"depth='three'.*integer"):
        make_agent(f"{configurable}:depth=three", GAME)
    with pytest.raises(BoardgymError, match=r"exact='maybe'.*true or false"):
        make_agent(f"{configurable}:exact=maybe", GAME)


def test_random_agent_is_seeded() -> None:
    def moves(seed: int) -> list[int]:
        agent = make_agent("random", GAME, seed=seed)
        state, played = GAME.initial_state(), []
        while not GAME.is_terminal(state):
            played.append(agent.act(GAME, state))
            state = GAME.apply(state, played[-1])
        return played

    assert moves(7) == moves(7)
    assert len({tuple(moves(s)) for s in range(10)}) > 1
