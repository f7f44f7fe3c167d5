"""How fully a colour covers the ring of pixels round each hole's centre (vision.hole_samples), sector by sector.

A disc resting in its slot fills the hole face-on, so every sector of the ring shows its colour; a loose disc
behind the board shows as a crescent and covers some sectors only. (A ring-shaped disc's centre shows the room:
vision.rim_band looks at the band just inside the rim instead, and the room seen in the middle of the ring is left
out of it.)
"""

from __future__ import annotations

import numpy as np

from vision.colour_clusters import MATCH_RADIUS
from vision.hole_samples import (
    RING_PLANE,
    SECTOR_COUNT,
    HoleSamples,
    decisive,
    local_light,
    ramp_shaded_distances,
)

# The light a disc's ring pixels may be in round the hole's own, or under a ramp across it from a lit side in it.
SHADING_RANGE = (0.92, 1.08)
# Ring pixels this near the hole's centre (in pitches) may show a ring-shaped disc's hole, seen aside too: the room
# there is no sign of an empty hole. A loose disc's crescent leaves the room beyond, next to the rim.
RING_HOLE_PITCH = 0.2
_IN_RING_HOLE = np.hypot(RING_PLANE[:, 1], RING_PLANE[:, 2]) < RING_HOLE_PITCH


def colour_distances(samples: HoleSamples, colours: tuple[np.ndarray, ...]) -> np.ndarray:
    """(len(colours), holes, ring pixels) distances from every ring pixel to every colour, under slight shading.

    A curved disc or one in the rim's shadow is a little darker on one side (a ramp of light across it whose
    lit side is in the board's light, as the face beside the hole shows it); loose discs lying behind the board
    are darker all over, so the allowed shading is narrow (SHADING_RANGE).
    """
    return ramp_shaded_distances(
        samples.pixels, np.asarray(colours).reshape(-1, 3), SHADING_RANGE, local_light(samples)
    )


def coverage(distances: np.ndarray, sector: np.ndarray, claimed: np.ndarray | None = None) -> np.ndarray:
    """(holes, colours): how fully each colour covers each hole's ring, sector by sector (`sector` of each pixel),
    from the distances (colours, holes, ring pixels) of every ring pixel to every colour.

    A ring pixel counts for the nearest colour when it is within MATCH_RADIUS and not `claimed` (holes, ring
    pixels) by the background (the room seen through the empty holes); a claimed one within RING_HOLE_PITCH of the
    centre is left out of its sector (a ring-shaped disc's hole). The two worst sectors are spared (the hole wall's
    shadow at an angle, a highlight); the next two decide, so a crescent covering half the ring scores near zero and
    a disc in its slot near one.
    """
    count, holes, _ = distances.shape
    if count == 0:
        return np.zeros((holes, 0))
    nearest = distances.argmin(axis=0)
    matched = distances.min(axis=0) < MATCH_RADIUS
    counted = np.ones(matched.shape, dtype=bool)
    if claimed is not None:
        matched &= ~claimed
        counted &= ~(claimed & _IN_RING_HOLE)
    hits = ((nearest[:, None, :] == np.arange(count)[:, None]) & matched[:, None, :]).astype(np.float32)
    in_sector = (sector[:, None] == np.arange(SECTOR_COUNT)).astype(np.float32)
    seen = counted.astype(np.float32) @ in_sector  # (holes, sectors): the pixels of each sector that count
    return decisive((hits @ in_sector) / np.maximum(seen, 1.0)[:, None, :])
