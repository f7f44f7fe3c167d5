"""The exact solver: the game-theoretic score of a position, as defined by Pons' public test sets.

Score of a position for the side to move, on a W x H board with n stones played: a win with the side's
k-th stone from now scores (W*H + 1 - n') // 2 where n' is the number of stones before that winning
stone; a draw is 0; a loss is minus the opponent's win score. On 7 x 6 a win with one's 4th stone
scores 22 - 4 = 18. Weak mode only tells win (1), draw (0) or loss (-1), and is faster.

How: negamax with alpha-beta on uint64 bitboards, run by one numba kernel with an explicit stack (no
recursion, no arrays passed per node). The root narrows the score with null-window probes, starting
near 0 (most positions of interest are close games). Each node:
  - keeps only moves that do not hand the opponent an immediate win, and answers at once when the
    opponent has two wins waiting or the board is about to fill;
  - bounds the score by the stones left, and by both bounds remembered in the transposition table
    (engine/transposition.py), so every null-window probe reuses the others' work;
  - applies Allis' claimeven and baseinverse (engine/pairing.py): where the opponent can pair the empty
    cells and answer each move with its pair's other cell, and no share of the cells that leaves us holds
    a line, we cannot win; and where the opponent's threat makes us fill the cell under it once the other
    cells, so paired, are full, we lose (the first player's odd threat as the controller of the zugzwang);
  - keeps its table as big as the CPU's L2 cache by default (engine/transposition.py's cache_sized_mb):
    a probe of a bigger table is a cache miss, and a node is little more than a probe;
  - asks the CPU to fetch every child's table bucket before looking at any of them, so that the misses
    that remain overlap;
  - cuts off at once when a child's table entry already refutes it (enhanced transposition cut-off,
    on revisits and near the root: elsewhere the probes cost more than they save);
  - starts with a 128 KB table, for the easy positions' few hundred nodes, and only past those starts
    again with the main table (SMALL_TABLE_MB below);
  - tries the table's best move first, then moves by the number of winning cells they create,
    centre first among equals.
A Solver may run each solve on several threads that share the table (lazy SMP: Solver says why and
how; engine/transposition.py why racing threads never read a wrong score).
Longer than 400 lines because the solver is one numba kernel (about 210 lines, an explicit stack, no
recursion: numba compiles it as one loop) beside the batch runner, and the Python class and its helper
threads that drive it.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from engine.bitboard import ONE, ZERO, board_masks, fits_fast_path, popcount, rows_mask, winning_cells
from engine.clock import deadline_ticks, seconds_per_tick, ticks
from engine.pairing import LOSES, NOTHING_PROVEN, follower_bound, threat_zugzwang_bound
from engine.position import Position
from engine.scores import column_scores
from engine.transposition import (
    NO_LOWER,
    NO_UPPER,
    TranspositionTable,
    cache_sized_mb,
    mb_for_key_bits,
    next_generation,
    prefetch,
    probe,
    store,
)

# A search of the standard board first tries _SMALL_TABLE_NODES nodes with a table small enough to stay in
# the CPU's L2 cache (2**13 buckets: the fewest whose tags still hold a 7x6 key whole), with neither
# enhanced transposition cut-offs nor prefetches, and only past that starts again with the big table.
# Why: most positions of the easy sets take a few hundred nodes, each of which would otherwise wait for a
# cache miss of the big table; a bigger search loses only those first nodes.
SMALL_TABLE_MB = 0.125
MAX_GROWN_MB = 1024  # a default-sized table grows for bigger boards' keys up to this (8x7's would need 4 GB)
_SMALL_TABLE_NODES = 500
_NO_LIMIT = 2**62
_FIRST = 1 << 20  # ordering score that puts the table's best move first
# Enhanced transposition cut-offs probe every child: worth it on a revisit (the children were searched
# before, so their entries are likely there) or where the subtree is big enough to pay for the misses.
_ETC_REVISIT_MIN_EMPTY = 14
_ETC_ALWAYS_MIN_EMPTY = 18
_TABLE_MIN_EMPTY = 8  # nearer the end a re-search is cheaper than a table miss
_NO_SMALL_TABLE = np.zeros(0, dtype=np.uint64)  # a helper thread joins the main table at once


@dataclass(frozen=True)
class SolveResult:
    """An exact score (or -1/0/1 in weak mode), the nodes searched, the wall time of the search, and a
    perfect 0-based column when the search proved one on its way (None: not named, e.g. a lost position).

    The column is the move that proved the score's lower bound: in strong mode it scores exactly `score`
    (the quickest win, the slowest loss); in weak mode it keeps the win or the draw.
    """

    score: int
    nodes: int
    elapsed_s: float
    column: int | None = None


@njit(cache=True)
def _half_towards_zero(x: int) -> int:
    return x // 2 if x >= 0 else -((-x) // 2)


def workspace(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """The scratch arrays solve_bits needs for any position of a width x height board."""
    depth = width * height + 2
    return (
        np.empty(width + depth * (4 + 2 * width), dtype=np.uint64),
        np.empty(width + depth * (5 + 2 * width), dtype=np.int64),
    )


# Without numba's reference counting (_nrt=False: the kernel allocates nothing): it would count every array
# argument and view in and out with an atomic call each, which costs more than a search of a few nodes.
@njit(cache=True, nogil=True, _nrt=False)
def solve_bits(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    width: int,
    height: int,
    connect: int,
    weak: bool,
    floor: int,
    ceiling: int,
    node_limit: int,
    stop: np.ndarray,
    entries: np.ndarray,
    generation: np.uint64,
    small: np.ndarray,
    small_generation: np.uint64,
    unsigned: np.ndarray,
    signed: np.ndarray,
    first_root_move: int,
) -> tuple[int, int, bool, int]:
    """(score, nodes, aborted, perfect column or -1) of a position given as bitboards; see the module
    docstring and SolveResult.

    The score is clamped into [`floor`, `ceiling`] (floor: "floor or less", ceiling: "ceiling or more"):
    a narrower range takes fewer null-window probes, (s, s + 1) just one.
    The search gives up (aborted) past `node_limit` nodes, once `stop[0]` is set, or once the kernels'
    clock passes `stop[1]` (0: no deadline); the kernel releases the GIL and looks every 1024 nodes.
    The kernel reads the clock itself (engine/clock.py): a timer thread fires late on a busy machine.
    `unsigned` and `signed` are scratch space as `workspace(width, height)` makes,
    allocated once by the caller: an allocation per call would cost more than a small search.
    `small` is the cache-resident table of the first _SMALL_TABLE_NODES nodes (7x6 only; empty: none).
    `first_root_move` k > 0 tries the root's k-th move of its usual order first (modulo the number of
    moves), then the others in their order: each helper thread of a threaded solve starts elsewhere.
    Preconditions (checked by `Solver.solve`): the game is not over, `fits_fast_path(width, height,
    connect)`, and the keys fit the table's tag (TranspositionTable.max_key_bits).
    """
    if width == 7 and height == 6 and connect == 4:  # the standard game gets copies compiled for its size
        spent = 0
        if small.shape[0] > 0 and node_limit > _SMALL_TABLE_NODES:
            score, spent, aborted, column = _search(
                current,
                mask,
                moves,
                7,
                6,
                4,
                weak,
                floor,
                ceiling,
                _SMALL_TABLE_NODES,
                stop,
                small,
                small_generation,
                unsigned,
                signed,
                True,
                first_root_move,
            )
            if not aborted:
                return score, spent, False, column
        score, nodes, aborted, column = _search(
            current,
            mask,
            moves,
            7,
            6,
            4,
            weak,
            floor,
            ceiling,
            node_limit - spent,
            stop,
            entries,
            generation,
            unsigned,
            signed,
            False,
            first_root_move,
        )
        return score, spent + nodes, aborted, column
    return _search(
        current,
        mask,
        moves,
        width,
        height,
        connect,
        weak,
        floor,
        ceiling,
        node_limit,
        stop,
        entries,
        generation,
        unsigned,
        signed,
        False,
        first_root_move,
    )


@njit(inline="always")
def _search(
    current: np.uint64,
    mask: np.uint64,
    moves: int,
    width: int,
    height: int,
    connect: int,
    weak: bool,
    floor: int,
    ceiling: int,
    node_limit: int,
    stop: np.ndarray,
    entries: np.ndarray,
    generation: np.uint64,
    unsigned: np.ndarray,
    signed: np.ndarray,
    quick: bool,
    first_root_move: int,
) -> tuple[int, int, bool, int]:
    cells = width * height
    key_bits = width * (height + 1)
    h1 = np.uint64(height + 1)
    bottom, board = board_masks(width, height)
    possible = (mask + bottom) & board
    if winning_cells(current, mask, h1, board, connect) & possible:
        return max(floor, min(ceiling, 1 if weak else (cells + 1 - moves) // 2)), 0, False, -1

    column = (ONE << np.uint64(height)) - ONE
    mover_rows = rows_mask(width, height, 0)
    follower_rows = board ^ mover_rows
    depth = cells - moves + 2
    column_masks = unsigned[:width]
    order = signed[:width]
    for i in range(width):
        column_masks[i] = column << (np.uint64(i) * h1)
        order[i] = width // 2 + (1 - 2 * (i % 2)) * ((i + 1) // 2)  # centre first, then outwards

    s_current = unsigned[width : width + depth]
    s_mask = unsigned[width + depth : width + 2 * depth]
    s_key = unsigned[width + 2 * depth : width + 3 * depth]
    s_moves = unsigned[width + 3 * depth : width + (3 + width) * depth]
    s_threats = unsigned[width + (3 + width) * depth : width + (3 + 2 * width) * depth]  # each move's new wins
    s_against = unsigned[width + (3 + 2 * width) * depth : width + (4 + 2 * width) * depth]  # the opponent's wins
    s_alpha = signed[width : width + depth]
    s_beta = signed[width + depth : width + 2 * depth]
    s_best = signed[width + 2 * depth : width + 3 * depth]
    s_count = signed[width + 3 * depth : width + 4 * depth]
    s_index = signed[width + 4 * depth : width + 5 * depth]
    s_columns = signed[width + 5 * depth : width + (5 + width) * depth]
    s_order = signed[width + (5 + width) * depth : width + (5 + 2 * width) * depth]

    nodes = 0
    low_column = -1  # the root move behind the proven lower bound `low`
    low = -((cells - moves) // 2)
    high = (cells + 1 - moves) // 2
    if weak:
        low, high = -1, 1
    low, high = max(low, floor), min(high, ceiling)
    while low < high:
        middle = low + (high - low) // 2
        if middle <= 0 and _half_towards_zero(low) < middle:
            middle = _half_towards_zero(low)
        elif middle >= 0 and _half_towards_zero(high) > middle:
            middle = _half_towards_zero(high)

        # ----- one null-window negamax (middle, middle + 1), iterative -----
        sp = 0
        s_current[0] = current
        s_mask[0] = mask
        s_alpha[0] = middle
        s_beta[0] = middle + 1
        entering = True  # else: handing `result` up the stack
        result = 0
        root_column = -1  # the root move that failed high in this probe, if one did
        while True:
            if entering:
                nodes += 1
                if nodes > node_limit or (
                    (nodes & 1023) == 0 and (stop[0] != 0 or (stop[1] != 0 and np.int64(ticks()) > stop[1]))
                ):
                    return 0, nodes, True, -1
                cur = s_current[sp]
                msk = s_mask[sp]
                played = moves + sp
                possible = (msk + bottom) & board
                if sp == 0:
                    opponent_wins = winning_cells(cur ^ msk, msk, h1, board, connect)
                else:  # the parent counted them to order its moves
                    opponent_wins = s_against[sp]
                forced = possible & opponent_wins
                if forced != ZERO:
                    if forced & (forced - ONE) != ZERO:  # two threats: cannot block both
                        result = -((cells - played) // 2)
                        entering = False
                        continue
                    possible = forced
                playable = possible & ~(opponent_wins >> ONE)  # never play under an opponent's win
                if playable == ZERO:
                    result = -((cells - played) // 2)
                    entering = False
                    continue
                if played >= cells - 2:
                    result = 0
                    entering = False
                    continue
                lower = -((cells - 2 - played) // 2)  # the opponent cannot win at once
                upper = (cells - 1 - played) // 2  # nor can we (the root and parents checked)
                key = cur + msk
                tabled = cells - played >= _TABLE_MIN_EMPTY
                if tabled:
                    known_lower, known_upper, known_column = probe(entries, generation, key, key_bits)
                else:
                    known_lower, known_upper, known_column = NO_LOWER, NO_UPPER, -1
                revisit = known_lower != NO_LOWER or known_upper != NO_UPPER
                etc = not quick and cells - played >= (_ETC_REVISIT_MIN_EMPTY if revisit else _ETC_ALWAYS_MIN_EMPTY)
                lower = max(lower, known_lower)
                upper = min(upper, known_upper)
                if lower >= s_beta[sp]:
                    if sp == 0 and known_lower >= s_beta[0]:  # the move stored with the table's bound proved it
                        root_column = known_column
                    elif sp == 0:  # the static bound holds for every playable move: take the centre-most
                        for i in range(width):
                            if playable & column_masks[order[i]]:
                                root_column = order[i]
                                break
                    result = lower
                    entering = False
                    continue
                if upper > s_alpha[sp] >= -1 and (not quick or (msk + bottom) & follower_rows == ZERO):
                    # The opponent's claimevens and baseinverses may prove that we cannot win (0) or lose (-1):
                    # worth the look only where that bound ends the node, and in the first few hundred nodes
                    # only where claimeven alone may prove it (no column with an odd number of empty cells).
                    bound = follower_bound(cur, msk, bottom, board, mover_rows, follower_rows, h1, connect)
                    if bound != NOTHING_PROVEN and bound < upper:
                        upper = bound
                    # Where no pairing of the whole board ends the node, an opponent's threat may: the first
                    # player's odd threat controls the zugzwang when the second is to move (follower_bound's
                    # parity never holds there).
                    if (
                        not quick
                        and upper > s_alpha[sp]
                        and opponent_wins != ZERO
                        and threat_zugzwang_bound(cur, msk, bottom, board, follower_rows, h1, connect, opponent_wins)
                        == LOSES
                    ):
                        upper = LOSES
                if upper <= s_alpha[sp]:
                    result = upper
                    entering = False
                    continue
                base = sp * width
                count = 0
                cutoff = -cells - 1
                if not quick and cells - played - 1 >= _TABLE_MIN_EMPTY:
                    for col in range(width):  # start loading every child's entry now, so their misses overlap
                        move = playable & column_masks[col]
                        if move != ZERO:
                            prefetch(entries, (cur ^ msk) + (msk | move), key_bits)
                for i in range(width):
                    col = order[i]
                    move = playable & column_masks[col]
                    if move == ZERO:
                        continue
                    if etc:
                        # Enhanced transposition cut-off: a child already known to be bad enough for the
                        # opponent ends this node before anything is searched.
                        child_upper = probe(entries, generation, (cur ^ msk) + (msk | move), key_bits)[1]
                        if -child_upper >= s_beta[sp]:
                            cutoff = -child_upper
                            break
                    threats = winning_cells(cur | move, msk | move, h1, board, connect)
                    score = _FIRST if col == known_column else np.int64(popcount(threats))
                    j = base + count
                    while j > base and s_order[j - 1] < score:
                        s_order[j] = s_order[j - 1]
                        s_moves[j] = s_moves[j - 1]
                        s_threats[j] = s_threats[j - 1]
                        s_columns[j] = s_columns[j - 1]
                        j -= 1
                    s_order[j] = score
                    s_moves[j] = move
                    s_threats[j] = threats
                    s_columns[j] = col
                    count += 1
                if cutoff >= s_beta[sp]:
                    if sp == 0:
                        root_column = col
                    store(entries, generation, key, key_bits, cutoff, NO_UPPER, col, played)
                    result = cutoff
                    entering = False
                    continue
                if sp == 0 and count > 1 and first_root_move % count > 0:
                    _move_to_front(first_root_move % count, s_order, s_moves, s_threats, s_columns)
                s_key[sp] = key
                s_count[sp] = count
                s_index[sp] = 1
                s_best[sp] = -cells
                _push_child(sp, base, s_current, s_mask, s_moves, s_threats, s_against, s_alpha, s_beta)
                sp += 1
            else:
                if sp == 0:
                    break
                sp -= 1
                score = -result
                col = s_columns[sp * width + s_index[sp] - 1]
                if score >= s_beta[sp]:
                    if sp == 0:
                        root_column = col
                    if cells - moves - sp >= _TABLE_MIN_EMPTY:
                        store(entries, generation, s_key[sp], key_bits, score, NO_UPPER, col, moves + sp)
                    result = score
                    continue
                if score > s_best[sp]:
                    s_best[sp] = score
                if score > s_alpha[sp]:
                    s_alpha[sp] = score
                i = s_index[sp]
                if i < s_count[sp]:
                    s_index[sp] = i + 1
                    _push_child(sp, sp * width + i, s_current, s_mask, s_moves, s_threats, s_against, s_alpha, s_beta)
                    sp += 1
                    entering = True
                    continue
                result = s_best[sp]  # every move failed low: an upper bound
                if cells - moves - sp >= _TABLE_MIN_EMPTY:
                    store(entries, generation, s_key[sp], key_bits, NO_LOWER, result, -1, moves + sp)
        # ----- end of the probe -----
        if result <= middle:
            high = result
        else:
            low = result
            low_column = root_column
    low = min(low, ceiling)  # a probe above the range fails high with a bound past it
    if weak:
        return (1 if low > 0 else (-1 if low < 0 else 0)), nodes, False, low_column
    return low, nodes, False, low_column


@njit(inline="always")
def _move_to_front(
    index: int, s_order: np.ndarray, s_moves: np.ndarray, s_threats: np.ndarray, s_columns: np.ndarray
) -> None:
    """Move the root's ordered move at `index` to the front, the ones before it one place back."""
    order, move, threats, column = s_order[index], s_moves[index], s_threats[index], s_columns[index]
    for j in range(index, 0, -1):
        s_order[j] = s_order[j - 1]
        s_moves[j] = s_moves[j - 1]
        s_threats[j] = s_threats[j - 1]
        s_columns[j] = s_columns[j - 1]
    s_order[0], s_moves[0], s_threats[0], s_columns[0] = order, move, threats, column


@njit(inline="always")
def _push_child(
    sp: int,
    slot: int,
    s_current: np.ndarray,
    s_mask: np.ndarray,
    s_moves: np.ndarray,
    s_threats: np.ndarray,
    s_against: np.ndarray,
    s_alpha: np.ndarray,
    s_beta: np.ndarray,
) -> None:
    """Set up, one level down the stack, the child that the move in `slot` of level `sp` makes."""
    s_current[sp + 1] = s_current[sp] ^ s_mask[sp]
    s_mask[sp + 1] = s_mask[sp] | s_moves[slot]
    s_against[sp + 1] = s_threats[slot]
    s_alpha[sp + 1] = -s_beta[sp]
    s_beta[sp + 1] = -s_alpha[sp]


@njit(cache=True)
def solve_batch(
    currents: np.ndarray,
    masks: np.ndarray,
    moves: np.ndarray,
    width: int,
    height: int,
    connect: int,
    weak: bool,
    entries: np.ndarray,
    generation: int,
    small: np.ndarray,
    small_generation: int,
    cold: bool,
    unsigned: np.ndarray,
    signed: np.ndarray,
    scores: np.ndarray,
    nodes: np.ndarray,
    spent_ticks: np.ndarray,
) -> tuple[int, int]:
    """Solve many positions in one call (no per-position call from Python); returns the two tables'
    generations (big, small).

    Each position's search is timed on its own with the kernels' clock, excluding the tables' clearing
    before it when `cold` (as the C++ reference measures).
    """
    never = np.zeros(2, dtype=np.int64)  # no deadline: every position is solved
    for i in range(currents.shape[0]):
        if cold:
            generation = next_generation(entries, generation)
            if small.shape[0] > 0:
                small_generation = next_generation(small, small_generation)
        started = ticks()
        scores[i], nodes[i], _, _ = solve_bits(
            currents[i],
            masks[i],
            moves[i],
            width,
            height,
            connect,
            weak,
            -_NO_LIMIT,
            _NO_LIMIT,
            _NO_LIMIT,
            never,
            entries,
            np.uint64(generation),
            small,
            np.uint64(small_generation),
            unsigned,
            signed,
            0,
        )
        spent_ticks[i] = ticks() - started
    return generation, small_generation


class Solver:
    """Exact scores of positions, with a transposition table that lives as long as the solver.

    The table's facts hold whatever the root, so keeping one Solver across a game makes later moves
    cheaper. `table_size_mb` bounds its memory (the process as a whole stays under 256 MB with 64).
    By default the table is as big as the CPU's L2 cache (engine.transposition.cache_sized_mb says why),
    grown where a board's keys need more bits than it holds (7x7 and 8x6: 16 MB).

    With `threads` above 1, a solve without a node limit runs on that many threads (lazy SMP): helper
    threads search the same root, each starting with another of its moves, and all share the table, so
    each finds the others' subtrees proven; the first search to finish answers and the others stop.
    Why: where a core would otherwise stay idle (a Raspberry Pi has 4) or the system shares the CPU per
    thread, a solve gets more CPU. Where its CPU is a fixed share (Linux's autogroup beside a busy
    process in another session, a cgroup's quota) the threads cost more than they add: up to a tenth
    more nodes, slower nodes, and a helper restarts elsewhere a proof the main thread resumes.
    A node-limited solve stays on one thread, so that its result does not depend on how the threads were
    scheduled. The helpers live until the solver is collected.
    """

    def __init__(self, table_size_mb: float | None = None, threads: int = 1) -> None:
        if threads < 1:
            raise ValueError(f"{threads} solver threads: give 1 or more")
        self._sized_by_cache = table_size_mb is None
        self.table = TranspositionTable(cache_sized_mb() if table_size_mb is None else table_size_mb)
        self.small = TranspositionTable(SMALL_TABLE_MB)
        self._stop = np.zeros(2, dtype=np.int64)  # a stop flag, and the deadline on the kernels' clock
        seconds_per_tick()  # measured now (once a process), not inside a solve with a deadline
        self._workspaces: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self.threads = threads
        self._helpers: list[_Helper] = []  # started by the first solve that uses them

    def _workspace(self, position: Position) -> tuple[np.ndarray, np.ndarray]:
        return _workspace_for(self._workspaces, position.width, position.height)

    def _started_helpers(self) -> list[_Helper]:
        if not self._helpers:
            self._helpers = [_Helper(index) for index in range(1, self.threads)]
            weakref.finalize(self, _retire, self._helpers)
        return self._helpers

    def clear(self) -> None:
        """Forget the tables (for measurements that must start cold)."""
        self.table.clear()
        self.small.clear()

    def solve(
        self,
        position: Position,
        weak: bool = False,
        node_limit: int | None = None,
        deadline: float | None = None,
        window: tuple[int, int] | None = None,
    ) -> SolveResult | None:
        """The score of `position` for the side to move, or None if more than `node_limit` nodes were needed
        or the search was still on at `deadline` (a time.perf_counter() reading).

        With a `window` (low, high) the score is clamped into it: low means "low or less", high "high or
        more". A question needs no more: (s, s + 1) asks "is the score above s?" in one null-window probe,
        where the full score takes up to two in weak mode and several in strong mode.
        Raises ValueError if the game is already over, the board is too big for the exact solver, or the
        window is empty.
        """
        self.check(position)
        floor, ceiling = (-_NO_LIMIT, _NO_LIMIT) if window is None else window
        if floor > ceiling:
            raise ValueError(f"the window ({floor}, {ceiling}) is empty: give low <= high")
        self._fit_table(position)
        current, mask = position.bitboards
        threaded = self.threads > 1 and node_limit is None
        stop = np.zeros(2, dtype=np.int64) if threaded else self._stop  # a threaded solve's flag is its own
        stop[0] = 0
        stop[1] = 0 if deadline is None else deadline_ticks(deadline)
        question = (
            np.uint64(current),
            np.uint64(mask),
            position.moves_played,
            position.width,
            position.height,
            position.connect,
            weak,
            int(floor),
            int(ceiling),
            _NO_LIMIT if node_limit is None else int(node_limit),
            stop,
            self.table.entries,
            np.uint64(self.table.generation),
        )
        start = time.perf_counter()
        job = _Job(question, stop) if threaded else None
        for helper in self._started_helpers() if job is not None else ():
            helper.give(job)
        found = solve_bits(
            *question, self.small.entries, np.uint64(self.small.generation), *self._workspace(position), 0
        )
        if job is not None:
            job.finish(found)
            found = job.answer or found  # a helper's search may have finished first
        elapsed_s = time.perf_counter() - start
        score, nodes, aborted, column = found
        if aborted:
            return None
        return SolveResult(int(score), int(nodes), elapsed_s, int(column) if column >= 0 else None)

    def solve_many(self, positions: list[Position], weak: bool = False, cold: bool = False) -> list[SolveResult]:
        """Solve `positions` in one kernel call; `cold` forgets the table before each (untimed).

        Each result's elapsed_s is that position's own search time, measured inside the kernel: what a
        call from Python adds (a few microseconds) is paid once for the whole list.
        Raises ValueError as `solve` does, before anything is solved.
        """
        for position in positions:
            self.check(position)
        if not positions:
            return []
        first = positions[0]
        if any((p.width, p.height, p.connect) != (first.width, first.height, first.connect) for p in positions):
            raise ValueError("solve_many takes positions of one board size and connect-N: split the list")
        self._fit_table(first)
        boards = np.array([p.bitboards for p in positions], dtype=np.uint64)
        played = np.array([p.moves_played for p in positions], dtype=np.int64)
        scores, nodes, spent = (np.zeros(len(positions), dtype=np.int64) for _ in range(3))
        period = seconds_per_tick()
        self.table.generation, self.small.generation = solve_batch(
            boards[:, 0].copy(),
            boards[:, 1].copy(),
            played,
            first.width,
            first.height,
            first.connect,
            weak,
            self.table.entries,
            self.table.generation,
            self.small.entries,
            self.small.generation,
            cold,
            *self._workspace(first),
            scores,
            nodes,
            spent,
        )
        return [SolveResult(int(s), int(n), float(c) * period) for s, n, c in zip(scores, nodes, spent, strict=False)]

    def analyze(
        self, position: Position, weak: bool = False, known: Callable[[Position], int | None] = lambda _: None
    ) -> list[int | None]:
        """The score of each 0-based column for the side to move (None where the column is full).
        `known` gives a child's score where it is known already (the books: engine.package_books.book_score),
        so that only the others are solved.

        Raises ValueError if the game is already over, or the board is too big for the exact solver.
        """
        self.check(position)

        def child_score(child: Position) -> int:
            score = known(child)
            return self.solve(child, weak).score if score is None else score

        scores = column_scores(position, child_score, weak)
        assert scores is not None  # the solver knows every child
        return scores

    def check(self, position: Position) -> None:
        """Raise ValueError (TypeError for a non-Position) when `position` is not one this solver can solve."""
        if not isinstance(position, Position):
            raise TypeError(f"solve takes an engine.Position, not {type(position).__name__}")
        if position.is_over():
            raise ValueError(
                f"the game is over ({'draw' if position.is_draw() else f'player {position.winner()} won'}): "
                "there is nothing to solve"
            )
        if not fits_fast_path(position.width, position.height, position.connect):
            raise ValueError(
                f"a {position.width}x{position.height} board does not fit the exact solver's 64-bit "
                "bitboards: use the time-budgeted search for it"
            )
        key_bits = position.width * (position.height + 1)
        if key_bits > self.table.max_key_bits() and not self._can_grow_for(key_bits):
            raise ValueError(
                f"a {position.width}x{position.height} board needs a bigger transposition table: "
                f"give table_size_mb of {mb_for_key_bits(key_bits):g} or more"
            )

    def _can_grow_for(self, key_bits: int) -> bool:
        """True if this solver's table, sized by the cache, may grow to hold keys of `key_bits` bits."""
        return self._sized_by_cache and mb_for_key_bits(key_bits) <= MAX_GROWN_MB

    def _fit_table(self, position: Position) -> None:
        """Grow a table sized by the cache where `position`'s board has longer keys than it holds (after check)."""
        key_bits = position.width * (position.height + 1)
        if key_bits > self.table.max_key_bits():
            self.table = TranspositionTable(mb_for_key_bits(key_bits))


def _workspace_for(
    workspaces: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]], width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """The workspace for a width x height board from `workspaces`, made on first use."""
    if (width, height) not in workspaces:
        workspaces[(width, height)] = workspace(width, height)
    return workspaces[(width, height)]


class _Job:
    """One threaded solve: solve_bits' arguments up to the table's generation (`question`, whose stop flag
    and deadline every thread shares), and the first finished search's (score, nodes, False, column)."""

    def __init__(self, question: tuple, stop: np.ndarray) -> None:
        self.question = question
        self.stop = stop
        self.answer: tuple[int, int, bool, int] | None = None

    def finish(self, found: tuple[int, int, bool, int]) -> None:
        """Keep `found` if it is the first finished search, and stop every thread's search of this job."""
        if not found[2] and self.answer is None:
            self.answer = found
        self.stop[0] = 1  # the others see it within 1,024 nodes


class _Helper:
    """A thread that joins a Solver's threaded solves: the latest job it is given, started at the root's
    `index`-th move; a job that finished before the thread got to it is skipped."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.retired = False
        self._job: _Job | None = None
        self._given = threading.Event()
        self._workspaces: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        threading.Thread(target=self._run, name=f"c4robot-solver-helper-{index}", daemon=True).start()

    def give(self, job: _Job | None) -> None:
        self._job = job
        self._given.set()

    def _run(self) -> None:
        done = None
        while True:
            self._given.wait()
            self._given.clear()
            job = self._job
            if self.retired:
                return
            if job is None or job is done or job.stop[0] != 0:
                continue
            done = job
            found = solve_bits(
                *job.question,
                _NO_SMALL_TABLE,
                np.uint64(0),
                *_workspace_for(self._workspaces, job.question[3], job.question[4]),
                self.index,
            )
            job.finish(found)


def _retire(helpers: list[_Helper]) -> None:
    """End the helper threads of a collected Solver."""
    for helper in helpers:
        helper.retired = True
        helper.give(None)
