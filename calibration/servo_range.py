"""`c4robot calibrate arm`: each Feetech servo's middle, direction and range, recorded by hand as LeRobot does it.

With the torque off the person first holds the arm in the middle of every joint's range (that pose
is joint angle 0: the URDF's zero), then moves each joint a little in its + direction (told in words
computed from the arm's model) and closes the gripper, then moves every joint through its whole
range. The middle ticks, the sign of each small step, and the smallest and largest ticks seen go into
the `[arm]` settings (`servo_middles`, `servo_directions`, `servo_ranges`), with each servo's homing
offset and EEPROM position limits as they were (`servo_homing_offsets`, `servo_limits`): the Feetech
driver compares those at connect, so a servo changed since is named instead of silently misplaced.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np


class ServoBus(Protocol):
    def servo_ticks(self) -> dict[int, int]: ...

    def set_torque(self, on: bool) -> None: ...

    def servo_eeprom(self) -> dict[int, tuple[int, tuple[int, int]]]: ...


MIN_SPAN_TICKS = 100  # a joint moved less than this (about 9 degrees) was probably forgotten
MIN_STEP_TICKS = 25  # the + step: about 2 degrees at least, so its sign is the person's, not noise
PROBE_RAD = 0.2
SIDES = {  # a base axis -> where the tool goes along it, and where one stands to look down it
    (0, 1): ("forward", "in front of the arm"),
    (0, -1): ("back", "behind the arm"),
    (1, 1): ("to the left", "on the arm's left"),
    (1, -1): ("to the right", "on the arm's right"),
    (2, 1): ("up", "above"),
    (2, -1): ("down", "below"),
}


def plus_hints(forward: Callable[[np.ndarray], np.ndarray], names: Sequence[str]) -> list[str]:
    """In words, what each joint's + direction does from the middle pose: where the tool goes, or for a joint
    that only turns it (the wrist roll), which way it turns and seen from where. `forward(q)` is the tool's
    4x4 pose in the base frame (x forward, y left, z up)."""
    middle = forward(np.zeros(len(names)))
    hints = []
    for joint, name in enumerate(names):
        q = np.zeros(len(names))
        q[joint] = PROBE_RAD
        pose = forward(q)
        moved = pose[:3, 3] - middle[:3, 3]
        if np.linalg.norm(moved) > 0.01:
            axis = int(np.argmax(np.abs(moved)))
            hints.append(f"{name}: the gripper goes {SIDES[(axis, int(np.sign(moved[axis])))][0]}")
            continue
        turn = pose[:3, :3] @ middle[:3, :3].T  # the turn in the base frame
        rotation = np.array([turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0], turn[1, 0] - turn[0, 1]])
        axis = int(np.argmax(np.abs(rotation)))
        hints.append(f"{name}: counter-clockwise seen from {SIDES[(axis, int(np.sign(rotation[axis])))][1]}")
    return hints


def record_servo_ranges(
    bus: ServoBus,
    wait_for_enter: Callable[[], None],
    moved_enough: Callable[[], bool],
    tell: Callable[[str], None],
    hints: Sequence[str] = (),
) -> dict[str, Any]:
    """The `[arm]` settings of the calibration; ValueError naming a joint that was not moved.

    `wait_for_enter()` returns when the person has done a step; `moved_enough()` is polled while the joints
    are swept and returns True when the person is done."""
    bus.set_torque(False)
    try:
        tell("The servos are loose. Hold the arm in the middle of every joint's range, then press Enter.")
        wait_for_enter()
        middles = bus.servo_ticks()
        told = f" ({'; '.join(hints)})" if hints else ""
        tell(f"Move each joint a little in its + direction{told}, close the gripper, then press Enter.")
        wait_for_enter()
        plus = bus.servo_ticks()
        tell("Now move every joint, the gripper too, through its whole range; press Enter when done.")
        low, high = dict(middles), dict(middles)
        while not moved_enough():
            for servo_id, ticks in bus.servo_ticks().items():
                low[servo_id], high[servo_id] = min(low[servo_id], ticks), max(high[servo_id], ticks)
            time.sleep(0.02)
    finally:
        bus.set_torque(True)
    ids = list(middles)  # the layout's order: the joints, then the gripper
    still = [servo_id for servo_id in ids if abs(plus[servo_id] - middles[servo_id]) < MIN_STEP_TICKS]
    if still:
        raise ValueError(
            f"servos {still} hardly moved in the + step: run `c4robot calibrate arm` again and move each joint "
            "a little in its + direction (and close the gripper)"
        )
    still = [servo_id for servo_id in ids if high[servo_id] - low[servo_id] < MIN_SPAN_TICKS]
    if still:
        raise ValueError(f"servos {still} hardly moved: run `c4robot calibrate arm` again and move every joint")
    # A joint turns + where its ticks went; the gripper is +1 when it closes towards its low ticks.
    directions = [1 if plus[i] > middles[i] else -1 for i in ids[:-1]] + [1 if plus[ids[-1]] < middles[ids[-1]] else -1]
    eeprom = bus.servo_eeprom()
    return {
        "servo_ids": ids,
        "servo_middles": [middles[i] for i in ids],
        "servo_directions": directions,
        "servo_ranges": [[low[i], high[i]] for i in ids],
        "servo_homing_offsets": [eeprom[i][0] for i in ids],
        "servo_limits": [list(eeprom[i][1]) for i in ids],
    }
