"""How fully a colour fills each hole out to its rim: a disc in its slot does all round, a loose disc behind does not.

A disc resting in its slot sits just behind the front plate and fills the hole face-on, so along every ray
from the hole's centre its colour reaches the rim (a shade darker where the rim casts its shadow, and short
of it only by the thin front plate seen at an angle). A loose disc lying behind the board is seen through
the whole depth of the board and off-centre: on one side its colour stops well inside the rim and the
room or the hole's inner wall shows beyond it. The dent is how much shorter the colour reaches in its
worst directions than in its typical ones, out to a circle just inside the rim centred on the rim itself
(so a lattice a little off the holes does not make discs look dented); coverage of the ring alone cannot
see it when the loose disc covers three quarters of the hole.
"""

from __future__ import annotations

import numpy as np

from vision.hole_samples import RAY_RADII_PITCH, shaded_distances

# Every shade a disc's edge or the board's inside takes, down to the deep shadow under the rim.
EDGE_SHADING_RANGE = (0.25, 1.5)
# A sample this far (weighted Lab) from every shade of the disc colour is not the disc: the room. Between the
# match radius and this lies the disc's edge in the rim's shadow, which turns browner than any shade.
ROOM_DISTANCE = 24.0
# Up to this radius round the rim's centre every disc in its slot shows (holes measure 0.33 to 0.38 pitch).
REACH_RADIUS_PITCH = 0.32
# The worst directions: this share of the rays, about the arc a crescent of a quarter of the hole spans.
WORST_RAYS = 0.125
# The typical directions: a loose disc can leave two crescents (its own offset, and the inner wall the view
# through the board's depth shows), so its typical reach is the rim's only in the best quarter of its rays.
TYPICAL_RAYS = 0.25


def reach_limits(rim_offsets: np.ndarray, ray_count: int) -> np.ndarray:
    """(holes, rays) in pitches: how far along each ray from a hole's sampled centre the circle of REACH_RADIUS_PITCH
    round its rim's centre (`rim_offsets`, (holes, 2)) lies: as far as a disc in its slot shows along that ray."""
    angles = np.arange(ray_count) * 2 * np.pi / ray_count
    along = rim_offsets @ np.stack([np.cos(angles), np.sin(angles)])
    return along + np.sqrt(REACH_RADIUS_PITCH**2 - (rim_offsets**2).sum(axis=1)[:, None] + along**2)


def fill_dents(
    rays: np.ndarray, rim_offsets: np.ndarray, colours: np.ndarray, face: np.ndarray, match_radius: float
) -> np.ndarray:
    """(holes, colours) in pitches: how much shorter each colour reaches along the hole's worst rays than along
    its typical ones. `rays` and `rim_offsets` as in HoleSamples; `colours` (k, 3) and `face` (3,) weighted Lab.

    A ray's sample shows what is behind the board when it is the board's face in some shade (the hole's inner
    wall) rather than the colour, or far from every shade of the colour (the room); a ray reaches out to its
    outermost sample that does not (stars, highlights and a ring disc's open centre inside it do not matter),
    at most to the circle of REACH_RADIUS_PITCH round the rim's centre.
    """
    colours = np.asarray(colours, dtype=np.float64).reshape(-1, 3)
    holes, ray_count, _, _ = rays.shape
    if len(colours) == 0:
        return np.zeros((holes, 0))
    limit = reach_limits(rim_offsets, ray_count)
    radii = RAY_RADII_PITCH[limit.max() >= RAY_RADII_PITCH]
    rays = rays[:, :, : len(radii)]
    # (colours + 1, holes, rays, radii): every colour's distances, then the face's.
    distances = shaded_distances(rays, np.vstack([colours, face]), EDGE_SHADING_RANGE)
    to_colour, to_face = distances[:-1], distances[-1:]
    shows_colour = (to_colour <= ROOM_DISTANCE) & ((to_face >= match_radius) | (to_face >= to_colour))
    shows_colour &= radii <= limit[:, :, None]
    outermost = np.where(shows_colour, np.arange(len(radii)), -1).max(axis=3)
    reach = np.where(outermost >= 0, radii[np.maximum(outermost, 0)], 0.0)
    shortfall = np.sort(limit - reach, axis=2)
    return (shortfall[:, :, int((1 - WORST_RAYS) * ray_count)] - shortfall[:, :, int(TYPICAL_RAYS * ray_count)]).T
