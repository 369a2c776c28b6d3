"""Helpers over bitboards held as integer tensors: whether a board holds a full line, and a
board's bits as float planes; each a handful of ops over the whole batch.

``LineTest`` reads the lines from the scalar rules (``Quixo.lines``, Quarto's ``LINES``), never
a second copy of the geometry. The lines of a square board fall into a few families of evenly
spaced cells, one stride each (rows 1, columns ``n``, the diagonals ``n + 1`` and ``n - 1``).
For a family, bit ``i`` of ``x & x >> s & x >> 2s & ...`` (built by doubling: two ops per
doubling) says whether the run of that stride starting at cell ``i`` is full, and a mask keeps
the cells where the family's lines start. The families are stacked on a leading dimension
(their strides and masks broadcast), so the whole test is a few ops whatever their number.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import torch


class LineTest:
    """``test(x)``: bool, the shape of ``x``: whether the bitboard ``x`` (of ``dtype``, any
    shape) holds one of ``lines`` (bitboards over cells ``0..``, all of one length, each of
    evenly spaced cells). With ``offsets``, ``x`` holds several boards side by side (the
    board shifted by each offset: Quarto's four attributes in one word) and the test is
    whether any of them holds a line."""

    def __init__(
        self, lines: Sequence[int], device: torch.device, dtype: torch.dtype = torch.long, offsets: Sequence[int] = (0,)
    ) -> None:
        families: dict[int, int] = {}  # stride -> the first cells of its lines (bits)
        lengths = set()
        for line in lines:
            cells = [cell for cell in range(line.bit_length()) if line >> cell & 1]
            gaps = {b - a for a, b in zip(cells, cells[1:], strict=False)}
            if len(gaps) != 1:
                raise ValueError(f"line {line:#x}: its cells are not evenly spaced")
            lengths.add(len(cells))
            stride = gaps.pop()
            families[stride] = families.get(stride, 0) | 1 << cells[0]
        if len(lengths) != 1:
            raise ValueError(f"lines of several lengths: {sorted(lengths)}")
        (length,) = lengths
        bits = torch.iinfo(dtype).bits

        def column(values: list[int]) -> torch.Tensor:  # one value per family, as the bits ``dtype`` keeps
            signed = [value - (1 << bits) if value >= 1 << (bits - 1) else value for value in values]
            return torch.tensor(signed, dtype=dtype, device=device).view(len(values), 1)

        strides = list(families)
        self.starts = column([sum(families[stride] << offset for offset in offsets) for stride in strides])
        # The run of 2k cells is that of k and itself shifted by k cells; each set bit of
        # ``length`` takes the run of that size, shifted past the cells already taken.
        self.plan: list[tuple[bool, torch.Tensor | None]] = []  # (double? else take, shift)
        size, covered = 1, 0
        while size <= length:
            if length & size:
                self.plan.append((False, column([covered * s for s in strides]) if covered else None))
                covered += size
            if 2 * size <= length:
                self.plan.append((True, column([size * s for s in strides])))
            size *= 2
        self._views: dict[int, tuple[list[tuple[bool, torch.Tensor | None]], torch.Tensor]] = {}

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        plan, starts = self._for(x.dim())
        power, run = x, None
        for double, shift in plan:
            if double:
                assert shift is not None
                power = power & (power >> shift)
            else:
                shifted = power if shift is None else power >> shift
                run = shifted if run is None else run & shifted
        assert run is not None
        return (run & starts).amax(0) != 0

    def _for(self, dims: int) -> tuple[list[tuple[bool, torch.Tensor | None]], torch.Tensor]:
        """The plan and the starts shaped to broadcast over a board of ``dims`` dimensions."""
        if dims not in self._views:
            shape = (len(self.starts),) + (1,) * dims
            plan = [(double, None if shift is None else shift.view(shape)) for double, shift in self.plan]
            self._views[dims] = plan, self.starts.view(shape)
        return self._views[dims]


class BitPlanes:
    """``planes(words, bits)``: ``float32[*words.shape, bits]``, the low ``bits`` bits of each
    word (bit ``i`` at ``[..., i]``), by one look-up per byte (the words' bytes in memory,
    lowest first on a little-endian machine, as every machine torch runs on is)."""

    def __init__(self, device: torch.device) -> None:
        values = torch.arange(256, device=device).unsqueeze(1)
        self.table = ((values >> torch.arange(8, device=device)) & 1).float()  # [256, 8]
        self.device = device

    def __call__(self, words: torch.Tensor, bits: int) -> torch.Tensor:
        if sys.byteorder != "little":  # pragma: no cover - no such machine in sight
            return ((words.unsqueeze(-1) >> torch.arange(bits, device=self.device)) & 1).float()
        width = words.element_size()
        used = (bits + 7) // 8
        raw = words.contiguous().view(torch.uint8).view(*words.shape, width)[..., :used]
        planes = self.table.index_select(0, raw.reshape(-1).int()).view(*words.shape, 8 * used)
        return planes if bits == 8 * used else planes[..., :bits]
