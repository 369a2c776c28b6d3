"""The checks of a batched state that comes from outside the rules (``BatchedGame``'s
``check_structure``, ``check_state`` and ``from_scalar_states``), each problem one sentence
naming the field:

- the structure: the rules' own NamedTuple type, each field a tensor of the dtype, the shape
  past the batch and the device the rules keep, one batch size in all. Metadata only (no
  value is read, nothing waits for a device), so it runs at every public entry, ``step``
  included;
- the values (``check_state``): the fields every game has (players 0 or 1, rewards -1, 0 or
  1, no negative count of moves, no truncation where the game has no move limit), then the
  game's own (``_value_problems``: board codes, bitboards that agree, Hex's forest). It reads
  the values on the host, so it runs on demand, in ``from_scalar_states`` and in the native
  vector env's ``reset``, never in ``step``;
- the scalar states given to ``from_scalar_states``: a list (or tuple) of this game's states;
  whatever the game's conversion cannot read is one sentence naming the first such state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

import torch

from boardgym.game import Game
from boardgym.types import BoardgymError


class BatchedGame(Protocol):
    """What these checks read of the rules (``boardgym.batch.core.BatchedGame``, which imports
    this module: named here by its shape, so that the two modules make no import cycle)."""

    _spec: StateSpec | None
    device: torch.device
    game: Game
    truncates: bool

    def _start(self, batch: int, generator: torch.Generator | None) -> Any: ...
    def _value_problems(self, state: Any) -> list[tuple[str, str, torch.Tensor]]: ...
    def _from_scalar_states(self, states: Sequence[Any]) -> Any: ...
    def check_structure(self, state: Any, name: str = "state") -> int: ...


MOST_SHOWN = 80
"""The characters of a bad value a sentence quotes."""


@dataclass(frozen=True)
class StateSpec:
    """What the rules' states look like: their type, and per field its dtype and its shape past
    the batch (read once from a state at the start)."""

    kind: type
    fields: tuple[tuple[str, torch.dtype, tuple[int, ...]], ...]


def spec_of(rules: BatchedGame) -> StateSpec:
    spec = rules._spec
    if spec is None:
        start = rules._start(1, None)
        spec = rules._spec = StateSpec(
            type(start),
            tuple(
                (name, value.dtype, tuple(value.shape[1:])) for name, value in zip(start._fields, start, strict=True)
            ),
        )
    return spec


def check_structure(rules: BatchedGame, state: Any, name: str = "state") -> int:
    """The batch size of ``state``, or one sentence (see the module doc)."""
    spec = rules._spec or spec_of(rules)
    if type(state) is not spec.kind:
        raise BoardgymError(
            f"{name} is {_shown(state)}, not a {spec.kind.__name__} of {rules.game.name}'s batched rules: "
            "make it with init, step or from_scalar_states"
        )
    batch = -1
    device = rules.device
    for (field, dtype, tail), value in zip(spec.fields, cast(tuple[Any, ...], state), strict=True):
        if not isinstance(value, torch.Tensor):
            raise BoardgymError(f"{name}.{field} is a {type(value).__name__}, not a tensor")
        shape = value.shape
        if batch < 0:
            batch = shape[0] if shape else 0
            if batch < 1:
                raise BoardgymError(f"{name}.{field} has shape {tuple(shape)}: a state holds at least one game")
        if value.dtype != dtype:
            raise BoardgymError(f"{name}.{field} is {value.dtype}; these rules keep it as {dtype}")
        if len(shape) != len(tail) + 1 or shape[0] != batch or tuple(shape[1:]) != tail:
            want = (batch, *tail)
            raise BoardgymError(
                f"{name}.{field} has shape {tuple(shape)}, not {want}: a state of another size, or of "
                f"mixed batch sizes ({name}.{spec.fields[0][0]} holds {batch} games)"
            )
        if value.device != device:
            raise BoardgymError(
                f"{name}.{field} is on {value.device}, the rules on {device}: move every field with .to()"
            )
    return batch


def check_state(rules: BatchedGame, state: Any) -> None:
    """One sentence naming the field of the first inconsistent value of ``state``."""
    rules.check_structure(state)
    problem = first_problem(rules, state)
    if problem is not None:
        field, what, games = problem
        shown = ", ".join(str(game) for game in games[:5]) + (", ..." if len(games) > 5 else "")
        raise BoardgymError(f"state.{field} {what} in game(s) {shown}: not a state these rules can reach")


def first_problem(rules: BatchedGame, state: Any) -> tuple[str, str, list[int]] | None:
    """The first inconsistent field of ``state`` (structure checked): its name, what is wrong,
    and the games where it is; None where every game is consistent."""
    rewards = state.rewards
    problems: list[tuple[str, str, torch.Tensor]] = [
        ("current_player", "is not 0 or 1", (state.current_player != 0) & (state.current_player != 1)),
        ("rewards", "is not -1, 0 or 1", ((rewards != 0) & (rewards != 1) & (rewards != -1)).any(1)),
        ("steps", "is negative", state.steps < 0),
        ("terminated", "and truncated are both set", state.terminated & state.truncated),
    ]
    if not rules.truncates:
        problems.append(("truncated", "is set, but this game has no move limit", state.truncated))
    for checks in (problems, None):  # the game's own checks may assume the common fields sound
        for field, what, where in rules._value_problems(state) if checks is None else checks:
            bad = where.nonzero()
            if len(bad):
                return field, what, bad.view(-1).tolist()
    return None


def from_scalar_states(rules: BatchedGame, states: Any) -> Any:
    """``rules._from_scalar_states(states)``, checked (see the module doc)."""
    game = rules.game.name
    if isinstance(states, (str, bytes)) or not isinstance(states, Sequence):
        raise BoardgymError(f"give a list of {game} states, not {_shown(states)}")
    if not states:
        raise BoardgymError(f"give at least one {game} state: the list is empty")
    try:
        batch = rules._from_scalar_states(states)
    except Exception as error:  # a state of another game: find which one, then say so
        for index, scalar in enumerate(states):
            try:
                rules._from_scalar_states([scalar])
            except Exception:
                raise BoardgymError(
                    f"states[{index}] is {_shown(scalar)}: not a {game} state "
                    f"({type(error).__name__} reading it); give states of {game}'s scalar rules"
                ) from None
        raise BoardgymError(f"these {len(states)} states do not make one batch of {game}: {error}") from None
    problem = first_problem(rules, batch)
    if problem is not None:
        field, what, games = problem
        raise BoardgymError(
            f"states[{games[0]}] is not a {game} state its rules can reach: its {field} {what} "
            f"(as the batched rules hold it: state.{field})"
        )
    return batch


def _shown(value: Any) -> str:
    text = repr(value)
    if len(text) > MOST_SHOWN:
        text = text[: MOST_SHOWN - 3] + "..."
    return f"{type(value).__name__} {text}" if not isinstance(value, (tuple, list)) else text
