"""The band just inside each hole's rim: where every disc in its slot, solid or ring-shaped, shows its colour.

A ring-shaped disc (a hole through its middle, 35 to 50% of its width) shows the room behind the board through its
centre, so the ring of pixels sampled round a hole's centre (vision.hole_samples) lies mostly inside the disc's own
hole. Yet a disc, solid or ring, shows its colour in a band just inside the rim all the way round; an empty hole
shows the room out to the rim, a loose disc behind the board only a crescent on one side. So a colour that fills
that band sector by sector fills the hole as a disc does, whatever its centre shows (vision.classify scores both),
and a disc's colour is the colour of that band where its centre shows something else (`with_ring_discs`: what the
colour step records).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.colour_clusters import MATCH_RADIUS
from vision.hole_fill import reach_limits
from vision.hole_samples import (
    BLACK,
    FACE_LIGHT_RANGE,
    RAY_COUNT,
    RAY_RADII_PITCH,
    RING_PLANE,
    SECTOR_COUNT,
    HoleSamples,
    decisive,
    from_weighted_lab_to_bgr,
    local_light,
    sample_holes,
    shaded_distances,
    shaded_distances_each,
)

# From the circle a disc in its slot reaches (vision.hole_fill) inwards this far: outside the widest ring disc's
# hole (0.23 pitch from its centre) and inside the rim.
BAND_WIDTH_PITCH = 0.07
# Near its rim a disc is a shade darker than at its centre (the rim's shadow, its rounded edge): the light a band
# sample may be in, relative to the hole's own (vision.hole_samples.local_light).
BAND_SHADING_RANGE = (0.8, 1.1)
# A hole's middle, within MIDDLE_PITCH of its centre (inside the narrowest ring disc's hole, 0.16 pitch), shows a
# ring disc's hole when in RING_SECTORS sectors or more it is not the band's colour in the same direction: farther
# than SAME_SURFACE_DISTANCE from every light on it in SAME_SURFACE_RANGE (a glare spot spoils one sector).
MIDDLE_PITCH = 0.16
RING_SECTORS = 3
SAME_SURFACE_RANGE = (0.8, 1.25)
SAME_SURFACE_DISTANCE = 8.0
# A middle whose pixels reach the camera's ceiling in some channel this often shows no colour to compare.
BURNT_SHARE = 0.25
# A ring disc's band is its colour all round but for a sliver of the room where its hole, seen at an angle, nears the
# rim; an empty hole's band mixes the hole's wall, the back plate and the room.
UNIFORM_BAND = 0.8
# The rays of each sector: rays are spread evenly from the x axis, sectors from the negative x axis (as
# vision.hole_samples numbers the ring's pixels).
_RAY_SECTOR = (((np.arange(RAY_COUNT) + 0.5) / RAY_COUNT + 0.5) * SECTOR_COUNT).astype(int) % SECTOR_COUNT
_MIDDLE = np.hypot(RING_PLANE[:, 1], RING_PLANE[:, 2]) < MIDDLE_PITCH
_RAYS_BY_SECTOR = np.argsort(_RAY_SECTOR, kind="stable").reshape(SECTOR_COUNT, -1)


def band_mask(samples: HoleSamples) -> tuple[slice, np.ndarray]:
    """The radii the band can reach (a slice of RAY_RADII_PITCH) and (holes, rays, those radii) bool: the ray
    samples in every hole's band, which follows the rim's centre (vision.rims)."""
    limit = reach_limits(samples.rim_offsets, samples.rays.shape[1])
    low, high = limit.min() - BAND_WIDTH_PITCH - 1e-9, limit.max() + 1e-9
    indices = np.flatnonzero((low <= RAY_RADII_PITCH) & (high >= RAY_RADII_PITCH))
    radii = slice(int(indices[0]), int(indices[-1]) + 1) if len(indices) else slice(0, 0)
    chosen = RAY_RADII_PITCH[radii]
    mask = (chosen >= limit[..., None] - BAND_WIDTH_PITCH - 1e-9) & (chosen <= limit[..., None] + 1e-9)
    return radii, mask


@dataclass(frozen=True)
class Band:
    """The band samples of the holes whose middle shows a ring (`shows_a_ring`), found once per frame: elsewhere the
    ring round the centre (vision.ring_coverage) sees a disc as it is. `holes` (m,) their indices among `count`
    holes; `pixels` (m, n, 3) weighted Lab, brought to the board's light (each hole's local light divided out);
    `light` (m, 1) that light; `weights` (m, n, SECTOR_COUNT) each sample's share of its sector's band (0 outside).
    """

    holes: np.ndarray
    count: int
    pixels: np.ndarray
    light: np.ndarray
    weights: np.ndarray

    def distances(self, colours: Sequence[np.ndarray]) -> np.ndarray:
        """(len(colours), m, n): from every band sample to every colour under the light BAND_SHADING_RANGE allows
        round the hole's own."""
        if not len(colours) or not len(self.holes):
            return np.zeros((len(colours), *self.pixels.shape[:2]), dtype=np.float32)
        colours = np.asarray(colours, dtype=np.float32).reshape(-1, 3)
        return shaded_distances(self.pixels, colours, BAND_SHADING_RANGE) * self.light

    def own_distances(self, colours: np.ndarray) -> np.ndarray:
        """(m, n): from every band sample to its own hole's colour (colours (m, 3)), as `distances` measures."""
        return shaded_distances_each(self.pixels, colours, BAND_SHADING_RANGE) * self.light

    def coverage(self, distances: np.ndarray, rivals: np.ndarray | None = None) -> np.ndarray:
        """(count, colours): how fully each colour fills each band (`decisive` over its sectors; 0 where no band is
        sampled), from the `distances` of its samples to the colours, and to `rivals` (what the room shows through
        empty holes): a sample counts for the nearest of them all within MATCH_RADIUS."""
        return decisive(self.per_sector(distances, rivals))

    def all_round(self, distances: np.ndarray) -> np.ndarray:
        """(count, colours): the share of each band each colour fills, no sector spared (a crescent leaves some)."""
        return self.per_sector(distances).mean(axis=2)

    def per_sector(self, distances: np.ndarray, rivals: np.ndarray | None = None) -> np.ndarray:
        """(count, colours, SECTOR_COUNT): the share of each sector of each band each colour fills (`coverage`)."""
        colours = len(distances)
        shares = np.zeros((self.count, colours, SECTOR_COUNT), dtype=np.float32)
        if colours == 0 or not len(self.holes):
            return shares
        every = distances if rivals is None or not len(rivals) else np.concatenate([distances, rivals])
        nearest = every.argmin(axis=0)
        matched = every.min(axis=0) < MATCH_RADIUS
        hits = ((nearest[None] == np.arange(colours)[:, None, None]) & matched[None]).astype(np.float32)
        shares[self.holes] = np.einsum("khn,hns->hks", hits, self.weights)
        return shares


def band_of(samples: HoleSamples, rings: np.ndarray) -> Band:
    """The band samples of the holes of `samples` that `rings` ((holes,) bool, `shows_a_ring`) marks."""
    holes = np.flatnonzero(rings)
    radii, mask = band_mask(samples)
    mask = mask[holes]
    light = local_light(samples)[holes, None]
    pixels = (samples.rays[holes, :, radii] - BLACK) / light[..., None, None] + BLACK
    pixels = pixels.reshape(len(holes), mask.shape[1] * mask.shape[2], 3)
    in_sector = mask[..., None] & (_RAY_SECTOR[None, :, None, None] == np.arange(SECTOR_COUNT))
    in_sector = in_sector.reshape(pixels.shape[:2] + (SECTOR_COUNT,)).astype(np.float32)
    weights = in_sector / np.maximum(in_sector.sum(axis=1, keepdims=True), 1.0)
    return Band(holes, len(rings), np.ascontiguousarray(pixels, dtype=np.float32), light.astype(np.float32), weights)


def with_ring_discs(
    image_bgr: np.ndarray,
    corners_px: np.ndarray,
    shape: tuple[int, int],
    centre_bgr: np.ndarray,
    samples: HoleSamples | None = None,
) -> np.ndarray:
    """(rows, cols, 3) BGR, row 0 at the bottom: `centre_bgr` (what a sample round each hole's centre shows), but
    where the middle shows a ring and the band is not the face (`ring_disc_colours`: the colour step's disc is lit as
    it may be), the band's colour. `samples`: the holes as sampled already (in their lenses, behind a thick face),
    else sampled here."""
    if samples is None:
        samples = sample_holes(image_bgr, np.asarray(corners_px, dtype=np.float64), shape)
    colours = np.asarray(centre_bgr, dtype=np.float64).reshape(-1, 3).copy()
    rings, band = ring_disc_colours(samples)
    for hole in np.flatnonzero(rings):
        colours[hole] = from_weighted_lab_to_bgr(band[hole])
    return colours.reshape(*shape, 3)


def ring_disc_colours(samples: HoleSamples) -> tuple[np.ndarray, np.ndarray]:
    """(holes,) bool, the holes whose middle shows a ring and whose band is not the face, however unevenly lit or cut
    by a tunnel's wall (`ring_discs`, not `uniform`), and (holes, 3) weighted Lab, their band's colour there: the mean
    of the band's samples that are its median's colour in some light (a glare spot, a sliver of the room or of a
    tunnel's wall left out). For whoever knows a disc is in the hole and wants its colour, not the room's."""
    rings = ring_discs(samples, shows_a_ring(samples), uniform=False)
    radii, mask = band_mask(samples)
    colours = np.zeros((len(rings), 3))
    for hole in np.flatnonzero(rings):
        band = samples.rays[hole, :, radii][mask[hole]]
        own = np.median(band, axis=0)[None]
        alike = band[shaded_distances(band, own, SAME_SURFACE_RANGE)[0] < SAME_SURFACE_DISTANCE]
        colours[hole] = alike.mean(axis=0) if len(alike) else own[0]
    return rings, colours


def shows_a_ring(samples: HoleSamples) -> np.ndarray:
    """(holes,) whether the middle of each hole (ring pixels within MIDDLE_PITCH of its centre) differs from the band
    just inside its rim in the same direction in RING_SECTORS sectors or more: a ring disc's hole shows the room,
    shifted to one side when seen off axis; a solid disc's light falls off across it, not from its middle out."""
    outer = np.median(_mid_band(samples)[:, _RAYS_BY_SECTOR], axis=2)  # (holes, sectors, 3)
    differing = np.zeros(len(samples.rays), dtype=int)
    for sector in range(SECTOR_COUNT):
        inner = np.median(samples.pixels[:, _MIDDLE & (samples.sector == sector)], axis=1)
        differing += shaded_distances_each(inner, outer[:, sector], SAME_SURFACE_RANGE) > SAME_SURFACE_DISTANCE
    return (differing >= RING_SECTORS) & ~burnt_middles(samples)  # a burnt middle differs from any band


def burnt_middles(samples: HoleSamples) -> np.ndarray:
    """(holes,) the holes whose middle reaches the camera's ceiling (BURNT_SHARE): a glare spot on a disc, or a lit
    wall seen through a ring disc's hole; either way the middle shows no colour to compare with the band."""
    if samples.at_ceiling is None:
        return np.zeros(len(samples.rays), dtype=bool)
    return (samples.at_ceiling[:, _MIDDLE] >= 1).mean(axis=1) >= BURNT_SHARE


def with_burnt_middles(samples: HoleSamples, band: Band) -> Band:
    """The bands of the holes whose middle shows a ring and of those whose middle is burnt to the camera's ceiling (a
    ring disc before a lit wall, never read by its band): an empty hole is proven by its band there too."""
    holes = burnt_middles(samples)
    if not holes[~np.isin(np.arange(len(holes)), band.holes)].any():
        return band
    holes[band.holes] = True
    return band_of(samples, holes)


def band_colours(samples: HoleSamples) -> np.ndarray:
    """(holes, 3) weighted Lab: the median colour of every hole's band, round all its rays."""
    return np.median(_mid_band(samples), axis=1)


def ring_discs(samples: HoleSamples, rings: np.ndarray, uniform: bool = True) -> np.ndarray:
    """(holes,) the holes that look like a ring disc: the middle shows a ring (`rings`, `shows_a_ring`) and the band
    is not the board's face in some light (a tunnel wall or the back plate seen through an empty hole at an angle)
    and, with `uniform`, one colour nearly all round (UNIFORM_BAND)."""
    band = band_colours(samples)
    ring = rings & (shaded_distances(band, samples.face[None], FACE_LIGHT_RANGE)[0] >= MATCH_RADIUS)
    if uniform and ring.any():
        sampled = band_of(samples, ring)
        relit = (band[sampled.holes] - BLACK) / sampled.light + BLACK  # in the board's light, as the band's samples
        alike = (sampled.own_distances(relit) < MATCH_RADIUS).astype(np.float32)  # each band to its own colour
        ring[sampled.holes] = np.einsum("hn,hns->hs", alike, sampled.weights).mean(axis=1) >= UNIFORM_BAND
    return ring


def with_band_colours(samples: HoleSamples, rings: np.ndarray) -> HoleSamples:
    """`samples` with what fills each hole (`hole_colours`) taken from its band where it looks like a ring disc
    (`ring_discs` of `rings`): a ring disc is its band's colour, not the room's seen through it."""
    ring = ring_discs(samples, rings)
    if not ring.any():
        return samples
    return dataclasses.replace(
        samples, hole_colours=np.where(ring[:, None], band_colours(samples), samples.hole_colours)
    )


def banded(samples: HoleSamples) -> tuple[HoleSamples, Band]:
    """`samples` with ring discs' holes their band's colour (`with_band_colours`), and the bands of the holes whose
    middle shows a ring (`band_of`): what vision.classify reads a frame by, found once however often it reads it."""
    rings = shows_a_ring(samples)
    return with_band_colours(samples, rings), band_of(samples, rings)


def _mid_band(samples: HoleSamples) -> np.ndarray:
    """(holes, rays, 3): along every ray, the sample nearest the middle of the band."""
    limit = reach_limits(samples.rim_offsets, samples.rays.shape[1]) - BAND_WIDTH_PITCH / 2
    step = RAY_RADII_PITCH[1] - RAY_RADII_PITCH[0]
    index = np.clip(np.rint((limit - RAY_RADII_PITCH[0]) / step).astype(int), 0, len(RAY_RADII_PITCH) - 1)
    return np.take_along_axis(samples.rays, index[:, :, None, None], axis=2)[:, :, 0]
