"""A frame's look put in the light of a reference frame: a webcam's exposure and white balance drift during a game.

The game compares holes with how they looked on the empty board (vision.unchanged). A webcam that turns its
exposure or white balance up or down moves every colour by a gain per channel, and a hole that has not changed would
look changed. The board's face round every hole is a colour reference in every frame: the gains that bring the
face as seen now back to the face in the reference are applied to the whole frame's look, if they are gains a
webcam's drift gives (GAIN_RANGE) and they fit most of the face (a hand in front of a part of the board does not
move the median, a hand in front of most of it leaves no face to fit and nothing is put in other light).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.hole_samples import LIGHTNESS_WEIGHT, to_weighted_lab

# The per-channel gains a webcam's exposure and white balance drift give (exposure +-30% and a few hundred kelvin).
GAIN_RANGE = (0.6, 1.7)
# A face patch's median this bright may hold pixels burnt at the camera's ceiling: no measure of the gains.
NEAR_CEILING = 240
# The face's patches within this distance (weighted Lab) of the reference's, after the gains, show the same face.
SAME_FACE = 12.0


def in_reference_light(patches: np.ndarray, reference: np.ndarray, face: slice) -> np.ndarray:
    """`patches` ((holes, patches, 3) weighted Lab) in the light of `reference` (the same, of a reference frame;
    NaN where it holds none): each channel's gain is the median ratio of the reference's face patches (`face`, the
    patches on the board's face round each hole) to this frame's. `patches` is returned as it is when the gains are
    none a webcam gives, or fit fewer of the face's patches than no gains do."""
    seen, then = _bgr(patches), _bgr(reference)
    usable = ~np.isnan(then[:, face]).any(axis=-1) & (seen[:, face] < NEAR_CEILING).all(axis=-1)
    if not usable.any():
        return patches
    gains = np.median(then[:, face][usable] / np.maximum(seen[:, face][usable], 1.0), axis=0)
    if not ((gains >= GAIN_RANGE[0]) & (gains <= GAIN_RANGE[1])).all():
        return patches
    # The reference as this frame's light shows it, burnt where the camera's ceiling burns it (a patch's median
    # burns as its pixels do), and how far this frame is from that, carried back to the reference.
    expected = to_weighted_lab(np.clip(np.nan_to_num(then) / gains, 0, 255))
    corrected = np.where(np.isnan(reference), patches, reference + (patches - expected))
    if _same_face_share(corrected[:, face], reference[:, face]) < _same_face_share(
        patches[:, face], reference[:, face]
    ):
        return patches
    return corrected


def _same_face_share(patches: np.ndarray, reference: np.ndarray) -> float:
    """The share of the face's patches within SAME_FACE of the reference's (where it holds one)."""
    with np.errstate(invalid="ignore"):
        distances = np.linalg.norm(patches - reference, axis=-1)
    known = ~np.isnan(distances)
    return float((distances[known] < SAME_FACE).mean()) if known.any() else 0.0


def _bgr(weighted_lab: np.ndarray) -> np.ndarray:
    """Weighted Lab (..., 3) to BGR (..., 3) floats in 0..255, NaN kept."""
    lab = np.array(weighted_lab, dtype=np.float32)
    lab[..., 0] /= LIGHTNESS_WEIGHT
    flat = np.nan_to_num(lab.reshape(-1, 1, 3))
    bgr = cv2.cvtColor(flat, cv2.COLOR_Lab2BGR).reshape(lab.shape) * 255.0
    bgr[np.isnan(lab).any(axis=-1)] = np.nan
    return bgr
