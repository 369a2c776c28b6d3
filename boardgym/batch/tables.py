"""Small tables and draws the batched rules share: a constant kept per device, a uniformly
random set bit or true column, a uniformly random number below a count, bits to masks and
back."""

from __future__ import annotations

from typing import Any

import torch


def constant(values: Any, device: torch.device, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A small table as a tensor on ``device``, made once and kept."""
    key = (repr(values), device, dtype)
    table = _CONSTANTS.get(key)
    if table is None:
        table = _CONSTANTS[key] = torch.tensor(values, dtype=dtype, device=device)
    return table


_CONSTANTS: dict[tuple[str, torch.device, torch.dtype], torch.Tensor] = {}


def pick_tables(width: int) -> tuple[list[int], list[int]]:
    """For choosing a uniformly random set bit of a ``width``-bit mask in two look-ups: the
    count of set bits of every mask, and the ``k``-th set bit of mask ``m`` at ``m * width + k``."""
    counts = [mask.bit_count() for mask in range(1 << width)]
    picks = [0] * ((1 << width) * width)
    for mask in range(1 << width):
        for k, bit in enumerate(b for b in range(width) if mask >> b & 1):
            picks[mask * width + k] = bit
    return counts, picks


def uniform_pick(mask: torch.Tensor, generator: torch.Generator | None) -> torch.Tensor:
    """A uniformly random true column of each row of ``mask`` (bool ``[B, A]``), one uniform
    draw a row; the last column where a row has none."""
    counts = mask.cumsum(1)
    pick = (torch.rand(len(counts), generator=generator, device=mask.device) * counts[:, -1]).long()
    return (counts <= pick.unsqueeze(1)).sum(1).clamp(max=mask.shape[1] - 1)


def random_below(counts: torch.Tensor, most: int, generator: torch.Generator | None) -> torch.Tensor:
    """``int32[B]``: a uniformly random whole number below each of ``counts`` (``int32[B]``, each
    from 0 to ``most``; 0 where a count is 0): ``31 - most.bit_length()`` random bits scaled
    by the count, all in 32-bit integers (a float draw and its conversions cost twice as much). Off uniform by less than
    ``most / 2**(31 - most.bit_length())``: under 1e-7 for nine choices."""
    shift = most.bit_length()
    if shift > 15:
        raise ValueError(f"counts up to {most} need more than 31 random bits")
    bits = torch.empty(len(counts), dtype=torch.int32, device=counts.device)
    return (bits.random_(0, 1 << (31 - shift), generator=generator) * counts) >> (31 - shift)


def bits_to_mask(bits: torch.Tensor, count: int) -> torch.Tensor:
    """``bool[B, count]``: bit ``i`` of each ``bits`` (``long[B]``)."""
    shifts = torch.arange(count, device=bits.device)
    return (bits.unsqueeze(1) >> shifts) & 1 == 1


def mask_to_bits(mask: torch.Tensor) -> torch.Tensor:
    """``long[B]``: the bits of ``bool[B, n]`` (n at most 63)."""
    weights = 1 << torch.arange(mask.shape[1], device=mask.device)
    return (mask.long() * weights).sum(1)
