"""The split, the per-share play and the merge that ``SelfPlayPool`` and the Ray actors share."""

from __future__ import annotations

import torch

from boardgym import make_game
from boardgym.agents.alphazero.network import build_network
from boardgym.train.alphazero.buffer import Rows
from boardgym.train.alphazero.selfplay import SelfPlayResult, SelfPlaySettings
from boardgym.train.alphazero.workers import merge_results, play_share, split_games


def test_games_are_split_as_evenly_as_can_be() -> None:
    assert split_games(10, 3) == [4, 3, 3]
    assert split_games(2, 4) == [1, 1, 0, 0]
    assert sum(split_games(97, 8)) == 97


def rows(*values: float) -> Rows:
    count = len(values)
    return Rows(
        torch.zeros(count, 2), torch.zeros(count, 3), torch.ones(count, 3, dtype=torch.bool), torch.tensor(values)
    )


def test_merge_keeps_the_order_and_adds_up_the_counts() -> None:
    a = SelfPlayResult(rows(1.0), [("a", (0,))], games=1, moves=1, network_calls=2, leaves=3, cpu_seconds=0.5)
    b = SelfPlayResult(rows(-1.0, 1.0), [("b", (1, 2))], games=2, moves=4, network_calls=1, leaves=1, cpu_seconds=0.25)
    a.outcomes.append((1.0, -1.0))
    merged = merge_results([a, b])
    assert [start for start, _ in merged.records] == ["a", "b"] and merged.outcomes == [(1.0, -1.0)]
    assert merged.rows is not None and merged.rows.value.tolist() == [1.0, -1.0, 1.0]
    assert (merged.games, merged.moves, merged.network_calls, merged.leaves) == (3, 5, 3, 4)
    assert merged.cpu_seconds == 0.75


def test_a_share_is_reproducible_from_its_seed_words_and_timed() -> None:
    game = make_game("tictactoe")
    torch.manual_seed(0)
    network = build_network(game, blocks=1, channels=4, value_hidden=4).eval()
    settings = SelfPlaySettings(simulations=2)
    args = (game, network.architecture(), network.state_dict(), "cpu", False, 2, 2, settings)
    one, again, other = play_share(*args, [1, 2, 0]), play_share(*args, [1, 2, 0]), play_share(*args, [1, 2, 1])
    assert [p[0] for p in one.positions(game)] == [p[0] for p in again.positions(game)]
    assert [p[0] for p in one.positions(game)] != [
        p[0] for p in other.positions(game)
    ] or one.outcomes != other.outcomes
    assert one.games == 2 and one.cpu_seconds > 0 and one.seconds > 0
