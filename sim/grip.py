"""The arm's hold on a disc: which disc the tool has, taking it at the dispenser and letting it go over a slot."""

from __future__ import annotations

import numpy as np
import pybullet as p

from sim.arm import SimArm

GRIP_RADIUS_M = 0.012  # a disc centre this close to the tool can be gripped


class Grip:
    """The disc the tool holds (carried kinematically at the tool frame), if any."""

    def __init__(self, client: int, arm: SimArm) -> None:
        self.client = client
        self.arm = arm
        self.held: int | None = None

    def take_nearest(self, discs: list[int]) -> int | None:
        """Close on the disc whose centre is nearest the tool (within 12 mm); its body id, or None."""
        self.arm.set_fingers_open(False)
        if self.held is not None:
            return self.held
        tool, _ = self.arm.tool_pose()
        nearest, nearest_m = None, GRIP_RADIUS_M
        for body in discs:
            position, _ = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
            distance = float(np.linalg.norm(np.array(position) - tool))
            if distance <= nearest_m:
                nearest, nearest_m = body, distance
        self.held = nearest
        self.follow_tool()
        return nearest

    def follow_tool(self) -> None:
        """Put the held disc where the tool is (after the arm moved)."""
        if self.held is not None:
            position, orientation = self.arm.held_disc_pose()
            p.resetBasePositionAndOrientation(self.held, list(position), list(orientation), physicsClientId=self.client)

    def let_go(self) -> int | None:
        """Open the gripper; the disc it held (now free), or None."""
        self.arm.set_fingers_open(True)
        body, self.held = self.held, None
        return body
