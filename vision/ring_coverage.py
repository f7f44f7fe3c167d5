"""How fully a colour covers the ring of pixels round each hole's centre (vision.hole_samples), sector by sector.

A disc resting in its slot fills the hole face-on, so every sector of the ring shows its colour; a loose disc
behind the board shows as a crescent and covers some sectors only. (A ring-shaped disc's centre shows the room:
vision.rim_band looks at the band just inside the rim instead.)
"""

from __future__ import annotations

import numpy as np

from vision.colour_clusters import MATCH_RADIUS
from vision.hole_samples import SECTOR_COUNT, HoleSamples, decisive, local_light, ramp_shaded_distances

# The light a disc's ring pixels may be in round the hole's own, or under a ramp across it from a lit side in it.
SHADING_RANGE = (0.92, 1.08)


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

    A ring pixel counts for the nearest colour when it is within MATCH_RADIUS and not `claimed` (holes,
    ring pixels) by the background. The two worst sectors are spared (the hole wall's shadow at an angle,
    a highlight); the next two decide, so a crescent covering half the ring scores near zero and a disc in
    its slot near one.
    """
    count, holes, _ = distances.shape
    if count == 0:
        return np.zeros((holes, 0))
    nearest = distances.argmin(axis=0)
    matched = distances.min(axis=0) < MATCH_RADIUS
    if claimed is not None:
        matched &= ~claimed
    hits = ((nearest[:, None, :] == np.arange(count)[:, None]) & matched[:, None, :]).astype(np.float32)
    in_sector = (sector[:, None] == np.arange(SECTOR_COUNT)).astype(np.float32)
    return decisive(hits @ (in_sector / np.maximum(in_sector.sum(axis=0), 1.0)))
