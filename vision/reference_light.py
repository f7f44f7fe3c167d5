"""A frame's look put in the light of a reference frame: a webcam's exposure and white balance drift during a game.

The game compares holes with how they looked on the empty board (vision.unchanged). A webcam that turns its
exposure or white balance up or down moves every colour by a gain per channel, and a hole that has not changed would
look changed. The board's face round every hole is a colour reference in every frame: the gains that bring the
face as seen now back to the face in the reference are applied to the whole frame's look, if they are gains a
webcam's drift gives (GAIN_RANGE) and they fit most of the face (a hand in front of a part of the board does not
move the median, a hand in front of most of it leaves no face to fit and nothing is put in other light).
"""

from __future__ import annotations

import numpy as np

from vision.hole_samples import to_weighted_lab, weighted_lab_to_bgr_floats

# The per-channel gains a webcam's exposure and white balance drift give (exposure +-30% and a few hundred kelvin).
GAIN_RANGE = (0.6, 1.7)
# A patch's channel this bright may hold pixels burnt at the camera's ceiling: its median is a lower bound only.
NEAR_CEILING = 200
# The face's patches within this distance (weighted Lab) of the reference's, after the gains, show the same face.
SAME_FACE = 12.0


def light_gains(patches: np.ndarray, reference: np.ndarray, face: slice) -> np.ndarray | None:
    """(3,) the per-channel (BGR) gains that put `patches` ((holes, patches, 3) weighted Lab) in the light of
    `reference` (the same, of a reference frame): the median ratio of the reference's face patches (`face`, those
    on the board's face round each hole) to this frame's. None when they are none a webcam gives, or fit fewer of
    the face's patches than no gains do."""
    seen, then = weighted_lab_to_bgr_floats(patches[:, face]), weighted_lab_to_bgr_floats(reference[:, face])
    usable = ~np.isnan(then).any(axis=-1) & (seen < NEAR_CEILING).all(axis=-1)
    if not usable.any():
        return None
    gains = np.median(then[usable] / np.maximum(seen[usable], 1.0), axis=0)
    if not ((gains >= GAIN_RANGE[0]) & (gains <= GAIN_RANGE[1])).all():
        return None
    corrected = to_weighted_lab(np.clip(seen * gains, 0, 255))
    if _same_face_share(corrected, reference[:, face]) < _same_face_share(patches[:, face], reference[:, face]):
        return None
    return gains


def in_reference_light(patches: np.ndarray, gains: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    """`patches` ((holes, patches, 3) weighted Lab) times `gains` (light_gains). A channel near the camera's ceiling,
    here or in the `reference` they are compared with (NaN where it holds none), may hold burnt pixels and shows
    only that it is at least that bright: it counts as the reference's where that fits."""
    seen = weighted_lab_to_bgr_floats(patches)
    corrected = seen * gains
    if reference is not None:
        then = weighted_lab_to_bgr_floats(reference)
        here, there = seen >= NEAR_CEILING, np.nan_to_num(then) >= NEAR_CEILING
        burnt = (here | there) & ~np.isnan(then)
        bound = np.where(here, np.fmax(corrected, then), np.fmin(corrected, then))
        corrected = np.where(burnt, bound, corrected)
    return to_weighted_lab(np.clip(corrected, 0, 255))


def _same_face_share(patches: np.ndarray, reference: np.ndarray) -> float:
    """The share of the face's patches within SAME_FACE of the reference's (where it holds one)."""
    with np.errstate(invalid="ignore"):
        distances = np.linalg.norm(patches - reference, axis=-1)
    known = ~np.isnan(distances)
    return float((distances[known] < SAME_FACE).mean()) if known.any() else 0.0
