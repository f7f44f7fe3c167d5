"""The static evaluation of an unsolved position: what the heuristic search scores at its horizon.

It joins the seed programs' ideas with Allis' threat theory:
- Pomakis' per-line statistics and the robot seed's windows: every line still open for one player
  counts, more the more stones it holds (`ONE`, `TWO`, `THREE`);
- the Delphi program's styles: an expansive player weighs its own streets (`OWN_PCT`), a restrictive
  one the opponent's (`OPP_PCT`), a tactical one the threats stacked on top of each other (`STACKED`);
- threats (an empty cell that completes a line) and their rows: the first player wants threats on
  odd rows (1-based), the second on even rows, because zugzwang hands each its parity when the board
  fills up. The lowest threat of a column is the one that counts (`LOW_THREAT`); Allis' patterns
  (white odd threat wins; both even: black wins; white even + black odd: draw) give `ZUGZWANG`.
Weights live in an int32 array (indices below) so that levels, styles and tuning change them
without recompiling; scores are from the side to move's point of view.
"""

from __future__ import annotations

import numba
import numpy as np

ONE, TWO, THREE, OWN_PCT, OPP_PCT, LOW_THREAT, THREAT, STACKED, ZUGZWANG, NOISE, SALT = range(11)
WEIGHT_COUNT = 11

# Checked by engine-vs-engine matches (engine/match.py, a candidate against these defaults): no single
# change tried beat them by more than the matches' noise.
DEFAULT_WEIGHTS = {
    "ONE": 1,
    "TWO": 4,
    "THREE": 12,
    "OWN_PCT": 100,
    "OPP_PCT": 100,
    "LOW_THREAT": 40,
    "THREAT": 10,
    "STACKED": 60,
    "ZUGZWANG": 60,
    "NOISE": 0,
    "SALT": 0,
}

# The Delphi seed's strategies that make sense with a search behind them.
STYLES = {
    "neutral": {},
    "expansive": {"OWN_PCT": 130, "OPP_PCT": 80},
    "restrictive": {"OWN_PCT": 80, "OPP_PCT": 130},
    "tactical": {"STACKED": 120, "THREAT": 20},
}

EVAL_LIMIT = 5000  # heuristic scores stay inside +-EVAL_LIMIT, far from the win scores of the search


def make_weights(style: str = "neutral", **overrides: int) -> np.ndarray:
    """The weight array for a style, with single weights overridden by name (e.g. NOISE=30).

    Raises ValueError for an unknown style or weight name.
    """
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}: choose one of {', '.join(STYLES)}")
    values = dict(DEFAULT_WEIGHTS)
    values.update(STYLES[style])
    for name, value in overrides.items():
        if name not in values:
            raise ValueError(f"unknown evaluation weight {name!r}: choose one of {', '.join(values)}")
        values[name] = int(value)
    names = (
        "ONE",
        "TWO",
        "THREE",
        "OWN_PCT",
        "OPP_PCT",
        "LOW_THREAT",
        "THREAT",
        "STACKED",
        "ZUGZWANG",
        "NOISE",
        "SALT",
    )
    return np.array([values[name] for name in names], dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def evaluate(board, heights, counts, line_cells, side, width, height, connect, weights, marks, key):
    """Score of the position for `side` (1 or 2) to move; board/counts as kept by the search kernel.

    Precondition: no immediate win for either side is decided here (the search handles those).
    `marks` is a (3, W*H) int8 scratch array.
    """
    other = 3 - side
    line_sum = np.zeros(3, dtype=np.int64)
    marks[:, :] = 0
    for line in range(line_cells.shape[0]):
        for player in (1, 2):
            mine = counts[player, line]
            if mine == 0 or counts[3 - player, line] != 0:
                continue
            if mine == connect - 1:
                line_sum[player] += weights[THREE]
                for k in range(connect):
                    cell = line_cells[line, k]
                    if board[cell] == 0:
                        marks[player, cell] = 1
            elif mine == connect - 2:
                line_sum[player] += weights[TWO]
            else:
                line_sum[player] += weights[ONE]
    score = (line_sum[side] * weights[OWN_PCT] - line_sum[other] * weights[OPP_PCT]) // 100

    threat_sum = np.zeros(3, dtype=np.int64)
    # parity_threats[player, parity]: columns whose lowest threat of `player` has no opponent
    # threat below it, by row parity (0 = odd row 1-based, the first player's; 1 = even row)
    parity_threats = np.zeros((3, 2), dtype=np.int64)
    for col in range(width):
        blocked = np.zeros(3, dtype=np.bool_)  # an opponent threat lies lower in this column
        for row in range(heights[col], height):
            cell = col * height + row
            for player in (1, 2):
                if marks[player, cell] == 0:
                    continue
                if row > heights[col] and marks[player, cell - 1] == 1:
                    threat_sum[player] += weights[STACKED]
                if not blocked[player]:
                    threat_sum[player] += weights[LOW_THREAT]
                    parity_threats[player, row % 2] += 1
                    blocked[player] = True  # its higher threats are worth less
                else:
                    threat_sum[player] += weights[THREAT]
            for player in (1, 2):
                if marks[player, cell] == 1:
                    blocked[3 - player] = True
    score += threat_sum[side] - threat_sum[other]

    # Allis' patterns: who controls zugzwang, + for the first player
    white_odd, white_even = parity_threats[1, 0], parity_threats[1, 1]
    black_odd, black_even = parity_threats[2, 0], parity_threats[2, 1]
    zugzwang = 0
    if white_odd > 0 and black_odd == 0:
        zugzwang = 2
    elif white_odd > 0:
        zugzwang = 1
    elif black_even > 0:
        zugzwang = -2
    elif white_even > 0 and black_odd > 0:
        zugzwang = 0
    elif black_odd > 0:
        zugzwang = -1
    zugzwang_score = zugzwang * weights[ZUGZWANG] // 2
    score += zugzwang_score if side == 1 else -zugzwang_score

    if weights[NOISE] > 0:
        mixed = (key ^ np.uint64(weights[SALT])) * np.uint64(0x9E3779B97F4A7C15)
        unit = np.int64(mixed >> np.uint64(40)) % (2 * weights[NOISE] + 1)
        score += unit - weights[NOISE]
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, score))
