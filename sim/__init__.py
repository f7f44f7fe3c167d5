"""The simulated Connect-4 table in PyBullet: board, discs, dispenser, desktop arm and webcam.

Layer 1: imports nothing of the project. `World(WorldConfig(), seed, gui)` is the entry point;
`sim.drops.run_drop_trials` measures how reliably discs land.
"""


def _import_pybullet_quietly() -> None:
    """pybullet prints its build time on stdout when imported; send that line to stderr instead, so that
    machine-read output (`c4robot play --json`) stays clean. Later `import pybullet` finds it loaded."""
    import ctypes
    import os
    import sys

    sys.stdout.flush()
    saved_stdout = os.dup(1)
    os.dup2(2, 1)
    try:
        import pybullet  # noqa: F401

        ctypes.CDLL(None).fflush(None)
    finally:
        os.dup2(saved_stdout, 1)
        os.close(saved_stdout)


_import_pybullet_quietly()

from sim.arm import JointLimit  # noqa: E402
from sim.config import (  # noqa: E402
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
from sim.world import World  # noqa: E402

__all__ = [
    "DISC_COLOURS",
    "ArmMount",
    "BoardGeometry",
    "BoardPose",
    "CameraConfig",
    "DiscConfig",
    "JointLimit",
    "PhysicsConfig",
    "World",
    "WorldConfig",
    "config_variants",
]
