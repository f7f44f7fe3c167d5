"""How far short of its hole's rim a disc colour stops, allowing a disc in its slot the strip of the hole's inner
wall that a camera aside sees beside it.

Seen from 25-40 degrees aside, a disc in its slot shows a thin strip of the hole's inner wall on its far side, which
the crescent rule (vision.hole_fill: colour short of the rim on one side means a loose disc behind the board) would
take for a loose disc. A disc in its slot is lit as the colour step's disc was; a loose disc behind the board lies in
its shadow, so the strip is forgiven only where the colour is lit as calibrated.
"""

from __future__ import annotations

import numpy as np

from vision.colour_clusters import MATCH_RADIUS, SHADOW_RANGE
from vision.hole_fill import fill_dents, reach_limits
from vision.hole_samples import BLACK, FACE_LIGHT_RANGE, RAY_RADII_PITCH, HoleSamples, shaded_distances

# A disc in its slot reaches the rim all round but for the thin front plate and the rim's shadow; a loose disc
# behind, off by a third of a hole radius, leaves a wider crescent.
DENT_TOLERANCE_PITCH = 0.02
# The hole's inner wall is the face's material, lit or in the rim's shadow (as vision.hole_samples finds the face).
WALL_SHADING_RANGE = FACE_LIGHT_RANGE
# Below this weighted-Lab lightness (a black board) the face's shades and the dark behind the board look alike.
WALL_LIGHTNESS = 10.0
# The front plate seen from up to 40 degrees aside hides this much of a disc in its slot behind it.
WALL_PITCH = 0.08
# A disc in its slot is lit at least this share of the light its colour was calibrated in, in the median of its pixels.
SLOT_LIGHT = 0.9


def colour_dents(
    samples: HoleSamples, colours: tuple[np.ndarray, ...] | list[np.ndarray], walls: bool = False
) -> np.ndarray:
    """(holes, colours) how far short of the rim each colour stops in its holes' worst directions (vision.hole_fill);
    with `walls`, where the colour is lit in its hole as a disc in its slot is (`_in_slot_light`), a thin crescent of
    the hole's inner wall (the face's material in some light, within WALL_PITCH of the rim) taken for the colour: a
    disc in its slot seen from aside shows that much of the wall on its far side. Only for calibrated disc colours:
    the room seen through an empty hole shows a crescent of wall too, and among colours learnt from the frame it may
    pass for a disc. A face too dark to tell its wall from the shadows behind the board (WALL_LIGHTNESS) shows none."""
    colours = np.asarray(colours).reshape(-1, 3)
    dents = fill_dents(samples.rays, samples.rim_offsets, colours, samples.face, MATCH_RADIUS)
    if not walls or samples.face[0] < WALL_LIGHTNESS:
        return dents
    limit = reach_limits(samples.rim_offsets, samples.rays.shape[1])
    near_rim = limit[..., None] - WALL_PITCH <= RAY_RADII_PITCH
    wall = near_rim & (shaded_distances(samples.rays, samples.face[None], WALL_SHADING_RANGE)[0] < MATCH_RADIUS)
    in_slot = _in_slot_light(samples, colours)
    for index, colour in enumerate(colours):
        holes = np.flatnonzero(in_slot[index] & (dents[:, index] > DENT_TOLERANCE_PITCH))
        if len(holes):
            walled = np.where(wall[holes, ..., None], colour.astype(np.float32), samples.rays[holes])
            dents[holes, index] = fill_dents(
                walled, samples.rim_offsets[holes], colour[None], samples.face, MATCH_RADIUS
            )[:, 0]
    return dents


def _in_slot_light(samples: HoleSamples, colours: np.ndarray) -> np.ndarray:
    """(colours, holes) whether each colour's pixels in each hole's ring are, in the median, lit at least SLOT_LIGHT of
    the light the colour was calibrated in: a disc in its slot is lit as the colour step's disc was, a loose disc
    lying behind the board is in its shadow."""
    shifted = samples.pixels - BLACK
    references = colours - BLACK
    light = np.einsum("hnc,kc->khn", shifted, references) / (references * references).sum(axis=1)[:, None, None]
    matching = shaded_distances(samples.pixels, colours, SHADOW_RANGE) < MATCH_RADIUS
    median = np.array(
        [
            [np.median(light[k, h][matching[k, h]]) if matching[k, h].any() else 0.0 for h in range(len(shifted))]
            for k in range(len(colours))
        ]
    )
    return median >= SLOT_LIGHT
