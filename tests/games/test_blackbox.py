"""The black-box bit-string fitness against hand-computed values, call counting, and the
one-locus-per-action game."""

from __future__ import annotations

import numpy as np
import pytest

from boardgym import make_game
from boardgym.games.blackbox import BlackBox, BlackBoxProblem, fitness
from boardgym.types import BoardgymError, IllegalActionError


def _genome_with_counts(counts: list[int], length: int = 1000) -> np.ndarray:
    """A genome whose slice s (loci s, s+a, ...) holds counts[s] ones, at its first loci."""
    a = len(counts)
    genome = np.zeros(length, dtype=np.int8)
    for s, count in enumerate(counts):
        genome[s::a][:count] = 1
    return genome


@pytest.mark.parametrize("a", [1, 2, 5, 10])
def test_all_ones_scores_one_and_all_zeros_zero(a: int) -> None:
    assert fitness(np.ones(1000, np.int8), a) == 1.0
    assert fitness(np.zeros(1000, np.int8), a) == 0.0


@pytest.mark.parametrize(
    "counts, value",
    [
        ([537], 537),  # a = 1 is OneMax
        ([500, 0], 500),
        ([250, 500], 500 - 250 * 0.1),
        ([200, 200], 400),
        # sorted 200, 200, 100, 50, 0: the two at the top count, the rest cost 10 + 0.5 + 0
        ([100, 200, 0, 200, 50], 400 - (100 * 0.1 + 50 * 0.01 + 0 * 0.001)),
        ([100] * 9 + [99], 900 - 99 * 0.1),
    ],
)
def test_hand_computed_values(counts: list[int], value: float) -> None:
    genome = _genome_with_counts(counts)
    assert fitness(genome, len(counts)) == pytest.approx(value / 1000, abs=1e-15)


def test_problem_counts_every_call() -> None:
    problem = BlackBoxProblem(5)
    genome = _genome_with_counts([100, 200, 0, 200, 50])
    assert problem(genome) == fitness(genome, 5)
    problem(genome)
    assert problem.calls == 2
    with pytest.raises(BoardgymError, match="1000 bits"):
        problem(np.ones(10))
    assert problem.calls == 2


@pytest.mark.parametrize("instance", [0, 1001, 2.5, "ten"])
def test_bad_instance_is_refused(instance: object) -> None:
    with pytest.raises(BoardgymError, match="instance"):
        BlackBoxProblem(instance)  # type: ignore[arg-type]


def test_game_sets_one_locus_per_action() -> None:
    game = make_game("blackbox", instance=2, genome_length=6)
    assert isinstance(game, BlackBox) and game.num_players == 1 and game.num_actions == 2
    state = game.initial_state()
    for bit in [1, 0, 1, 0, 1, 1]:
        assert not game.is_terminal(state) and game.legal_actions(state) == [0, 1]
        state = game.apply(state, bit)
    assert game.is_terminal(state) and game.legal_actions(state) == []
    # loci 0, 2, 4 (slice 0) are all ones, slice 1 holds one: (3 - 1 * 0.1) / 6
    assert game.returns(state) == pytest.approx(((3 - 0.1) / 6,))
    assert game.genome(state).tolist() == [1, 0, 1, 0, 1, 1]
    planes = game.observation(state, 0)
    assert planes.shape == (2, 6) and planes[1].all()
    with pytest.raises(IllegalActionError):
        game.apply(state, 1)
    with pytest.raises(IllegalActionError):
        game.parse_action(game.initial_state(), "2")
