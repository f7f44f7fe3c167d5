"""A Feetech servo bus whose servos are the joints of the world's arm: the SO-101 of the digital twin.

`sim.feetech_bus.FakeFeetechBus` knows packets, registers and faults but moves no arm; here each joint servo's
position is put onto the world's arm at every tick (tick count = middle + angle in ticks, as a servo calibrated
at 2048 reads), the gripper servo closing past the middle of its travel grips the disc between the jaws and
opening releases it, and the world's physics runs with the bus's clock. The bus's thread is then the one that
owns the world: whatever else acts on it does so from `on_tick`, called after each tick on that thread.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from sim.feetech_bus import GOAL_POSITION, FakeFeetechBus
from sim.world import World

TICKS_PER_TURN = 4096
MIDDLE_TICKS = 2048
GRIPPER_OPEN_TICKS = 600  # the host opens this far past the middle (robot/arm/drivers/feetech.py)


def ticks_of(angle_rad: float) -> int:
    return int(round(MIDDLE_TICKS + angle_rad * TICKS_PER_TURN / (2 * math.pi)))


class WorldServoBus(FakeFeetechBus):
    """Servo ids 1..dof for the arm's joints and dof+1 for the gripper, standing where the world's arm stands."""

    def __init__(self, world: World, **kwargs) -> None:
        self.world = world
        self.dof = len(world.arm_joints())
        self.gripper_id = self.dof + 1
        self.on_tick: Callable[[], None] | None = None
        self._debt_s = 0.0
        ticks = {i + 1: ticks_of(a) for i, a in enumerate(world.arm_joints())}
        ticks[self.gripper_id] = MIDDLE_TICKS + GRIPPER_OPEN_TICKS
        super().__init__(ticks, speed=1.0, **kwargs)
        self._gripper_closed = False

    def power_up(self) -> None:
        """A restart keeps the arm where it stands (its servos power up there, torque off)."""
        if hasattr(self, "world"):
            self.start_ticks = {i + 1: ticks_of(a) for i, a in enumerate(self.world.arm_joints())}
            self.start_ticks[self.gripper_id] = MIDDLE_TICKS + GRIPPER_OPEN_TICKS
        super().power_up()

    def tick(self, dt_s: float) -> None:
        super().tick(dt_s)
        q = np.array(
            [(self.servos[i + 1].position - MIDDLE_TICKS) * 2 * math.pi / TICKS_PER_TURN for i in range(self.dof)]
        )
        gripper = self.servos[self.gripper_id]
        closed = gripper.word(GOAL_POSITION) < MIDDLE_TICKS + GRIPPER_OPEN_TICKS / 2
        self._debt_s += dt_s
        step_s = self.world.time_step_s
        while self._debt_s >= step_s:
            self._debt_s -= step_s
            self.world.set_arm_joints(q)
            if closed != self._gripper_closed:
                self._gripper_closed = closed
                if closed:
                    self.world.grip()
                else:
                    self.world.release()
            self.world.step(step_s)
        if self.on_tick is not None:
            self.on_tick()
