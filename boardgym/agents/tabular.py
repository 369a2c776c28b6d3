"""Greedy play from a table of state-action values, and the table's checkpoint format.

The tables come from ``boardgym train qlearning`` and ``boardgym train montecarlo``. A
``ValueTable`` maps each visited state to the values of its legal actions, from the point of
view of the player on move. States are the rules' immutable NamedTuples; on disk each state
is written as the flat tuple of its ints (``encode_state``), so a checkpoint is a dict of
tensors that ``torch.load(weights_only=True)`` reads without unpickling any class:

    keys     int64 (states, key_length)  flat ints of each state
    offsets  int64 (states + 1,)         row i's actions are actions[offsets[i]:offsets[i+1]]
    actions  int64 (entries,)            legal actions of each state, ascending
    values   float64 (entries,)          their values for the player on move

plus the stamps of ``boardgym.checkpoints.save_checkpoint`` (``format``, ``game_signature``) and
training bookkeeping (``method``, ``step``, the exploration generator's state).
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import Any, cast

import numpy as np

from boardgym.agents.base import BaseAgent
from boardgym.checkpoints import check_finite, checkpoint_content, load_checkpoint
from boardgym.game import Game
from boardgym.types import Action, BoardgymError

FORMAT = "boardgym.tabular/1"
TABLE_KEYS = ("keys", "offsets", "actions", "values")

Entry = list  # [actions: tuple[int, ...], values: list[float]]
"""One table row: the legal actions of a state and their values, kept as a mutable list so
that training updates in place without a second dictionary lookup."""


class ValueTable:
    """``rows[state] = [actions, values]`` for every state seen; created lazily on lookup."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rows: dict[Hashable, Entry] = {}

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, state: Hashable) -> Entry:
        """The row of ``state``, adding it with zero values on first sight."""
        entry = self.rows.get(state)
        if entry is None:
            actions = tuple(self.game.legal_actions(state))
            entry = self.rows[state] = [actions, [0.0] * len(actions)]
        return entry

    def greedy_actions(self, state: Hashable) -> list[Action] | None:
        """The best-valued legal actions in ``state``, or None if the state was never seen."""
        entry = self.rows.get(state)
        if entry is None:
            return None
        actions, values = entry
        best = max(values)
        return [a for a, v in zip(actions, values, strict=True) if v == best]

    # -- checkpoint payload --------------------------------------------------------------------
    def to_payload(self) -> dict[str, Any]:
        import torch

        keys, offsets, actions, values = [], [0], [], []
        for state, (row_actions, row_values) in self.rows.items():
            keys.append(encode_state(state))
            actions.extend(row_actions)
            values.extend(row_values)
            offsets.append(len(actions))
        width = {len(k) for k in keys}
        if len(width) > 1:
            raise BoardgymError(
                f"states of {self.game.name} flatten to different lengths {sorted(width)}; "
                "tabular methods need fixed-size states"
            )
        try:
            key_tensor = torch.tensor(keys, dtype=torch.int64).reshape(len(keys), -1 if keys else 0)
        except RuntimeError:
            raise BoardgymError(
                f"states of {self.game.name} hold ints beyond 64 bits; the game is too large for tabular methods"
            ) from None
        return {
            "keys": key_tensor,
            "offsets": torch.tensor(offsets, dtype=torch.int64),
            "actions": torch.tensor(actions, dtype=torch.int64),
            "values": torch.tensor(values, dtype=torch.float64),
        }

    @classmethod
    def from_payload(
        cls, game: Game, payload: dict[str, Any], *, decode: bool = True, path: Path | str = "the checkpoint"
    ) -> ValueTable:
        """Rebuild the table; with ``decode`` the keys are the rules' states (for training),
        without it they stay flat int tuples (enough for play, see ``TabularAgent``)."""
        table = cls(game)
        width = len(encode_state(game.initial_state()))
        if payload["keys"].ndim == 2 and len(payload["keys"]) and payload["keys"].shape[1] != width:
            raise BoardgymError(
                f"{str(path)!r} stores {game.name} states as {payload['keys'].shape[1]} ints, but the states of "
                f"this version of boardgym hold {width}: it was written by an older version; train it again "
                f"(boardgym train {payload.get('method', 'qlearning')} --game {game.name})"
            )
        import torch

        keys = _ints(payload["keys"], 2, "keys")
        offsets = _ints(payload["offsets"], 1, "offsets")
        actions = _ints(payload["actions"], 1, "actions")
        values = payload["values"]
        if not torch.is_tensor(values) or values.ndim != 1 or not values.is_floating_point():
            raise TypeError("values is not a vector of numbers")
        check_finite(values, "values")
        values = values.tolist()
        if (
            len(offsets) != len(keys) + 1
            or offsets[0] != 0
            or offsets[-1] != len(actions)
            or len(actions) != len(values)
            or any(b <= a for a, b in zip(offsets, offsets[1:], strict=False))
            or any(not 0 <= a < game.num_actions for a in actions)
            or (keys and any(len(k) != width for k in keys))
        ):
            raise ValueError("its keys, offsets, actions and values do not describe one table")
        template = game.initial_state()
        for i, key in enumerate(keys):
            start, end = offsets[i], offsets[i + 1]
            state = decode_state(template, key) if decode else tuple(key)
            table.rows[state] = [tuple(actions[start:end]), values[start:end]]
        return table


def _ints(value: Any, ndim: int, name: str) -> list[Any]:
    """A tensor of ints of ``ndim`` dimensions as nested lists, or a ``TypeError``."""
    import torch

    if not torch.is_tensor(value) or value.ndim != ndim or value.is_floating_point() or value.is_complex():
        raise TypeError(f"{name} is not a {ndim}-d tensor of integers")
    result: list[Any] = value.tolist()
    return result


def encode_state(state: Any) -> tuple[int, ...]:
    """The flat tuple of ints inside a (nested) NamedTuple state, in field order."""
    flat: list[int] = []
    _flatten(state, flat)
    return tuple(flat)


def decode_state(template: Any, flat: list[int] | tuple[int, ...]) -> Any:
    """Inverse of ``encode_state``, using a state of the same game for the nesting."""
    state, used = _unflatten(template, flat, 0)
    if used != len(flat):
        raise BoardgymError(f"a saved state has {len(flat)} ints but states of this game hold {used}")
    return state


class TabularAgent(BaseAgent):
    """Plays the highest-valued action of a trained table (ties broken at random); in a
    state the table never saw, a uniformly random legal action."""

    def __init__(self, game: Game, *, seed: int | None = None, checkpoint: Path | None = None) -> None:
        super().__init__(game, seed=seed)
        payload = load_checkpoint(checkpoint, format=FORMAT, game=game, required=TABLE_KEYS, method="qlearning")
        method = payload.get("method")
        self.method = method if isinstance(method, str) else "tabular"
        with checkpoint_content(checkpoint, method=method if isinstance(method, str) else "qlearning", game=game):
            self.table = ValueTable.from_payload(game, payload, decode=False, path=str(checkpoint))
        self.unseen_states = 0

    def act(self, game: Game, state: Any) -> Action:
        choices = self.table.greedy_actions(encode_state(state))
        if choices is None:
            self.unseen_states += 1
            choices = game.legal_actions(state)
        return choices[int(self.rng.integers(len(choices)))] if len(choices) > 1 else choices[0]


def _flatten(value: Any, out: list[int]) -> None:
    if isinstance(value, tuple):
        for item in value:
            _flatten(item, out)
    elif isinstance(value, (bool, int, np.integer)):
        out.append(int(value))
    else:
        raise BoardgymError(
            f"state field {value!r} ({type(value).__name__}) is not an int or tuple of ints; "
            "tabular methods need states made of ints"
        )


def _unflatten(template: Any, flat: list[int] | tuple[int, ...], pos: int) -> tuple[Any, int]:
    if isinstance(template, tuple):
        items = []
        for item in template:
            value, pos = _unflatten(item, flat, pos)
            items.append(value)
        return (cast(Any, template)._make(items) if hasattr(template, "_fields") else tuple(items)), pos
    if pos >= len(flat):
        raise BoardgymError("a saved state is shorter than the states of this game; the checkpoint is for another game")
    return flat[pos], pos + 1
