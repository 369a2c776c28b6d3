"""A* and uniform-cost search on set cover: optimal against brute force and scipy milp,
fewer nodes than UCS, budgets, and the agents made from specs."""

from __future__ import annotations

import gymnasium as gym
import pytest

import boardgym  # noqa: F401  (registers the ids)
from boardgym import make_agent, make_game
from boardgym.games.setcover import SetCover
from boardgym.solve.astar import search
from boardgym.solve.setcover import brute_force_cover_size, greedy_cover, milp_cover_size
from boardgym.types import BoardgymError


def _instances(size: int, sets: int, density: float, count: int) -> list[SetCover]:
    games, seed = [], 0
    while len(games) < count:
        try:
            games.append(SetCover(size, sets, density, seed))
        except BoardgymError:
            pass  # unsolvable draw
        seed += 1
    return games


def _is_cover(game: SetCover, actions: tuple[int, ...]) -> bool:
    state = game.initial_state()
    for action in actions:
        state = game.apply(state, action)
    return game.is_terminal(state)


@pytest.mark.parametrize("size, sets, density", [(5, 10, 0.3), (10, 14, 0.2), (12, 16, 0.3)])
def test_astar_matches_brute_force_on_tiny_instances(size: int, sets: int, density: float) -> None:
    for game in _instances(size, sets, density, 10):
        result = search(game, game.initial_state())
        assert result.optimal and _is_cover(game, result.actions)
        assert result.cost == len(result.actions) == brute_force_cover_size(game)


@pytest.mark.parametrize("size, sets, density, count", [(20, 50, 0.2, 5), (30, 150, 0.3, 5), (50, 100, 0.2, 3)])
def test_astar_matches_milp_on_medium_instances(size: int, sets: int, density: float, count: int) -> None:
    for game in _instances(size, sets, density, count):
        result = search(game, game.initial_state())
        assert result.optimal and _is_cover(game, result.actions)
        assert result.cost == milp_cover_size(game)


def test_astar_expands_fewer_nodes_than_uniform_cost_search() -> None:
    for game in _instances(20, 50, 0.2, 5):
        astar = search(game, game.initial_state())
        ucs = search(game, game.initial_state(), use_heuristic=False)
        assert ucs.optimal and ucs.cost == astar.cost
        assert astar.nodes_expanded < ucs.nodes_expanded


def test_budget_gives_a_cover_and_a_proven_lower_bound() -> None:
    game = SetCover(50, 100, 0.2, 1)
    result = search(game, game.initial_state(), use_heuristic=False, max_nodes=50)
    assert not result.optimal and result.nodes_expanded == 50
    assert _is_cover(game, result.actions) and result.cost == len(result.actions)
    assert result.lower_bound <= milp_cover_size(game) <= result.cost <= len(greedy_cover(game))


def test_search_refuses_two_player_games() -> None:
    with pytest.raises(BoardgymError, match="one-player"):
        search(make_game("tictactoe"), make_game("tictactoe").initial_state())
    with pytest.raises(BoardgymError, match="one-player"):
        make_agent("astar", make_game("nim"))


@pytest.mark.parametrize("spec", ["astar", "ucs:max_nodes=100000", "greedy", "greedy:random_ties=true"])
def test_agents_solve_the_gym_env(spec: str) -> None:
    env = gym.make("boardgym/SetCover-v0", problem_size=20, num_sets=50, density=0.2, seed=2)
    game = env.unwrapped.game
    agent = make_agent(spec, game, seed=0)
    env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        _, reward, done, truncated, _ = env.step(agent.act(game, env.unwrapped.state))
        total += reward
        assert not truncated
    optimum = milp_cover_size(game)
    if spec.startswith(("astar", "ucs")):
        assert total == -optimum
    else:
        assert total <= -optimum


def test_greedy_takes_the_most_new_elements() -> None:
    game = SetCover(sets="0 1;0 1 2 3;3 4 5;5")
    agent = make_agent("greedy", game)
    state = game.initial_state()
    assert agent.act(game, state) == 1
    assert agent.act(game, game.apply(state, 1)) == 2
    with pytest.raises(BoardgymError, match="set cover"):
        make_agent("greedy", make_game("blackbox"))
