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


@pytest.mark.parametrize(
    ("spec", "game", "message"),
    [
        ("mcts:c=-1", "tictactoe", "c=-1.0 must be a finite number, 0 or more"),
        ("mcts:c=nan", "tictactoe", "c='nan' must be a finite number"),
        ("mcts:c=inf", "tictactoe", "c='inf' must be a finite number"),
        ("mcts:time=nan", "tictactoe", "time='nan' must be a finite number"),
        ("minimax:time=nan", "tictactoe", "time='nan' must be a finite number"),
        ("mcts:time=-1", "tictactoe", "time=-1.0 must be a positive number"),
        ("astar:max_nodes=-1", "setcover", "astar max_nodes=-1 must be at least 1"),
        ("ucs:max_nodes=0", "setcover", "ucs max_nodes=0 must be at least 1"),
        ("astar:time_limit=-1", "setcover", "astar time_limit=-1.0 must be a positive number"),
        ("astar:time_limit=0", "setcover", "astar time_limit=0.0 must be a positive number"),
        ("coevolved:weights=random,depth=0", "rastros", "depth=0 must be at least 1"),
        ("coevolved:weights=nan/1/2/3", "rastros", "must be finite numbers"),
        ("coevolved:weights=inf/1/2/3", "rastros", "must be finite numbers"),
        ("mcts:c=1,c=2", "tictactoe", "gives 'c' twice"),
        ("minimax:depth=2,depth=3", "tictactoe", "gives 'depth' twice"),
    ],
)
def test_nonsense_values_are_refused_in_one_sentence(spec: str, game: str, message: str) -> None:
    with pytest.raises(BoardgymError, match=message):
        make_agent(spec, make_game(game))


def test_the_search_constructors_refuse_nan_budgets_given_in_code() -> None:
    from boardgym.agents.mcts import MCTSAgent
    from boardgym.agents.minimax import MinimaxAgent

    for build in (lambda: MCTSAgent(GAME, time=float("nan")), lambda: MinimaxAgent(GAME, time=float("nan"))):
        with pytest.raises(BoardgymError, match="positive number of seconds"):
            build()
    with pytest.raises(BoardgymError, match="c=nan"):
        MCTSAgent(GAME, c=float("nan"))
    from boardgym.agents.leaf import RolloutEvaluator
    from boardgym.agents.mcts import MCTS

    for bad in ({"c_puct": -1.0}, {"c_puct": float("nan")}, {"c_uct": float("inf")}, {"fpu": float("nan")}):
        with pytest.raises(BoardgymError, match=next(iter(bad))):
            MCTS(GAME, RolloutEvaluator(1), simulations=1, **bad)


@pytest.mark.parametrize("agent", ["qlearning", "montecarlo", "ppo", "neat", "alphazero"])
def test_a_checkpoint_that_is_no_file_is_named_for_what_it_is(agent: str, tmp_path: Path) -> None:
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    for path, message in ((tmp_path, "is a folder"), (empty, "is empty"), (Path("/dev/null"), "not a regular file")):
        with pytest.raises(BoardgymError, match=message):
            make_agent(f"{agent}:checkpoint={path}", GAME)
