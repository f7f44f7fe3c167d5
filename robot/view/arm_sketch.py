"""The real arm drawn from its joint readings: a side view and a view from above, beside the webcam's picture.

A real table has no camera on the arm, so the view draws what the servos report (robot.game.arm_readings.ArmPose):
the links as lines between the joints, the gripper, the board's drop points and the dispenser. The side view looks
along the board's row of columns, so the reach toward the board and the height over it read true; the view from
above shows which column the arm is over. The scale is fixed by the table (the farthest drop point or dispenser),
not by the pose, so the drawing does not jump as the arm moves. The label says it is a drawing, not a picture.
"""

from __future__ import annotations

import cv2
import numpy as np

from robot.game.arm_readings import ArmPose

LABEL = "the arm as its joints read (a drawing)"
BACKGROUND_BGR = (40, 40, 40)
LINK_BGR = (200, 200, 200)
JOINT_BGR = (90, 170, 255)
TOOL_BGR = (60, 220, 255)
BOARD_BGR = (200, 120, 40)
DISPENSER_BGR = (120, 200, 120)
TEXT_BGR = (255, 255, 255)
GRID_BGR = (90, 90, 90)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def _side_axes(pose: ArmPose) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal unit vectors: across the board's row (toward the board, the side view's x) and along it."""
    along = pose.drops_m[-1, :2] - pose.drops_m[0, :2]
    along = along / (np.linalg.norm(along) or 1.0)
    toward = np.array([-along[1], along[0]])
    if toward @ pose.drops_m[:, :2].mean(axis=0) < 0:
        toward = -toward
    return toward, along


def _reach_m(pose: ArmPose) -> float:
    """The table's extent from the arm's base: the farthest drop point or the dispenser, with room around it."""
    points = np.vstack([pose.drops_m, pose.pick_m[None, :]])
    return float(max(1.2 * np.linalg.norm(points, axis=1).max(), 0.05))


def _pixels(xy_m: np.ndarray, origin_px: tuple[float, float], scale: float) -> np.ndarray:
    """Metres (x right, y up) to integer pixels (y down) around `origin_px`."""
    xy = np.atleast_2d(xy_m)
    return np.round(np.column_stack([origin_px[0] + xy[:, 0] * scale, origin_px[1] - xy[:, 1] * scale])).astype(int)


def _xy(point_px: np.ndarray) -> tuple[int, int]:
    return int(point_px[0]), int(point_px[1])


def _draw_arm(canvas: np.ndarray, points_px: np.ndarray) -> None:
    for start, end in zip(points_px[:-1], points_px[1:], strict=True):
        cv2.line(canvas, _xy(start), _xy(end), LINK_BGR, 4, cv2.LINE_AA)
    for point in points_px[:-1]:
        cv2.circle(canvas, _xy(point), 5, JOINT_BGR, -1, cv2.LINE_AA)
    cv2.circle(canvas, _xy(points_px[-1]), 7, TOOL_BGR, -1, cv2.LINE_AA)


def arm_sketch(pose: ArmPose, height_px: int) -> np.ndarray:
    """A BGR drawing `height_px` square: the side view above, the view from above below; the base in the middle."""
    size = int(height_px)
    canvas = np.full((size, size, 3), BACKGROUND_BGR, np.uint8)
    half = size // 2
    reach = _reach_m(pose)
    side_scale = (half - 40) / reach  # heights stay below the reach; the base in the middle leaves +-reach across
    above_scale = 0.65 * half / reach  # the table lies mostly toward the board: the base sits low in its half
    toward, along = _side_axes(pose)

    def side(points_m: np.ndarray) -> np.ndarray:
        points = np.atleast_2d(points_m)
        return _pixels(np.column_stack([points[:, :2] @ toward, points[:, 2]]), (size / 2, half - 14), side_scale)

    def above(points_m: np.ndarray) -> np.ndarray:
        return _pixels(
            np.atleast_2d(points_m)[:, :2] @ np.column_stack([along, toward]),
            (size / 2, size - 0.3 * half),
            above_scale,
        )

    table_y = half - 14
    cv2.line(canvas, (0, table_y), (size, table_y), GRID_BGR, 1)
    drops_side = side(pose.drops_m)
    board_x = int(np.median(drops_side[:, 0]))
    cv2.rectangle(canvas, (board_x - 3, int(drops_side[:, 1].max()) + 8), (board_x + 3, table_y), BOARD_BGR, -1)
    _draw_arm(canvas, side(pose.points_m))

    drops_above = above(pose.drops_m)
    cv2.line(canvas, _xy(drops_above[0]), _xy(drops_above[-1]), BOARD_BGR, 6)
    for index, point in enumerate(drops_above):
        cv2.putText(canvas, str(index + 1), (int(point[0]) - 4, int(point[1]) - 8), FONT, 0.35, TEXT_BGR, 1)
    pick = above(pose.pick_m)[0]
    cv2.rectangle(canvas, _xy(pick - 5), _xy(pick + 5), DISPENSER_BGR, -1)
    _draw_arm(canvas, above(pose.points_m))

    cv2.line(canvas, (0, half), (size, half), GRID_BGR, 1)
    cv2.putText(canvas, "side", (8, 16), FONT, 0.45, TEXT_BGR, 1, cv2.LINE_AA)
    cv2.putText(canvas, "from above", (8, half + 16), FONT, 0.45, TEXT_BGR, 1, cv2.LINE_AA)
    return canvas
