"""Whether the lattice sits inside the board's frame: a lattice found one column or row off the board is moved back.

A board's edge holes are framed: beyond every one of them, out to the face ring (vision.occlusion), lies the
board's face. A lattice that slid one column off the board (a stray hole candidate on the dark room beside it
in a dim, noisy frame) puts its edge column on the room, whose outer rays see no face, and leaves the board's
last column out. So the outer rays of each edge are checked; an edge mostly off the face has the lattice moved
one pitch away from it, kept when every edge then sits in the frame, and otherwise said (the reading is then
not trusted).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.geometry import grid_corners, grid_to_image_homography, project
from vision.hole_samples import RAY_COUNT, HoleSamples
from vision.occlusion import rays_off_the_face

# Share of an edge's outward rays that may miss the face: a tray below the bottom row or a foot of the stand
# stays well under it, a lattice one column off the board well over.
OFF_FRAME_SHARE = 0.4
# A ray points outward when this much of its direction is across the edge.
OUTWARD_COMPONENT = 0.7
# (edge, grid step that moves the lattice away from it): columns right, rows down (rectified x right, y down).
EDGES = {"left": (1, 0), "right": (-1, 0), "top": (0, 1), "bottom": (0, -1)}


def edges_off_the_frame(samples: HoleSamples, off_the_face: np.ndarray) -> list[str]:
    """The board edges ("left", "right", "top", "bottom") whose holes' outward rays mostly miss the face
    (`off_the_face`: vision.occlusion.rays_off_the_face of the samples)."""
    rows, cols = samples.shape
    row, column = np.divmod(np.arange(rows * cols), cols)  # row 0 at the bottom
    angles = np.arange(RAY_COUNT) * 2 * np.pi / RAY_COUNT
    x, y = np.cos(angles), np.sin(angles)
    outward = {
        "left": (column == 0, x < -OUTWARD_COMPONENT),
        "right": (column == cols - 1, x > OUTWARD_COMPONENT),
        "top": (row == rows - 1, y < -OUTWARD_COMPONENT),
        "bottom": (row == 0, y > OUTWARD_COMPONENT),
    }
    return [edge for edge, (holes, rays) in outward.items() if off_the_face[holes][:, rays].mean() >= OFF_FRAME_SHARE]


def moved_corners(corners_px: np.ndarray, shape: tuple[int, int], step: tuple[int, int]) -> np.ndarray:
    """The corners of the lattice moved by `step` (columns, rows down) pitches along the board."""
    return project(grid_to_image_homography(corners_px, shape), grid_corners(shape) + np.asarray(step, float))


def framed(
    corners_px: np.ndarray,
    samples: HoleSamples,
    off_the_face: np.ndarray,
    sample: Callable[[np.ndarray], HoleSamples],
    off_face: Callable[[HoleSamples], np.ndarray] = rays_off_the_face,
) -> tuple[np.ndarray, HoleSamples, str | None]:
    """The lattice (corners and samples) that sits in the board's frame, and a problem sentence when none does.

    `off_the_face`: vision.occlusion.rays_off_the_face of the samples; `sample` samples the holes of a lattice
    given its corners; `off_face` finds the rays off the face of those (rays_off_the_face, given the calibrated disc
    colours when there are).
    """
    off = edges_off_the_frame(samples, off_the_face)
    if not off:
        return corners_px, samples, None
    for edge in off:
        corners = moved_corners(corners_px, samples.shape, EDGES[edge])
        moved = sample(corners)
        if not edges_off_the_frame(moved, off_face(moved)):
            return corners, moved, None
    return (
        corners_px,
        samples,
        (
            f"the holes at the board's {' and '.join(off)} edge do not sit inside its frame: "
            "the board may be found one column or row off"
        ),
    )
