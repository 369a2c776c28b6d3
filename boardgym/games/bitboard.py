"""Small helpers shared by the int-bitboard games."""

from __future__ import annotations

import numpy as np

from boardgym.types import Planes


def bits_to_cells(bits: int, num_cells: int) -> Planes:
    """Unpack the low ``num_cells`` bits of ``bits`` into a float32 vector (bit i -> cell i)."""
    raw = np.frombuffer(bits.to_bytes((num_cells + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little", count=num_cells).astype(np.float32)


def stone_grid(first: int, second: int, n: int) -> np.ndarray:
    """The n x n int8 grid of two bitboards of ``n * n`` cells (bit i -> row i // n, column
    i % n): 1 on ``first``'s cells, 2 on ``second``'s, 0 elsewhere."""
    grid = bits_to_cells(first, n * n) + 2 * bits_to_cells(second, n * n)
    return grid.astype(np.int8).reshape(n, n)


def column_letters(n: int) -> str:
    """``abc...``: the column labels of an n-wide board (up to 26)."""
    return "abcdefghijklmnopqrstuvwxyz"[:n]
