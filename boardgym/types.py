"""Shared type aliases and the errors a user can cause."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Action = int
"""An index into a game's fixed action space, ``0 <= action < game.num_actions``."""

Player = int
"""A seat: 0 moves first, 1 second (puzzles have only 0)."""

Mask = npt.NDArray[np.bool_]
"""Boolean legal-action mask of shape ``(num_actions,)``."""

Planes = npt.NDArray[np.float32]
"""Observation planes, channels first: ``(channels, rows, columns)`` or a flat vector."""


class BoardgymError(ValueError):
    """A mistake a user can make: bad name, bad spec, bad config, bad checkpoint.

    The message is one sentence that names the bad value and how to fix it.
    """


class IllegalActionError(BoardgymError):
    """An action that the rules do not allow in this state."""


def as_action(value: object) -> Action:
    """``value`` as a plain ``int`` action index, the one place where every game's ``apply``
    and every env's ``step`` read what they were given.

    An ``int`` passes, a numpy integer (scalar or 0-d array, what a policy's ``argmax`` or
    Stable-Baselines3's ``predict`` returns) becomes an ``int``; anything else (``None``, a
    float even if whole, a string, a bool, a list, an array of another kind) is an
    ``IllegalActionError`` naming the value. Whether the index is in range and legal is the
    rules' business. Games call it only for values that are not already an ``int``::

        if type(action) is not int:
            action = as_action(action)
    """
    if type(value) is int:
        return value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        return int(value)
    kind = type(value).__name__
    if isinstance(value, np.ndarray):
        kind = f"{value.dtype} array of shape {value.shape}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    raise IllegalActionError(f"action {text} ({kind}) is not an action index; pass an int such as 0")
