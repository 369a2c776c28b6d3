"""MCTS: known answers on scripted positions, PUCT with priors, batching, reuse, specs."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym import BoardgymError, make_agent, make_game
from boardgym.agents.leaf import RolloutEvaluator
from boardgym.agents.mcts import MCTS, MCTSAgent


def replay(game, moves: str):
    """Apply space-separated moves in the game's notation from the start."""
    state = game.initial_state()
    for text in moves.split():
        state = game.apply(state, game.parse_action(state, text))
    return state


class UniformEvaluator:
    """Uniform priors and value 0: search then rests on terminal states alone."""

    def __init__(self) -> None:
        self.calls = 0
        self.batch_sizes: list[int] = []

    def evaluate(self, game, states):
        self.calls += 1
        self.batch_sizes.append(len(states))
        priors = np.zeros((len(states), game.num_actions), dtype=np.float32)
        for i, state in enumerate(states):
            legal = game.legal_actions(state)
            priors[i, legal] = 1.0 / len(legal)
        return priors, np.zeros(len(states), dtype=np.float32)


# Connect Four, X (player 0) has a1 b1 c1; O has a2 b2 (and g1 in the first position).
#  2  O O . . . . .
#  1  X X X . . . O
WIN_IN_ONE = "a a b b c g"  # X to move: d wins
MUST_BLOCK = "a a b b c"  # O to move: d blocks X's four


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_connect_four_takes_a_win_in_one(seed: int) -> None:
    game = make_game("connect_four")
    agent = make_agent("mcts:simulations=1000", game, seed=seed)
    assert agent.act(game, replay(game, WIN_IN_ONE)) == 3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_connect_four_blocks_a_loss_in_one(seed: int) -> None:
    game = make_game("connect_four")
    agent = make_agent("mcts:simulations=1000", game, seed=seed)
    assert agent.act(game, replay(game, MUST_BLOCK)) == 3


def test_tictactoe_blocks_and_wins() -> None:
    game = make_game("tictactoe")
    agent = make_agent("mcts:simulations=2000", game, seed=3)
    # X: a1 b1, O: b2 -> X wins at c1.
    assert agent.act(game, replay(game, "a1 b2 b1 c3")) == 2
    # X: a1 b1, O: b2 and O to move must block c1.
    assert agent.act(game, replay(game, "a1 b2 b1")) == 2


def test_visit_counts_add_up_to_the_budget() -> None:
    game = make_game("connect_four")
    tree = MCTS(game, RolloutEvaluator(rng=np.random.default_rng(0)), simulations=300, rng=np.random.default_rng(0))
    root = tree.search(game.initial_state())
    assert tree.visit_counts(root).sum() == 300
    policy = tree.policy(root, temperature=1.0)
    assert policy.shape == (7,) and policy.sum() == pytest.approx(1.0)
    assert tree.policy(root, temperature=0)[tree.best_action(root)] == 1.0


def test_puct_with_priors_finds_the_win_and_uses_noise() -> None:
    game = make_game("connect_four")
    evaluator = UniformEvaluator()
    tree = MCTS(
        game,
        evaluator,
        simulations=400,
        c_puct=1.5,
        dirichlet_alpha=0.3,
        dirichlet_fraction=0.25,
        rng=np.random.default_rng(1),
    )
    root = tree.search(replay(game, WIN_IN_ONE))
    assert tree.best_action(root) == 3
    assert root.clean_priors == pytest.approx([1 / 7] * 7)
    assert root.priors != root.clean_priors and sum(root.priors) == pytest.approx(1.0)


def test_batched_leaves_reach_the_evaluator_together() -> None:
    game = make_game("connect_four")
    evaluator = UniformEvaluator()
    tree = MCTS(game, evaluator, simulations=256, c_puct=1.0, batch_size=16, rng=np.random.default_rng(2))
    root = tree.search(replay(game, MUST_BLOCK))
    assert max(evaluator.batch_sizes) == 16
    assert tree.best_action(root) == 3
    # Virtual losses are all undone: edge values stay within [-visits, visits].
    assert all(abs(w) <= n for n, w in zip(root.edge_n, root.edge_w, strict=True))
    assert root.n == sum(root.edge_n)


def test_lockstep_gather_and_backup() -> None:
    game = make_game("tictactoe")
    evaluator = UniformEvaluator()
    tree = MCTS(game, evaluator, simulations=1, c_puct=1.0, batch_size=4, rng=np.random.default_rng(0))
    state = game.initial_state()
    for _ in range(50):
        leaves = tree.gather_leaves(state, 4)
        if leaves:
            tree.backup_leaves(leaves, *evaluator.evaluate(game, [leaf.state for leaf in leaves]))
    assert tree.root is not None and tree.root.expanded
    assert tree.visit_counts(tree.root).sum() > 50


def test_subtree_is_reused_after_the_opponent_replies() -> None:
    game = make_game("connect_four")
    agent = MCTSAgent(game, seed=0, simulations=500)
    state = game.apply(game.initial_state(), agent.act(game, game.initial_state()))
    kept = agent.tree.root  # the child of the move played, kept by advance()
    assert kept is not None and kept.state == state
    reply = kept.actions[int(np.argmax(kept.edge_n))]
    grandchild = kept.children[kept.actions.index(reply)]
    assert grandchild is not None and grandchild.n > 0
    visits_before = grandchild.n
    agent.act(game, game.apply(state, reply))
    assert grandchild.n == visits_before + 500


def test_same_seed_same_moves() -> None:
    game = make_game("connect_four")
    a = make_agent("mcts:simulations=200", game, seed=7)
    b = make_agent("mcts:simulations=200", game, seed=7)
    state = game.initial_state()
    assert a.act(game, state) == b.act(game, state)


def test_time_budget_runs_without_a_simulation_cap() -> None:
    game = make_game("tictactoe")
    agent = make_agent("mcts:time=0.05", game, seed=0)
    action = agent.act(game, game.initial_state())
    assert action in game.legal_actions(game.initial_state())
    assert agent.tree.last_simulations > 0


def test_bad_parameters_are_explained() -> None:
    game = make_game("tictactoe")
    with pytest.raises(BoardgymError, match="simulations"):
        make_agent("mcts:simulations=-3", game)
    with pytest.raises(BoardgymError, match="c_puct"):
        MCTS(game, UniformEvaluator(), dirichlet_alpha=0.3)
    with pytest.raises(BoardgymError, match="finished"):
        MCTS(game, UniformEvaluator()).search(replay(game, "a1 a2 b1 b2 c1"))


# Hex 7x7: Black's chain d1..d6 reaches row 7 only through d7 (White holds c7).
HEX_BLOCK = "d1 c7 d2 a1 d3 a2 d4 a3 d5 a4 d6"  # White to move must take d7
HEX_WIN = HEX_BLOCK + " a5"  # Black to move wins at d7


@pytest.mark.parametrize("seed", [0, 1])
def test_hex_takes_the_win_and_blocks_the_loss(seed: int) -> None:
    # Random play loses from the block position whatever White does (d7 scores about -0.56
    # in random playouts, the next moves about -0.6): 1,500 simulations find d7 for only about
    # 60% of seeds, 6,000 for every one of 20 tried.
    game = make_game("hex", size=7)
    agent = make_agent("mcts:simulations=6000", game, seed=seed)
    for moves in (HEX_WIN, HEX_BLOCK):
        state = replay(game, moves)
        assert game.action_to_str(state, agent.act(game, state)) == "d7"


def test_generic_playouts_agree_on_the_hex_block() -> None:
    game = make_game("hex", size=7)
    tree = MCTS(
        game,
        RolloutEvaluator(rng=np.random.default_rng(0), game_playouts=False),
        simulations=1500,
        rng=np.random.default_rng(0),
    )
    state = replay(game, HEX_BLOCK)
    assert game.action_to_str(state, tree.best_action(tree.search(state))) == "d7"


def test_last_info_holds_the_root_visits_and_value() -> None:
    game = make_game("tictactoe")
    agent = make_agent("mcts:simulations=200", game, seed=0)
    assert agent.last_info == {}
    action = agent.act(game, game.initial_state())
    info = agent.last_info
    assert sum(info["visits"].values()) == 200
    assert max(info["visits"], key=info["visits"].get) == action
    assert -1.0 <= info["value"] <= 1.0 and info["simulations"] == 200 and info["seconds"] >= 0


class OnlyEvaluate:
    """A rollout evaluator seen through ``evaluate`` alone: the search then takes its general
    loop (``_gather``/``_evaluate``) instead of the plain-UCT one, with the same draws."""

    def __init__(self, inner: RolloutEvaluator) -> None:
        self.inner = inner

    def evaluate(self, game, states):
        return self.inner.evaluate(game, states)


@pytest.mark.parametrize(("name", "params"), [("connect_four", {}), ("tictactoe", {}), ("hex", {"size": 5})])
def test_plain_uct_loop_runs_the_general_search(name: str, params: dict) -> None:
    """The inlined UCT loop (first tries, argmax, leaves whose edges wait for a second visit,
    backup) visits exactly what the general select/evaluate/backup loop visits."""
    game = make_game(name, **params)
    state = game.initial_state()
    roots = []
    for wrap in (False, True):
        evaluator = RolloutEvaluator(rng=np.random.default_rng(5))
        tree = MCTS(game, OnlyEvaluate(evaluator) if wrap else evaluator, simulations=600, rng=np.random.default_rng(6))
        roots.append(tree.search(state))
        if not wrap:
            assert tree._values is not None  # the plain loop ran
    fast, general = roots
    assert fast.actions == general.actions
    assert fast.edge_n == general.edge_n and fast.edge_w == general.edge_w
    assert sum(fast.edge_n) == 600


class CountingRollouts(RolloutEvaluator):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.count = 0

    def value_function(self, game):
        value = super().value_function(game)

        def counted(state):
            self.count += 1
            return value(state)

        return counted

    def values(self, game, states):
        self.count += len(states)
        return super().values(game, states)


def test_a_kept_leaf_is_expanded_without_a_second_evaluation() -> None:
    game = make_game("connect_four")
    evaluator = CountingRollouts(rng=np.random.default_rng(0))
    tree = MCTS(game, evaluator, simulations=7, rng=np.random.default_rng(0))
    start = game.initial_state()
    tree.search(start)  # the root's evaluation, then one visit to each column
    assert evaluator.count == 1 + 7
    leaf = tree.root.children[0]
    assert leaf.evaluated and not leaf.expanded and leaf.actions == []
    action = tree.root.actions[0]
    tree.advance(action)
    root = tree.search(game.apply(start, action))
    assert root is leaf and root.expanded
    assert evaluator.count == 1 + 7 + 7  # no new evaluation of the kept leaf
    assert sum(root.edge_n) == 7


@pytest.mark.parametrize("enabled", [True, False])
def test_search_leaves_the_garbage_collector_as_it_found_it(enabled: bool) -> None:
    import gc

    game = make_game("tictactoe")
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        make_agent("mcts:simulations=50", game, seed=0).act(game, game.initial_state())
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
