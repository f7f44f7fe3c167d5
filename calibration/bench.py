"""The calibration benchmark on the sim: focal error, corner error, and drops right after the board is moved."""

from __future__ import annotations

import dataclasses
import math
import time

from calibration.arm_drops import follow_and_verify
from calibration.board import corner_error_px, register_board
from calibration.camera import calibrate_camera
from calibration.sim_chessboard import SIM_CHESSBOARD, render_chessboard_views
from calibration.sim_steps import lands_right, sim_drop_tester
from calibration.sim_truth import sim_board, sim_setup


def calibration_figures(seed: int, views: int, shift_mm: float, turn_deg: float) -> list[tuple[str, str, str]]:
    """(figure, measured, target) rows: the camera step, the board step at home and moved, the drops step."""
    from sim import World, WorldConfig

    rows: list[tuple[str, str, str]] = []
    started = time.perf_counter()
    with World(seed=seed) as world:
        camera = calibrate_camera(render_chessboard_views(world, views, seed), SIM_CHESSBOARD)
        truth_k = world.camera_intrinsics()
        focal_error = max(abs(camera.focal_px[i] / truth_k[i, i] - 1) for i in (0, 1))
        rows.append(("camera: focal length error", f"{100 * focal_error:.2f} %", "< 1 %"))
        rows.append(("camera: reprojection error", f"{camera.reprojection_error_px:.3f} px", "<= 1 px"))
        rows.append(("camera: time", f"{time.perf_counter() - started:.1f} s", ""))
        taught = dataclasses.replace(sim_setup(world), camera=camera)
        taught = dataclasses.replace(taught, board=register_board(world.render_camera(), taught.board, camera=camera))
        home_error = corner_error_px(taught.board, sim_board(world, camera))
        rows.append(("board: corner error (home)", f"{home_error:.2f} px", "< 2 px"))
    direction = math.radians(-45.0)  # sideways and away from the arm (towards it, the arm reaches its limit)
    moved = WorldConfig().with_board_pose(
        shift_mm / 1000 * math.cos(direction), shift_mm / 1000 * math.sin(direction), math.radians(turn_deg)
    )
    with World(moved, seed=seed) as world:
        truth_board = sim_board(world, camera)
        board_now = register_board(world.render_camera(), taught.board, camera=camera)
        rows.append(("board: corner error (moved)", f"{corner_error_px(board_now, truth_board):.2f} px", "< 2 px"))
        tester = sim_drop_tester(world, taught, board_now)
        stale_right = sum(lands_right(world, tester, c, pose) for c, pose in enumerate(taught.drops))
        world.clear_board()
        started = time.perf_counter()
        drops, checks = follow_and_verify(taught, board_now, tester)
        world.clear_board()
        restored_right = sum(lands_right(world, tester, c, pose) for c, pose in enumerate(drops))
        world.clear_board()
        elapsed_s = time.perf_counter() - started
    cols = len(drops)
    label = f"{shift_mm:.0f} mm, {turn_deg:.0f} deg"
    rows.append((f"drops right, stale poses ({label})", f"{stale_right}/{cols}", ""))
    rows.append((f"drops right after calibrate drops ({label})", f"{restored_right}/{cols}", f"{cols}/{cols}"))
    rows.append(("drops: test drops used", str(len(checks)), ""))
    rows.append(("drops: step time (wall)", f"{elapsed_s:.1f} s", ""))
    return rows
