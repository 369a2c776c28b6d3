"""Row operations over a batched state (a NamedTuple of tensors whose leading dimension is the
batch): take some games, mix two states game by game, write games into a copy or in place,
join two batches. The one set the rules, the batched search and self-play share (also under
``boardgym.batch.core``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

import torch


class Rows(Protocol):
    """A NamedTuple of tensors, one row a game."""

    @property
    def _fields(self) -> tuple[str, ...]: ...
    @property
    def _replace(self) -> Callable[..., Any]: ...
    def __iter__(self) -> Iterator[torch.Tensor]: ...


S = TypeVar("S", bound=Rows)


def take_rows(state: S, rows: torch.Tensor) -> S:
    """The games ``rows`` (``long[R]``) of ``state``, in that order: every field's rows."""
    taken: S = state._replace(
        **{name: value.index_select(0, rows) for name, value in zip(state._fields, state, strict=True)}
    )
    return taken


def where_rows(mask: torch.Tensor, chosen: S, other: S, keep: Sequence[str] = ()) -> S:
    """Per game, ``chosen``'s where ``mask`` (``bool[B]``), else ``other``'s: every field by one
    ``torch.where`` (a field of ``chosen`` with one game broadcasts), fixed shapes, no host
    read; the fields ``keep`` are ``other``'s."""
    fields = {}
    for name, value in zip(other._fields, other, strict=True):
        if name not in keep:
            fields[name] = torch.where(mask.view(-1, *([1] * (value.dim() - 1))), getattr(chosen, name), value)
    mixed: S = other._replace(**fields)
    return mixed


def put_rows(state: S, rows: torch.Tensor, fresh: S) -> S:
    """A copy of ``state`` with the games of ``fresh`` in ``rows`` (``long[R]``, one per game of
    ``fresh``); ``state`` itself unchanged."""
    put: S = state._replace(
        **{
            name: value.index_copy(0, rows, getattr(fresh, name))
            for name, value in zip(state._fields, state, strict=True)
        }
    )
    return put


def put_rows_(state: Any, rows: torch.Tensor, fresh: Any) -> None:
    """The games of ``fresh`` written into ``state``'s own tensors at ``rows`` (in place: for
    buffers that must keep their storage, the static inputs of a captured CUDA graph)."""
    for name, value in zip(state._fields, state, strict=True):
        value.index_copy_(0, rows, getattr(fresh, name))


def cat_rows(state: S, more: S) -> S:
    """The games of ``state``, then those of ``more``."""
    joined: S = state._replace(
        **{name: torch.cat((value, getattr(more, name))) for name, value in zip(state._fields, state, strict=True)}
    )
    return joined
