"""A Feetech servo bus whose servos are the joints of the world's arm: the SO-101 of the digital twin.

`sim.feetech_bus.FakeFeetechBus` knows packets, registers and faults but moves no arm; here each joint servo's
position is put onto the world's arm at every tick (tick count = middle + angle in ticks, as a servo calibrated
at 2048 reads), the gripper servo closing past the middle of its travel grips the disc between the jaws and
opening releases it (the jaws stall on a held disc, as the host's grip sense expects), and the world's physics runs
with the bus's clock. The bus's thread is then the one that owns the world: whatever else acts on it does so from
the world's step listeners, called on that thread.
"""

from __future__ import annotations

import math

import numpy as np

from sim.feetech_bus import GOAL_POSITION, TORQUE_ENABLE, FakeFeetechBus
from sim.world import World

TICKS_PER_TURN = 4096
MIDDLE_TICKS = 2048
GRIPPER_OPEN_TICKS = 600  # the host opens this far past the middle (robot/arm/drivers/feetech.py)
DISC_BETWEEN_JAWS_TICKS = 150
# The links reach a goal no faster than this: the host's plans stay below it, so only the jitter of a busy host's
# stream (goals late, then two at once) is evened out, as a loaded servo's acceleration limit does.
LINK_SPEED_RAD_S = 2.0
LONGEST_RAMP_S = 0.2  # a goal after a pause is reached at the servo's speed, not spread over the pause  # closing on a disc, the jaws stop this far short of closed


def ticks_of(angle_rad: float) -> int:
    return int(round(MIDDLE_TICKS + angle_rad * TICKS_PER_TURN / (2 * math.pi)))


class WorldServoBus(FakeFeetechBus):
    """Servo ids 1..dof for the arm's joints and dof+1 for the gripper, standing where the world's arm stands."""

    def __init__(self, world: World, **kwargs) -> None:
        self.world = world
        self.dof = len(world.arm_joints())
        self.gripper_id = self.dof + 1
        self._debt_s = 0.0
        self._q = np.asarray(world.arm_joints(), float)
        self._ramp_from, self._ramp_to, self._ramp_at, self._ramp_s = self._q.copy(), self._q.copy(), 0.0, 1.0
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
        q = self._angles(lambda servo: servo.position)
        gripper = self.servos[self.gripper_id]
        closed = gripper.word(GOAL_POSITION) < MIDDLE_TICKS + GRIPPER_OPEN_TICKS / 2
        self._debt_s += dt_s
        step_s = self.world.time_step_s
        while self._debt_s >= step_s:
            self._debt_s -= step_s
            self._follow(q)
            self.world.set_arm_joints(self._q)
            if closed != self._gripper_closed:
                self._gripper_closed = closed
                self._grip(closed, q)
            self.world.step(step_s)

    def _angles(self, ticks_of_servo) -> np.ndarray:
        return np.array(
            [
                (ticks_of_servo(self.servos[i + 1]) - MIDDLE_TICKS) * 2 * math.pi / TICKS_PER_TURN
                for i in range(self.dof)
            ]
        )

    def _follow(self, standing: np.ndarray) -> None:
        """The links move from goal to goal of the host's stream at an even speed over the time between two goals,
        as a servo's controller eases into each (the bus's servos jump at full speed and stop: a jerk that throws
        a pinched disc); with a servo's torque off they stay where the servos stand."""
        if not all(self.servos[i + 1].registers[TORQUE_ENABLE] for i in range(self.dof)):
            self._q = self._ramp_to = standing.copy()
            return
        goal, now = self._angles(lambda servo: servo.word(GOAL_POSITION)), self.world.time_s
        if not np.array_equal(goal, self._ramp_to):
            span_s = float(np.max(np.abs(goal - self._q))) / LINK_SPEED_RAD_S
            self._ramp_s = max(min(now - self._ramp_at, LONGEST_RAMP_S), span_s, self.world.time_step_s)
            self._ramp_from, self._ramp_to, self._ramp_at = self._q.copy(), goal, now
        fraction = min(1.0, (now - self._ramp_at) / self._ramp_s)
        self._q = self._ramp_from + fraction * (self._ramp_to - self._ramp_from)

    def _grip(self, closing: bool, q: np.ndarray) -> None:
        """Closing: the jaws take the disc between them if there is one, and stall on it; opening lets it go. The
        host closes once its servos stand: the links are where the servos are."""
        self._q, self._ramp_from, self._ramp_to = q.copy(), q.copy(), q.copy()
        self.world.set_arm_joints(q)
        if closing and self.world.grip():
            self.set_jaw_stop(self.gripper_id, MIDDLE_TICKS + DISC_BETWEEN_JAWS_TICKS)
            return
        if not closing:
            self.world.release()
        self.set_jaw_stop(self.gripper_id, None)
