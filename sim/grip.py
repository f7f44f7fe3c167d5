"""The arm's hold on a disc: a pinch between two jaw pads, engaged only where the pads touch the disc's faces,
held by friction up to a force limit, and sensed the way a servo gripper senses it.

Closing the jaws takes the disc whose faces lie between the open jaws, squared up within `MAX_TILT_RAD`,
with enough of its face under the pads (`MIN_CONTACT_M2`); the jaws square it up where it stands (a disc
off the jaws' middle stays off it: the dispenser's cheeks hold it within a millimetre, so the arm's servos
give way, as a real arm's do, and the disc is carried that far off the tool point), and from then on a fixed
PyBullet constraint at that pose holds it with at most `HOLD_FORCE_N`
(two pads' friction). Everything else is physics: a disc dragged against the funnel, or shaken harder
than the pinch holds, slips; once it is more than `SLIP_M` from where the jaws hold it, the jaws close on
nothing and the disc falls free. `is_holding` is the gripper's sense (its fingers stopped on a disc, not
fully closed); `slipped` counts discs lost since the last grip.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet as p

from sim.arm import DISC_IN_TOOL, SimArm

# The jaw pads in the tool frame (the centre of a well-held disc; y across the jaws, z up towards the
# hand): the c4arm's finger pads, 16 mm wide, from 8 mm above the tool point to 38 mm.
PAD_HALF_WIDTH_M = 0.008
PAD_Z_M = (0.008, 0.038)
JAWS_OPEN_GAP_M = 0.0185  # between the open pads
MAX_TILT_RAD = math.radians(15.0)  # the closing pads square up a disc leaning this much, not more
MIN_CONTACT_M2 = 15e-6  # pad area on the disc's face below which the pinch does not hold
GRIP_FORCE_N = 4.0  # the jaw servo's squeeze
PAD_FRICTION = 0.5  # rubber pads on plastic
HOLD_FORCE_N = 2 * PAD_FRICTION * GRIP_FORCE_N
SLIP_M = 0.002  # a disc this far from where the jaws hold it has slipped out
CONTACT_GRID_M = 0.0005


def pad_contact_m2(centre_x_m: float, centre_z_m: float, radius_m: float) -> float:
    """Area of the pads' rectangle covered by a disc face of `radius_m` centred at (x, z) in the tool frame."""
    xs = np.arange(-PAD_HALF_WIDTH_M, PAD_HALF_WIDTH_M, CONTACT_GRID_M) + CONTACT_GRID_M / 2
    zs = np.arange(*PAD_Z_M, CONTACT_GRID_M) + CONTACT_GRID_M / 2
    inside = (xs[None, :] - centre_x_m) ** 2 + (zs[:, None] - centre_z_m) ** 2 <= radius_m**2
    return float(inside.sum()) * CONTACT_GRID_M**2


class Grip:
    """The jaws of one arm: the disc they hold (if any) and the constraint that holds it."""

    def __init__(self, client: int, arm: SimArm, disc_radius_m: float, disc_thickness_m: float) -> None:
        self.client = client
        self.arm = arm
        self.disc_radius_m = disc_radius_m
        self.disc_thickness_m = disc_thickness_m
        self.held: int | None = None
        self.slipped = 0
        self._constraint: int | None = None
        self._hold_in_tool: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def is_holding(self) -> bool:
        return self.held is not None

    def _tool_com(self) -> tuple[tuple, tuple]:
        """The tool link's centre-of-mass frame, the frame PyBullet constraints are given in."""
        state = p.getLinkState(
            self.arm.body, self.arm.tool_link, computeForwardKinematics=True, physicsClientId=self.client
        )
        return state[0], state[1]

    def _in_tool(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        """(position, face normal) of a disc in the tool's URDF frame."""
        tool_xyz, tool_quat = self.arm.tool_pose()
        to_tool = np.array(p.getMatrixFromQuaternion(tool_quat)).reshape(3, 3).T
        position, orientation = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
        axis = np.array(p.getMatrixFromQuaternion(orientation)).reshape(3, 3)[:, 2]  # a cylinder's axis is its z
        return to_tool @ (np.array(position) - tool_xyz), to_tool @ axis

    def can_take(self, body: int) -> bool:
        """Whether closing the jaws now would pinch this disc (its faces between the pads, enough pad on them)."""
        centre, normal = self._in_tool(body)
        if abs(centre[1]) > (JAWS_OPEN_GAP_M - self.disc_thickness_m) / 2:
            return False
        if abs(normal[1]) < math.cos(MAX_TILT_RAD):
            return False
        return pad_contact_m2(centre[0], centre[2], self.disc_radius_m) >= MIN_CONTACT_M2

    def close(self, discs: list[int]) -> int | None:
        """Close the jaws: pinch the disc they can take (the nearest such), or close on nothing."""
        self.arm.set_fingers_open(False)
        if self.held is not None:
            return self.held
        candidates = [body for body in discs if self.can_take(body)]
        if not candidates:
            return None
        body = min(candidates, key=lambda b: float(np.linalg.norm(self._in_tool(b)[0])))
        centre, _ = self._in_tool(body)
        self._hold(body, centre)
        return body

    def _hold(self, body: int, centre_in_tool: np.ndarray) -> None:
        """Squeeze the disc into the jaws at `centre_in_tool`, squared up, and hold it there by friction."""
        tool_xyz, tool_quat = self.arm.tool_pose()
        world_xyz, _ = p.multiplyTransforms(tool_xyz, tool_quat, centre_in_tool, (0, 0, 0, 1))
        _, world_quat = p.multiplyTransforms((0, 0, 0), tool_quat, (0, 0, 0), DISC_IN_TOOL)
        p.resetBasePositionAndOrientation(body, world_xyz, world_quat, physicsClientId=self.client)
        com_xyz, com_quat = self._tool_com()
        to_com = p.invertTransform(com_xyz, com_quat)
        frame_xyz, frame_quat = p.multiplyTransforms(*to_com, world_xyz, world_quat)
        self._constraint = p.createConstraint(
            self.arm.body,
            self.arm.tool_link,
            body,
            -1,
            p.JOINT_FIXED,
            (0, 0, 0),
            frame_xyz,
            (0, 0, 0),
            frame_quat,
            physicsClientId=self.client,
        )
        p.changeConstraint(self._constraint, maxForce=HOLD_FORCE_N, physicsClientId=self.client)
        self.held = body
        self._hold_in_tool = centre_in_tool

    def check_slip(self) -> int | None:
        """After a physics step: the disc that just slipped out of the jaws (now free), or None."""
        if self.held is None:
            return None
        centre, _ = self._in_tool(self.held)
        if float(np.linalg.norm(centre - self._hold_in_tool)) <= SLIP_M:
            return None
        self.slipped += 1
        return self._let_go()

    def open(self) -> int | None:
        """Open the jaws; the disc they held (now free), or None."""
        self.arm.set_fingers_open(True)
        return self._let_go()

    def _let_go(self) -> int | None:
        if self._constraint is not None:
            p.removeConstraint(self._constraint, physicsClientId=self.client)
        body, self.held, self._constraint, self._hold_in_tool = self.held, None, None, None
        return body
