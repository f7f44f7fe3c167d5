"""Finding the board: the lattice of holes in the image, automatically or refined from calibrated corners.

The board face is one colour (any colour) with round holes; whatever fills a hole (a disc, the room
behind) differs from the face. So: quantise the frame's colours, and in the mask of each colour take
the enclosed, roundish gaps as hole candidates. The board is the colour whose gaps form a lattice of
rows x cols: neighbour vectors give the row and column directions, a lattice is grown from a central
hole with a homography refitted as it grows, and the rows x cols window with the most holes (found, or
a centre that contrasts with the face around it) and the most board face around them is the board. Calibrated corners are refined the same way with the
face colour measured between the predicted holes.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from vision.geometry import grid_corners, grid_points, grid_to_image_homography, hole_pitch_px, project
from vision.hole_samples import shaded_distances
from vision.rims import rim_centres

log = logging.getLogger(__name__)

WORK_SIZE_PX = 640
COLOUR_CLUSTERS = 6
KMEANS_SAMPLES = 6000
# The face masks' distances are found this many rows at a time: a whole frame's (6 colours x 640 x 480 floats,
# and their temporaries) overflows the CPU's cache.
BAND_ROWS = 32
MIN_HOLE_AREA_PX = 12
MIN_CIRCULARITY = 0.55
MIN_SOLIDITY = 0.85
NEIGHBOUR_RANGE = (0.6, 1.3)
SNAP_TOLERANCE = 0.28
MIN_LATTICE_HOLES = 8
FACE_MATCH_DISTANCE = 22.0
FACE_SHADING_RANGE = (0.5, 1.3)
# Weighted-Lab distance beyond which a hole's centre differs from the face around it (a covered board: about 0).
HOLE_CONTRAST = 12.0
REFINE_MATCH_PITCH = 0.3
REFINE_MIN_OFFSET_PITCH = 0.1
REFINE_GAIN = 0.6
RIM_FIT_TOLERANCE_PITCH = 0.05
# OpenCV's 8-bit Lab holds lightness 0..100 as 0..255; weighted Lab halves it (vision.hole_samples.LIGHTNESS_WEIGHT).
LAB8_LIGHTNESS = 100.0 / 255.0 * 0.5


class BoardNotFoundError(RuntimeError):
    """No lattice of holes was found in the frame (the reading reports it; not raised to callers of read)."""


def _work_image(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame scaled so its longer side is at most WORK_SIZE_PX, and that scale."""
    scale = min(1.0, WORK_SIZE_PX / max(image.shape[:2]))
    if scale < 1.0:
        size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return image, scale


def _weighted_lab(image: np.ndarray) -> np.ndarray:
    return _weighted(cv2.cvtColor(image, cv2.COLOR_BGR2Lab))


def _weighted(lab8: np.ndarray) -> np.ndarray:
    """8-bit OpenCV Lab (..., 3) as weighted Lab (lightness 0..50, a and b about 0); a row at a time, with the
    factors repeated along it (numpy is slow over a last axis of 3)."""
    width = lab8.shape[-2]
    lab = np.multiply(
        lab8.reshape(-1, width * 3), np.tile(np.float32([LAB8_LIGHTNESS, 1.0, 1.0]), width), dtype=np.float32
    )
    lab -= np.tile(np.float32([0.0, 128.0, 128.0]), width)
    return lab.reshape(lab8.shape)


def _face_coloured(lab8: np.ndarray, face: np.ndarray) -> np.ndarray:
    """(H, W) uint8: 1 where the 8-bit Lab image is within FACE_MATCH_DISTANCE of the face colour (weighted Lab).

    Each channel's squared difference from the face takes only 256 values: looked up in tables rather than
    converting every pixel to weighted Lab (the same float32 values either way)."""
    value = np.arange(256, dtype=np.float32)
    tables = [value * LAB8_LIGHTNESS - face[0], value - 128.0 - face[1], value - 128.0 - face[2]]
    squared = [table * table for table in tables]
    distance = squared[0][lab8[..., 0]] + squared[1][lab8[..., 1]] + squared[2][lab8[..., 2]]
    return (distance < FACE_MATCH_DISTANCE**2).astype(np.uint8)


def hole_candidates(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centres (n, 2) and areas (n,) of the enclosed, roundish gaps in a face mask."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    centres, areas = [], []
    if hierarchy is None:
        return np.zeros((0, 2)), np.zeros(0)
    for contour, link in zip(contours, hierarchy[0], strict=False):
        if link[3] < 0:
            continue
        area = cv2.contourArea(contour)
        if area < MIN_HOLE_AREA_PX:
            continue
        perimeter = cv2.arcLength(contour, True)
        hull_area = cv2.contourArea(cv2.convexHull(contour))
        if 4 * np.pi * area / max(perimeter, 1e-6) ** 2 < MIN_CIRCULARITY or area < MIN_SOLIDITY * hull_area:
            continue
        moments = cv2.moments(contour)
        centres.append((moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]))
        areas.append(area)
    return np.array(centres, dtype=np.float64).reshape(-1, 2), np.array(areas, dtype=np.float64)


def _lattice_directions(points: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The column step (left to right) and row step (top to bottom) from neighbour displacements."""
    difference = points[None] - points[:, None]
    distance = np.linalg.norm(difference, axis=2)
    np.fill_diagonal(distance, np.inf)
    pitch = np.median(distance.min(axis=1))
    near = (distance > NEIGHBOUR_RANGE[0] * pitch) & (distance < NEIGHBOUR_RANGE[1] * pitch)
    vectors = difference[near]
    across = np.abs(vectors[:, 0]) >= np.abs(vectors[:, 1])
    if across.sum() < 2 or (~across).sum() < 2:
        return None
    column_steps = vectors[across] * np.sign(vectors[across, :1])
    row_steps = vectors[~across] * np.sign(vectors[~across, 1:])
    return np.median(column_steps, axis=0), np.median(row_steps, axis=0)


def _fit_model(grid: np.ndarray, image_points: np.ndarray) -> np.ndarray:
    """Grid -> image homography from matched points (an affine one while there are few)."""
    if len(grid) >= 8:
        homography, _ = cv2.findHomography(grid, image_points, 0)
        if homography is not None:
            return homography
    affine, _ = cv2.estimateAffine2D(grid, image_points, method=cv2.LMEDS) if len(grid) >= 3 else (None, None)
    if affine is None:
        return None  # type: ignore[return-value]
    return np.vstack([affine, [0.0, 0.0, 1.0]])


def grow_lattice(points: np.ndarray) -> dict[tuple[int, int], int]:
    """Integer lattice coordinates (column, row) for the points that lie on one lattice with the central point."""
    directions = _lattice_directions(points)
    if directions is None:
        return {}
    column_step, row_step = directions
    seed = int(np.argmin(np.linalg.norm(points - np.median(points, axis=0), axis=1)))
    origin = points[seed]
    model = np.array(
        [[column_step[0], row_step[0], origin[0]], [column_step[1], row_step[1], origin[1]], [0.0, 0.0, 1.0]]
    )
    assigned: dict[tuple[int, int], int] = {(0, 0): seed}
    for _ in range(40):
        inverse = np.linalg.inv(model)
        coordinates = project(inverse, points)
        rounded = np.rint(coordinates)
        error = np.linalg.norm(coordinates - rounded, axis=1)
        taken = set(assigned.values())
        added = False
        for index in np.argsort(error):
            if error[index] > SNAP_TOLERANCE or index in taken:
                continue
            cell = (int(rounded[index, 0]), int(rounded[index, 1]))
            if cell in assigned:
                continue
            if not any((cell[0] + dc, cell[1] + dr) in assigned for dc in (-1, 0, 1) for dr in (-1, 0, 1)):
                continue
            assigned[cell] = int(index)
            taken.add(index)
            added = True
        if not added:
            break
        cells = np.array(list(assigned), dtype=np.float64)
        refitted = _fit_model(cells, points[list(assigned.values())])
        if refitted is None:
            break
        model = refitted
    return assigned


def _face_support(face_mask: np.ndarray, homography: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """For lattice cells, the share of face-coloured pixels at the four gaps between diagonal neighbours."""
    offsets = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    probes = project(homography, (cells[:, None, :] + offsets[None]).reshape(-1, 2)).reshape(len(cells), 4, 2)
    height, width = face_mask.shape
    x = np.rint(probes[..., 0]).astype(int)
    y = np.rint(probes[..., 1]).astype(int)
    inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    hits = np.zeros(x.shape, dtype=bool)
    hits[inside] = face_mask[y[inside], x[inside]] > 0
    return hits.mean(axis=1)


def _contrasting_holes(lab: np.ndarray, homography: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """For lattice cells, whether the centre differs in colour from the four gaps around it: a hole shows a
    disc or the room behind, never the face around it, so a window reaching past the board (the face's
    margin, a backdrop the face mask took in its shading) has cells that fail this."""
    offsets = np.array([[0.0, 0.0], [-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    probes = project(homography, (cells[:, None, :] + offsets[None]).reshape(-1, 2)).reshape(len(cells), 5, 2)
    height, width = lab.shape[:2]
    x = np.clip(np.rint(probes[..., 0]).astype(int), 0, width - 1)
    y = np.clip(np.rint(probes[..., 1]).astype(int), 0, height - 1)
    colours = lab[y, x]
    around = np.median(colours[:, 1:], axis=1)
    return np.linalg.norm(colours[:, 0] - around, axis=1) > HOLE_CONTRAST


def _best_window(
    assigned: dict[tuple[int, int], int],
    shape: tuple[int, int],
    homography: np.ndarray,
    face_mask: np.ndarray,
    lab: np.ndarray,
) -> tuple[int, int, float]:
    """Offset (column, row) of the rows x cols window with the most holes and face support, and its score.

    A cell counts as a hole when the lattice found one there or its centre contrasts with the face around
    it: holes whose content the face mask took in (a dark room behind, seen as the face in shadow) still
    count, and the window does not slide off the board where no hole was found.
    """
    rows, cols = shape
    cells = np.array(list(assigned))
    low, high = cells.min(axis=0), cells.max(axis=0)
    column_offsets = sorted((int(low[0]), int(high[0]) - cols + 1))
    row_offsets = sorted((int(low[1]), int(high[1]) - rows + 1))
    best = None
    for column in range(column_offsets[0], column_offsets[1] + 1):
        for row in range(row_offsets[0], row_offsets[1] + 1):
            grid = grid_points((rows, cols)).reshape(-1, 2).astype(int) + (column, row)
            contrasting = _contrasting_holes(lab, homography, grid.astype(np.float64))
            holes = sum((int(c), int(r)) in assigned or seen for (c, r), seen in zip(grid, contrasting, strict=False))
            support = float(_face_support(face_mask, homography, grid.astype(np.float64)).mean())
            score = holes + rows * cols * 0.5 * support
            if best is None or score > best[2]:
                best = (column, row, score)
    return best


def _lattice_corners(
    points: np.ndarray, face_mask: np.ndarray, lab: np.ndarray, shape: tuple[int, int]
) -> tuple[np.ndarray, int, float] | None:
    """Corners (4, 2) of the best rows x cols lattice among the points, the holes it explains, and a score."""
    if len(points) < MIN_LATTICE_HOLES:
        return None
    assigned = grow_lattice(points)
    if len(assigned) < MIN_LATTICE_HOLES:
        return None
    cells = np.array(list(assigned), dtype=np.float64)
    matched = points[list(assigned.values())]
    homography, inliers = cv2.findHomography(cells, matched, cv2.RANSAC, 0.15 * _median_step(cells, matched))
    if homography is None:
        return None
    column, row, score = _best_window(assigned, shape, homography, face_mask, lab)
    rows, cols = shape
    inside = [(c, r) for c, r in assigned if column <= c < column + cols and row <= r < row + rows]
    if len(inside) >= MIN_LATTICE_HOLES:
        local = np.array(inside, dtype=np.float64) - (column, row)
        homography, _ = cv2.findHomography(local, points[[assigned[cell] for cell in inside]], cv2.RANSAC, 3.0)
        if homography is None:
            return None
        corners = project(homography, grid_corners(shape))
    else:
        corners = project(homography, grid_corners(shape) + (column, row))
    return corners, len(inside), score


def _median_step(cells: np.ndarray, points: np.ndarray) -> float:
    """Typical image distance between neighbouring lattice points (px)."""
    distance = np.linalg.norm(points[None] - points[:, None], axis=2)
    np.fill_diagonal(distance, np.inf)
    return float(np.median(distance.min(axis=1)))


def _face_masks(lab: np.ndarray) -> list[np.ndarray]:
    """Masks of the frame's main colours (k-means on a sample of pixels) as face candidates, each with its shades.

    The board face is one plastic, often lit unevenly (brighter at the top, a shadow below): a mask
    takes the colour under any light in FACE_SHADING_RANGE so the whole face, not a band of it, shows.
    """
    pixels = lab.reshape(-1, 3)
    rng = np.random.default_rng(0)
    sample = pixels[rng.choice(len(pixels), size=min(KMEANS_SAMPLES, len(pixels)), replace=False)]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(0)
    _, _, centres = cv2.kmeans(sample, COLOUR_CLUSTERS, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    inside = np.empty((COLOUR_CLUSTERS, *lab.shape[:2]), dtype=np.uint8)
    for top in range(0, len(lab), BAND_ROWS):
        band = shaded_distances(lab[top : top + BAND_ROWS], centres, FACE_SHADING_RANGE)
        inside[:, top : top + BAND_ROWS] = band < FACE_MATCH_DISTANCE
    kernel = np.ones((3, 3), np.uint8)
    return [cv2.morphologyEx(inside[k], cv2.MORPH_OPEN, kernel) for k in range(COLOUR_CLUSTERS)]


def locate_board(image: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Corners (tl, tr, br, bl hole centres, px) of the board found in the frame; BoardNotFoundError if none."""
    work, scale = _work_image(image)
    lab = _weighted_lab(cv2.GaussianBlur(work, (3, 3), 0))
    best = None
    for mask in _face_masks(lab):
        centres, _ = hole_candidates(mask)
        found = _lattice_corners(centres, mask, lab, shape)
        if found is not None and (best is None or found[2] > best[2]):
            best = found
    if best is None or best[1] < MIN_LATTICE_HOLES:
        raise BoardNotFoundError(
            f"no {shape[0]}x{shape[1]} board found: check that the whole board is in view, well lit, and that nothing "
            "in front of it covers it (a hand, an arm)"
        )
    corners = refine_corners(image, best[0] / scale, shape, trusted=False)
    return fit_to_rims(image, corners, shape)


def fit_to_rims(image: np.ndarray, corners_px: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Corners of the lattice that best fits the holes' rims (vision.rims); unchanged when too few rims are found."""
    work, scale = _work_image(image)
    corners = corners_px * scale
    homography = grid_to_image_homography(corners, shape)
    cells, centres = rim_centres(_weighted_lab(work), homography, shape)
    if len(cells) < MIN_LATTICE_HOLES:
        return corners_px
    fitted, _ = cv2.findHomography(cells, centres, cv2.RANSAC, RIM_FIT_TOLERANCE_PITCH * hole_pitch_px(corners, shape))
    if fitted is None:
        return corners_px
    return project(fitted, grid_corners(shape)) / scale


def refine_corners(
    image: np.ndarray, corners_px: np.ndarray, shape: tuple[int, int], trusted: bool = True
) -> np.ndarray:
    """Move the corners onto the real holes: match holes seen in the face colour's mask to the predicted ones.

    The mask here takes the face colour under one light only, so the shaded wall inside a hole (seen on
    the side away from the camera) counts as hole and each hole's centre is its rim's. The lattice found
    automatically comes from masks that take the face under any shading, where that wall counts as face:
    every hole's centre moves towards the camera, the lattice shrinks towards it, and no lattice fit can
    see that. So found corners (`trusted` False) are always refitted here. Corners from calibration are
    kept when too few holes are seen (a hand in front, odd light), when they already sit on the holes, or
    when the refit does not explain the holes clearly better.
    """
    work, scale = _work_image(image)
    corners = corners_px * scale
    homography = grid_to_image_homography(corners, shape)
    pitch = hole_pitch_px(corners, shape)
    rows, cols = shape
    margin = int(pitch)
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int) - margin, 0)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + margin
    region = cv2.cvtColor(work[y0:y1, x0:x1], cv2.COLOR_BGR2Lab)
    gaps = grid_points((rows + 1, cols + 1)).reshape(-1, 2) - 0.5
    probes = np.rint(project(homography, gaps)).astype(int) - (x0, y0)
    height, width = region.shape[:2]
    keep = (probes[:, 0] >= 0) & (probes[:, 0] < width) & (probes[:, 1] >= 0) & (probes[:, 1] < height)
    if keep.sum() < 4:
        return corners_px
    face = np.median(_weighted(region[probes[keep, 1], probes[keep, 0]]), axis=0)
    mask = cv2.morphologyEx(_face_coloured(region, face), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    centres, _ = hole_candidates(mask)
    if len(centres) < MIN_LATTICE_HOLES:
        return corners_px
    centres += (x0, y0)
    predicted = project(homography, grid_points(shape)).reshape(-1, 2)
    distance = np.linalg.norm(predicted[:, None] - centres[None], axis=2)
    nearest = distance.argmin(axis=1)
    close = distance[np.arange(len(predicted)), nearest] < REFINE_MATCH_PITCH * pitch
    if close.sum() < MIN_LATTICE_HOLES:
        return corners_px
    grid = grid_points(shape).reshape(-1, 2)[close]
    seen = centres[nearest[close]]
    refined, _ = cv2.findHomography(grid, seen, cv2.RANSAC, 0.08 * pitch)
    if refined is None:
        return corners_px
    before = np.median(np.linalg.norm(project(homography, grid) - seen, axis=1))
    after = np.median(np.linalg.norm(project(refined, grid) - seen, axis=1))
    if trusted and (before < REFINE_MIN_OFFSET_PITCH * pitch or after > REFINE_GAIN * before):
        return corners_px
    return project(refined, grid_corners(shape)) / scale
