"""What each hole shows: the Lab pixels of a ring inside every hole, split into angular sectors.

A disc resting in its slot fills the hole face-on, right up to the rim, so every sector of the ring shows
the same colour. What is seen through an empty hole (a wall, a table, a loose disc lying behind the
board as a crescent) rarely does. The ring leaves out the centre so ring-shaped discs read like full ones,
and stops short of the rim so a slightly wrong corner or the hole wall seen at an angle does not leak in.
Rays from the ring out past the rim show how far, in every direction, what fills the hole reaches (vision.hole_fill).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import rectifying_homography
from vision.rims import rim_offsets

PITCH_PX = 40
RING_INNER = 0.10
RING_OUTER = 0.26
SECTOR_COUNT = 8
# A disc in its slot fills every sector but a sector or two in the rim's shadow or under glare: the two worst are
# spared, the next two decide (`decisive`).
SPARED_SECTORS = 2
LIGHTNESS_WEIGHT = 0.5
# Weighted Lab's black in the cube-root model: dimming a surface scales its colour towards it.
BLACK = np.array([-16.0 * LIGHTNESS_WEIGHT, 0.0, 0.0], dtype=np.float32)
SAMPLE_MAP_CACHE_SIZE = 8
RAY_COUNT = 32
# How much more or less light one hole may be taken to have than the board as a whole (a hand's shadow or a
# lamp's bright spot beyond that is not light the disc colours are looked for in).
LOCAL_LIGHT_RANGE = (0.9, 1.25)
# The rays that point upwards (rectified y down), well clear of the horizontal.
_UPWARD_RAYS = np.flatnonzero(np.sin(np.arange(RAY_COUNT) * 2 * np.pi / RAY_COUNT) < -0.4)
# Radii of the ray samples in pitches: from the ring's outer half, where a crescent beside a loose disc behind
# the board shows, across the rim (holes measure 0.33 to 0.38 pitch) onto the face around the hole.
RAY_RADII_PITCH = np.arange(0.18, 0.445, 0.01)
# cv2.remap takes maps under 32767 wide, so the sample positions are laid out in rows of this many.
MAP_ROW_LENGTH = 4096
# The board's face is the colour most of the points between the holes share, in any light across the board
# (FACE_LIGHT_RANGE, as vision.occlusion allows the face) within FACE_RADIUS (what vision.occlusion still takes for
# the face, wide enough not to split a dim noisy face in two): not their per-channel median, which a hand and a
# sleeve over half the board turn into a brown no surface has, so that every hole would look covered.
FACE_LIGHT_RANGE = (0.5, 1.6)
# A channel value at or above this is at the camera's ceiling: what was brighter shows as this too.
CEILING_VALUE = 250
FACE_RADIUS = 16.0


@dataclass(frozen=True)
class HoleSamples:
    """Ring pixels of every hole in weighted Lab (lightness halved), holes in grid order, row 0 at the BOTTOM.

    `pixels` is (rows * cols, n, 3); `sector` is (n,) the angular sector of each ring pixel, ascending;
    `face` is (3,) the board face's median colour, seen between the holes. `rays` is (rows * cols, RAY_COUNT,
    len(RAY_RADII_PITCH), 3): samples along rays from every hole's centre outwards, at RAY_RADII_PITCH, the
    rays evenly spread round from the x axis (rectified: x right, y down). `rim_offsets` (rows * cols, 2): where
    every hole's rim is centred, in pitches from where it was sampled (vision.rims.rim_offsets). `hole_colours`
    (rows * cols, 3): the median of every hole's ring pixels (what fills it, found once for all who ask). `covered`
    (rows * cols,) bool: holes something in front of the board hides (vision.occlusion), whose pixels tell
    nothing of the hole; `grazed`: holes it may reach into, read at a capped confidence; none until set.
    `at_ceiling` (rows * cols, n) uint8: how many channels of each ring pixel are at the camera's ceiling
    (CEILING_VALUE), whose colour the frame shows only in part. `gaps` (rows - 1, cols - 1, 3): the face midway
    between four holes, row 0 at the bottom, where no disc in a slot reaches (discs are a pitch across).
    `lens_shifts` (rows * cols, 2): where the holes were sampled in their lenses behind a thick face
    (vision.deep_holes), how far each hole's back circle lies from its front one, in pitches; None for a thin face.
    """

    shape: tuple[int, int]
    pixels: np.ndarray
    sector: np.ndarray
    face: np.ndarray
    rays: np.ndarray
    rim_offsets: np.ndarray
    hole_colours: np.ndarray
    covered: np.ndarray | None = None
    grazed: np.ndarray | None = None
    at_ceiling: np.ndarray | None = None
    gaps: np.ndarray | None = None
    lens_shifts: np.ndarray | None = None

    @property
    def visible(self) -> np.ndarray:
        """(rows * cols,) bool: the holes not covered."""
        holes = self.shape[0] * self.shape[1]
        return np.ones(holes, dtype=bool) if self.covered is None else ~self.covered


def _ring_mask(pitch_px: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices of the ring pixels inside one pitch x pitch cell, and their sector numbers (sorted by sector)."""
    centre = (pitch_px - 1) / 2
    y, x = np.mgrid[0:pitch_px, 0:pitch_px].astype(np.float64)
    radius = np.hypot(x - centre, y - centre) / pitch_px
    inside = (radius >= RING_INNER) & (radius <= RING_OUTER)
    angle = np.arctan2(y - centre, x - centre)
    sector = ((angle + np.pi) / (2 * np.pi) * SECTOR_COUNT).astype(int) % SECTOR_COUNT
    index = np.flatnonzero(inside)
    order = np.argsort(sector.ravel()[index], kind="stable")
    return index[order], sector.ravel()[index][order]


RING_INDEX, RING_SECTOR = _ring_mask(PITCH_PX)
# A plane of light across a hole: (1, x, y) of each ring pixel in pitches from the centre, and its least-squares solver.
RING_PLANE = np.column_stack(
    [
        np.ones(len(RING_INDEX)),
        (np.stack(np.divmod(RING_INDEX, PITCH_PX)[::-1], axis=1) - (PITCH_PX - 1) / 2) / PITCH_PX,
    ]
).astype(np.float32)
RING_PLANE_SOLVER = np.linalg.pinv(RING_PLANE).astype(np.float32)
# The least light a ramp may leave on a disc's shaded side, relative to its lit side.
MIN_RELATIVE_LIGHT = 0.5


def decisive(per_sector: np.ndarray) -> np.ndarray:
    """(holes, colours) from (holes, colours, sectors) coverage: the two worst sectors spared, the next two decide."""
    return np.sort(per_sector, axis=2)[:, :, SPARED_SECTORS : SPARED_SECTORS + 2].mean(axis=2)


def to_weighted_lab(bgr: np.ndarray) -> np.ndarray:
    """Lab with L in 0..100 scaled by LIGHTNESS_WEIGHT, so shading counts less than a change of hue."""
    lab = cv2.cvtColor(bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    lab[..., 0] *= LIGHTNESS_WEIGHT
    return lab


def shifted_planes(values: np.ndarray) -> np.ndarray:
    """(3, ...) float32: weighted-Lab values (..., 3) shifted by BLACK, one contiguous plane per channel (numpy's
    loops over a last axis of 3 or of a few colours are several times slower than over long contiguous rows)."""
    values = np.asarray(values)
    planes = np.moveaxis(values, -1, 0).astype(np.float32, order="C")  # a copy, always
    planes -= BLACK.reshape(3, *(1,) * (values.ndim - 1))
    return planes


def _dot(planes: np.ndarray, references: np.ndarray, index: tuple | None = None) -> np.ndarray:
    """(k, ...) the products of shifted values (3, ...) with k shifted references (k, 3), or with each reference's
    channels broadcast against the values by `index`."""
    if index is None:
        index = (slice(None),) + (None,) * (planes.ndim - 1)
    return (
        planes[0] * references[index + (0,)]
        + planes[1] * references[index + (1,)]
        + planes[2] * references[index + (2,)]
    )


def _last_axis(values: np.ndarray) -> np.ndarray:
    """(..., k) contiguous from (k, ...) (OpenCV transposes a few times faster than numpy copies)."""
    flat = values.reshape(len(values), math.prod(values.shape[1:]))
    return (cv2.transpose(flat) if flat.size else flat.T).reshape(*values.shape[1:], len(values))


def shaded_distances(pixels: np.ndarray, colours: np.ndarray, shading_range: tuple[float, float]) -> np.ndarray:
    """(k, ...) weighted-Lab distances from pixels (..., 3) to k colours (k, 3), each colour dimmed or brightened.

    One surface under more or less light: dimming scales (L + 16, a, b) by one factor (the Lab cube
    root), so each pixel is compared with the colour scaled by the factor within `shading_range` that fits
    it best. Greys and other hues stay far from a vivid colour whatever the light.
    """
    planes = shifted_planes(pixels)
    references = np.asarray(colours, dtype=np.float32).reshape(-1, 3) - BLACK
    return _shaded(planes, references, (slice(None),) + (None,) * (planes.ndim - 1), shading_range)


def shaded_distances_each(pixels: np.ndarray, colours: np.ndarray, shading_range: tuple[float, float]) -> np.ndarray:
    """(m, ...) as `shaded_distances`, from the pixels (m, ..., 3) of each of m holes to that hole's own colour (m, 3):
    the diagonal of the (m, m, ...) distances, without the rest."""
    planes = shifted_planes(pixels)
    references = np.asarray(colours, dtype=np.float32).reshape(-1, 3) - BLACK
    return _shaded(planes, references, (slice(None),) + (None,) * (planes.ndim - 2), shading_range)


def _shaded(planes: np.ndarray, references: np.ndarray, index: tuple, shading_range: tuple[float, float]) -> np.ndarray:
    """The distances of `shaded_distances` from shifted planes (3, ...) to shifted references (k, 3), each
    reference's channels broadcast against the planes by `index`."""
    dot = _dot(planes, references, index)
    norms = np.maximum((references * references).sum(axis=1), 1e-6)[index]
    factor = np.clip(dot / norms, *shading_range)
    squared = (planes[0] * planes[0] + planes[1] * planes[1] + planes[2] * planes[2]) - 2 * factor * dot
    squared += factor * factor * norms
    return np.sqrt(np.maximum(squared, 0.0, out=squared), out=squared)


def ramp_shaded_distances(
    pixels: np.ndarray, colours: np.ndarray, shading_range: tuple[float, float], light: np.ndarray | None = None
) -> np.ndarray:
    """(k, holes, ring pixels) distances from every hole's ring pixels (holes, n, 3) to k colours, each colour
    within `shading_range` of its light, or under a ramp of light across the hole whose lit side is.

    A disc in its slot is one surface: the rim or the board's side can shade one side of it, so its light
    falls off smoothly across it (a plane fitted to the light each pixel asks for) from a lit side in the
    light of the board. A loose disc behind the board is darker all over: no ramp has a lit side in range.
    `light` (holes,), when given, is the light on each hole relative to the board's (`local_light`): the range
    is taken in it.
    """
    low, high = shading_range
    if light is not None:
        low, high = low * light[:, None], high * light[:, None]
    planes = shifted_planes(pixels)
    references = np.asarray(colours, dtype=np.float32).reshape(-1, 3) - BLACK
    dot = _dot(planes, references)
    reference_norms = np.maximum((references * references).sum(axis=1), 1e-6)[:, None, None]
    wanted = dot / reference_norms
    plane = (RING_PLANE_SOLVER @ _last_axis(wanted)).transpose(2, 0, 1)  # (k, holes, 3)
    light = RING_PLANE[:, 0] * plane[..., 0, None] + RING_PLANE[:, 1] * plane[..., 1, None]
    light += RING_PLANE[:, 2] * plane[..., 2, None]
    relative = np.clip(light / np.maximum(light.max(axis=2, keepdims=True), 1e-6), MIN_RELATIVE_LIGHT, 1.0)
    under_ramp = np.clip(wanted, low * relative, high * relative)
    even = np.clip(wanted, low, high)
    factor = np.where(np.abs(under_ramp - wanted) < np.abs(even - wanted), under_ramp, even)
    squared = (planes[0] * planes[0] + planes[1] * planes[1] + planes[2] * planes[2]) - 2 * factor * dot
    squared += factor * factor * reference_norms
    return np.sqrt(np.maximum(squared, 0.0, out=squared), out=squared)


def local_light(samples: HoleSamples) -> np.ndarray:
    """(holes,) the light on each hole relative to the board's: the face just outside the hole (the median of the
    rays' outermost samples round it) as a shade of the face's colour, within LOCAL_LIGHT_RANGE.

    A window to one side or a lamp above lights the top of a board more than its foot: a disc is lit as the face
    beside it is, so its colour is looked for in that light (a loose disc behind the board is still darker than
    the face in front of it). Only the face above each hole counts: below the bottom row a board's foot or tray
    is often in its own shadow.
    """
    around = shifted_planes(np.median(samples.rays[:, _UPWARD_RAYS, -1], axis=1))  # (3, holes)
    face = np.asarray(samples.face, dtype=np.float32) - BLACK
    shade = (around * face[:, None]).sum(axis=0) / max(float(face @ face), 1e-6)
    return np.clip(shade, *LOCAL_LIGHT_RANGE)


def in_board_light(bgr: np.ndarray, light: float) -> np.ndarray:
    """A colour (BGR) seen where the light is `light` times the board's (`local_light`), as it looks in the board's
    light: what a reference colour sampled at one hole must be for the reader to look for it hole by hole."""
    lab = to_weighted_lab(np.clip(np.asarray(bgr, dtype=np.float64), 0, 255).astype(np.uint8).reshape(1, 1, 3))
    return from_weighted_lab_to_bgr((lab[0, 0] - BLACK) / light + BLACK).astype(np.float64)


def from_weighted_lab_to_bgr(weighted_lab: np.ndarray) -> np.ndarray:
    """Inverse of `to_weighted_lab` for a few colours, (..., 3) -> uint8 BGR."""
    return np.clip(np.rint(weighted_lab_to_bgr_floats(weighted_lab)), 0, 255).astype(np.uint8)


def weighted_lab_to_bgr_floats(weighted_lab: np.ndarray) -> np.ndarray:
    """Inverse of `to_weighted_lab`, (..., 3) -> float BGR in 0..255 unrounded (gains between two frames' looks
    need the fractions); a colour with a NaN stays NaN."""
    lab = np.array(weighted_lab, dtype=np.float32)
    lab[..., 0] /= LIGHTNESS_WEIGHT
    bgr = cv2.cvtColor(np.nan_to_num(lab.reshape(-1, 1, 3)), cv2.COLOR_Lab2BGR).reshape(lab.shape) * 255.0
    bgr[np.isnan(lab).any(axis=-1)] = np.nan
    return bgr


def _ray_offsets() -> np.ndarray:
    """(RAY_COUNT * radii, 2) offsets in rectified pixels from a hole's centre of its ray samples, ray by ray."""
    angles = np.arange(RAY_COUNT) * 2 * np.pi / RAY_COUNT
    directions = np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    return (directions[:, None, :] * RAY_RADII_PITCH[None, :, None] * PITCH_PX).reshape(-1, 2)


@functools.lru_cache(maxsize=SAMPLE_MAP_CACHE_SIZE)
def _sample_map(corners_key: bytes, shape: tuple[int, int]) -> np.ndarray:
    """Image positions (m, MAP_ROW_LENGTH, 2) float32, flat in this order: every hole's ring pixels (holes bottom
    row first), every hole's ray samples, the gaps between holes; padded at the end.

    The positions are those of the rectified view (vision.geometry.rectify) mapped back into the image;
    cached because the game reads many frames with the same corners.
    """
    rows, cols = shape
    corners = np.frombuffer(corners_key, dtype=np.float64).reshape(4, 2)
    ring_y, ring_x = np.divmod(RING_INDEX, PITCH_PX)
    row_top, column = np.meshgrid(np.arange(rows)[::-1], np.arange(cols), indexing="ij")
    hole_x = (column.reshape(-1, 1) * PITCH_PX + ring_x).ravel()
    hole_y = (row_top.reshape(-1, 1) * PITCH_PX + ring_y).ravel()
    rays = (np.stack([column.reshape(-1, 1), row_top.reshape(-1, 1)], axis=-1) + 0.5) * PITCH_PX + _ray_offsets()[None]
    gap_y, gap_x = np.meshgrid(np.arange(1, rows) * PITCH_PX, np.arange(1, cols) * PITCH_PX, indexing="ij")
    rectified = np.column_stack(
        [
            np.concatenate([hole_x, rays[..., 0].ravel(), gap_x.ravel()]),
            np.concatenate([hole_y, rays[..., 1].ravel(), gap_y.ravel()]),
        ]
    )
    to_image = np.linalg.inv(rectifying_homography(corners, shape, PITCH_PX))
    positions = cv2.perspectiveTransform(rectified[None].astype(np.float64), to_image)[0].astype(np.float32)
    padded = np.zeros((-(-len(positions) // MAP_ROW_LENGTH) * MAP_ROW_LENGTH, 2), np.float32)
    padded[: len(positions)] = positions
    return padded.reshape(-1, MAP_ROW_LENGTH, 2)


def _dominant_colour(points: np.ndarray) -> np.ndarray:
    """The median of the largest group of `points` (n, 3) that are one colour in some light: those within
    FACE_RADIUS of the point with the most such neighbours."""
    near = shaded_distances(points, points, FACE_LIGHT_RANGE) < FACE_RADIUS
    return np.median(points[near[int(np.argmax(near.sum(axis=1)))]], axis=0)


def sample_holes(image_bgr: np.ndarray, corners_px: np.ndarray, shape: tuple[int, int]) -> HoleSamples:
    """Collect the ring pixels and rays of every hole and the board face's colour, as seen in the rectified view."""
    rows, cols = shape
    holes = rows * cols
    positions = _sample_map(np.ascontiguousarray(corners_px, dtype=np.float64).tobytes(), (rows, cols))
    sampled = cv2.remap(
        image_bgr, positions[..., 0], positions[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    lab = to_weighted_lab(sampled).reshape(-1, 3)
    ring_count = holes * len(RING_INDEX)
    ring_bgr = sampled.reshape(-1, 3)[:ring_count]
    at_ceiling = (ring_bgr >= CEILING_VALUE).sum(axis=1, dtype=np.uint8).reshape(holes, len(RING_INDEX))
    ray_count = holes * RAY_COUNT * len(RAY_RADII_PITCH)
    pixels = lab[:ring_count].reshape(holes, len(RING_INDEX), 3)
    rays = lab[ring_count : ring_count + ray_count].reshape(holes, RAY_COUNT, len(RAY_RADII_PITCH), 3)
    gaps = lab[ring_count + ray_count : ring_count + ray_count + (rows - 1) * (cols - 1)]
    face = _dominant_colour(gaps)
    return HoleSamples(
        shape=(rows, cols),
        pixels=pixels,
        sector=RING_SECTOR,
        face=face,
        rays=rays,
        rim_offsets=rim_offsets(rays, RAY_RADII_PITCH),
        hole_colours=np.median(pixels, axis=1),
        at_ceiling=at_ceiling,
        gaps=gaps.reshape(rows - 1, cols - 1, 3)[::-1],
    )


def face_colour(frames: Sequence[np.ndarray], corners_px: np.ndarray, shape: tuple[int, int]) -> tuple[int, int, int]:
    """The board face's colour (BGR) in frames of the empty board with nothing in front, sampled at `corners_px`:
    for vision.read, so a hand over most of the board is not taken for the face."""
    faces = [sample_holes(frame, corners_px, shape).face for frame in frames]
    return tuple(int(v) for v in from_weighted_lab_to_bgr(np.median(faces, axis=0)))  # type: ignore[return-value]
