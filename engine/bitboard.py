"""Numba kernels on uint64 bitboards (layout drawn in engine/position.py): wins, lines, counts, row masks.

Every value here is np.uint64 on purpose: numba turns a mix of uint64 and int64 into float64.
Kernels take the board size as plain numbers so one compiled version serves every W x H.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

ONE = np.uint64(1)
TWO = np.uint64(2)
THREE = np.uint64(3)
ZERO = np.uint64(0)
BITS = np.uint64(64)


def fits_fast_path(width: int, height: int, connect: int) -> bool:
    """True when the kernels can take this board: its bits fit a uint64 and line shifts stay below 64."""
    return width * (height + 1) <= 64 and (connect - 1) * (height + 2) < 64


@intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count: one POPCNT instruction where the CPU has it."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(cache=True)
def popcount(x: np.uint64) -> np.uint64:
    """Number of set bits (the CPU's instruction: the solver counts every child's winning cells with it)."""
    return _ctpop(x)


@njit(cache=True)
def board_masks(width: int, height: int) -> tuple[np.uint64, np.uint64]:
    """(bottom_mask, board_mask): the bottom cell of every column, and every playable cell."""
    bottom = ZERO
    column = (ONE << np.uint64(height)) - ONE
    h1 = np.uint64(height + 1)
    for col in range(width):
        bottom |= ONE << (np.uint64(col) * h1)
    return bottom, bottom * column


@njit(cache=True)
def winning_cells(stones: np.uint64, mask: np.uint64, h1: np.uint64, board_mask: np.uint64, connect: int) -> np.uint64:
    """Empty cells where one more stone of `stones` completes a line of `connect`; h1 = height + 1.

    Precondition: `fits_fast_path` holds for the board (no shift reaches 64).
    """
    if connect == 4:
        # Pons' pairwise form for four: below-three vertically, and every gap position along a line.
        found = (stones << ONE) & (stones << TWO) & (stones << THREE)
        for step in (h1, h1 - ONE, h1 + ONE):
            pair = (stones << step) & (stones << (TWO * step))
            found |= pair & (stones << (THREE * step))
            found |= pair & (stones >> step)
            pair = (stones >> step) & (stones >> (TWO * step))
            found |= pair & (stones << step)
            found |= pair & (stones >> (THREE * step))
        return found & (board_mask ^ mask)
    found = ZERO
    for step in (ONE, h1, h1 - ONE, h1 + ONE):
        for gap in range(connect):
            cells = ~ZERO
            for offset in range(-gap, connect - gap):
                if offset > 0:
                    cells &= stones >> (np.uint64(offset) * step)
                elif offset < 0:
                    cells &= stones << (np.uint64(-offset) * step)
            found |= cells
    return found & (board_mask ^ mask)


@njit(cache=True)
def has_line(stones: np.uint64, h1: np.uint64, connect: int) -> bool:
    """True if `stones` hold a complete line of `connect`; h1 = height + 1."""
    for step in (ONE, h1, h1 - ONE, h1 + ONE):
        if connect == 4:
            pairs = stones & (stones >> step)
            if pairs & (pairs >> (TWO * step)):
                return True
        else:
            run = stones
            for offset in range(1, connect):
                run &= stones >> (np.uint64(offset) * step)
            if run:
                return True
    return False


@njit(cache=True)
def rows_mask(width: int, height: int, parity: int) -> np.uint64:
    """Every cell of the rows whose index r has (height - r) % 2 == parity (0: the rows a claimeven leaves to
    the side to move when every column has an even number of empty cells)."""
    h1 = np.uint64(height + 1)
    out = ZERO
    for row in range(height):
        if (height - row) % 2 == parity:
            for col in range(width):
                out |= ONE << (np.uint64(col) * h1 + np.uint64(row))
    return out
