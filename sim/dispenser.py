"""The robot's disc dispenser: a post the waiting disc stands on, two cheeks holding its lower half upright."""

from __future__ import annotations

import numpy as np
import pybullet as p

from sim.config import ArmMount, BoardGeometry

DISPENSER_COLOUR = (0.35, 0.35, 0.38, 1.0)
LEFT_M = 0.03  # a taken disc is this far from the dispenser before the next one drops in


class Dispenser:
    """Where the arm picks its discs; `waiting` is the body id of the disc standing in it (None once taken)."""

    def __init__(self, client: int, mount: ArmMount, geometry: BoardGeometry, player: int = 1) -> None:
        self.client = client
        self.player = player
        self.waiting: int | None = None
        self.is_jammed = False  # the feed is stuck: no disc drops in until the jaws close on the empty post
        x, y = mount.dispenser_xy_m
        self.pick_xyz = np.array([x, y, mount.dispenser_height_m])
        radius = geometry.disc_diameter_m / 2
        rest_z = mount.dispenser_height_m - radius
        self._box((x, y, rest_z / 2), (0.012, 0.012, rest_z / 2))
        for side in (-1, 1):
            cheek_y = y + side * (geometry.slot_gap_m / 2 + 0.0015)
            self._box((x, cheek_y, rest_z + radius / 2), (0.018, 0.0015, radius / 2))

    def _box(self, centre: tuple[float, float, float], half_extents: tuple[float, float, float]) -> None:
        collision = p.createCollisionShape(p.GEOM_BOX, halfExtents=half_extents, physicsClientId=self.client)
        visual = p.createVisualShape(
            p.GEOM_BOX, halfExtents=half_extents, rgbaColor=DISPENSER_COLOUR, physicsClientId=self.client
        )
        p.createMultiBody(0.0, collision, visual, centre, physicsClientId=self.client)

    def pick_pose(self) -> tuple[np.ndarray, float]:
        """(world xyz, yaw) of the waiting disc's centre: the tool pose that grips it."""
        return self.pick_xyz.copy(), 0.0

    def needs_refill(self, tool_xyz: np.ndarray | None) -> bool:
        """Whether the next disc drops in: none waits, and a disc being taken (tool at `tool_xyz`) has left."""
        has_left = tool_xyz is None or np.linalg.norm(tool_xyz - self.pick_xyz) >= LEFT_M
        return self.waiting is None and not self.is_jammed and has_left
