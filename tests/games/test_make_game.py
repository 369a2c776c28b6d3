"""make_game and -p KEY=VALUE: every parameter typed by its constructor's annotation, sizes
that would exhaust memory or time refused with the limit named."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from boardgym.games import make_game, parse_game_params
from boardgym.types import BoardgymError


@pytest.mark.parametrize(
    ("game", "items", "key", "expected"),
    [
        ("nim", ["misere=no"], "misere", False),
        ("nim", ["misere=off"], "misere", False),
        ("nim", ["misere=yes"], "misere", True),
        ("hex", ["swap=off"], "swap", False),
        ("hex", ["swap=on"], "swap", True),
    ],
)
def test_booleans_on_the_command_line_mean_what_they_say(game: str, items: list[str], key: str, expected: bool) -> None:
    assert make_game(game, **parse_game_params(items, game)).params()[key] is expected
    assert make_game(game, **parse_game_params(items)).params()[key] is expected  # read by make_game


@pytest.mark.parametrize("text", ["False", "false", "no", "0"])
def test_boolean_text_given_in_code_is_read_strictly(text: str) -> None:
    assert make_game("nim", misere=text).misere is False


@pytest.mark.parametrize(
    ("game", "params", "message"),
    [
        ("nim", {"misere": "maybe"}, "misere='maybe' must be true or false"),
        ("nim", {"misere": 2}, "misere=2 must be true or false"),
        ("nim", {"misere": None}, "misere=None must be true or false"),
        ("nim", {"heaps": 3.5}, "heaps=3.5 must be"),
        ("nim", {"heaps": (3.5, 2)}, "heaps=(3.5, 2) must be"),
        ("nim", {"heaps": "3.5"}, "heaps='3.5' must be positive integers"),
        ("nim", {"heaps": (True, 2)}, "heaps=(True, 2) must be"),
        ("nim", {"k": 2.0}, "k=2.0 must be an integer"),
        ("hex", {"size": 5.0}, "size=5.0 must be an integer"),
        ("hex", {"swap": "perhaps"}, "swap='perhaps' must be true or false"),
        ("quixo", {"max_moves": 1.5}, "max_moves=1.5 must be an integer"),
        ("setcover", {"density": "abc"}, "density='abc' must be a finite number"),
        ("setcover", {"density": float("nan")}, "density=nan must be a finite number"),
        ("setcover", {"density": True}, "density=True must be a finite number"),
        ("setcover", {"seed": 1.5}, "seed=1.5 must be an integer"),
        ("setcover", {"sets": [[0, 1.5]]}, "cannot read set cover sets"),
        ("blackbox", {"instance": 2.0}, "instance=2.0 must be an integer"),
    ],
)
def test_values_of_the_wrong_type_are_refused_not_truncated(game: str, params: dict[str, Any], message: str) -> None:
    with pytest.raises(BoardgymError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_game(game, **params)


def test_numpy_values_are_taken_as_plain_python() -> None:
    game = make_game("nim", heaps=np.array([2, 3]), misere=np.bool_(True), k=np.int64(2))
    assert game.params() == {"heaps": (2, 3), "misere": True, "k": 2}
    assert all(type(h) is int for h in game.heaps)


@pytest.mark.parametrize(
    ("game", "params", "message"),
    [
        ("setcover", {"seed": "-1"}, "seed=-1 must be a non-negative integer"),
        ("setcover", {"seed": -1}, "seed=-1 must be a non-negative integer"),
        ("nim", {"heaps": "1000000"}, "at most 64 heaps of at most 1000 objects"),
        ("nim", {"heaps": "100000"}, "at most 64 heaps of at most 1000 objects"),
        ("nim", {"heaps": ",".join(["1"] * 65)}, "at most 64 heaps"),
        ("setcover", {"problem_size": "1e9"}, "problem_size='1e9' must be an integer"),
        ("setcover", {"problem_size": 10**9}, "problem_size=1000000000 is too large: at most 10000"),
        ("setcover", {"num_sets": 10**9}, "num_sets=1000000000 is too large: at most 10000"),
        ("setcover", {"problem_size": 5000, "num_sets": 5000}, "the product may be at most 4,000,000"),
        ("setcover", {"sets": "0 99999999"}, "too large: at most 10000 sets of the elements 0..9999"),
        ("blackbox", {"genome_length": 10**12}, "genome_length=1000000000000 is too large: at most 1,000,000"),
    ],
)
def test_sizes_beyond_the_limits_are_refused_with_the_limit(game: str, params: dict[str, Any], message: str) -> None:
    with pytest.raises(BoardgymError, match=message):
        make_game(game, **params)


def test_the_largest_allowed_sizes_build() -> None:
    assert make_game("nim", heaps="1000").num_actions == 1000
    assert make_game("setcover", problem_size=2000, num_sets=2000, density=0.01).num_sets == 2000
