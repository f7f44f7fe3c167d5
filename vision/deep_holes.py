"""Holes through a thick face seen from aside: how thick the face is, and where a disc set deep behind it shows.

A disc stands in the slot behind the front plate. Through a face 6 to 10 mm thick seen from 25 to 40 degrees aside,
each hole is a short tunnel: its wall (the face's own material, lit or shaded) hides one side of the hole, and the
disc shows only in the lens where the hole's front circle and its back circle (the front one moved by the parallax
of the face's thickness, vision.parallax) overlap. An empty hole shows the slot's far wall and the room in that lens,
the tunnel's wall round it: sampled as a thin face's holes are, a disc looks cut short (a crescent, as a loose disc
behind the board does) and an empty hole like the face.

The face's thickness is the nearest depth whose back circles show an edge inside the holes (the tunnel's wall
against whatever is behind it: a disc, the slot, the room), the median over holes. A face measured thicker than it is
puts the lens inside the true one (a smaller sample of the same disc); thinner, the wall leaks in, so of two edges the
nearer is taken only when it is clear, and of the depths its edge stays near its peak, the deepest. A black face's
tunnel into its black slot shows no edge at any depth, so where a quarter of the holes or more are so blank, each hole
that shows one (a disc behind the tunnel) gives its own depth, and the median of those is taken where two or more and
at least half of them show a tunnel's back (elsewhere the edges are glare or a disc's rim): the median over all holes
would mix the two kinds. Where the tunnel hides a noticeable part of the holes, each hole is sampled in its lens: the
ring pixels and rays of vision.hole_samples mapped into the circle inscribed in the lens, the rays running on past it
to the face round the hole, where they end as they do for a thin face. A thin face shows no tunnel's back, yet its
discs stand the slot's half gap behind it: seen far aside, a ring disc's hole nears the rim, and the reader looks for
the ring in the lenses at a thin face's depth (thin_face_lens_depth).
"""

from __future__ import annotations

import dataclasses
import functools

import cv2
import numpy as np

from vision.colour_clusters import MATCH_RADIUS, SHADOW_RANGE
from vision.geometry import grid_points, grid_to_image_homography
from vision.hole_fill import fill_dents
from vision.hole_samples import (
    BLACK,
    CEILING_VALUE,
    MAP_ROW_LENGTH,
    PITCH_PX,
    RAY_COUNT,
    RAY_RADII_PITCH,
    RING_INDEX,
    HoleSamples,
    sample_holes,
    shaded_distances,
    to_weighted_lab,
)
from vision.parallax import depth_shifts
from vision.rims import rim_offsets
from vision.room_behind import room_claims

# A hole's radius in pitches (holes measure 0.33 to 0.38 pitch); a little under the typical, so the lens is not
# taken wider than it is.
HOLE_RADIUS_PITCH = 0.35
# Face thicknesses tried, in column pitches (a standard 3 mm face is 0.09, a 10 mm one 0.29).
THICKNESSES_PITCH = np.round(np.arange(0.06, 0.421, 0.03), 2)
ARC_ANGLES = 48
# The edge is measured this far either side of a back circle, on the arc of it that lies inside the front circle by
# ARC_MARGIN_PITCH at least; a hole counts with MIN_ARC_POINTS on that arc, a thickness with MIN_HOLES such holes.
EDGE_STEP_PITCH = 0.04
ARC_MARGIN_PITCH = 0.05
MIN_ARC_POINTS = 3
MIN_HOLES = 10
# The median edge (weighted Lab) that shows a tunnel's back: a thin face's holes show under 2 at depths nothing is.
MIN_EDGE = 5.0
# Where this share of the holes shows no edge at any depth (a black face's empty tunnels), the median over all holes
# mixes blank holes and holes with a disc, and near half full passes for an edge at a wrong depth: each hole that
# shows an edge gives its own depth instead.
MIN_BLANK_SHARE = 0.25
# Of those holes, at least this many show a tunnel's back (one disc's rim on a thin face can pass for one).
MIN_DEPTH_HOLES = 2
# The edge stays near its peak over a few depths (it is measured EDGE_STEP_PITCH either side): the deepest of them
# within this share of the peak is taken, as a lens taken too deep still holds only the disc.
PLATEAU_SHARE = 0.9
# Nearer than the tunnel's back, the wall is on both sides of a back circle, deeper the slot's far wall: the edge
# rises from below FALL_SHARE of its peak and falls below it again (the room seen through a clear board's face shows
# edges at every depth). A real photo's rims, bevels and grain can pass too: the reader then keeps the holes read as
# a thin face's where that leaves no more cells unsure (vision.reading).
FALL_SHARE = 0.8
# The tunnel must hide at least this much of the holes (its widest crescent, in pitches) for the lens to be sampled:
# less, and a thin face's sampling (ring well inside the rim) already keeps clear of the wall.
MIN_HIDDEN_PITCH = 0.08
# A thin face's lens depth (pitches): a 3 mm face is 0.09, its discs stand the slot's half gap deeper (0.21), within
# the depths vision.lens_rings tries behind a lens this deep.
THIN_FACE_PITCH = 0.12
LENS_CACHE_SIZE = 8
# What fills a hole is taken within this radius of its centre (as calibration.board.hole_colours does), on points this
# far apart.
FILLING_RADIUS_PITCH = 0.22
FILLING_STEP_PITCH = 0.025
# A hole read empty is unproven when this share of its lens is one colour (in some light) reaching the lens's edge
# but for FILLED_DENT_PITCH in its worst directions (vision.hole_fill).
FILLED_SHARE = 0.8
FILLED_DENT_PITCH = 0.08
# The face counts as what fills a lens only in about the face's own light: a grey disc is a white face in shadow.
FACE_LIT_RANGE = (0.8, 1.25)
# A hole read empty whose ring is this much one light of a disc colour, yet that colour stops short of the rim on one
# side (beyond FILLED_DENT_PITCH), looks like a disc cut short by a tunnel's wall (or a loose disc behind a thin face).
CUT_SHORT_SHARE = 0.6


def _unit_circle() -> np.ndarray:
    angles = np.arange(ARC_ANGLES) * 2 * np.pi / ARC_ANGLES
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def _to_image(corners_px: np.ndarray, shape: tuple[int, int], grid: np.ndarray) -> np.ndarray:
    """Grid points (..., 2) (columns, rows from the top) as float32 image positions (..., 2)."""
    homography = grid_to_image_homography(corners_px, shape)
    flat = cv2.perspectiveTransform(grid.reshape(1, -1, 2).astype(np.float64), homography)[0]
    return flat.astype(np.float32).reshape(grid.shape)


def _remapped(image_bgr: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """(n, 3) the image's pixels at float32 positions (n, 2), bilinear, laid out in rows cv2.remap takes."""
    count = len(positions)
    padded = np.zeros((-(-count // MAP_ROW_LENGTH) * MAP_ROW_LENGTH, 2), np.float32)
    padded[:count] = positions
    rows = padded.reshape(-1, MAP_ROW_LENGTH, 2)
    sampled = cv2.remap(image_bgr, rows[..., 0], rows[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return sampled.reshape(-1, 3)[:count]


def _hole_grid(shape: tuple[int, int]) -> np.ndarray:
    """(rows * cols, 2) grid positions of the holes, row 0 at the BOTTOM first (vision.hole_samples' order)."""
    return grid_points(shape)[::-1].reshape(-1, 2)


def _hole_edges(image_bgr: np.ndarray, corners_px: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """(len(THICKNESSES_PITCH), holes) the edge each hole's back circle shows at each thickness, on its arc inside the
    front circle (NaN where that arc has too few points)."""
    image_size = (image_bgr.shape[1], image_bgr.shape[0])
    holes = _hole_grid(shape)
    circle = _unit_circle()
    shifts = np.stack([depth_shifts(corners_px, shape, image_size, float(depth)) for depth in THICKNESSES_PITCH])
    on_back = shifts[:, :, None, :] + HOLE_RADIUS_PITCH * circle[None, None]  # (depths, holes, angles, 2)
    on_arc = np.linalg.norm(on_back, axis=3) < HOLE_RADIUS_PITCH - ARC_MARGIN_PITCH
    centres = holes[None, :, None, :] + shifts[:, :, None, :]
    points = np.stack([centres + (HOLE_RADIUS_PITCH + sign * EDGE_STEP_PITCH) * circle[None, None] for sign in (-1, 1)])
    sampled = _remapped(image_bgr, _to_image(corners_px, shape, points).reshape(-1, 2))
    inside, outside = to_weighted_lab(sampled[None]).reshape(2, *on_arc.shape, 3)
    contrast = np.linalg.norm(inside - outside, axis=3)
    counted = on_arc.sum(axis=2)
    return np.where(counted >= MIN_ARC_POINTS, (contrast * on_arc).sum(axis=2) / np.maximum(counted, 1), np.nan)


def _median_edges(per_hole: np.ndarray) -> np.ndarray:
    """(len(THICKNESSES_PITCH),) the median over holes of `per_hole`'s edges at each thickness (0 where fewer than
    MIN_HOLES holes are measured)."""
    enough = (~np.isnan(per_hole)).sum(axis=1) >= MIN_HOLES
    medians = np.zeros(len(THICKNESSES_PITCH))
    medians[enough] = np.nanmedian(per_hole[enough], axis=1)
    return medians


def _thickness_of(edges: np.ndarray) -> float:
    """The thickness (pitches) of the nearest clear edge of a tunnel's back in a profile of edges over
    THICKNESSES_PITCH (see the module), 0.0 where none shows."""
    for index, edge in enumerate(edges[:-1]):
        nearer = edges[:index][edges[:index] > 0]
        rises = len(nearer) > 0 and nearer.min() < FALL_SHARE * edge and edge >= edges[index - 1]
        if edge >= MIN_EDGE and rises and edge > edges[index + 1]:
            peak = edge
            while index + 1 < len(edges) and edges[index + 1] >= PLATEAU_SHARE * max(peak, edges[index + 1]):
                index += 1
                peak = max(peak, edges[index])
            falls = (edges[index + 1 :] < FALL_SHARE * peak).any()
            return float(THICKNESSES_PITCH[index]) if falls else 0.0
    return 0.0


def face_thickness(image_bgr: np.ndarray, corners_px: np.ndarray, shape: tuple[int, int]) -> float:
    """The board face's thickness in column pitches where its holes show it (the nearest clear edge of a tunnel's
    back, over all holes or, where many show no edge at any depth, over those that do: see the module), 0.0 where they
    do not (a thin face seen from nearly straight on, a black board with no disc)."""
    corners = np.ascontiguousarray(corners_px, dtype=np.float64)
    per_hole = _hole_edges(image_bgr, corners, shape)
    showing = np.nan_to_num(per_hole, nan=0.0).max(axis=0) >= MIN_EDGE
    if showing.mean() > 1 - MIN_BLANK_SHARE:  # nearly every hole shows an edge: one median tells the face
        return _thickness_of(_median_edges(per_hole))
    depths = [_thickness_of(np.nan_to_num(per_hole[:, hole], nan=0.0)) for hole in np.flatnonzero(showing)]
    found = [depth for depth in depths if depth]
    if len(found) < MIN_DEPTH_HOLES or 2 * len(found) < len(depths):  # glare, a disc's rim: no tunnel's back
        return 0.0
    return float(np.median(found))


def hidden_share(
    corners_px: np.ndarray, shape: tuple[int, int], image_size: tuple[int, int], thickness: float
) -> float:
    """The widest crescent (pitches) the tunnel of a face `thickness` pitches thick hides in any hole."""
    if thickness <= 0:
        return 0.0
    shifts = depth_shifts(np.asarray(corners_px, dtype=np.float64), shape, image_size, thickness)
    return float(np.linalg.norm(shifts, axis=1).max())


def _ring_offsets() -> np.ndarray:
    """(ring pixels, 2) offsets in pitches of vision.hole_samples' ring pixels from a hole's centre."""
    ring_y, ring_x = np.divmod(RING_INDEX, PITCH_PX)
    return (np.stack([ring_x, ring_y], axis=1) - (PITCH_PX - 1) / 2) / PITCH_PX


def _ray_offsets() -> np.ndarray:
    """(RAY_COUNT, radii, 2) offsets in pitches of vision.hole_samples' ray samples from a hole's centre."""
    angles = np.arange(RAY_COUNT) * 2 * np.pi / RAY_COUNT
    directions = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    return directions[:, None, :] * RAY_RADII_PITCH[None, :, None]


def lens_scales(shifts: np.ndarray) -> np.ndarray:
    """(holes,) how much each hole's circle is shrunk onto the circle inscribed in its lens (back circles moved by
    `shifts`, (holes, 2) pitches): a lens sample `offset` from the hole's centre lies at shift / 2 + scale * offset."""
    return np.clip((HOLE_RADIUS_PITCH - np.linalg.norm(shifts, axis=1) / 2) / HOLE_RADIUS_PITCH, 0.2, 1.0)


def _into_lens(offsets: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """(holes, ..., 2): `offsets` (..., 2) from a hole's centre, for every hole whose back circle is moved by `shifts`
    (holes, 2), mapped into its lens: the hole's circle shrunk onto the circle inscribed in the lens, and beyond the
    hole's radius, run on to where the offset lies on the face round the hole at the rays' end."""
    reach = float(RAY_RADII_PITCH[-1])
    scale = lens_scales(shifts)
    middle = (shifts / 2).reshape(len(shifts), *(1,) * (offsets.ndim - 1), 2)
    scale = scale.reshape(len(shifts), *(1,) * offsets.ndim)
    radius = np.linalg.norm(offsets, axis=-1, keepdims=True)
    inner = middle + scale * offsets
    direction = offsets / np.maximum(radius, 1e-9)
    edge = middle + scale * HOLE_RADIUS_PITCH * direction
    beyond = np.clip((radius - HOLE_RADIUS_PITCH) / (reach - HOLE_RADIUS_PITCH), 0.0, 1.0)
    outer = (1 - beyond) * edge + beyond * reach * direction
    return np.where(radius <= HOLE_RADIUS_PITCH, inner, outer)


@functools.lru_cache(maxsize=LENS_CACHE_SIZE)
def _lens_map(corners_key: bytes, shape: tuple[int, int], image_size: tuple[int, int], thickness: float) -> np.ndarray:
    """(n, 2) float32 image positions: every hole's ring pixels, then its rays, mapped into its lens."""
    corners = np.frombuffer(corners_key, dtype=np.float64).reshape(4, 2)
    shifts = depth_shifts(corners, shape, image_size, thickness)
    holes = _hole_grid(shape)
    ring = holes[:, None, :] + _into_lens(_ring_offsets(), shifts)
    rays = holes[:, None, None, :] + _into_lens(_ray_offsets(), shifts)
    grid = np.concatenate([ring.reshape(-1, 2), rays.reshape(-1, 2)])
    return _to_image(corners, shape, grid)


def in_lenses(samples: HoleSamples, image_bgr: np.ndarray, corners_px: np.ndarray, thickness: float) -> HoleSamples:
    """`samples` (of the face's holes at `corners_px`) with each hole's ring pixels and rays taken in its lens for a
    face `thickness` pitches thick: what a disc in the slot fills. The face, and what covers the board, stay."""
    rows, cols = samples.shape
    holes = rows * cols
    image_size = (image_bgr.shape[1], image_bgr.shape[0])
    key = np.ascontiguousarray(corners_px, dtype=np.float64).tobytes()
    positions = _lens_map(key, (rows, cols), image_size, float(thickness))
    sampled = _remapped(image_bgr, positions)
    ring_count = holes * len(RING_INDEX)
    lab = to_weighted_lab(sampled[None]).reshape(-1, 3)
    pixels = lab[:ring_count].reshape(holes, len(RING_INDEX), 3)
    rays = lab[ring_count:].reshape(holes, RAY_COUNT, len(RAY_RADII_PITCH), 3)
    at_ceiling = (sampled[:ring_count] >= CEILING_VALUE).sum(axis=1, dtype=np.uint8)
    return dataclasses.replace(
        samples,
        pixels=pixels,
        rays=rays,
        rim_offsets=rim_offsets(rays, RAY_RADII_PITCH),
        hole_colours=np.median(pixels, axis=1),
        at_ceiling=at_ceiling.reshape(holes, len(RING_INDEX)),
        lens_shifts=depth_shifts(
            np.frombuffer(key, dtype=np.float64).reshape(4, 2), (rows, cols), image_size, thickness
        ),
    )


def seen_thickness(image_bgr: np.ndarray, corners_px: np.ndarray, shape: tuple[int, int]) -> float:
    """The face's thickness in pitches where its holes are tunnels hiding enough of them (MIN_HIDDEN_PITCH) to be
    read in their lenses, else 0.0."""
    corners = np.ascontiguousarray(corners_px, dtype=np.float64)
    thickness = face_thickness(image_bgr, corners, shape)
    hidden = hidden_share(corners, shape, (image_bgr.shape[1], image_bgr.shape[0]), thickness)
    return thickness if hidden >= MIN_HIDDEN_PITCH else 0.0


def thin_face_lens_depth(corners_px: np.ndarray, shape: tuple[int, int], image_size: tuple[int, int]) -> float:
    """THIN_FACE_PITCH where a thin face is seen far enough aside for its discs, standing the slot's half gap behind
    it, to lie off its holes as a thick face's do (MIN_HIDDEN_PITCH), else 0.0. Such a face's holes show no tunnel's
    back (a disc's rim or the room meets the face at the hole's own edge), yet a ring disc's hole nears the rim there
    and shows in its lens only."""
    corners = np.ascontiguousarray(corners_px, dtype=np.float64)
    hidden = hidden_share(corners, shape, image_size, THIN_FACE_PITCH)
    return THIN_FACE_PITCH if hidden >= MIN_HIDDEN_PITCH else 0.0


def holes_as_read(image_bgr: np.ndarray, corners_px: np.ndarray, shape: tuple[int, int]) -> HoleSamples:
    """Every hole's samples as the reader takes what fills it: vision.hole_samples' rings, in the holes' lenses where
    the face is thick enough to hide part of them. For whoever learns disc colours from a frame the game knows."""
    samples = sample_holes(image_bgr, corners_px, shape)
    thickness = seen_thickness(image_bgr, corners_px, shape)
    return in_lenses(samples, image_bgr, corners_px, thickness) if thickness else samples


def filling_bgr(image_bgr: np.ndarray, corners_px: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """(rows, cols, 3) float BGR, row 0 at the bottom: the mean colour within FILLING_RADIUS_PITCH of every hole's
    centre, or where the face is thick enough to hide part of the holes, of its lens's centre (within the circle
    inscribed in the lens: a disc's colour, not the tunnel wall's). For the calibration of the disc colours."""
    rows, cols = shape
    corners = np.ascontiguousarray(corners_px, dtype=np.float64)
    image_size = (image_bgr.shape[1], image_bgr.shape[0])
    shifts = depth_shifts(corners, shape, image_size, seen_thickness(image_bgr, corners, shape))
    step = np.arange(-FILLING_RADIUS_PITCH, FILLING_RADIUS_PITCH + 1e-9, FILLING_STEP_PITCH)
    offsets = np.stack(np.meshgrid(step, step), axis=-1).reshape(-1, 2)
    offsets = offsets[np.linalg.norm(offsets, axis=1) <= FILLING_RADIUS_PITCH]
    inscribed = HOLE_RADIUS_PITCH - np.linalg.norm(shifts, axis=1) / 2
    scale = np.clip(inscribed / FILLING_RADIUS_PITCH, 0.2, 1.0)[:, None, None]
    grid = _hole_grid(shape)[:, None, :] + shifts[:, None, :] / 2 + scale * offsets[None]
    sampled = _remapped(image_bgr, _to_image(corners, shape, grid).reshape(-1, 2)).astype(np.float64)
    return sampled.reshape(rows, cols, len(offsets), 3).mean(axis=2)


def _own_shade_distances(pixels: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """(holes, n) weighted-Lab distances from every hole's pixels (holes, n, 3) to the nearest light within
    SHADOW_RANGE of that hole's own colour (colours (holes, 3))."""
    shifted, towards = pixels - BLACK, (colours - BLACK)[:, None, :]
    factor = np.clip((shifted * towards).sum(axis=2) / np.maximum((towards * towards).sum(axis=2), 1e-6), *SHADOW_RANGE)
    return np.linalg.norm(shifted - factor[..., None] * towards, axis=2)


def cut_short(samples: HoleSamples, grid: np.ndarray, colours: tuple[np.ndarray, ...]) -> np.ndarray:
    """(rows, cols) bool: the holes read empty (`grid` 0, not covered) that a disc colour (weighted Lab) fills in
    some light over CUT_SHORT_SHARE of their ring but for a crescent at one side: what a thin face's look makes of a
    disc behind a thick face seen from aside. Ring pixels the room seen through the empty holes explains better
    (vision.room_behind: wood of nearly a yellow disc's colour, darkened) are no disc's."""
    empty = (grid.ravel() == 0) & samples.visible
    if not colours or not empty.any():
        return np.zeros(grid.shape, dtype=bool)
    room = room_claims(samples, grid, tuple(colours))[empty]
    colours = np.asarray(colours, dtype=np.float64).reshape(-1, 3)
    disc_like = shaded_distances(samples.pixels[empty], colours, SHADOW_RANGE) < MATCH_RADIUS  # (k, m, ring pixels)
    share = (disc_like & ~room[None]).mean(axis=2)
    dents = fill_dents(samples.rays[empty], samples.rim_offsets[empty], colours, samples.face, MATCH_RADIUS)
    found = np.zeros(len(empty), dtype=bool)
    found[empty] = ((share.T >= CUT_SHORT_SHARE) & (dents > FILLED_DENT_PITCH)).any(axis=1)
    return found.reshape(grid.shape)


def unproven_in_lenses(samples: HoleSamples, grid: np.ndarray) -> np.ndarray:
    """(rows, cols) bool: holes read empty (`grid` 0, not covered) whose lens one colour other than the face's fills
    to its edge all round, as a disc in the slot does, where a disc could rest (the bottom row, or on a disc or
    another such hole). An empty tunnel shows the slot's far wall (the face's material) or the room through the
    smaller window the board's back leaves, so such a hole may be a disc whose colour the reader missed (a disc
    colour calibrated on the tunnel's wall, a dark disc the dullness prior empties): it is not read sure."""
    rows, cols = samples.shape
    own = samples.hole_colours
    uniform = (_own_shade_distances(samples.pixels, own) < MATCH_RADIUS).mean(axis=1)
    faces = shaded_distances(own, samples.face[None], FACE_LIT_RANGE)[0]
    candidates = (grid.ravel() == 0) & samples.visible & (uniform >= FILLED_SHARE) & (faces >= MATCH_RADIUS)
    filled = np.zeros(rows * cols, dtype=bool)
    for hole in np.flatnonzero(candidates):
        dent = fill_dents(
            samples.rays[hole : hole + 1],
            samples.rim_offsets[hole : hole + 1],
            own[hole : hole + 1],
            samples.face,
            MATCH_RADIUS,
        )
        filled[hole] = dent[0, 0] <= FILLED_DENT_PITCH
    return _where_a_disc_could_rest(filled.reshape(rows, cols), grid)


def _where_a_disc_could_rest(marked: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """(rows, cols) the `marked` holes on the bottom row, on a disc of `grid` (row 0 at the bottom), or on another
    such hole: discs fall, so a hole above an empty one holds none."""
    marked = marked.copy()
    for row in range(1, len(marked)):
        marked[row] &= (grid[row - 1] != 0) | marked[row - 1]
    return marked
