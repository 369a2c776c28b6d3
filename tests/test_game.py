"""What a game is (``boardgym.game``): the ``Game`` base class, its defaults, the capabilities
each registered game declares, and a new game written with only the abstract methods playing
through the envs and the search agents without being registered anywhere."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import boardgym
from boardgym import make_agent, make_game
from boardgym.agents.heuristics import heuristic_names
from boardgym.envs.core import BoardgymAECEnv
from boardgym.envs.single_agent import SingleAgentEnv
from boardgym.evaluate.match import play_games
from boardgym.game import (
    Game,
    GameBase,
    HasFeatures,
    HasPuzzleHeuristic,
    HasRandomPlayout,
    HasSymmetries,
    SearchablePuzzle,
    generic_playout,
)
from boardgym.games import GAMES
from boardgym.types import BoardgymError, IllegalActionError

TakeAwayState = tuple[int, int]  # (tokens left, player to move)


class TakeAway(Game[TakeAwayState]):
    """One heap; a move takes 1 (action 0) or 2 (action 1) tokens; taking the last one wins.
    The player to move loses exactly when the heap is a multiple of 3."""

    name = "takeaway"
    num_actions = 2
    observation_shape = (1,)

    def __init__(self, tokens: int = 5) -> None:
        self.tokens = tokens

    def initial_state(self) -> TakeAwayState:
        return (self.tokens, 0)

    def current_player(self, state: TakeAwayState) -> int:
        return state[1]

    def legal_actions(self, state: TakeAwayState) -> list[int]:
        return [a for a in (0, 1) if a + 1 <= state[0]]

    def apply(self, state: TakeAwayState, action: int) -> TakeAwayState:
        if action not in self.legal_actions(state):
            self.raise_illegal(state, action)
        return (state[0] - action - 1, 1 - state[1])

    def is_terminal(self, state: TakeAwayState) -> bool:
        return state[0] == 0

    def returns(self, state: TakeAwayState) -> tuple[float, float]:
        if state[0]:
            return (0.0, 0.0)
        winner = 1 - state[1]  # whoever took the last token
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def observation(self, state: TakeAwayState, player: int) -> np.ndarray:
        return np.array([state[0] / self.tokens], dtype=np.float32)

    def render(self, state: TakeAwayState) -> str:
        return f"{state[0]} tokens left, player {state[1]} to move"


# -- the base class ------------------------------------------------------------------------------


def test_a_game_must_write_the_abstract_methods() -> None:
    class Unfinished(Game[int]):
        name = "unfinished"
        num_actions = 1
        observation_shape = (1,)

        def initial_state(self) -> int:
            return 0

    with pytest.raises(TypeError, match="abstract"):
        Unfinished()  # type: ignore[abstract]


def test_a_declared_capability_must_be_written() -> None:
    class ClaimsSymmetries(TakeAway, HasSymmetries[TakeAwayState]):
        pass

    with pytest.raises(TypeError, match="symmetries"):
        ClaimsSymmetries()  # type: ignore[abstract]


def test_gamebase_is_the_same_class_under_its_former_name() -> None:
    assert GameBase is Game and boardgym.GameBase is Game and boardgym.Game is Game
    assert isinstance(TakeAway(), GameBase)


def test_defaults() -> None:
    game = TakeAway(4)
    state = game.initial_state()
    assert game.legal_mask(state).tolist() == [True, True]
    assert game.legal_mask((1, 0)).tolist() == [True, False]
    assert not game.is_truncated(state) and not game.solvable_by_search
    assert game.board_grid(state) is None and game.params() == {}
    assert repr(game) == "TakeAway()"
    assert game.parse_action(state, " 1 ") == 1 and game.action_to_str(state, 1) == "1"
    assert game.legal_moves_text((1, 0)) == "0"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1", "action 1 (1) is not legal here; legal moves: 0"),
        ("-1", "outside the action space 0..1"),
        ("one", "cannot read move 'one'; type one of: 0"),
        ("", "cannot read move ''"),
    ],
)
def test_a_bad_move_is_refused_by_name(text: str, reason: str) -> None:
    game = TakeAway()
    with pytest.raises(IllegalActionError, match=re.escape(reason)):
        game.parse_action((1, 0), text)  # one token left: only action 0 (take 1)


def test_apply_refuses_an_illegal_action_with_the_reason() -> None:
    game = TakeAway()
    with pytest.raises(IllegalActionError, match="not legal here; legal moves: 0"):
        game.apply((1, 0), 1)
    with pytest.raises(IllegalActionError, match="already over"):
        game.apply((0, 1), 0)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        game.apply((3, 0), 7)


def test_generic_playout_plays_to_the_end_with_the_given_generator() -> None:
    game = TakeAway(7)
    results = [generic_playout(game, game.initial_state(), 0, random.Random(seed)) for seed in range(200)]
    assert set(results) == {1.0, -1.0}
    again = [generic_playout(game, game.initial_state(), 0, random.Random(seed)) for seed in range(200)]
    assert results == again
    assert generic_playout(game, (0, 1), 0, random.Random(0)) == 1.0  # already over: player 0 took the last


# -- what the registered games declare -----------------------------------------------------------

DECLARED = {
    "tictactoe": {HasFeatures, HasSymmetries},
    "connect_four": {HasSymmetries, HasRandomPlayout},
    "nim": set(),
    "quixo": {HasFeatures, HasSymmetries},
    "quarto": {HasSymmetries},
    "hex": {HasFeatures, HasSymmetries, HasRandomPlayout},
    "rastros": {HasFeatures, HasSymmetries},
    "setcover": {HasPuzzleHeuristic, SearchablePuzzle},
    "blackbox": set(),
}
CAPABILITIES = [HasFeatures, HasSymmetries, HasRandomPlayout, HasPuzzleHeuristic, SearchablePuzzle]


@pytest.mark.parametrize("name", list(GAMES))
def test_each_game_declares_its_capabilities(name: str) -> None:
    """A game has a capability exactly when it names it among its bases (no duck typing)."""
    game = make_game(name)
    assert isinstance(game, Game)
    for capability in CAPABILITIES:
        assert isinstance(game, capability) == (capability in type(game).__mro__), capability.__name__


@pytest.mark.parametrize("name", list(DECLARED))
def test_the_shipped_games_keep_their_capabilities(name: str) -> None:
    game = make_game(name)
    assert {capability for capability in CAPABILITIES if isinstance(game, capability)} == DECLARED[name]


@pytest.mark.parametrize("name", [name for name, caps in DECLARED.items() if HasFeatures in caps])
def test_feature_weights_match_the_features(name: str) -> None:
    game = make_game(name)
    assert isinstance(game, HasFeatures)
    features = game.features(game.initial_state(), 0)
    assert features.dtype == np.float32 and features.shape == (len(game.feature_weights),)


# -- a new game, registered nowhere --------------------------------------------------------------


def test_a_new_game_passes_the_pettingzoo_checks() -> None:
    api_test(BoardgymAECEnv(TakeAway()), num_cycles=50)
    seed_test(lambda: BoardgymAECEnv(TakeAway()), num_cycles=50)


def test_a_new_game_plays_in_the_aec_env() -> None:
    env = BoardgymAECEnv(TakeAway(5), render_mode="ansi")
    env.reset(seed=0)
    for action in (1, 0, 1):  # 5 -> 3 -> 2 -> 0: player 0 takes the last two
        assert env.observe(env.agent_selection)["action_mask"].tolist() == [1, 1]
        env.step(action)
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.render() == "0 tokens left, player 1 to move"
    assert env.metadata["render_modes"] == ["ansi", "human", "rgb_array"]  # the text picture draws it


def test_a_new_game_passes_the_gymnasium_checker() -> None:
    env = SingleAgentEnv(TakeAway(), opponent="minimax:depth=4", seat=1)
    check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=0)
    assert info["seat"] == 1
    assert observation.tolist() == pytest.approx([0.6])  # the opponent took 2 of 5: 3 left, lost for us


@pytest.mark.parametrize("spec", ["mcts:simulations=300", "minimax:depth=5", "minimax:depth=5,eval=random"])
def test_search_agents_find_the_winning_move(spec: str) -> None:
    game = TakeAway(5)
    agent = make_agent(spec, game, seed=0)
    assert agent.act(game, game.initial_state()) == 1  # take 2, leave a multiple of 3
    assert agent.act(game, (4, 0)) == 0  # take 1


def test_a_new_game_gets_the_generic_evaluation_only() -> None:
    assert heuristic_names(TakeAway()) == ["random"]
    with pytest.raises(BoardgymError, match="no evaluation 'features'"):
        make_agent("minimax:eval=features", TakeAway())


def test_a_new_game_plays_matches() -> None:
    summary = play_games(TakeAway(5), "minimax:depth=5", "random", 4, seed=0)
    # The first player wins from 5 with perfect play, so minimax wins both its games as first
    # player; as second player it wins whenever random play leaves it a non-multiple of 3.
    assert summary.wins >= 2 and summary.losses <= 2


def test_the_perfect_agent_plays_a_new_game_that_says_it_is_small() -> None:
    class SmallTakeAway(TakeAway):
        @property
        def solvable_by_search(self) -> bool:
            return True

    with pytest.raises(BoardgymError, match="too large"):
        make_agent("perfect", TakeAway())
    game = SmallTakeAway(8)
    assert make_agent("perfect", game, seed=0).act(game, game.initial_state()) == 1  # 8 -> 6
