"""Depth-limited negamax with alpha-beta for any board size: the heuristic half of the player.

The numba kernel works on the line counts of engine/lines.py (any W x H, connect-N). Per node it
  1. takes an immediate win (score WIN - plies, so quicker wins score higher),
  2. answers an opponent's immediate win: two of them lose, one is a forced move searched without
     using up depth (a check extension, so forced sequences are read to their end),
  3. never plays under a cell where the opponent would win (Pons' non-losing moves),
  4. probes a transposition table (Zobrist keys; win scores stored relative to the node),
  5. orders moves: table move, then the threats a move creates, then the centre,
  6. at depth 0 calls engine.evaluation.evaluate.
Time control from outside: the kernel releases the GIL and polls `stop[0]` (a flag), `stop[1]` (a
deadline on the kernels' clock, engine/clock.py) and a node limit every 1024 nodes; an aborted iteration
is thrown away.
Win scores are exact proofs (a forced win or loss found by the search); evaluation scores are not.
Longer than 400 lines because the search is one numba kernel (about 230 lines, an explicit stack and
its move ordering inline: numba compiles it as one loop) beside the Python class that drives it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numba
import numpy as np

from engine.clock import ticks
from engine.evaluation import evaluate
from engine.lines import Lines, board_lines
from engine.scores import INFINITY, PROVEN, WIN

TABLE_BITS = 20
EXACT, LOWER, UPPER = 1, 2, 3
NODES, NODE_LIMIT, ABORTED = 0, 1, 2  # indices of the control array
_ENTER, _NEXT, _RETURN, _BACK_WITHOUT_MOVE = 0, 1, 2, 3  # kernel modes


@numba.njit(cache=True, nogil=True)
def _wins(counts, cell_lines, cell, player, connect):
    """Would `player` complete a line by a disc on the empty `cell`?"""
    for k in range(cell_lines.shape[1]):
        line = cell_lines[cell, k]
        if line < 0:
            return False
        if counts[player, line] == connect - 1:
            return True
    return False


@numba.njit(cache=True, nogil=True)
def _place(board, heights, counts, cell_lines, height, col, player, delta):
    """Drop (`delta` = 1) or lift (`delta` = -1) the top disc of `col`; returns its cell."""
    if delta > 0:
        cell = col * height + heights[col]
        board[cell] = player
        heights[col] += 1
    else:
        heights[col] -= 1
        cell = col * height + heights[col]
        board[cell] = 0
    for k in range(cell_lines.shape[1]):
        line = cell_lines[cell, k]
        if line < 0:
            break
        counts[player, line] += delta
    return cell


@numba.njit(cache=True, nogil=True)
def _threats_created(counts, cell_lines, cell, player, connect):
    """Lines through `cell` that a disc of `player` there turns into a threat (N-1 and open)."""
    made = 0
    for k in range(cell_lines.shape[1]):
        line = cell_lines[cell, k]
        if line < 0:
            break
        if counts[player, line] == connect - 2 and counts[3 - player, line] == 0:
            made += 1
    return made


@numba.njit(cache=True, nogil=True)
def _search(
    board,
    heights,
    counts,
    line_cells,
    cell_lines,
    zobrist,
    width,
    height,
    connect,
    weights,
    marks,
    tt_keys,
    tt_values,
    tt_meta,
    control,
    stop,
    root_key,
    root_played,
    root_side,
    depth,
    root_order,
    margin,
    column_scores,
    exact_mask,
):
    """Search every legal root move to `depth`; returns the best score.

    An explicit stack instead of recursion (numba cannot cache recursive kernels reliably). Scores
    of root moves within `margin` of the best are exact, the others upper bounds. On abort the board
    is restored and the result is meaningless (control[ABORTED] tells).
    """
    cells = width * height
    frames = cells - root_played + 2
    s_alpha = np.empty(frames, dtype=np.int64)
    s_beta = np.empty(frames, dtype=np.int64)
    s_original_alpha = np.empty(frames, dtype=np.int64)
    s_depth = np.empty(frames, dtype=np.int64)
    s_child_depth = np.empty(frames, dtype=np.int64)
    s_best = np.empty(frames, dtype=np.int64)
    s_best_move = np.empty(frames, dtype=np.int64)
    s_count = np.empty(frames, dtype=np.int64)
    s_index = np.empty(frames, dtype=np.int64)
    s_key = np.empty(frames, dtype=np.uint64)
    s_slot = np.empty(frames, dtype=np.int64)
    s_moves = np.empty((frames, width), dtype=np.int64)
    s_rank = np.empty(width, dtype=np.int64)
    table_mask = np.uint64(tt_keys.shape[0] - 1)

    count = 0
    for index in range(root_order.shape[0]):
        if heights[root_order[index]] < height:
            s_moves[0, count] = root_order[index]
            count += 1
    s_count[0] = count
    s_index[0] = 0
    s_alpha[0] = -INFINITY
    s_beta[0] = INFINITY
    s_best[0] = -INFINITY
    s_depth[0] = depth
    s_child_depth[0] = depth - 1
    s_key[0] = root_key
    ply = 0
    mode = _NEXT
    value = 0
    while True:
        side = root_side if ply % 2 == 0 else 3 - root_side
        other = 3 - side
        if mode == _ENTER:
            control[NODES] += 1
            if (control[NODES] & 1023) == 0 and (
                stop[0] != 0 or control[NODES] >= control[NODE_LIMIT] or (stop[1] != 0 and np.int64(ticks()) > stop[1])
            ):
                control[ABORTED] = 1
                for frame in range(ply - 1, -1, -1):
                    mover = root_side if frame % 2 == 0 else 3 - root_side
                    _place(board, heights, counts, cell_lines, height, s_moves[frame, s_index[frame]], mover, -1)
                return 0
            mode = _RETURN
            played = root_played + ply
            alpha = s_alpha[ply]
            beta = s_beta[ply]
            if played == cells:
                value = 0
                continue
            won = False
            for col in range(width):
                if heights[col] < height and _wins(counts, cell_lines, col * height + heights[col], side, connect):
                    won = True
                    break
            if won:
                value = WIN - (ply + 1)
                continue
            # an opponent's win on a playable cell: a forced reply; two of them lose
            forced = -1
            for col in range(width):
                if heights[col] < height and _wins(counts, cell_lines, col * height + heights[col], other, connect):
                    if forced >= 0:
                        forced = -2
                        break
                    forced = col
            if forced == -2:
                value = -(WIN - (ply + 2))
                continue
            if played + 1 == cells:
                value = 0  # the last disc, and it does not win
                continue
            # bounds by distance: no win before our next-but-one disc, no loss before the opponent's next
            if beta > WIN - (ply + 3):
                beta = WIN - (ply + 3)
                if alpha >= beta:
                    value = beta
                    continue
            if alpha < -(WIN - (ply + 2)):
                alpha = -(WIN - (ply + 2))
                if alpha >= beta:
                    value = alpha
                    continue
            key = s_key[ply]
            slot = np.int64(key & table_mask)
            table_move = -1
            if tt_keys[slot] == key:
                meta = tt_meta[slot]
                table_move = (meta >> 8) & 0xFF
                stored = tt_values[slot]
                if stored > PROVEN:
                    stored -= ply
                elif stored < -PROVEN:
                    stored += ply
                flag = meta & 0xFF
                if (meta >> 16) >= s_depth[ply] or abs(stored) > PROVEN:  # noqa: SIM102 - the table checks read as in the Pons solver
                    if flag == EXACT or (flag == LOWER and stored >= beta) or (flag == UPPER and stored <= alpha):
                        value = stored
                        continue
            if s_depth[ply] <= 0 and forced < 0:
                value = evaluate(board, heights, counts, line_cells, side, width, height, connect, weights, marks, key)
                continue
            count = 0
            for col in range(width):
                if heights[col] >= height or (forced >= 0 and col != forced):
                    continue
                cell = col * height + heights[col]
                if heights[col] + 1 < height and _wins(counts, cell_lines, cell + 1, other, connect):
                    continue  # would let the opponent win on top of it
                rank = (
                    100 * _threats_created(counts, cell_lines, cell, side, connect) + width - abs(2 * col - width + 1)
                )
                if col == table_move:
                    rank += 1_000_000
                position = count
                while position > 0 and s_rank[position - 1] < rank:
                    s_moves[ply, position] = s_moves[ply, position - 1]
                    s_rank[position] = s_rank[position - 1]
                    position -= 1
                s_moves[ply, position] = col
                s_rank[position] = rank
                count += 1
            if count == 0:
                value = -(WIN - (ply + 2))
                continue
            s_alpha[ply] = alpha
            s_beta[ply] = beta
            s_original_alpha[ply] = alpha
            s_child_depth[ply] = s_depth[ply] if forced >= 0 else s_depth[ply] - 1
            s_best[ply] = -INFINITY
            s_best_move[ply] = s_moves[ply, 0]
            s_count[ply] = count
            s_index[ply] = 0
            s_slot[ply] = slot
            mode = _NEXT
        elif mode == _NEXT:
            if s_index[ply] >= s_count[ply]:
                if ply == 0:
                    return s_best[0]
                best = s_best[ply]
                flag = EXACT
                if best <= s_original_alpha[ply]:
                    flag = UPPER
                elif best >= s_beta[ply]:
                    flag = LOWER
                stored = best
                if stored > PROVEN:
                    stored += ply
                elif stored < -PROVEN:
                    stored -= ply
                slot = s_slot[ply]
                tt_keys[slot] = s_key[ply]
                tt_values[slot] = stored
                tt_meta[slot] = (max(s_depth[ply], 0) << 16) | (s_best_move[ply] << 8) | flag
                value = best
                mode = _RETURN
                continue
            col = s_moves[ply, s_index[ply]]
            cell = col * height + heights[col]
            if ply == 0 and _wins(counts, cell_lines, cell, side, connect):
                value = -(WIN - 1)  # seen from the (never entered) child
                ply += 1
                mode = _BACK_WITHOUT_MOVE
                continue
            _place(board, heights, counts, cell_lines, height, col, side, 1)
            s_key[ply + 1] = s_key[ply] ^ zobrist[side, cell]
            s_alpha[ply + 1] = -s_beta[ply]
            s_beta[ply + 1] = -s_alpha[ply]
            s_depth[ply + 1] = s_child_depth[ply]
            ply += 1
            mode = _ENTER
        else:
            ply -= 1
            side, other = other, side
            col = s_moves[ply, s_index[ply]]
            if mode == _RETURN:
                _place(board, heights, counts, cell_lines, height, col, side, -1)
            mode = _NEXT
            score = -value
            s_index[ply] += 1
            if ply == 0:
                column_scores[col] = score
                exact_mask[col] = score > s_alpha[0]
                if score > s_best[0]:
                    s_best[0] = score
                    s_best_move[0] = col
                    s_alpha[0] = max(-INFINITY, score - margin - 1)
                continue
            if score > s_best[ply]:
                s_best[ply] = score
                s_best_move[ply] = col
                if score > s_alpha[ply]:
                    s_alpha[ply] = score
                    if score >= s_beta[ply]:
                        s_index[ply] = s_count[ply]  # cut-off


@numba.njit(cache=True, nogil=True)
def _table_line(
    board, heights, counts, cell_lines, zobrist, height, connect, tt_keys, tt_meta, key, side, first, length, line
):
    """Follow the table's best moves from the root after `first`; fills `line`, returns its length."""
    found = 0
    col = first
    placed = np.empty(length, dtype=np.int64)
    while found < length and col >= 0 and heights[col] < height:
        cell = col * height + heights[col]
        winning = _wins(counts, cell_lines, cell, side, connect)
        _place(board, heights, counts, cell_lines, height, col, side, 1)
        placed[found] = col
        line[found] = col
        found += 1
        key ^= zobrist[side, cell]
        side = 3 - side
        if winning:
            break
        slot = np.int64(key & np.uint64(tt_keys.shape[0] - 1))
        col = -1
        if tt_keys[slot] == key:
            col = (tt_meta[slot] >> 8) & 0xFF
    for index in range(found - 1, -1, -1):
        side = 3 - side
        _place(board, heights, counts, cell_lines, height, placed[index], side, -1)
    return found


@dataclass
class Iteration:
    """The outcome of one completed depth of the heuristic search."""

    depth: int
    score: int
    column_scores: np.ndarray  # per column; -INFINITY-1 for a full column
    exact: np.ndarray  # per column: score exact (True) or an upper bound (False)
    pv: list[int]


class AlphaBeta:
    """One board's heuristic search state: position arrays and a transposition table that persists.

    Not thread-safe: give each thread (the player, the ponderer) its own instance.
    """

    def __init__(self, width: int = 7, height: int = 6, connect: int = 4, table_bits: int = TABLE_BITS) -> None:
        self.lines: Lines = board_lines(width, height, connect)
        size = 1 << table_bits
        self.tt_keys = np.zeros(size, dtype=np.uint64)
        self.tt_values = np.zeros(size, dtype=np.int64)
        self.tt_meta = np.zeros(size, dtype=np.int64)
        self.marks = np.zeros((3, self.lines.cells), dtype=np.int8)
        self.control = np.zeros(3, dtype=np.int64)
        self.stop = np.zeros(2, dtype=np.int64)  # a stop flag, and a deadline on the kernels' clock (0: none)
        self._lock = threading.Lock()
        self._weights = np.zeros(0, dtype=np.int64)
        self.set_board(np.zeros((height, width), dtype=np.int8))

    def use_weights(self, weights: np.ndarray) -> None:
        """Evaluate with `weights` from now on; table entries scored with other weights are dropped."""
        if not np.array_equal(weights, self._weights):
            self.tt_keys[:] = 0
            self._weights = weights.copy()

    def set_board(self, grid: np.ndarray) -> None:
        """Load a numpy board (rows, cols), row 0 at the bottom, 0 empty, 1 first player, 2 second."""
        lines = self.lines
        height, width = lines.height, lines.width
        self.board = np.zeros(lines.cells, dtype=np.int8)
        self.heights = np.zeros(width, dtype=np.int64)
        self.counts = np.zeros((3, lines.line_cells.shape[0]), dtype=np.int64)
        self.key = np.uint64(0)
        for col in range(width):
            for row in range(height):
                player = int(grid[row, col])
                if player == 0:
                    break
                cell = col * height + row
                self.board[cell] = player
                self.heights[col] = row + 1
                self.key ^= lines.zobrist[player, cell]
                for line in lines.cell_lines[cell]:
                    if line < 0:
                        break
                    self.counts[player, line] += 1
        self.played = int(self.heights.sum())
        self.side = 1 if self.played % 2 == 0 else 2

    def iterate(
        self, depth: int, weights: np.ndarray, root_order: list[int], margin: int, node_limit: int
    ) -> Iteration | None:
        """One depth of iterative deepening; None when the stop flag or the node limit cut it short."""
        lines = self.lines
        self.control[ABORTED] = 0
        self.control[NODE_LIMIT] = node_limit
        column_scores = np.full(lines.width, -INFINITY - 1, dtype=np.int64)
        exact = np.zeros(lines.width, dtype=np.bool_)
        with self._lock:
            best = _search(
                self.board,
                self.heights,
                self.counts,
                lines.line_cells,
                lines.cell_lines,
                lines.zobrist,
                lines.width,
                lines.height,
                lines.connect,
                weights,
                self.marks,
                self.tt_keys,
                self.tt_values,
                self.tt_meta,
                self.control,
                self.stop,
                self.key,
                self.played,
                self.side,
                depth,
                np.array(root_order, dtype=np.int64),
                margin,
                column_scores,
                exact,
            )
        if self.control[ABORTED]:
            return None
        first = int(np.argmax(column_scores))
        line = np.empty(depth + 8, dtype=np.int64)
        length = _table_line(
            self.board,
            self.heights,
            self.counts,
            lines.cell_lines,
            lines.zobrist,
            lines.height,
            lines.connect,
            self.tt_keys,
            self.tt_meta,
            self.key,
            self.side,
            first,
            depth + 8,
            line,
        )
        return Iteration(depth, int(best), column_scores, exact, [int(c) for c in line[:length]])

    @property
    def nodes(self) -> int:
        return int(self.control[NODES])

    def reset_nodes(self) -> None:
        self.control[NODES] = 0
