"""The calibration steps run on the simulated world: the world with the board moved, the drop tester, the taught start.

`c4robot calibrate ... --sim` and the calibration benchmark use these; a test calls them without the CLI.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from calibration.arm_drops import ArmDropTester, follow_and_verify
from calibration.board import register_board
from calibration.drops import DropCheck
from calibration.store import ArmPose, BoardCalibration, Setup


@contextmanager
def sim_world(
    board_x_mm: float = 0.0, board_y_mm: float = 0.0, board_yaw_deg: float = 0.0, seed: int = 0
) -> Iterator[Any]:
    """A simulated world with the board moved on the table by the given offsets."""
    from sim import World, WorldConfig

    config = WorldConfig().with_board_pose(board_x_mm / 1000.0, board_y_mm / 1000.0, math.radians(board_yaw_deg))
    with World(config, seed=seed) as world:
        yield world


def arm_config(setup: Setup, serial_port: str | None = None) -> Any:
    """The setup's [arm] settings as an ArmConfig (defaults without them), with the serial port replaced if given."""
    from robot.arm import ArmConfig

    config = ArmConfig.from_dict(dict(setup.arm)) if setup.arm else ArmConfig()
    if serial_port:
        config = dataclasses.replace(config, serial=dataclasses.replace(config.serial, port=serial_port))
    return config


def sim_drop_tester(world: Any, setup: Setup, board: BoardCalibration) -> ArmDropTester:
    """Test drops by the simulated arm, judged by the simulated camera once the discs have settled."""
    from robot.arm.drivers.sim import SimArm, sim_chain

    def settled_frame() -> np.ndarray:
        world.wait_until_settled()
        return world.render_camera()

    if setup.pick is None:
        raise ValueError("the calibration has no pick pose: run `c4robot calibrate drops`")
    return ArmDropTester(
        SimArm(world), sim_chain(world), arm_config(setup), setup.pick, list(setup.drops), board, settled_frame
    )


def taught_sim_setup(setup: Setup, say: Callable[[str], None] = print) -> Setup:
    """The file's calibration, or the one taught on the sim board at its home position when the file has none."""
    if setup.drops and setup.board is not None and setup.board.has_pose and setup.pick is not None:
        return setup
    from calibration.sim_truth import sim_setup
    from sim import World

    say("no taught drops in the file: starting from those taught with the sim board at its home position")
    with World() as home_world:
        taught = sim_setup(home_world)
    return dataclasses.replace(
        taught, camera=setup.camera or taught.camera, colours=setup.colours or taught.colours, arm=setup.arm
    )


def sim_drops(setup: Setup, world: Any) -> tuple[BoardCalibration, tuple[ArmPose, ...], list[DropCheck], float]:
    """Follow the board the camera sees and verify by test drops: (board, drops, checks, largest error in mm)."""
    from calibration.sim_truth import sim_arm_poses

    board_now = register_board(world.render_camera(), setup.board, camera=setup.camera)
    drops, checks = follow_and_verify(setup, board_now, sim_drop_tester(world, setup, board_now))
    world.clear_board()
    true_drops, _ = sim_arm_poses(world)
    error_mm = max(
        1000 * float(np.linalg.norm(np.subtract(a.xyz_m, b.xyz_m))) for a, b in zip(drops, true_drops, strict=True)
    )
    return board_now, drops, checks, error_mm


def sim_colour_frames(world: Any, robot_column: int, person_column: int) -> tuple[np.ndarray, np.ndarray]:
    """Two frames of the sim board: as it is, then with a disc of the sim robot's colour and one of the person's
    in the given columns (the step tells a disc by what changed in its hole).

    The robot's colour is the one `play --sim` gives it (SIM_ROBOT_DISCS), so the file and the game agree.
    """
    from calibration.sim_truth import SIM_ROBOT_DISCS

    empty = world.render_camera()
    cols = world.config.board.columns
    if 0 <= robot_column < cols and 0 <= person_column < cols and robot_column != person_column:
        world.drop_disc(robot_column, SIM_ROBOT_DISCS)
        world.drop_disc(person_column, 3 - SIM_ROBOT_DISCS)
        world.wait_until_settled()
    return empty, world.render_camera()


def lands_right(world: Any, tester: ArmDropTester, column: int, pose: ArmPose) -> bool:
    """A test drop judged by the world's truth (the bench checks the camera's verdicts against it)."""
    before = world.board_state()
    tester(column, pose)
    world.wait_until_settled()
    gained = (world.board_state() > 0).sum(axis=0) - (before > 0).sum(axis=0)
    return bool(gained[column] == 1 and gained.sum() == 1)
