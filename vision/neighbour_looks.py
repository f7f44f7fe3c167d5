"""Holes whose look changed only on the side that faces a disc next to them: a thick clear face shows discs aside.

Seen aslant through a thick clear face, a disc shows past its own hole's rim: on the face round the holes next to
it, over their rims, and into the hole above it. A disc dropped in changes how its neighbours look, a known disc and
an empty hole alike, on their side that faces it, so neither looks as when the game last knew it (vision.unchanged)
and the reader, which sees the new disc's colour at their edge, may doubt them. A hole whose look changed on that
side only is as the game knows it: a disc taken out changes its inside all round, a hand in front the face on every
side it covers, a disc dropped into the hole its whole ring. Only one neighbour explains a hole's change (the patches
that changed all face it), or a hole between discs on every side would have no side left to judge.
"""

from __future__ import annotations

import numpy as np

from vision.hole_samples import RAY_COUNT, SECTOR_COUNT
from vision.reading import BoardReading
from vision.reliability import SURE
from vision.unchanged import PATCH_COUNT, RAYS_PER_PATCH, UNCHANGED_DISTANCE, disc_patches, trusting

# A patch faces a neighbour when the direction of its middle from the hole's centre is within this many degrees of
# the neighbour's: the half of the hole on its side. Seen aslant, a disc shows up to 70 degrees off its own direction.
FACING_DEGREES = 90.0
NEIGHBOURS = [(rows, cols) for rows in (-1, 0, 1) for cols in (-1, 0, 1) if (rows, cols) != (0, 0)]


def _patch_directions() -> np.ndarray:
    """(PATCH_COUNT,) the direction (degrees, image axes: x right, y down) of every patch's middle from its hole's
    centre: the ring's sectors from -180 degrees (vision.hole_samples), then the rays' patches, band by band, from 0."""
    sectors = -180.0 + (np.arange(SECTOR_COUNT) + 0.5) * 360.0 / SECTOR_COUNT
    per_band = RAY_COUNT // RAYS_PER_PATCH
    rays = (np.arange(per_band) * RAYS_PER_PATCH + (RAYS_PER_PATCH - 1) / 2) * 360.0 / RAY_COUNT
    return np.concatenate([sectors, np.tile(rays, (PATCH_COUNT - SECTOR_COUNT) // per_band)])


def changed_toward_one_disc(moved: np.ndarray, discs: np.ndarray) -> np.ndarray:
    """(rows, cols) bool, row 0 at the bottom: the holes whose patches that moved (`moved`, (holes, PATCH_COUNT)
    distances from the look the game knew, NaN where it knew none) by UNCHANGED_DISTANCE or more all face one of the
    neighbouring `discs` ((rows, cols) bool), as that disc seen past its rim changes them."""
    rows, cols = discs.shape
    moved = moved.reshape(rows, cols, -1)
    changed = moved >= UNCHANGED_DISTANCE
    directions = _patch_directions()
    explained = np.zeros((rows, cols), dtype=bool)
    for up, right in NEIGHBOURS:
        toward = np.degrees(np.arctan2(-up, right))
        facing = np.abs((directions - toward + 180.0) % 360.0 - 180.0) < FACING_DEGREES
        beside = np.zeros((rows, cols), dtype=bool)  # the holes whose neighbour that way holds a disc
        beside[max(-up, 0) : rows - max(up, 0), max(-right, 0) : cols - max(right, 0)] = discs[
            max(up, 0) : rows + min(up, 0), max(right, 0) : cols + min(right, 0)
        ]
        explained |= beside & ~(changed & ~facing).any(axis=2)
    return explained & ~np.isnan(moved).any(axis=2)


def trust_looks_beside_discs(
    reading: BoardReading,
    frame: np.ndarray,
    corners: np.ndarray,
    known: np.ndarray,
    disc_reference: np.ndarray | None,
    disc_light: np.ndarray | None,
    empty_reference: np.ndarray,
) -> BoardReading:
    """`reading` (players' values) with the holes the game knows (`known`, players' values) read as known, at SURE,
    uncovered, where the reader read them otherwise (unsure, covered, another value) but their look changed only on
    the side that faces one disc next to them (changed_toward_one_disc): a known disc against how it looked when
    confirmed (`disc_reference` in `disc_light`'s light, vision.unchanged.disc_patches), an empty hole against the
    empty board's look (`empty_reference`, in its own light). The discs next to them are the discs the game knows and
    the one new disc a landing hole reads, none read covered (a hand in front of a disc is no disc to explain)."""
    if not reading.is_board_found:
        return reading
    known = np.asarray(known)
    covered = reading.covered_holes
    doubted = (reading.confidence < SURE) | covered | (reading.grid != known)
    if not doubted.any():
        return reading
    empty = known == 0
    landing = empty & (np.cumsum(empty, axis=0) == 1)
    discs = ((known != 0) | (landing & (reading.grid != 0))) & ~covered
    every_hole = np.ones(known.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        seen_empty = disc_patches(frame, corners, known.shape, every_hole, empty_reference)[:, :PATCH_COUNT]
        moved = np.linalg.norm(seen_empty - empty_reference[:, :PATCH_COUNT], axis=2)
        if disc_reference is None:
            moved[(known != 0).ravel()] = np.nan
        else:
            seen_disc = disc_patches(frame, corners, known.shape, every_hole, disc_light)[:, :PATCH_COUNT]
            moved_disc = np.linalg.norm(seen_disc - disc_reference[:, :PATCH_COUNT], axis=2)
            moved = np.where((known != 0).ravel()[:, None], moved_disc, moved)
    new = landing & (reading.grid != 0)  # the new disc itself is left to the reader
    trusted = doubted & ~new & changed_toward_one_disc(moved, discs)
    if not trusted.any():
        return reading
    return trusting(reading, trusted, known)
