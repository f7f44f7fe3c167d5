"""Calibrated colours checked against the colours the frame itself shows.

Colours recorded at calibration go stale when the light drifts (a webcam's automatic exposure or white balance,
a person leaning over the board, a cloud): read with them alone, a frame in warmer light is read confidently
wrong. So a calibrated reading is checked against the reading whose colours are learnt from the same frame (the
cold reading). The frame's colours are named by the calibrated colours they pair with at the least distance
(light that moves one disc colour moves the other alike, so the pairing holds where the colours no longer match).
Where the two readings differ, the cell is unsure; where they agree, two readings by different colours vouch for
it. The grid that explains the frame better is kept; when that is the frame's own, the calibrated colours no
longer fit the light and a problem says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from vision.classify import Classification

STALE_COLOURS = "the light has changed since the colours were calibrated: read with the colours this frame shows"
OTHER_DISCS = "the discs look unlike the calibrated colours: run calibrate colours again"
# The most a colour's hue turns under the light a room and a webcam's white balance give (a yellow disc under a warm
# lamp turns orange); a frame colour turned further from its calibrated partner is another disc colour.
MAX_HUE_TURN_DEG = 60.0
# Below this chroma (weighted Lab) a colour is grey enough that its hue says nothing.
HUE_CHROMA = 15.0
# The most a cell is trusted where the other reading leans (CONTRADICTING_CONFIDENCE or more) towards another
# value. A value the other reading gives no more than an even chance (a disc its count prior emptied, an empty
# hole it could not prove) does not contradict.
DISAGREEING_CONFIDENCE = 0.5
CONTRADICTING_CONFIDENCE = 0.7


def reference_indices(frame_colours: Sequence[np.ndarray], reference: Sequence[np.ndarray]) -> tuple[int, ...]:
    """For each colour learnt from the frame (weighted Lab), the index of the calibrated colour it stands for: the
    one-to-one pairing with the least total distance."""
    if not frame_colours:
        return ()
    distance = np.linalg.norm(np.asarray(frame_colours)[:, None] - np.asarray(reference)[None], axis=2)
    pairings = itertools.permutations(range(len(reference)), len(frame_colours))
    return min(pairings, key=lambda pairing: sum(distance[k, index] for k, index in enumerate(pairing)))


def checked_against_frame(
    calibrated: Classification,
    cold: Classification,
    reference: Sequence[np.ndarray],
    read_with: Callable[[tuple[np.ndarray, ...]], Classification],
) -> Classification:
    """The calibrated reading checked against the cold one of the same frame: in the calibrated colours' numbering,
    the better-explaining grid, its cells unsure where the other reading leans towards another value.

    When the frame's own colours explain it better, the calibrated reading is made again with them (each named by
    the calibrated colour it pairs with), as `read_with` reads the frame with given colours: light that has
    drifted since calibration then costs the check nothing where both colours are still seen."""
    indices = reference_indices(cold.colours, reference)
    is_stale = cold.score > calibrated.score
    is_other = is_stale and any(
        _hue_turn(cold.colours[value], reference[index]) > MAX_HUE_TURN_DEG for value, index in enumerate(indices)
    )
    if is_stale and len(indices) == len(reference):
        relearnt = [np.zeros(3)] * len(reference)
        for value, index in enumerate(indices):
            relearnt[index] = cold.colours[value]
        calibrated = read_with(tuple(relearnt))
    renamed = np.zeros_like(cold.grid)
    for value, index in enumerate(indices, start=1):
        renamed[cold.grid == value] = index + 1
    if cold.score > calibrated.score:
        kept, other, grid, problems = cold, calibrated, renamed, cold.problems
        colours = list(reference)
        for value, index in enumerate(indices):
            colours[index] = cold.colours[value]
    else:
        kept, other, grid, problems, colours = (
            calibrated,
            cold,
            calibrated.grid,
            calibrated.problems,
            calibrated.colours,
        )
    other_grid = calibrated.grid if other is calibrated else renamed
    agree = other_grid == grid
    contradicted = ~agree & (other.confidence >= CONTRADICTING_CONFIDENCE)
    confidence = np.where(agree, np.maximum(kept.confidence, other.confidence), kept.confidence)
    confidence = np.where(contradicted, np.minimum(confidence, DISAGREEING_CONFIDENCE), confidence)
    if is_other:  # which disc is whose is a guess
        confidence = np.where(grid != 0, np.minimum(confidence, DISAGREEING_CONFIDENCE), confidence)
    said = [OTHER_DISCS] if is_other else [STALE_COLOURS] * is_stale
    return Classification(grid, confidence, tuple(colours), said + problems, kept.score)


def _hue_turn(colour: np.ndarray, reference: np.ndarray) -> float:
    """Degrees between the hues of two weighted-Lab colours (0 when either is too grey to have one)."""
    if min(np.hypot(colour[1], colour[2]), np.hypot(reference[1], reference[2])) < HUE_CHROMA:
        return 0.0
    turn = np.degrees(np.arctan2(colour[2], colour[1]) - np.arctan2(reference[2], reference[1]))
    return float(abs((turn + 180.0) % 360.0 - 180.0))
