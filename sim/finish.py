"""What TinyRenderer cannot draw, composited into the frame: a clear board, translucent discs, glare.

The headless renderer draws every surface opaque and its specular light is faint. A make's `SeenMaterials` says what
to add: the scene is rendered again without the board (a clear board's face shows what is behind it, a little
lighter) or without the discs (a translucent disc shows the board and the room behind it through its colour), and a
glossy surface's glare (a lamp or window reflected) is painted over the board's and discs' pixels, saturated as a
webcam's sensor is by it. Which pixel shows what comes from the renderer's segmentation mask.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pybullet as p

from sim.config import SeenMaterials

Render = Callable[[frozenset[int]], tuple[np.ndarray, np.ndarray]]  # bodies hidden -> (RGB float32, body ids)
GLARE_RGB = np.array([252.0, 252.0, 250.0], np.float32)
GLARE_PEAK = 0.97  # the glare's middle is all but white, whatever the plastic's colour
COLOUR_MATCH = 1e-3


def body_ids(segmentation: np.ndarray) -> np.ndarray:
    """The body id each pixel shows (-1: nothing), from PyBullet's mask (link index in the high bits)."""
    return np.where(segmentation >= 0, segmentation & ((1 << 24) - 1), -1)


def hidden_render(client: int, bodies: frozenset[int], render: Callable[[], tuple[np.ndarray, np.ndarray]]):
    """`render()` with `bodies` made invisible (alpha 0 hides a body in TinyRenderer), their colours put back after."""
    saved = [(body, p.getVisualShapeData(body, physicsClientId=client)[0][7]) for body in bodies]
    for body, rgba in saved:
        p.changeVisualShape(body, -1, rgbaColor=(*rgba[:3], 0.0), physicsClientId=client)
    try:
        return render()
    finally:
        for body, rgba in saved:
            p.changeVisualShape(body, -1, rgbaColor=rgba, physicsClientId=client)


def see_through(
    client: int, rgb: np.ndarray, ids: np.ndarray, materials: SeenMaterials, render: Render
) -> tuple[np.ndarray, np.ndarray]:
    """(the frame with a clear board and translucent discs seen through, where the board's and discs' surfaces are
    in it). `rgb` is the full render (float32), `ids` its pixels' body ids."""
    board = frozenset(materials.board_bodies)
    is_clear, is_translucent = materials.board_opacity < 1.0, materials.disc_opacity < 1.0
    discs, tints = _discs(client, ids, materials)
    behind_board = None
    if is_clear:
        behind_board = render(board)
        more, more_tints = _discs(client, behind_board[1], materials)
        discs, tints = discs | more, {**tints, **more_tints}
    if is_translucent and discs:
        behind_discs = render(discs | (board if is_clear else frozenset()))[0]
        rgb = _through_discs(rgb, ids, tints, materials.disc_opacity, behind_discs)
        if behind_board is not None:
            behind_board = (_through_discs(*behind_board, tints, materials.disc_opacity, behind_discs), behind_board[1])
    if behind_board is not None:
        on_board = np.isin(ids, list(board))[:, :, None]
        opacity = materials.board_opacity
        rgb = np.where(on_board, opacity * rgb + (1.0 - opacity) * behind_board[0], rgb)
    surfaces = np.isin(ids, list(board | discs))
    return rgb, surfaces


def glare(bgr: np.ndarray, surfaces: np.ndarray, spots_px: list[np.ndarray]) -> np.ndarray:
    """`bgr` (float32) with the glare of every spot (its outline in pixels) on the board's and discs' pixels."""
    if not spots_px:
        return bgr
    height, width = surfaces.shape
    light = np.zeros((height, width), np.float32)
    for outline in spots_px:
        cv2.fillPoly(light, [np.round(outline).astype(np.int32)], 1.0)
    radius_px = max(1.0, max(float(np.ptp(outline, axis=0).max()) for outline in spots_px) / 2)
    light = cv2.GaussianBlur(light, (0, 0), radius_px / 4) * GLARE_PEAK * surfaces
    return bgr * (1.0 - light[:, :, None]) + GLARE_RGB[None, None, :] * light[:, :, None]


def _discs(client: int, ids: np.ndarray, materials: SeenMaterials) -> tuple[frozenset[int], dict[int, np.ndarray]]:
    """The disc bodies among the pixels' ids (told by their colour), and each one's tint (RGB, brightest 1)."""
    colours = np.asarray(materials.disc_rgbas, float)[:, :3]
    discs: dict[int, np.ndarray] = {}
    for body in np.unique(ids[ids >= 0]):
        if int(body) in materials.board_bodies:
            continue
        rgba = np.asarray(p.getVisualShapeData(int(body), physicsClientId=client)[0][7][:3], float)
        if len(colours) and np.abs(colours - rgba).max(axis=1).min() < COLOUR_MATCH:
            discs[int(body)] = (rgba / max(rgba.max(), 1e-6)).astype(np.float32)
    return frozenset(discs), discs


def _through_discs(
    rgb: np.ndarray, ids: np.ndarray, tints: dict[int, np.ndarray], opacity: float, behind: np.ndarray
) -> np.ndarray:
    """Disc pixels of `rgb` mixed with what is behind them, seen through the disc's colour."""
    tint = np.ones_like(rgb)
    on_disc = np.zeros(ids.shape, bool)
    for body, colour in tints.items():
        mask = ids == body
        tint[mask] = colour
        on_disc |= mask
    through = opacity * rgb + (1.0 - opacity) * behind * tint
    return np.where(on_disc[:, :, None], through, rgb)
