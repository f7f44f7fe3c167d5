"""The simulated webcam: PyBullet view/projection matrices, a pinhole model that matches them, rendering.

Frames are rendered with TinyRenderer (headless; OpenGL when the world has a GUI), then turned into
what a webcam delivers: BGR uint8, with the white balance of a colour temperature, the room's light level
and gradient (`light_field`), and Gaussian noise. A make's clear board, translucent discs and glare, which the
renderer cannot draw, are composited in (`sim.finish`).
`project` and `intrinsics` use the OpenCV convention (pixel centres at integer coordinates, x right,
y down), so vision and calibration can compare their estimates with the truth.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from sim import finish
from sim.config import CameraConfig

NEAR_M = 0.02
FAR_M = 4.0
GLARE_OUTLINE_POINTS = 32


def camera_axes(config: CameraConfig) -> np.ndarray:
    """3x3 rotation whose rows are the camera's x (right), y (down) and z (forward) axes in the world."""
    forward = np.asarray(config.target_m, float) - np.asarray(config.eye_m, float)
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, np.asarray(config.up, float))
    if np.linalg.norm(right) < 1e-9:
        raise ValueError(f"camera up {config.up} is parallel to its viewing direction: choose another up vector")
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    return np.stack([right, down, forward])


def intrinsics(config: CameraConfig) -> np.ndarray:
    """3x3 camera matrix K of the rendered images (square pixels).

    The principal point is where TinyRenderer puts the optical axis: at (width / 2, height / 2 - 1) in
    OpenCV pixel coordinates (measured on rendered marker spheres, within 0.1 px), not at the
    geometric centre ((width - 1) / 2, (height - 1) / 2).
    """
    focal_px = (config.height_px / 2) / math.tan(math.radians(config.vertical_fov_deg) / 2)
    return np.array([[focal_px, 0.0, config.width_px / 2], [0.0, focal_px, config.height_px / 2 - 1], [0.0, 0.0, 1.0]])


def project(points_m: np.ndarray, config: CameraConfig) -> np.ndarray:
    """Image positions (..., 2) in pixels of world points (..., 3)."""
    points = np.asarray(points_m, float)
    in_camera = (points - np.asarray(config.eye_m, float)) @ camera_axes(config).T
    homogeneous = in_camera @ intrinsics(config).T
    return homogeneous[..., :2] / homogeneous[..., 2:3]


def view_matrix(config: CameraConfig) -> list[float]:
    return list(p.computeViewMatrix(config.eye_m, config.target_m, config.up))


def projection_matrix(config: CameraConfig) -> list[float]:
    return list(
        p.computeProjectionMatrixFOV(config.vertical_fov_deg, config.width_px / config.height_px, NEAR_M, FAR_M)
    )


def white_balance_gains(colour_temperature_k: float) -> np.ndarray:
    """B, G, R gains that tint a neutral image as a camera balanced for daylight sees light of this temperature."""

    def planck_rgb(kelvin: float) -> np.ndarray:
        # Tanner Helland's fit of blackbody colour, good to a few percent from 1000 K to 15000 K.
        t = kelvin / 100.0
        red = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
        green = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
        blue = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
        return np.clip(np.array([blue, green, red]), 1.0, 255.0)

    gains = planck_rgb(colour_temperature_k) / planck_rgb(6500.0)
    return gains / gains.max()


def light_field(config: CameraConfig) -> np.ndarray:
    """(height, width) brightness factors: the room's light level, falling off linearly across the frame
    (a lamp to one side, a window behind), so no two holes of a board are lit alike."""
    x = np.linspace(-1.0, 1.0, config.width_px, dtype=np.float32)[None, :]
    y = np.linspace(-1.0, 1.0, config.height_px, dtype=np.float32)[:, None]
    gradient_x, gradient_y = config.light_gradient
    return np.maximum(config.exposure * (1.0 + gradient_x * x + gradient_y * y), 0.0).astype(np.float32)


def render(client: int, config: CameraConfig, rng: np.random.Generator, use_opengl: bool = False) -> np.ndarray:
    """A BGR uint8 frame (height, width, 3) of the world as the webcam sees it."""
    materials = config.materials
    rgb, ids = _rendered(client, config, use_opengl, with_ids=materials is not None)
    surfaces = None
    if materials is not None:

        def without(hidden: frozenset[int]) -> tuple[np.ndarray, np.ndarray]:
            return finish.hidden_render(client, hidden, lambda: _rendered(client, config, use_opengl, with_ids=True))

        rgb, surfaces = finish.see_through(client, rgb, ids, materials, without)
    bgr = rgb[:, :, ::-1] * white_balance_gains(config.colour_temperature_k).astype(np.float32)
    if config.exposure != 1.0 or any(config.light_gradient):
        bgr *= light_field(config)[:, :, None]
    if surfaces is not None and materials.glare_radius_m > 0:
        bgr = finish.glare(bgr, surfaces, glare_outlines_px(config))
    if config.noise_sigma > 0:
        bgr += rng.normal(0.0, config.noise_sigma, bgr.shape).astype(np.float32)
    return np.clip(bgr + 0.5, 0, 255).astype(np.uint8)


def glare_outlines_px(config: CameraConfig) -> list[np.ndarray]:
    """The outlines (n, 2) in pixels of the glare spots of `config.materials` (circles on the discs' face plane)."""
    materials = config.materials
    if materials is None or materials.glare_radius_m <= 0:
        return []
    angles = np.linspace(0.0, 2 * math.pi, GLARE_OUTLINE_POINTS, endpoint=False)[:, None]
    across, up = (np.asarray(axis, float) for axis in materials.glare_axes)
    circle = materials.glare_radius_m * (np.cos(angles) * across + np.sin(angles) * up)
    return [project(np.asarray(centre, float) + circle, config) for centre in materials.glare_centres_m]


def _rendered(
    client: int, config: CameraConfig, use_opengl: bool, with_ids: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """(RGB float32 as rendered, each pixel's body id or -1; None unless `with_ids`)."""
    _, _, rgba, _, segmentation = p.getCameraImage(
        config.width_px,
        config.height_px,
        view_matrix(config),
        projection_matrix(config),
        lightDirection=list(config.light_direction),
        lightColor=[1.0, 1.0, 1.0],
        lightDistance=2.0,
        shadow=int(config.shadows),
        lightAmbientCoeff=config.ambient,
        lightDiffuseCoeff=config.diffuse,
        lightSpecularCoeff=config.specular,
        renderer=p.ER_BULLET_HARDWARE_OPENGL if use_opengl else p.ER_TINY_RENDERER,
        flags=0 if with_ids else p.ER_NO_SEGMENTATION_MASK,
        physicsClientId=client,
    )
    rgb = np.asarray(rgba, dtype=np.uint8).reshape(config.height_px, config.width_px, 4)[:, :, :3].astype(np.float32)
    ids = finish.body_ids(np.asarray(segmentation).reshape(config.height_px, config.width_px)) if with_ids else None
    return rgb, ids
