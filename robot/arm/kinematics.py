"""Forward and inverse kinematics of a serial arm, read from its URDF.

A `KinematicChain` is the list of moving joints from a base link to a tip link (fixed joints folded
into the next joint's origin). `forward(q)` gives the tip's 4x4 pose in the base frame; `inverse`
finds joint angles for a target pose by damped least squares (Levenberg-Marquardt step size), with
joint limits enforced at every step and seeded restarts, and raises `UnreachableError` when no
solution within the tolerance exists. Positions in metres, angles in radians.
"""

from __future__ import annotations

import logging
import math
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

MOVING_JOINT_KINDS = ("revolute", "continuous", "prismatic")
# One radian of orientation error weighs like this many metres of position error in the IK residual.
ORIENTATION_WEIGHT_M_PER_RAD = 0.1
STALL_ITERATIONS = 25  # Levenberg-Marquardt closing in on a solution shrinks its cost by far more than
STALL_RATIO = 0.5  # this in so many iterations; a solve that does not is stuck


class UnreachableError(ValueError):
    """A target pose that the arm cannot reach within its joint limits."""


class UrdfError(ValueError):
    """A URDF file that cannot be read as a serial chain."""


def rotation_from_rpy(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """URDF's fixed-axis roll, pitch, yaw as a 3x3 rotation (Rz(yaw) Ry(pitch) Rx(roll))."""
    cr, sr, cp, sp, cy, sy = (
        math.cos(roll),
        math.sin(roll),
        math.cos(pitch),
        math.sin(pitch),
        math.cos(yaw),
        math.sin(yaw),
    )
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def rotation_about_axis(axis: np.ndarray, angle_rad: float) -> np.ndarray:
    """Rodrigues' rotation by `angle_rad` about the unit vector `axis`."""
    x, y, z = axis
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    t = 1.0 - c
    return np.array(
        [
            [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
            [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
            [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
        ]
    )


def rotation_vector(rotation: np.ndarray) -> np.ndarray:
    """The axis * angle vector of a 3x3 rotation (the log map), robust near 0 and pi."""
    cos_angle = np.clip((np.trace(rotation) - 1.0) / 2.0, -1.0, 1.0)
    angle = math.acos(cos_angle)
    skew = np.array([rotation[2, 1] - rotation[1, 2], rotation[0, 2] - rotation[2, 0], rotation[1, 0] - rotation[0, 1]])
    if angle < 1e-9:
        return 0.5 * skew
    if math.pi - angle > 1e-6:
        return angle / (2.0 * math.sin(angle)) * skew
    # Near pi the skew part vanishes: take the axis from the symmetric part.
    column = int(np.argmax(np.diag(rotation)))
    axis = (rotation[:, column] + np.eye(3)[:, column]) / math.sqrt(2.0 * (1.0 + rotation[column, column]))
    return angle * axis / np.linalg.norm(axis)


def homogeneous(rotation: np.ndarray, translation: np.ndarray) -> np.ndarray:
    """A 4x4 transform from a 3x3 rotation and a translation."""
    transform = np.eye(4)
    transform[:3, :3] = rotation
    transform[:3, 3] = translation
    return transform


def pose_from_position_yaw(position_m: np.ndarray, yaw_rad: float, tool_down: bool = False) -> np.ndarray:
    """A 4x4 pose at `position_m` turned by `yaw_rad` about vertical; `tool_down` flips z to point down."""
    rotation = rotation_about_axis(np.array([0.0, 0.0, 1.0]), yaw_rad)
    if tool_down:
        rotation = rotation @ rotation_about_axis(np.array([1.0, 0.0, 0.0]), math.pi)
    return homogeneous(rotation, np.asarray(position_m, dtype=float))


@dataclass(frozen=True)
class JointSpec:
    """One moving joint: its origin relative to the previous joint's frame, axis and limits."""

    name: str
    kind: str
    origin: np.ndarray
    axis: np.ndarray
    lower: float
    upper: float
    velocity_limit: float


def _origin_transform(element: ElementTree.Element | None) -> np.ndarray:
    if element is None:
        return np.eye(4)
    xyz = [float(v) for v in element.get("xyz", "0 0 0").split()]
    rpy = [float(v) for v in element.get("rpy", "0 0 0").split()]
    return homogeneous(rotation_from_rpy(*rpy), np.array(xyz))


@dataclass(frozen=True)
class IkResult:
    """An inverse-kinematics solution with its residual errors."""

    q: np.ndarray
    position_error_m: float
    orientation_error_rad: float
    iterations: int


class KinematicChain:
    """The moving joints from `base_link` to `tip_link` of a URDF, with forward and inverse kinematics."""

    def __init__(self, joints: list[JointSpec], tip_offset: np.ndarray, base_link: str, tip_link: str) -> None:
        self.joints = joints
        self.tip_offset = tip_offset
        self.base_link = base_link
        self.tip_link = tip_link
        self.lower = np.array([j.lower for j in joints])
        self.upper = np.array([j.upper for j in joints])
        self.velocity_limits = np.array([j.velocity_limit for j in joints])

    @property
    def names(self) -> list[str]:
        return [j.name for j in self.joints]

    @property
    def dof(self) -> int:
        return len(self.joints)

    @classmethod
    def from_urdf(cls, path: str | Path, tip_link: str, base_link: str | None = None) -> KinematicChain:
        """Read the chain from `base_link` (default: the URDF's root link) to `tip_link`.

        Raises UrdfError when the file is missing or unreadable or the links are not connected.
        """
        path = Path(path)
        try:
            root = ElementTree.parse(path).getroot()
        except (OSError, ElementTree.ParseError) as error:
            raise UrdfError(f"cannot read URDF {path}: {error}; give the path of a valid URDF file") from error
        joint_to_child: dict[str, ElementTree.Element] = {}
        for joint in root.findall("joint"):
            joint_to_child[joint.find("child").get("link")] = joint
        links = {link.get("name") for link in root.findall("link")}
        if tip_link not in links:
            raise UrdfError(f"URDF {path} has no link named {tip_link!r}; links are {sorted(links)}")
        path_joints: list[ElementTree.Element] = []
        link = tip_link
        while link != base_link and link in joint_to_child:
            joint = joint_to_child[link]
            path_joints.append(joint)
            link = joint.find("parent").get("link")
        if base_link is not None and link != base_link:
            raise UrdfError(f"URDF {path}: link {tip_link!r} does not hang below {base_link!r}")
        pending = np.eye(4)
        joints: list[JointSpec] = []
        for joint in reversed(path_joints):
            pending = pending @ _origin_transform(joint.find("origin"))
            kind = joint.get("type")
            if kind not in MOVING_JOINT_KINDS:
                continue
            axis_element = joint.find("axis")
            axis = np.array(
                [float(v) for v in (axis_element.get("xyz") if axis_element is not None else "1 0 0").split()]
            )
            axis = axis / np.linalg.norm(axis)
            limit = joint.find("limit")
            lower, upper = (-math.inf, math.inf) if kind == "continuous" else (-math.pi, math.pi)
            velocity = math.inf
            if limit is not None:
                if kind != "continuous" and float(limit.get("lower", 0)) < float(limit.get("upper", 0)):
                    lower, upper = float(limit.get("lower")), float(limit.get("upper"))
                velocity = float(limit.get("velocity", math.inf)) or math.inf
            joints.append(JointSpec(joint.get("name"), kind, pending, axis, lower, upper, velocity))
            pending = np.eye(4)
        if not joints:
            raise UrdfError(f"URDF {path}: no moving joint between {link!r} and {tip_link!r}")
        return cls(joints, pending, link, tip_link)

    def joint_frames(self, q: np.ndarray) -> list[np.ndarray]:
        """Each joint's frame (after its motion) in the base frame, then the tip's; for clearance checks."""
        transform = np.eye(4)
        frames = []
        for joint, value in zip(self.joints, np.asarray(q, dtype=float), strict=False):
            transform = transform @ joint.origin
            if joint.kind == "prismatic":
                transform[:3, 3] += transform[:3, :3] @ (joint.axis * value)
            else:
                transform[:3, :3] = transform[:3, :3] @ rotation_about_axis(joint.axis, value)
            frames.append(transform)
        frames.append(transform @ self.tip_offset)
        return frames

    def forward(self, q: np.ndarray) -> np.ndarray:
        """The tip's 4x4 pose in the base frame for joint values `q`."""
        return self.joint_frames(q)[-1]

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """The 6 x dof geometric Jacobian (linear rows first) of the tip in the base frame."""
        frames = self.joint_frames(q)
        tip = frames[-1][:3, 3]
        axes = np.array([frame[:3, :3] @ joint.axis for joint, frame in zip(self.joints, frames, strict=False)])
        arms = tip - np.array([frame[:3, 3] for frame in frames[:-1]])
        prismatic = np.array([joint.kind == "prismatic" for joint in self.joints])
        jac = np.zeros((6, self.dof))
        jac[:3] = np.where(prismatic[:, None], axes, np.cross(axes, arms)).T
        jac[3:] = np.where(prismatic[:, None], 0.0, axes).T
        return jac

    def clamp(self, q: np.ndarray) -> np.ndarray:
        """`q` limited to the joint range."""
        return np.clip(q, self.lower, self.upper)

    def is_within_limits(self, q: np.ndarray, margin_rad: float = 1e-9) -> bool:
        return bool(np.all(q >= self.lower - margin_rad) and np.all(q <= self.upper + margin_rad))

    def _residual(self, q: np.ndarray, target: np.ndarray, with_orientation: bool) -> np.ndarray:
        pose = self.forward(q)
        position_error = target[:3, 3] - pose[:3, 3]
        if not with_orientation:
            return position_error
        orientation_error = rotation_vector(target[:3, :3] @ pose[:3, :3].T)
        return np.concatenate([position_error, ORIENTATION_WEIGHT_M_PER_RAD * orientation_error])

    def _solve_from(
        self, target: np.ndarray, q: np.ndarray, with_orientation: bool, tolerance_m: float, max_iterations: int
    ) -> IkResult:
        weights = np.concatenate([np.ones(3), ORIENTATION_WEIGHT_M_PER_RAD * np.ones(3)])
        damping = 1e-3
        q = self.clamp(q)
        error = self._residual(q, target, with_orientation)
        cost = float(error @ error)
        checkpoint_cost = cost
        iteration = 0
        for iteration in range(1, max_iterations + 1):  # noqa: B007 - the count is reported after the loop
            if math.sqrt(cost) < tolerance_m * 0.01:
                break
            if iteration % STALL_ITERATIONS == 0:
                if cost > STALL_RATIO * checkpoint_cost:
                    break  # a local minimum (or the nearest a short arm gets): another start does better
                checkpoint_cost = cost
            jac = self.jacobian(q)
            if with_orientation:
                jac = jac * weights[:, None]
            else:
                jac = jac[:3]
            # Levenberg-Marquardt: a damped Gauss-Newton step, damping adapted to whether the step helped.
            normal = jac.T @ jac
            step = np.linalg.solve(
                normal + damping * (np.diag(np.diag(normal)) + 1e-9 * np.eye(self.dof)), jac.T @ error
            )
            candidate = self.clamp(q + step)
            candidate_error = self._residual(candidate, target, with_orientation)
            candidate_cost = float(candidate_error @ candidate_error)
            if candidate_cost < cost:
                q, error, cost = candidate, candidate_error, candidate_cost
                damping = max(damping / 3.0, 1e-7)
            else:
                damping *= 4.0
                if damping > 1e6:
                    break
        pose = self.forward(q)
        position_error = float(np.linalg.norm(target[:3, 3] - pose[:3, 3]))
        orientation_error = float(np.linalg.norm(rotation_vector(target[:3, :3] @ pose[:3, :3].T)))
        return IkResult(q, position_error, orientation_error if with_orientation else 0.0, iteration)

    def inverse(
        self,
        target: np.ndarray,
        seed: np.ndarray | None = None,
        with_orientation: bool = True,
        tolerance_m: float = 1e-4,
        tolerance_rad: float = 1e-3,
        restarts: int = 12,
        max_iterations: int = 200,
    ) -> IkResult:
        """Joint values that put the tip at the 4x4 `target` (base frame), nearest to `seed` when possible.

        Tries `seed` (default: mid-range) first, then `restarts` deterministic random seeds within the
        limits. Raises UnreachableError with the best residual when none is within the tolerances.
        """
        target = np.asarray(target, dtype=float)
        finite_lower = np.where(np.isfinite(self.lower), self.lower, -math.pi)
        finite_upper = np.where(np.isfinite(self.upper), self.upper, math.pi)
        start = (finite_lower + finite_upper) / 2.0 if seed is None else np.asarray(seed, dtype=float)
        rng = np.random.default_rng(0)
        best: IkResult | None = None
        for _attempt in range(restarts + 1):
            result = self._solve_from(target, start, with_orientation, tolerance_m, max_iterations)
            if result.position_error_m <= tolerance_m and result.orientation_error_rad <= tolerance_rad:
                return result
            if best is None or result.position_error_m + result.orientation_error_rad * ORIENTATION_WEIGHT_M_PER_RAD < (
                best.position_error_m + best.orientation_error_rad * ORIENTATION_WEIGHT_M_PER_RAD
            ):
                best = result
            start = rng.uniform(finite_lower, finite_upper)
        xyz_mm = ", ".join(f"{v * 1000:.1f}" for v in target[:3, 3])
        raise UnreachableError(
            f"target ({xyz_mm}) mm is out of reach of {self.tip_link!r}: best solution misses by "
            f"{best.position_error_m * 1000:.1f} mm and {math.degrees(best.orientation_error_rad):.1f} deg; "
            "move the target or the arm"
        )
