"""Hypothesis strategies shared by the fuzz tests: actions of every kind a user's code may
pass, legal or not, well-typed or not."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from hypothesis import strategies as st

ILL_TYPED: list[Any] = [
    None,
    3.0,
    2.5,
    float("nan"),
    float("inf"),
    -float("inf"),
    "3",
    "",
    True,
    False,
    np.bool_(True),
    np.float32(1.0),
    np.array(None),
    np.array(4.9),
    np.array("4"),
    np.array([1]),
    np.array([[1, 2]]),
    [1],
    (1,),
    {1: 2},
    b"1",
    1 + 0j,
    object(),
]


def actions(num_actions: int) -> st.SearchStrategy[Any]:
    """Mostly in-range integers (as int, numpy scalars and 0-d arrays), some out of range and
    some of no integer type at all."""
    in_range = st.integers(0, num_actions - 1)
    return st.one_of(
        in_range,
        in_range,
        in_range.map(np.int64),
        in_range.filter(lambda a: a < 256).map(np.uint8),
        in_range.map(lambda a: np.array(a, dtype=np.int32)),
        st.integers(-(2**70), 2**70),
        st.integers(-3, num_actions + 3),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=3),
        st.sampled_from(ILL_TYPED),
    )


def random_action(rng: random.Random, num_actions: int) -> Any:
    """One action drawn as ``actions`` draws them, from a seeded generator: hypothesis gives
    the seeds, this gives thousands of actions per example at the cost of a few calls each."""
    kind = rng.random()
    if kind < 0.45:
        return rng.randrange(num_actions)
    action = rng.randrange(num_actions)
    if kind < 0.55:
        return np.int64(action)
    if kind < 0.6:
        return np.uint8(action) if action < 256 else np.uint16(action)
    if kind < 0.65:
        return np.array(action, dtype=rng.choice([np.int8, np.int32, np.uint64]) if action < 128 else np.int32)
    if kind < 0.75:
        return rng.randint(-3, num_actions + 3)
    if kind < 0.8:
        return rng.choice([-1, 1]) * rng.getrandbits(rng.randrange(1, 80))
    if kind < 0.87:
        return rng.choice([float(action), action + 0.5, float("nan"), float("inf"), -float(action)])
    if kind < 0.92:
        return rng.choice([str(action), f"{action} ", "x", ""])
    return rng.choice(ILL_TYPED)


def is_integer(value: Any) -> bool:
    """Whether ``as_action`` reads ``value`` as an index (a Python or numpy integer, no bool)."""
    if type(value) is int or isinstance(value, np.integer):
        return True
    return isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu"
