"""Whether bitboards hold a full line, in a few shifts over the whole batch, with the lines read
from the scalar rules (``Quixo.lines``, Quarto's ``LINES``), never written out again here.

The lines of a square board fall into a few families of evenly spaced cells with one stride
(rows 1, columns ``n``, the diagonals ``n + 1`` and ``n - 1``). For a family, bit ``i`` of
``x & x >> s & x >> 2s & ...`` (built by doubling: about two shifts per doubling) says
whether the line of that stride starting at cell ``i`` is full, and a mask keeps the cells
where the family's lines start; a family of one line is tested by one comparison instead.

A cell may be ``width`` bits wide (Quarto keeps a piece's four attributes in a cell's four
bits): a line is then "full" where some bit is set in every one of its cells.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


class LineTest:
    """``test(x)``: bool, the shape of ``x`` (``long``, any shape): whether ``x`` holds one of
    ``lines`` (each a bitboard over cells ``0..``; every line of the same length)."""

    def __init__(self, lines: Sequence[int], device: torch.device, width: int = 1) -> None:
        families: dict[int, int] = {}  # stride (in cells) -> the first cells of its lines (bits)
        self.length = 0
        singles = []
        for line in lines:
            cells = [cell for cell in range(line.bit_length()) if line >> cell & 1]
            strides = {b - a for a, b in zip(cells, cells[1:], strict=False)}
            if len(strides) != 1 or (self.length and len(cells) != self.length):
                raise ValueError(f"line {line:#x}: cells not evenly spaced, or lines of different lengths")
            self.length = len(cells)
            stride = strides.pop()
            families[stride] = families.get(stride, 0) | 1 << cells[0]
            singles.append((stride, line))
        cell_mask = (1 << width) - 1

        def spread(cells: int) -> int:  # a cell bitboard in cells of ``width`` bits, as int64
            value = sum(cell_mask << width * cell for cell in range(cells.bit_length()) if cells >> cell & 1)
            return value - (1 << 64) if value >= 1 << 63 else value

        def constant(value: int) -> torch.Tensor:
            return torch.tensor(value, dtype=torch.long, device=device)

        # The doubling plan for a run of ``length`` cells: the run of 2k cells is that of k and
        # itself shifted by k cells; each set bit of ``length`` takes the run of that size,
        # shifted past the cells already taken.
        plan: list[tuple[bool, int]] = []  # (double?, by how many cells to shift)
        size, covered = 1, 0
        while size <= self.length:
            if self.length & size:
                plan.append((False, covered))
                covered += size
            if 2 * size <= self.length:
                plan.append((True, size))
            size *= 2
        self.runs: list[tuple[list[tuple[bool, torch.Tensor | None]], torch.Tensor]] = []
        self.equal: list[torch.Tensor] = []  # lines alone in their family: x & line == line
        for stride, starts in families.items():
            alone = [line for s, line in singles if s == stride]
            if width == 1 and len(alone) == 1:
                self.equal.append(constant(alone[0]))
                continue
            steps = [(double, constant(cells * stride * width) if cells else None) for double, cells in plan]
            self.runs.append((steps, constant(spread(starts))))

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        hits: torch.Tensor | None = None
        for steps, starts in self.runs:
            power, run = x, None
            for double, shift in steps:
                if double:
                    assert shift is not None
                    power = power & (power >> shift)
                else:
                    shifted = power if shift is None else power >> shift
                    run = shifted if run is None else run & shifted
            assert run is not None
            hits = run & starts if hits is None else hits | (run & starts)
        found = hits != 0 if hits is not None else torch.zeros_like(x, dtype=torch.bool)
        for line in self.equal:
            found = found | ((x & line) == line)
        return found
