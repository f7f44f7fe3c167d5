"""Ring-shaped discs set deep behind a thick face, seen in their lenses (vision.deep_holes).

A disc in its slot behind a thick face is centred on the hole's back circle, not on the lens the tunnel leaves, and a
ring disc's own hole shows the room round that centre: seen aside, the room reaches the lens's edge on the far side,
and the disc's colour shows as a crescent, as a loose disc behind the board does. What tells the ring disc is where
the room shows: within the ring's hole round the disc's centre, with the disc's colour (in its own light, not the
face's) all round beyond the widest ring's hole. A loose disc's crescent leaves the room along the rim instead, and an
empty tunnel shows the face's material round the room. The disc lies a little deeper than the face is thick (the slot
behind the front plate), so a few depths are tried.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol, TypeVar

import numpy as np

from vision.colour_clusters import MATCH_RADIUS, SHADOW_RANGE
from vision.deep_holes import lens_scales
from vision.hole_samples import (
    FACE_LIGHT_RANGE,
    RAY_COUNT,
    RAY_RADII_PITCH,
    RING_PLANE,
    SECTOR_COUNT,
    HoleSamples,
    shaded_distances,
)

# Beyond this distance (pitches) from the disc's centre lies the disc itself (the widest ring's hole is 0.23); within
# INNER_PITCH its hole (the narrowest is 0.16).
OUTER_PITCH = 0.25
INNER_PITCH = 0.12
# The samples within this radius (nominal, as sampled: the lens's inscribed circle is 0.35) show what the lens holds.
LENS_RADIUS = 0.32
# How much deeper than the face's thickness the disc's centre may lie (the slot behind the front plate).
DEPTH_FACTORS = (1.0, 1.25, 1.5, 1.75)
# The disc's colour beyond OUTER_PITCH: in every sector of it that holds MIN_SECTOR_SAMPLES, this share at least (one
# sector spared where five or more are seen: a highlight); of three sectors at least.
RING_SHARE = 0.8
MIN_SECTOR_SAMPLES = 3
MIN_SECTORS = 3
# Within INNER_PITCH, this share at least is not the disc's colour in the light the disc is in (IN_DISC_LIGHT), or for
# a grey disc (chroma under MATCH_RADIUS), not its colour as its ring shows it: the room seen through the ring's hole,
# however like a shade of the disc colour it is.
ROOM_SHARE = 0.8
IN_DISC_LIGHT = (0.75, 1.3)
MIN_INNER_SAMPLES = 5
# The share of a lens look's discs found as deep ring discs for the look to be one of a thick face with ring discs.
RING_DISC_SHARE = 0.5
_ANGLES = np.arange(RAY_COUNT) * 2 * np.pi / RAY_COUNT
_RAY_POINTS = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1)[:, None, :] * RAY_RADII_PITCH[None, :, None]
# Every sample's offset from the hole's centre as sampled (pitches): the ring's pixels, then the rays'.
_POINTS = np.concatenate([RING_PLANE[:, 1:], _RAY_POINTS.reshape(-1, 2)])
_IN_LENS = np.linalg.norm(_POINTS, axis=1) <= LENS_RADIUS


class _LastRings:
    """The last lens look's ring discs: vision.classify, vision.read's choice of look and with_sure_ring_discs ask
    for the same look's, in the same colours, and each asking costs a third of a thick face's reading. One tuple,
    (pixels, rays, lens_shifts, key, found), replaced whole, so a reader in another thread sees a whole entry."""

    entry: tuple = (None, None, None, b"", None)


def ring_discs_in_lenses(samples: HoleSamples, colours: tuple[np.ndarray, ...]) -> np.ndarray:
    """(holes, colours) bool: the holes sampled in their lenses (`samples.lens_shifts`) that show a ring disc of each
    colour (weighted Lab) set deep: the colour all round beyond OUTER_PITCH from the disc's centre at some depth, not
    the face, and something other than the colour in the disc's light within INNER_PITCH (see the module). All False
    for a thin face's samples."""
    if samples.lens_shifts is None or not len(colours):
        return np.zeros((len(samples.pixels), len(colours)), dtype=bool)
    arrays = (samples.pixels, samples.rays, samples.lens_shifts)
    key = np.asarray(colours, np.float32).tobytes() + samples.face.tobytes() + samples.visible.tobytes()
    *last_arrays, last_key, last_found = _LastRings.entry
    if all(a is b for a, b in zip(last_arrays, arrays, strict=True)) and last_key == key:
        return last_found.copy()
    found = _ring_discs(samples, colours)
    _LastRings.entry = (*arrays, key, found.copy())
    return found


def _ring_discs(samples: HoleSamples, colours: tuple[np.ndarray, ...]) -> np.ndarray:
    """ring_discs_in_lenses, worked out."""
    holes = len(samples.pixels)
    found = np.zeros((holes, len(colours)), dtype=bool)
    pixels = np.concatenate([samples.pixels, samples.rays.reshape(holes, -1, 3)], axis=1)
    references = np.asarray(colours, dtype=np.float32).reshape(-1, 3)
    to_colour = shaded_distances(pixels, references, SHADOW_RANGE)
    to_face = shaded_distances(pixels, samples.face[None], FACE_LIGHT_RANGE)[0]
    disc = (to_colour < MATCH_RADIUS) & ((to_face >= MATCH_RADIUS) | (to_face >= to_colour))
    lit = shaded_distances(pixels, references, IN_DISC_LIGHT) < MATCH_RADIUS
    grey = np.hypot(references[:, 1], references[:, 2]) < MATCH_RADIUS
    shifts, scales = samples.lens_shifts, lens_scales(samples.lens_shifts)
    for hole in np.flatnonzero(samples.visible & disc.any(axis=(0, 2))):
        for factor in DEPTH_FACTORS:
            centre = (factor - 0.5) * shifts[hole] / scales[hole]  # as sampled: a lens sample lies at s/2 + scale * p
            offsets = (_POINTS - centre) * scales[hole]
            distance = np.linalg.norm(offsets, axis=1)
            outer, inner = _IN_LENS & (distance >= OUTER_PITCH), _IN_LENS & (distance <= INNER_PITCH)
            if inner.sum() < MIN_INNER_SAMPLES:
                continue
            sector = ((np.arctan2(offsets[:, 1], offsets[:, 0]) + np.pi) / (2 * np.pi) * SECTOR_COUNT).astype(int)
            for index in range(len(references)):
                if found[hole, index] or not _all_round(disc[index, hole], outer, sector % SECTOR_COUNT):
                    continue
                if grey[index]:
                    share = _off_the_ring_share(pixels[hole], disc[index, hole] & outer, inner)
                else:
                    share = 1 - lit[index, hole, inner].mean()
                found[hole, index] = share >= ROOM_SHARE
    return found


def _off_the_ring_share(pixels: np.ndarray, ringed: np.ndarray, inner: np.ndarray) -> float:
    """The share of a hole's `inner` samples (pixels (samples, 3) weighted Lab) unlike the disc's colour as its
    `ringed` samples show it. A grey disc's shades differ in lightness alone: in a tunnel's shade a white disc is far
    darker than its calibrated grey, and that grey's light range takes in the dark back plate seen through its hole,
    or a dark room seen through a black disc's."""
    seen = np.median(pixels[ringed], axis=0)
    return float((np.linalg.norm(pixels[inner] - seen, axis=1) >= MATCH_RADIUS).mean())


def shows_ring_discs(samples: HoleSamples, grid: np.ndarray, colours: tuple[np.ndarray, ...] | None) -> bool:
    """Whether of the discs `grid` ((rows, cols), values as `colours`, calibrated) reads in the lenses, RING_DISC_SHARE
    at least are ring discs found deep in them, one at least: where they are not, a real photo's rims and bevels may
    have passed for tunnels, and its lenses for discs."""
    discs = grid.ravel()
    if colours is None or not discs.any():
        return False
    rings = ring_discs_in_lenses(samples, colours)
    return bool(rings[discs > 0, discs[discs > 0] - 1].mean() >= RING_DISC_SHARE)


def _all_round(matches: np.ndarray, region: np.ndarray, sector: np.ndarray) -> bool:
    """Whether `matches` ((samples,) bool) fill RING_SHARE of every sector of `region` seen with MIN_SECTOR_SAMPLES,
    of MIN_SECTORS at least, sparing the worst where five or more are seen."""
    shares = sorted(
        matches[region & (sector == index)].mean()
        for index in range(SECTOR_COUNT)
        if (region & (sector == index)).sum() >= MIN_SECTOR_SAMPLES
    )
    if len(shares) < MIN_SECTORS:
        return False
    return min(shares[1:] if len(shares) >= 5 else shares) >= RING_SHARE


class Read(Protocol):
    """A look's board as vision.classify reads it: grid (rows, cols), confidence, colours (weighted Lab)."""

    grid: np.ndarray
    confidence: np.ndarray
    colours: tuple[np.ndarray, ...]


R = TypeVar("R", bound=Read)


def with_sure_ring_discs(samples: HoleSamples, lens_read: Read, plain_read: R, sure: float) -> tuple[R, np.ndarray]:
    """A thin face's board (`plain_read`) with the cells it is unsure of that a lens look (`samples`, `lens_read`)
    reads at `sure` as a disc whose lens shows a ring disc of that colour set deep (ring_discs_in_lenses), resting on
    the bottom row or on a disc; and those cells ((rows, cols) bool). Seen aside, a ring disc's hole nears the rim and
    the plain look takes it for a disc cut short; the room seen through an empty hole shows no ring."""
    grid, confidence = lens_read.grid, lens_read.confidence
    rings = ring_discs_in_lenses(samples, lens_read.colours)
    if not rings.any():  # a thin face's samples, or colours none of whose discs shows
        return plain_read, np.zeros(grid.shape, dtype=bool)
    discs = grid.ravel()
    found = (discs > 0) & rings[np.arange(len(discs)), np.maximum(discs, 1) - 1]
    found = found.reshape(grid.shape) & (confidence >= sure) & (plain_read.confidence < sure)
    plain_grid = np.where(found, grid, plain_read.grid).astype(np.int8)
    for row in range(1, len(found)):  # from the bottom up, so a ring disc may rest on one found so
        found[row] &= plain_grid[row - 1] != 0
        plain_grid[row] = np.where(found[row], grid[row], plain_read.grid[row])
    plain_confidence = np.where(found, confidence, plain_read.confidence)
    return dataclasses.replace(plain_read, grid=plain_grid, confidence=plain_confidence), found  # type: ignore[type-var]
