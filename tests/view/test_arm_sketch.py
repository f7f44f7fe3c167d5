"""On a real table the live view draws the arm from its joint readings: the drawing must put the gripper where the
arm's joints say it is (over the column it drops into), and the page's camera picture carries it beside the webcam."""

from __future__ import annotations

import cv2
import numpy as np

from robot.arm.drivers.sim import SimArm, sim_planner
from robot.arm.planner import play_column
from robot.game.arm_readings import ArmPose, ReportingArm, arm_pose
from robot.view import LiveView
from robot.view.arm_sketch import TOOL_BGR, arm_sketch
from sim import World

SIZE = 480


def _tool_centroid(drawing: np.ndarray, rows: slice) -> np.ndarray:
    """Where the gripper's dot is drawn in `rows` of the drawing (x, y)."""
    mask = np.all(np.abs(drawing[rows].astype(int) - TOOL_BGR) < 30, axis=2)
    ys, xs = np.nonzero(mask)
    assert len(xs) > 20, "no gripper drawn"
    return np.array([xs.mean(), ys.mean() + (rows.start or 0)])


def test_a_turn_is_drawn_from_the_arm_s_readings_with_the_gripper_over_the_chosen_column() -> None:
    poses: list[ArmPose] = []
    column = 5
    with World(seed=4) as world:
        planner = sim_planner(world)
        with SimArm(world) as sim_arm:
            play_column(ReportingArm(sim_arm, planner.chain, planner.workcell, poses.append), planner, column)
    assert len(poses) >= 6  # every step of the turn reported, not one snapshot
    tool_m = np.array([pose.points_m[-1] for pose in poses])
    drops = poses[0].drops_m
    nearest = [int(np.argmin(np.linalg.norm(drops - tool, axis=1))) for tool in tool_m]
    over_column = [i for i, tool in enumerate(tool_m) if np.linalg.norm(tool - drops[column]) < 0.03]
    assert over_column, "no reading had the gripper at the column's drop point"

    drawing = arm_sketch(poses[over_column[0]], SIZE)
    gripper_px = _tool_centroid(drawing, slice(SIZE // 2, SIZE))
    others = [arm_sketch(arm_pose_over(poses[0], drop), SIZE) for drop in drops]
    drawn_drops = [_tool_centroid(other, slice(SIZE // 2, SIZE)) for other in others]
    drawn_nearest = int(np.argmin([np.linalg.norm(gripper_px - p) for p in drawn_drops]))
    assert drawn_nearest == column == nearest[over_column[0]]
    side_gripper = _tool_centroid(drawing, slice(0, SIZE // 2))
    assert side_gripper[1] < SIZE // 2 - 20  # drawn above the table's line


def arm_pose_over(pose: ArmPose, point_m: np.ndarray) -> ArmPose:
    """The same table with the gripper's dot at `point_m` (to find where each drop point is drawn)."""
    points = pose.points_m.copy()
    points[-1] = point_m
    return ArmPose(pose.joints_rad, points, pose.drops_m, pose.pick_m)


def test_the_live_view_serves_the_drawing_beside_the_webcam_and_says_it_is_a_drawing() -> None:
    with World(seed=4) as world:
        planner = sim_planner(world)
        pose = arm_pose(planner.chain, planner.workcell, world.arm_joints())
    view = LiveView()
    try:
        view.on_arm(pose)  # before any webcam frame: nothing to show yet
        assert view.camera.snapshot_jpeg() is None
        view.camera.offer(np.full((480, 640, 3), 40, np.uint8), None)
        view.on_arm(pose)
        served = cv2.imdecode(np.frombuffer(view.camera.snapshot_jpeg(), np.uint8), cv2.IMREAD_COLOR)
        assert served.shape == (480, 640 + 480, 3)
        pane = served[:, 640:]
        assert np.all(np.abs(pane.astype(int) - TOOL_BGR) < 40, axis=2).sum() > 20  # the gripper is drawn
    finally:
        view.close()
