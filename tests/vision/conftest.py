"""Synthetic board photos for the vision tests: a holed board face in front of a room, seen in perspective.

`render_board(grid, ...)` draws the board front-on (face, round holes, discs filling their holes, loose
discs lying behind empty holes, darker and seen only through the hole (`loose_disc_drop`: how far below the
hole centre, in hole radii; `loose_disc_radius`: in hole radii; `loose_disc_shade`: their brightness), the
hole's far wall in shadow where the view through an empty hole is cut off (`wall_parallax`: how far the back
opening shifts, per pitch of distance from the board centre), the discs of the first column shaded by the
board's side, darker across them from right to left (`disc_shadow`: how much darker their left edge is), a background with a gradient and clutter),
warps it into a 640x480 frame with a perspective homography, then adds a lighting gradient, blur and noise.
Returns the frame and the true corners (tl, tr, br, bl hole centres).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest

FRAME_SIZE_PX = (640, 480)
PITCH_PX = 60
HOLE_RADIUS = 0.37
RED_BGR = (40, 40, 200)
YELLOW_BGR = (30, 200, 235)
BLUE_BGR = (170, 70, 20)


@dataclass(frozen=True)
class Scene:
    """How the synthetic photo looks; the defaults are a plain front view."""

    face_bgr: tuple[int, int, int] = BLUE_BGR
    disc_bgr: tuple[tuple[int, int, int], tuple[int, int, int]] = (RED_BGR, YELLOW_BGR)
    background_bgr: tuple[tuple[int, int, int], tuple[int, int, int]] = ((225, 225, 220), (120, 150, 170))
    loose_discs_behind: tuple[tuple[int, int], ...] = ()
    loose_disc_drop: float = 0.9
    loose_disc_radius: float = 0.9
    loose_disc_shade: float = 0.7
    wall_parallax: float = 0.0
    ring_discs: bool = False
    disc_shadow: float = 0.0
    tilt: float = 0.0
    light_gradient: float = 0.0
    noise_sigma: float = 0.0
    blur_px: int = 0
    seed: int = 0


def _front_view(grid: np.ndarray, scene: Scene, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The board drawn front-on with a margin of room around it, and its hole centres (rows, cols, 2) top row first."""
    rows, cols = grid.shape
    margin = PITCH_PX
    width, height = cols * PITCH_PX + 2 * margin, rows * PITCH_PX + 2 * margin + PITCH_PX
    top, bottom = (np.array(c, dtype=np.float64) for c in scene.background_bgr)
    ramp = np.linspace(0, 1, height)[:, None, None]
    room = np.broadcast_to(top * (1 - ramp) + bottom * ramp, (height, width, 3)).copy()
    for _ in range(6):
        x = rng.integers(0, width)
        y = rng.choice([rng.integers(0, margin // 2), rng.integers(height - margin, height)])
        colour = rng.integers(40, 230, size=3).astype(np.float64) * np.array([1.0, 0.8, 0.7])
        cv2.rectangle(
            room, (int(x), int(y)), (int(x + rng.integers(20, 90)), int(y + rng.integers(10, 30))), colour.tolist(), -1
        )
    canvas = room.copy()
    board_left, board_top = margin - PITCH_PX // 4, margin - PITCH_PX // 4
    cv2.rectangle(
        canvas,
        (board_left, board_top),
        (board_left + cols * PITCH_PX + PITCH_PX // 2, board_top + rows * PITCH_PX + PITCH_PX // 2),
        scene.face_bgr,
        -1,
    )
    radius = int(HOLE_RADIUS * PITCH_PX)
    centres = np.zeros((rows, cols, 2))
    for row_top in range(rows):
        for column in range(cols):
            cx = margin + column * PITCH_PX + PITCH_PX // 4
            cy = margin + row_top * PITCH_PX + PITCH_PX // 4
            centres[row_top, column] = (cx, cy)
            hole = np.zeros(canvas.shape[:2], np.uint8)
            cv2.circle(hole, (cx, cy), radius, 255, -1)
            canvas[hole > 0] = room[hole > 0]
            opening = hole
            if scene.wall_parallax:
                board_centre = (
                    np.array([margin + (cols - 1) * PITCH_PX / 2, margin + (rows - 1) * PITCH_PX / 2]) + PITCH_PX // 4
                )
                shift = -scene.wall_parallax * (np.array([cx, cy]) - board_centre)
                opening = np.zeros_like(hole)
                cv2.circle(opening, (int(round(cx + shift[0])), int(round(cy + shift[1]))), radius, 255, -1)
                canvas[(hole > 0) & (opening == 0)] = np.array(scene.face_bgr, dtype=np.float64) * 0.45
            value = int(grid[rows - 1 - row_top, column])
            if (rows - 1 - row_top, column) in scene.loose_discs_behind and value == 0:
                loose = np.zeros_like(hole)
                drop = int(scene.loose_disc_drop * radius)
                cv2.circle(loose, (cx + drop // 3, cy + drop), int(scene.loose_disc_radius * radius), 255, -1)
                colour = np.array(scene.disc_bgr[(row_top + column) % 2], dtype=np.float64) * scene.loose_disc_shade
                canvas[(loose > 0) & (hole > 0) & (opening > 0)] = colour
            if value:
                colour = np.array(scene.disc_bgr[value - 1], dtype=np.float64)
                cv2.circle(canvas, (cx, cy), radius, colour.tolist(), -1, cv2.LINE_AA)
                cv2.circle(canvas, (cx, cy), int(0.6 * radius), (colour * 0.85).tolist(), 2, cv2.LINE_AA)
                if scene.ring_discs:
                    cv2.circle(canvas, (cx, cy), int(0.18 * radius), room[cy, cx].tolist(), -1)
                if scene.disc_shadow and column == 0:
                    top, left = cy - radius, cx - radius
                    patch = canvas[top : cy + radius + 1, left : cx + radius + 1]
                    across = (cx + radius - np.arange(left, cx + radius + 1)) / (2 * radius)
                    disc = np.zeros(patch.shape[:2], np.uint8)
                    cv2.circle(disc, (radius, radius), radius, 255, -1)
                    patch[disc > 0] *= (1 - scene.disc_shadow * np.broadcast_to(across, disc.shape))[disc > 0][:, None]
    return canvas, centres


def render_board(grid: np.ndarray, scene: Scene = Scene()) -> tuple[np.ndarray, np.ndarray]:
    """A 640x480 BGR photo of the board holding `grid` (row 0 at the bottom) and its true corners."""
    rng = np.random.default_rng(scene.seed)
    front, centres = _front_view(np.asarray(grid), scene, rng)
    height, width = front.shape[:2]
    source = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    frame_w, frame_h = FRAME_SIZE_PX
    scale = min(frame_w / width, frame_h / height) * 0.9
    w, h = width * scale, height * scale
    x0, y0 = (frame_w - w) / 2, (frame_h - h) / 2
    squeeze = scene.tilt * h
    target = np.float32(
        [
            [x0 + squeeze * 0.3, y0 + squeeze],
            [x0 + w - squeeze * 0.3, y0 - squeeze * 0.2],
            [x0 + w, y0 + h + squeeze * 0.2],
            [x0, y0 + h - squeeze * 0.5],
        ]
    )
    homography = cv2.getPerspectiveTransform(source, target)
    table = np.full((frame_h, frame_w, 3), (90, 120, 150), np.uint8)
    frame = cv2.warpPerspective(
        np.clip(front, 0, 255).astype(np.uint8), homography, FRAME_SIZE_PX, dst=table, borderMode=cv2.BORDER_TRANSPARENT
    ).astype(np.float64)
    if scene.light_gradient:
        frame *= np.linspace(1 - scene.light_gradient, 1 + scene.light_gradient, frame_w)[None, :, None]
    if scene.blur_px:
        frame = cv2.GaussianBlur(frame, (0, 0), scene.blur_px)
    if scene.noise_sigma:
        frame += rng.normal(0, scene.noise_sigma, frame.shape)
    rows, cols = np.asarray(grid).shape
    corner_holes = np.array([centres[0, 0], centres[0, cols - 1], centres[rows - 1, cols - 1], centres[rows - 1, 0]])
    corners = cv2.perspectiveTransform(corner_holes[None].astype(np.float64), homography)[0]
    return np.clip(frame, 0, 255).astype(np.uint8), corners


def random_game_grid(moves: int, seed: int, shape: tuple[int, int] = (6, 7)) -> np.ndarray:
    """A board after `moves` random legal drops (player 1 first), row 0 at the bottom."""
    rows, cols = shape
    rng = np.random.default_rng(seed)
    grid = np.zeros(shape, dtype=np.int8)
    for turn in range(moves):
        open_columns = [c for c in range(cols) if grid[rows - 1, c] == 0]
        column = int(rng.choice(open_columns))
        row = int(np.argmin(grid[:, column] != 0))
        grid[row, column] = 1 + turn % 2
    return grid


@pytest.fixture
def render():
    """The synthetic photo renderer (see the module docstring)."""
    return render_board
