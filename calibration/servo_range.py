"""`c4robot calibrate arm`: each Feetech servo's middle and range, recorded by hand as LeRobot does it.

With the torque off the person first holds the arm in the middle of every joint's range (that pose
is joint angle 0: the URDF's zero), then moves every joint through its whole range. The middle
ticks and the smallest and largest ticks seen go into the `[arm]` settings (`servo_middles`,
`servo_ranges`), which the Feetech driver uses to turn angles into ticks and to refuse goals beyond
a joint's range.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol


class ServoBus(Protocol):
    def servo_ticks(self) -> dict[int, int]: ...

    def set_torque(self, on: bool) -> None: ...


MIN_SPAN_TICKS = 100  # a joint moved less than this (about 9 degrees) was probably forgotten


def record_servo_ranges(
    bus: ServoBus, wait_for_enter: Callable[[], None], moved_enough: Callable[[], bool], tell: Callable[[str], None]
) -> dict[str, Any]:
    """The `[arm]` settings of the calibration: middles and ranges; ValueError naming a joint that was not moved.

    `moved_enough()` is polled while the joints are moved and returns True when the person is done."""
    bus.set_torque(False)
    try:
        tell("The servos are loose. Hold the arm in the middle of every joint's range, then press Enter.")
        wait_for_enter()
        middles = bus.servo_ticks()
        tell("Now move every joint, the gripper too, through its whole range; press Enter when done.")
        low, high = dict(middles), dict(middles)
        while not moved_enough():
            for servo_id, ticks in bus.servo_ticks().items():
                low[servo_id], high[servo_id] = min(low[servo_id], ticks), max(high[servo_id], ticks)
            time.sleep(0.02)
    finally:
        bus.set_torque(True)
    still = [servo_id for servo_id in middles if high[servo_id] - low[servo_id] < MIN_SPAN_TICKS]
    if still:
        raise ValueError(f"servos {still} hardly moved: run `c4robot calibrate arm` again and move every joint")
    ids = list(middles)  # the layout's order: the joints, then the gripper
    return {
        "servo_ids": ids,
        "servo_middles": [middles[i] for i in ids],
        "servo_ranges": [[low[i], high[i]] for i in ids],
    }
