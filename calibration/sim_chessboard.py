"""A printed chessboard held in front of the simulated webcam, for calibrating the sim camera like a real one.

The chessboard is two visual-only bodies added to the world's PyBullet client (a white plate and a
mesh of black squares) and removed afterwards, so the world's physics is untouched. Views are posed
in the camera frame (OpenCV convention: x right, y down, z forward) at varied distances, tilts and
image positions, every inner corner kept inside the picture, the way a person waves a board at a webcam.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import cv2
import numpy as np

from calibration.camera import Chessboard

# The simulated board: 9x6 inner corners of 12 mm, about 0.14 m x 0.10 m with its white margin.
SIM_CHESSBOARD = Chessboard(inner_cols=9, inner_rows=6, square_m=0.012)
VIEW_DISTANCE_M = (0.20, 0.30)
VIEW_TILT_RAD = (math.radians(12.0), math.radians(35.0))
IMAGE_MARGIN_PX = 12.0


def camera_to_world(world: Any) -> np.ndarray:
    """4x4 pose of the sim camera in the world (OpenCV camera axes: x right, y down, z forward)."""
    world_to_camera, eye = world.camera_pose()
    pose = np.eye(4)
    pose[:3, :3] = np.asarray(world_to_camera, float).T
    pose[:3, 3] = eye
    return pose


def _quaternion(rotation: np.ndarray) -> tuple[float, float, float, float]:
    """PyBullet's (x, y, z, w) quaternion of a 3x3 rotation (Shepperd's method: divide by the largest term)."""
    m = rotation
    trace = float(np.trace(m))
    candidates = [trace, m[0, 0], m[1, 1], m[2, 2]]
    largest = int(np.argmax(candidates))
    if largest == 0:
        w = math.sqrt(1.0 + trace) / 2
        x, y, z = (m[2, 1] - m[1, 2]) / (4 * w), (m[0, 2] - m[2, 0]) / (4 * w), (m[1, 0] - m[0, 1]) / (4 * w)
    else:
        i = largest - 1
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [0.0, 0.0, 0.0]
        q[i] = math.sqrt(max(0.0, 1.0 + m[i, i] - m[j, j] - m[k, k])) / 2
        w = (m[k, j] - m[j, k]) / (4 * q[i])
        q[j] = (m[j, i] + m[i, j]) / (4 * q[i])
        q[k] = (m[k, i] + m[i, k]) / (4 * q[i])
        x, y, z = q
    return float(x), float(y), float(z), float(w)


def _square_mesh(board: Chessboard) -> tuple[list[list[float]], list[int]]:
    """Vertices and triangle indices of the black squares (both windings, so either face shows)."""
    vertices: list[list[float]] = []
    indices: list[int] = []
    size = board.square_m
    for i in range(board.inner_cols + 1):
        for j in range(board.inner_rows + 1):
            if (i + j) % 2:
                continue
            x0, y0 = (i - 1) * size, (j - 1) * size
            base = len(vertices)
            vertices += [[x0, y0, 0.0], [x0 + size, y0, 0.0], [x0 + size, y0 + size, 0.0], [x0, y0 + size, 0.0]]
            indices += [base, base + 1, base + 2, base, base + 2, base + 3]
            indices += [base, base + 2, base + 1, base, base + 3, base + 2]
    return vertices, indices


@contextmanager
def chessboard_in_world(world: Any, board: Chessboard = SIM_CHESSBOARD) -> Iterator[tuple[int, int]]:
    """Add the chessboard's bodies (white plate, black squares) to the world; removes them on exit."""
    import pybullet

    client = world.client
    size = board.square_m
    half_width = (board.inner_cols + 3) * size / 2
    half_height = (board.inner_rows + 3) * size / 2
    centre = ((board.inner_cols - 1) * size / 2, (board.inner_rows - 1) * size / 2, 0.001)
    plate_shape = pybullet.createVisualShape(
        pybullet.GEOM_BOX,
        halfExtents=[half_width, half_height, 0.0008],
        rgbaColor=[1, 1, 1, 1],
        visualFramePosition=centre,
        physicsClientId=client,
    )
    vertices, indices = _square_mesh(board)
    squares_shape = pybullet.createVisualShape(
        pybullet.GEOM_MESH,
        vertices=vertices,
        indices=indices,
        rgbaColor=[0.02, 0.02, 0.02, 1],
        visualFramePosition=[0, 0, -0.0002],
        physicsClientId=client,
    )
    bodies = tuple(
        pybullet.createMultiBody(
            baseMass=0, baseVisualShapeIndex=shape, basePosition=[0, 0, -5], physicsClientId=client
        )
        for shape in (plate_shape, squares_shape)
    )
    try:
        yield bodies
    finally:
        for body in bodies:
            pybullet.removeBody(body, physicsClientId=client)


def _project(points_cam: np.ndarray, camera_matrix: np.ndarray) -> np.ndarray:
    homogeneous = points_cam @ camera_matrix.T
    return homogeneous[:, :2] / homogeneous[:, 2:3]


def chessboard_poses_in_camera(
    count: int,
    board: Chessboard,
    camera_matrix: np.ndarray,
    image_size_px: tuple[int, int],
    seed: int,
    places: int = 3,
) -> list[np.ndarray]:
    """`count` 4x4 chessboard poses in the camera frame: aimed in turn at `places` x `places` spots spread over the
    image, tilted both ways, all corners visible."""
    rng = np.random.default_rng(seed)
    width, height = image_size_px
    corners = board.object_points_m().astype(float)
    centre = corners.mean(axis=0)
    inverse_k = np.linalg.inv(camera_matrix)
    poses: list[np.ndarray] = []
    while len(poses) < count:
        # Aim at the grid of image places in turn (from 0.2 to 0.8 of the picture), tilting about x and y with
        # alternating signs.
        k = len(poses)
        step = 0.6 / (places - 1)
        aim_px = np.array([(0.2 + step * (k % places)) * width, (0.2 + step * (k // places % places)) * height, 1.0])
        aim_px[:2] += rng.normal(0.0, 0.03, 2) * (width, height)
        ray = inverse_k @ aim_px
        distance_m = rng.uniform(*VIEW_DISTANCE_M)
        tilt_x = rng.uniform(*VIEW_TILT_RAD) * (1 if k % 2 else -1)
        tilt_y = rng.uniform(*VIEW_TILT_RAD) * (1 if k // 2 % 2 else -1)
        spin = rng.uniform(-0.3, 0.3)
        rotation = _rotation((tilt_x, 0, 0)) @ _rotation((0, tilt_y, 0)) @ _rotation((0, 0, spin))
        pose = np.eye(4)
        pose[:3, :3] = rotation
        pose[:3, 3] = ray / np.linalg.norm(ray) * distance_m - rotation @ centre
        pixels = _project(corners @ rotation.T + pose[:3, 3], camera_matrix)
        inside = (
            (pixels >= IMAGE_MARGIN_PX).all()
            and (pixels[:, 0] <= width - IMAGE_MARGIN_PX).all()
            and (pixels[:, 1] <= height - IMAGE_MARGIN_PX).all()
        )
        if inside:
            poses.append(pose)
    return poses


def render_chessboard_views(
    world: Any, count: int = 15, seed: int = 0, board: Chessboard = SIM_CHESSBOARD
) -> list[np.ndarray]:
    """BGR frames of the world's camera, each showing the chessboard in another pose."""
    import pybullet

    camera_matrix = np.asarray(world.camera_intrinsics(), float)
    image_size_px = (world.camera.width_px, world.camera.height_px)
    camera_pose = camera_to_world(world)
    frames = []
    with chessboard_in_world(world, board) as bodies:
        for pose_in_camera in chessboard_poses_in_camera(count, board, camera_matrix, image_size_px, seed):
            pose = camera_pose @ pose_in_camera
            for body in bodies:
                pybullet.resetBasePositionAndOrientation(
                    body, pose[:3, 3].tolist(), _quaternion(pose[:3, :3]), physicsClientId=world.client
                )
            frames.append(world.render_camera())
    return frames


def _rotation(axis_angle_rad: tuple[float, float, float]) -> np.ndarray:
    return cv2.Rodrigues(np.asarray(axis_angle_rad, float))[0]
