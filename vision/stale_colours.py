"""Calibrated colours checked against the colours the frame itself shows.

Colours recorded at calibration go stale when the light drifts (a webcam's automatic exposure or white balance,
a person leaning over the board, a cloud): read with them alone, a frame in warmer light is read confidently
wrong. So a calibrated reading is checked against the reading whose colours are learnt from the same frame (the
cold reading). That reading counts only when each of its colours is what a calibrated colour becomes in some light
a room and a webcam give (a wall seen through the empty holes of a nearly empty board, which the cold reading may
take for discs, is not), and only when they no longer fit the calibrated colours (in a steady light the
calibrated reading stands); its colours are then named by the calibrated colours they pair with at the least
distance. Where the two readings differ, the cell is unsure; where they agree and neither doubts it, two readings by
different colours vouch for it. The grid that explains the frame better is kept; when that is the frame's own, the calibrated
colours no longer fit the light and a problem says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from vision.classify import Classification
from vision.colour_clusters import MATCH_RADIUS, SHADE_MATCH_RADIUS
from vision.hole_samples import from_weighted_lab_to_bgr, to_weighted_lab

STALE_COLOURS = "the light has changed since the colours were calibrated: read with the colours this frame shows"
# The most a cell is trusted where the other reading leans (CONTRADICTING_CONFIDENCE or more) towards another
# value. A value the other reading gives no more than an even chance (a disc its count prior emptied, an empty
# hole it could not prove) does not contradict.
DISAGREEING_CONFIDENCE = 0.5
CONTRADICTING_CONFIDENCE = 0.7
# The light a colour may have drifted into since calibration: exposure scales every channel, a white balance
# between a warm lamp's and a cool window's scales blue against red (both beyond what webcams leave uncorrected),
# the camera's ceiling clips what goes past 255.
EXPOSURE_REACH = np.linspace(0.5, 1.6, 12)
WARMEST_GAINS_BGR = np.array([0.65, 1.0, 1.35])
COOLEST_GAINS_BGR = np.array([1.35, 1.02, 0.7])
WHITE_BALANCE_STEPS = 9
# The frame's colours fit the calibrated ones when each is this near its partner (the radius within which a colour
# is a disc colour's own): the calibrated reading then stands as it is.
FITTING_DISTANCE = SHADE_MATCH_RADIUS


def reference_indices(frame_colours: Sequence[np.ndarray], reference: Sequence[np.ndarray]) -> tuple[int, ...]:
    """For each colour learnt from the frame (weighted Lab), the index of the calibrated colour it stands for: the
    one-to-one pairing with the least total distance."""
    if not frame_colours:
        return ()
    distance = np.linalg.norm(np.asarray(frame_colours)[:, None] - np.asarray(reference)[None], axis=2)
    pairings = itertools.permutations(range(len(reference)), len(frame_colours))
    return min(pairings, key=lambda pairing: sum(distance[k, index] for k, index in enumerate(pairing)))


def drifted(colour: np.ndarray) -> np.ndarray:
    """(n, 3) weighted Lab: what a weighted-Lab colour looks like under every light within reach of its own."""
    bgr = from_weighted_lab_to_bgr(colour).astype(np.float64)
    mix = np.linspace(0.0, 1.0, WHITE_BALANCE_STEPS)[:, None]
    white_balance = np.concatenate([1 + mix * (WARMEST_GAINS_BGR - 1), 1 + mix * (COOLEST_GAINS_BGR - 1)])
    gains = EXPOSURE_REACH[:, None, None] * white_balance[None]
    variants = np.clip(bgr * gains, 0, 255).reshape(1, -1, 3).astype(np.uint8)
    return to_weighted_lab(variants)[0]


def is_within_reach(
    frame_colours: Sequence[np.ndarray], reference: Sequence[np.ndarray], indices: Sequence[int]
) -> bool:
    """Whether every frame colour is its paired calibrated colour in some light within reach."""
    return all(
        np.linalg.norm(drifted(reference[index]) - frame_colours[value], axis=1).min() < MATCH_RADIUS
        for value, index in enumerate(indices)
    )


def checked_against_frame(
    calibrated: Classification,
    cold: Classification,
    reference: Sequence[np.ndarray],
    read_with: Callable[[tuple[np.ndarray, ...]], Classification],
) -> Classification:
    """The calibrated reading checked against the cold one of the same frame: in the calibrated colours' numbering,
    the better-explaining grid, its cells unsure where the other reading leans towards another value. A cold
    reading whose colours no light within reach makes of the calibrated ones checks nothing, and one whose colours
    fit the calibrated ones (FITTING_DISTANCE) leaves the calibrated reading as it is.

    When the frame's own colours explain it better, the calibrated reading is made again with them (each named by
    the calibrated colour it pairs with), as `read_with` reads the frame with given colours: light that has
    drifted since calibration then costs the check nothing where both colours are still seen."""
    indices = reference_indices(cold.colours, reference)
    if not is_within_reach(cold.colours, reference, indices):
        return calibrated
    offset = max((float(np.linalg.norm(cold.colours[v] - reference[i])) for v, i in enumerate(indices)), default=0.0)
    if offset < FITTING_DISTANCE:
        return calibrated
    is_stale = cold.score > calibrated.score
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
    # Two readings vouch for a cell only where neither doubts it: one that gives its value no more than an even chance
    # (a hole it could not prove empty) keeps the cell where the kept reading has it, never raised.
    vouched = agree & (np.minimum(kept.confidence, other.confidence) > DISAGREEING_CONFIDENCE)
    confidence = np.where(vouched, np.maximum(kept.confidence, other.confidence), kept.confidence)
    confidence = np.where(contradicted, np.minimum(confidence, DISAGREEING_CONFIDENCE), confidence)
    return Classification(grid, confidence, tuple(colours), [STALE_COLOURS] * is_stale + list(problems), kept.score)
