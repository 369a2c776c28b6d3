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
