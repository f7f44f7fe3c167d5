"""The simulated Connect-4 table in PyBullet: board, discs, dispenser, desktop arm and webcam.

Layer 1: imports nothing of the project. `World(WorldConfig(), seed, gui)` is the entry point;
`sim.drops.run_drop_trials` measures how reliably discs land.
"""

from sim.arm import JointLimit
from sim.config import (
    DISC_COLOURS,
    ArmMount,
    BoardGeometry,
    BoardPose,
    CameraConfig,
    DiscConfig,
    PhysicsConfig,
    WorldConfig,
    config_variants,
)
from sim.world import World

__all__ = [
    "DISC_COLOURS", "ArmMount", "BoardGeometry", "BoardPose", "CameraConfig", "DiscConfig", "JointLimit",
    "PhysicsConfig", "World", "WorldConfig", "config_variants",
]
