"""The simulated table's robot drop returns as a real arm's move completes: the arm home and still, so the frames the
game then reads show no arm moving behind the board's holes (issue 37 asked whether the sim's play_column returned
while the arm still moved)."""

from __future__ import annotations

import numpy as np

from robot.arm.drivers.sim import sim_planner
from robot.game.config import SimTableConfig
from robot.game.sim_table import SimGame


def test_the_arm_stands_still_at_home_once_the_robot_drop_returns():
    with SimGame(SimTableConfig(seed=2, opponent="engine:5", room="makes"), True, tell=lambda _: None) as game:
        world = game.world
        game.table.robot_drop(3)
        joints, frame = world.arm_joints(), world.render_camera().astype(int)
        np.testing.assert_allclose(joints, sim_planner(world).home_q, atol=2e-3)
        for _ in range(5):
            world.step(0.2)
            np.testing.assert_allclose(world.arm_joints(), joints, atol=1e-3)  # a third of a millimetre at the tool
            moved = (np.abs(world.render_camera().astype(int) - frame).max(axis=2) > 30).sum()
            assert moved <= 10, f"{moved} pixels changed while the table stood still"
