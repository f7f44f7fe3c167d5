"""Hole centres from their rims: an ellipse fitted, all round, to where the board face ends around each hole.

A hole's outline in a face-colour mask is lopsided: light from above shows the lower inner wall in the face's
own colour and hides the upper one in shadow, so the mask's hole loses its bottom and its centroid sits high
(up to 0.05 pitch on the photos). The rim itself is where the flat face ends, at the same distance from
the centre all round. So, in grid units (column and row pitches, where perspective is undone), rays go
from half a pitch out (the face between holes) inwards, and the first sample that is not the face around
that hole (its own median face colour, so uneven light does not matter) is a rim point. The rim is often
a faint line one pixel wide (a lit inner wall can have nearly the face's colour), so a sample takes the
most different of its four pixels. An axis-aligned ellipse (a round hole, when the two pitches differ) is
fitted to each hole's rim points, trimming the rays that strayed (a disc edge, a highlight, a wall with no
line at the rim), and the ellipses' centres are the holes' centres. On the simulated board (pitches 34.7
and 31.8 mm) circles and bilinear samples put the centres 1-3 px high; this puts them within 1.5 px.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import grid_points, project

RAY_COUNT = 32
RAY_RADII_PITCH = np.arange(0.5, 0.15, -0.01)
# Weighted-Lab distance from the local face colour that ends the face: small enough to find the thin dark line
# between the face and a lit inner wall.
RIM_CONTRAST = 9.0
MIN_RIM_RAYS = 0.6
TRIM_FACTOR = 2.5
TRIM_ROUNDS = 3
MIN_ASPECT = 0.5  # a hole at most twice as wide in pitches one way as the other
# A rim centred further than this from where it was looked for is something else (a disc edge, a shadow).
MAX_RIM_OFFSET_PITCH = 0.15
FACE_PROBES = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5], [0, -0.5], [0, 0.5], [-0.5, 0], [0.5, 0]])


def _sample(lab: np.ndarray, points_px: np.ndarray) -> np.ndarray:
    """Bilinear samples of the image at (n, m, 2) points, (n, m, 3)."""
    n, m = points_px.shape[:2]
    maps = points_px.astype(np.float32)
    return cv2.remap(lab, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(
        n, m, 3
    )


def _fit_ellipses(points: np.ndarray, use: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least-squares axis-aligned ellipses (algebraic fit of x^2 + aspect y^2 + c x + d y + e = 0) through each
    row of points (h, n, 2) where `use`: centres, aspects (y's weight) and radii along x.

    Grid units are column and row pitches, so a round hole is an ellipse there when the two pitches differ."""
    x, y = points[..., 0], points[..., 1]
    design = np.stack([y * y, x, y, np.ones_like(x)], axis=-1) * use[..., None]
    target = -(x * x) * use
    normal = np.einsum("hni,hnj->hij", design, design) + 1e-9 * np.eye(4)
    aspect, c, d, e = np.linalg.solve(normal, np.einsum("hni,hn->hi", design, target)[..., None])[..., 0].T
    aspect = np.clip(aspect, MIN_ASPECT, 1 / MIN_ASPECT)
    centres = np.stack([-c / 2, -d / (2 * aspect)], axis=-1)
    radii = np.sqrt(np.maximum(centres[:, 0] ** 2 + aspect * centres[:, 1] ** 2 - e, 1e-12))
    return centres, aspect, radii


def _neighbour_distance(lab: np.ndarray, points_px: np.ndarray, face: np.ndarray) -> np.ndarray:
    """(holes, rays, radii): the largest distance from each hole's face colour among the four pixels around each
    ray point (holes * rays, radii, 2). A rim line one pixel wide is seen whichever side of it a sample falls;
    bilinear samples halve its contrast between pixel centres."""
    holes = len(face)
    largest = None
    for dx in (-0.5, 0.5):
        for dy in (-0.5, 0.5):
            maps = (points_px + (dx, dy)).astype(np.float32)
            near = cv2.remap(lab, maps[..., 0], maps[..., 1], cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
            apart = [
                plane.reshape(holes, RAY_COUNT, -1) - face[:, None, None, channel]
                for channel, plane in enumerate(cv2.split(near))
            ]  # channel by channel: numpy is slow over a last axis of 3
            distance = np.sqrt(apart[0] * apart[0] + apart[1] * apart[1] + apart[2] * apart[2])
            largest = distance if largest is None else np.maximum(largest, distance)
    return largest


def rim_centres(lab: np.ndarray, homography: np.ndarray, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Grid cells (n, 2) whose rim was found and their centres in the image (n, 2) px.

    `homography` maps grid coordinates (column, row_from_top) to the image and must put every hole within
    about 0.15 pitch of its centre; `lab` is the weighted-Lab image it maps into.
    """
    cells = grid_points(shape).reshape(-1, 2)
    holes = len(cells)
    face_points = project(homography, cells[:, None, :] + FACE_PROBES[None])
    face = np.median(_sample(lab, face_points), axis=1)
    angles = np.arange(RAY_COUNT) * 2 * np.pi / RAY_COUNT
    directions = np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    ray_points = cells[:, None, None, :] + RAY_RADII_PITCH[None, None, :, None] * directions[None, :, None, :]
    distance = _neighbour_distance(lab, project(homography, ray_points.reshape(holes * RAY_COUNT, -1, 2)), face)
    beyond_face = distance > RIM_CONTRAST
    first = beyond_face.argmax(axis=2)
    use = beyond_face.any(axis=2) & (first > 0)
    rim = cells[:, None, :] + RAY_RADII_PITCH[first][..., None] * directions[None]
    centres, use = fit_rims(rim, use, RAY_RADII_PITCH[0] - RAY_RADII_PITCH[1])
    found = use.sum(axis=1) >= MIN_RIM_RAYS * RAY_COUNT
    return cells[found], project(homography, centres[found])


def fit_rims(rim_points: np.ndarray, use: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Ellipses through each hole's rim points (holes, rays, 2) where `use`, trimming the rays that strayed (a disc
    edge, a highlight) by more than TRIM_FACTOR times the typical residual (at least a ray `step`): the ellipses'
    centres (holes, 2) and the rays kept."""
    use = use.copy()
    for _ in range(TRIM_ROUNDS):
        centres, aspect, radii = _fit_ellipses(rim_points, use)
        offset = rim_points - centres[:, None]
        residual = np.abs(np.sqrt(offset[..., 0] ** 2 + aspect[:, None] * offset[..., 1] ** 2) - radii[:, None])
        ordered = np.sort(np.where(use, residual, np.inf), axis=1)
        middle = np.maximum(use.sum(axis=1) - 1, 0) // 2
        typical = np.minimum(ordered[np.arange(len(use)), middle], 1.0)
        use &= residual <= np.maximum(TRIM_FACTOR * typical[:, None], step)
    centres, _, _ = _fit_ellipses(rim_points, use)
    return centres, use


def rim_offsets(rays: np.ndarray, radii_pitch: np.ndarray) -> np.ndarray:
    """(holes, 2) in pitches: where each hole's rim is centred relative to the point its rays (holes, rays,
    radii, 3) start from, the rays evenly spread round from the x axis; (0, 0) where the rim is unclear.

    The face around a hole is its rays' outermost samples (its own light); a ray's rim is just outside its
    outermost sample that differs from that face by RIM_CONTRAST.
    """
    holes, count, _, _ = rays.shape
    face = np.median(rays[:, :, -1], axis=1)
    apart = [rays[..., channel] - face[:, None, None, channel] for channel in range(3)]
    differs = apart[0] * apart[0] + apart[1] * apart[1] + apart[2] * apart[2] > RIM_CONTRAST**2
    last = rays.shape[2] - 1 - np.argmax(differs[:, :, ::-1], axis=2)
    step = float(radii_pitch[1] - radii_pitch[0])
    angles = np.arange(count) * 2 * np.pi / count
    directions = np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    rim = (radii_pitch[last] + step / 2)[..., None] * directions[None]
    centres, use = fit_rims(rim, differs.any(axis=2) & (last < rays.shape[2] - 1), step)
    trusted = np.linalg.norm(centres, axis=1) < MAX_RIM_OFFSET_PITCH
    return np.where(trusted[:, None], centres, 0.0)
