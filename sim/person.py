"""The simulated person: how a person drops a disc into a column, a little carelessly and after a pause."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.world import World

HUMAN_PAUSE_S = (0.6, 1.6)
HUMAN_OFFSET_M = (0.004, 0.0015)
HUMAN_TILT_RAD = math.radians(4.0)


def careless_drop(world: World, column: int, player: int) -> int:
    """A hand-like pause, then a slightly careless drop of a `player` disc into `column`; waits until it rests."""
    world.step(float(world.rng.uniform(*HUMAN_PAUSE_S)))
    offset = (
        float(world.rng.uniform(-1, 1) * HUMAN_OFFSET_M[0]),
        float(world.rng.uniform(-1, 1) * HUMAN_OFFSET_M[1]),
    )
    tilt = float(world.rng.uniform(-1, 1) * HUMAN_TILT_RAD)
    body = world.drop_disc(column, player, offset, tilt)
    world.wait_until_settled()
    return body
