"""A Feetech servo bus whose servos are the joints of the world's arm: the SO-101 of the digital twin and of
`c4robot play --sim --arm so101 --config FILE`, one virtual bus for both.

`sim.feetech_bus.FakeFeetechBus` knows packets, registers and faults but moves no arm; here each joint servo's
position is put onto the world's arm (tick count = the joint's middle + its direction times the angle in ticks, as
the host's setup maps them: `ServoMapping`), the gripper servo closing grips the disc between the jaws and opening
releases it (the jaws stall on a held disc, as the host's grip sense expects). The servos' EEPROM starts as the
setup's calibration left it (homing offsets, position limits), so a bus that differs is the host's to notice.

Who owns the world: the servos move in the world's step listener, so they move exactly as far as the world's
physics runs, on the thread that steps it, and the bus keeps the simulation's time. With `steps_world` (the twin,
a table in real time for a host in another process) the bus's own thread steps the world by the wall clock, and
whatever else acts on the world does so from step listeners on that thread; a slow render there makes the
simulation fall behind the wall clock (`CATCH_UP_S`) rather than hold the host's answers back. Without it (a game in this process)
the game's thread owns the world: its camera, its simulated person and the driver's waits step it, and the bus's
thread only answers packets. The servos' registers are shared by the two threads and taken under one lock, held
for a packet or one physics step: the lock guards the bus, never the world, so a slow render on the game's thread
holds up neither the bus's answers nor the servos' time (they move only while the world's time goes on).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from sim.feetech_bus import GOAL_POSITION, TORQUE_ENABLE, FakeFeetechBus
from sim.world import World

TICKS_PER_TURN = 4096
MIDDLE_TICKS = 2048
GRIPPER_OPEN_TICKS = 600  # the host's default: open this far past the gripper's middle
DISC_BETWEEN_JAWS_TICKS = 150  # closing on a disc, the jaws stop this far short of closed
# The links reach a goal no faster than this: the host's plans stay below it, so only the jitter of a busy host's
# stream (goals late, then two at once) is evened out, as a loaded servo's acceleration limit does.
LINK_SPEED_RAD_S = 2.0
LONGEST_RAMP_S = 0.2  # a goal after a pause is reached at the servo's speed, not spread over the pause
# The twin's thread runs at most this much simulated time between two looks at the host's packets: after a slow
# render the simulation falls behind the wall clock instead of catching up while the host waits for an answer.
CATCH_UP_S = 0.05


@dataclass(frozen=True)
class ServoMapping:
    """Which servo is which joint, each joint servo's tick count at angle 0 and its direction (+1 or -1), and the
    gripper servo's open and closed tick counts: what the host's setup says (its calibration or LeRobot's)."""

    joint_ids: tuple[int, ...]
    middles: tuple[int, ...]
    directions: tuple[int, ...]
    gripper_id: int
    gripper_open: int
    gripper_closed: int

    @classmethod
    def plain(cls, dof: int) -> ServoMapping:
        """Ids 1..dof then the gripper, every middle 2048, every direction +1: a setup that names only the ids."""
        return cls(
            tuple(range(1, dof + 1)),
            (MIDDLE_TICKS,) * dof,
            (1,) * dof,
            dof + 1,
            MIDDLE_TICKS + GRIPPER_OPEN_TICKS,
            MIDDLE_TICKS,
        )

    def ticks(self, q: np.ndarray) -> dict[int, int]:
        return {
            servo_id: int(round(middle + direction * angle * TICKS_PER_TURN / (2 * math.pi)))
            for servo_id, middle, direction, angle in zip(self.joint_ids, self.middles, self.directions, q, strict=True)
        }

    def angles(self, ticks: dict[int, float]) -> np.ndarray:
        return np.array(
            [
                direction * (ticks[servo_id] - middle) * 2 * math.pi / TICKS_PER_TURN
                for servo_id, middle, direction in zip(self.joint_ids, self.middles, self.directions, strict=True)
            ]
        )

    def closing(self, goal: int) -> bool:
        """A gripper goal nearer closed than open."""
        return abs(goal - self.gripper_closed) < abs(goal - self.gripper_open)

    @property
    def disc_stop(self) -> int:
        """Where the jaws meet a disc, closing."""
        opens_to = 1 if self.gripper_open > self.gripper_closed else -1
        return self.gripper_closed + opens_to * DISC_BETWEEN_JAWS_TICKS


class WorldServoBus(FakeFeetechBus):
    """The world's arm joints and its gripper as the servos of `mapping` (default: `ServoMapping.plain`), standing
    where the world's arm stands; `homing_offsets` and `limits` in their EEPROM from the start. `steps_world`: the
    bus's thread runs the world by the wall clock (see the module docstring)."""

    def __init__(self, world: World, mapping: ServoMapping | None = None, steps_world: bool = True, **kwargs) -> None:
        self.world = world
        self.mapping = mapping or ServoMapping.plain(len(world.arm_joints()))
        if len(self.mapping.joint_ids) != len(world.arm_joints()):
            raise ValueError(
                f"the servo setup names {len(self.mapping.joint_ids)} joint servos, the simulated arm has "
                f"{len(world.arm_joints())} joints"
            )
        self.gripper_id = self.mapping.gripper_id
        self.steps_world = steps_world
        self.lock = threading.RLock()
        self._debt_s = 0.0
        self._q = np.asarray(world.arm_joints(), float)
        self._ramp_from, self._ramp_to, self._ramp_at, self._ramp_s = self._q.copy(), self._q.copy(), 0.0, 1.0
        ticks = {**self.mapping.ticks(self._q), self.gripper_id: self.mapping.gripper_open}
        super().__init__(ticks, speed=1.0, **kwargs)
        self._gripper_closed = False
        world.add_step_listener(self._on_step)
        self._listening = True

    def power_up(self) -> None:
        """A restart keeps the arm where its servos stand (they power up there, torque off)."""
        if hasattr(self, "servos"):
            self.start_ticks = {i: round(servo.position) for i, servo in self.servos.items()}
        super().power_up()

    def receive(self) -> None:
        with self.lock:
            super().receive()

    def tick(self, dt_s: float) -> None:
        """The bus's thread: the world's physics by the wall clock when the bus owns the world, else nothing (the
        servos move with the world's steps)."""
        if not self.steps_world:
            return
        self._debt_s = min(self._debt_s + dt_s, CATCH_UP_S)
        step_s = self.world.time_step_s
        while self._debt_s >= step_s:
            self._debt_s -= step_s
            self.world.step(step_s)

    def close(self) -> None:
        super().close()
        if self._listening:
            self._listening = False
            self.world.remove_step_listener(self._on_step)

    def _on_step(self, time_s: float) -> None:
        """One physics step went by: the servos move for it and the links follow them, the gripper grips."""
        with self.lock:
            FakeFeetechBus.tick(self, self.world.time_step_s)
            q = self.mapping.angles({i: self.servos[i].position for i in self.mapping.joint_ids})
            closed = self.mapping.closing(self.servos[self.gripper_id].word(GOAL_POSITION))
            self._follow(q, time_s)
            self.world.set_arm_joints(self._q)
            if closed != self._gripper_closed:
                self._gripper_closed = closed
                self._grip(closed, q)

    def _follow(self, standing: np.ndarray, now: float) -> None:
        """The links move from goal to goal of the host's stream at an even speed over the time between two goals,
        as a servo's controller eases into each (the bus's servos jump at full speed and stop: a jerk that throws
        a pinched disc); with a servo's torque off they stay where the servos stand."""
        if not all(self.servos[i].registers[TORQUE_ENABLE] for i in self.mapping.joint_ids):
            self._q = self._ramp_to = standing.copy()
            return
        goal = self.mapping.angles({i: self.servos[i].word(GOAL_POSITION) for i in self.mapping.joint_ids})
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
            self.set_jaw_stop(self.gripper_id, self.mapping.disc_stop)
            return
        if not closing:
            self.world.release()
        self.set_jaw_stop(self.gripper_id, None)
