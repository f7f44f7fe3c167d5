"""The follower's pairing strategies (Allis' claimeven and baseinverse): static proofs that the side to
move cannot win, which end much of the exact solver's search of drawn and lost positions.

The follower (the side not to move) pairs the empty cells and answers each move with the other cell of
its pair, so the mover gets exactly one cell of each pair:
  - claimeven: in a column with an even number of empty cells, the cells pair up vertically (the lower
    one of each pair on a mover row); the mover can only take the lower cell, the follower takes the one
    above it. So the mover gets the mover rows, the follower the others, of every such column;
  - baseinverse: a column with an odd number of empty cells keeps its lowest empty cell (on a follower
    row) out of its claimevens; two such cells are both playable, so they pair up, and the mover gets
    whichever of the two it chooses.
A line the mover can complete must avoid every cell the follower gets, so if no choice of the mover's
baseinverse cells completes a line, the mover cannot win; if the follower's sure cells already hold a
line as well, the mover loses. Up to four odd columns are paired (three ways of pairing four); six
(fifteen ways) are not tried.
A threat of the follower's (threat_zugzwang_bound) moves the parity: with its column left out from the
cell under it, the other cells may pair where the whole board's do not. So the first player, with an odd
threat, controls the zugzwang as the second does with claimeven, which follower_bound never finds (its
pairs hold only where the first player is to move). Allis' other rules (aftereven, lowinverse,
highinverse, ...) need a search for a compatible set of them: not done.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.bitboard import ONE, ZERO, has_line, popcount

NOTHING_PROVEN, CANNOT_WIN, LOSES = 1, 0, -1


@njit(inline="always")
def _lowest(cells: np.uint64) -> np.uint64:
    return cells & (~cells + ONE)


@njit(inline="always")
def _pairs_hold(mine: np.uint64, a: np.uint64, b: np.uint64, c: np.uint64, d: np.uint64, h1: np.uint64, k: int) -> bool:
    """True if, with the pairs (a, b) and (c, d), no choice of one cell from each completes a line of ours."""
    return not (
        has_line(mine | a | c, h1, k)
        or has_line(mine | a | d, h1, k)
        or has_line(mine | b | c, h1, k)
        or has_line(mine | b | d, h1, k)
    )


@njit(inline="always")
def _mover_cannot_win(mine: np.uint64, spare: np.uint64, h1: np.uint64, k: int) -> bool:
    """True if neither `mine` nor `mine` plus one cell of each baseinverse pair of `spare` (up to four cells,
    paired in some way) holds a line of ours."""
    if has_line(mine, h1, k):
        return False
    count = popcount(spare)
    if count == 0 or not has_line(mine | spare, h1, k):
        return True
    a = _lowest(spare)
    if count == 2:
        return not has_line(mine | a, h1, k) and not has_line(mine | (spare ^ a), h1, k)
    b = _lowest(spare ^ a)  # four: pair the first with each of the other three in turn
    c = _lowest(spare ^ a ^ b)
    d = spare ^ a ^ b ^ c
    return (
        _pairs_hold(mine, a, b, c, d, h1, k)
        or _pairs_hold(mine, a, c, b, d, h1, k)
        or _pairs_hold(mine, a, d, b, c, h1, k)
    )


@njit(cache=True)
def follower_bound(
    current: np.uint64,
    mask: np.uint64,
    bottom: np.uint64,
    board: np.uint64,
    mover_rows: np.uint64,
    follower_rows: np.uint64,
    h1: np.uint64,
    connect: int,
) -> int:
    """An upper bound on the outcome for the side to move (`current`'s stones) from the follower's
    pairings: CANNOT_WIN (0), LOSES (-1), or NOTHING_PROVEN (1).

    `mover_rows`/`follower_rows` are bitboard.rows_mask(width, height, 0) and its complement in `board`.
    """
    spare = (mask + bottom) & board & follower_rows  # lowest empty cell of each column with an odd count
    count = popcount(spare)
    if count > 4 or count % 2 == 1:
        return NOTHING_PROVEN
    empty = board & ~mask
    if not _mover_cannot_win(current | (empty & mover_rows), spare, h1, connect):
        return NOTHING_PROVEN
    theirs = (current ^ mask) | (empty & follower_rows & ~spare)
    return LOSES if has_line(theirs, h1, connect) else CANNOT_WIN


@njit(cache=True)
def threat_zugzwang_bound(
    current: np.uint64,
    mask: np.uint64,
    bottom: np.uint64,
    board: np.uint64,
    follower_rows: np.uint64,
    h1: np.uint64,
    connect: int,
    their_threats: np.uint64,
) -> int:
    """LOSES if the follower controls the zugzwang with one of `their_threats` (the empty cells where one
    more of its stones completes a line), NOTHING_PROVEN else.

    A threat t that is not directly playable, and whose column, from the cell under t up, leaves an even
    number of empty cells elsewhere (an odd threat of the first player when the second is to move, an even
    one of the second when the first is): the follower plays claimeven and baseinverse on those other cells
    (in t's column below the cell under t, the rows of t's parity are the follower's). Whoever plays the
    cell under t gives t away, and once the other cells are full the mover must. So if no choice of the
    mover's baseinverse cells, with its pairing cells and the cell under t, completes a line, the mover loses.
    """
    empty = board & ~mask
    lowest = (mask + bottom) & board
    candidates = their_threats & empty & ~lowest
    while candidates != ZERO:
        threat = _lowest(candidates)
        candidates ^= threat
        under = threat >> ONE
        column = ((ONE << (h1 - ONE)) - ONE) << ((popcount(threat - ONE) // h1) * h1)
        kept_out = column & ~(under - ONE)  # the cell under the threat and every cell above it
        if (popcount(empty) - popcount(kept_out & empty)) % 2 == 1:
            continue
        parity = follower_rows if threat & follower_rows else board ^ follower_rows  # the follower's rows in t's column
        follower_cells = (follower_rows & ~column) | (column & parity)
        region = empty & ~kept_out
        spare = lowest & region & follower_cells  # the lowest cell of each part with an odd number of cells
        if popcount(spare) > 4:
            continue
        mine = current | (region & ~follower_cells) | under
        if _mover_cannot_win(mine, spare, h1, connect):
            return LOSES
    return NOTHING_PROVEN
