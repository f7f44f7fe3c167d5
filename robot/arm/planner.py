"""From "play column c" to the arm's motions: waypoints, inverse kinematics, timed trajectories.

A turn is: from home over the dispenser, straight down to the disc, grip, straight up, across to
above the column at a height that clears the board, straight down to the column's drop pose,
release, straight up (retreat), and home. Every waypoint is solved by `KinematicChain.inverse`
(seeded with the previous one, so the arm keeps its elbow configuration), every leg is a
synchronised joint-space segment within the configured limits, and every leg is sampled and checked
against the board's keep-out box; a leg that would cut through it is split over a raised midpoint.
All poses are in the arm's base frame, metres and radians.

A real gripper misses: `play_column` asks the arm whether it holds the disc (`Arm.status().gripping`, the
gripper's sense) after the grip and the lift, and picks again from above the dispenser up to
`PICK_ATTEMPTS` times before `PickMissedError`; a disc gone from the jaws at the column, before the
release, ends the turn at home with `DiscLostError` (the game then looks where it fell).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from robot.arm import Arm, ArmConfig
from robot.arm.kinematics import KinematicChain, pose_from_position_yaw
from robot.arm.trajectory import JointTrajectory, plan_segment

log = logging.getLogger(__name__)

CHECK_SAMPLES_PER_LEG = 24
LINK_RADIUS_M = 0.012  # the arm's links around their joint origins, for the board check
MAX_SPLITS = 3
SPLIT_RAISE_M = 0.03
# Where each grip at the dispenser looks, (across the jaws, down) from the pick pose: a stuck feed frees itself
# in one or two; a disc a miscalibrated arm misses by more than the open jaws' slack (6 mm across) is beside the
# first, or lower than the pads (a disc higher than planned is still under them).
PICK_SEARCH_M = ((0.0, 0.0), (0.004, 0.0), (-0.004, 0.0), (0.0, 0.006))
PICK_ATTEMPTS = len(PICK_SEARCH_M)


class PlanningError(RuntimeError):
    """No safe motion found for a turn (a leg keeps hitting the board)."""


class PickMissedError(RuntimeError):
    """The gripper closed on nothing at the dispenser `PICK_ATTEMPTS` times: the dispenser is empty or stuck."""


class DiscLostError(RuntimeError):
    """The disc slipped out of the gripper between the dispenser and the column; the arm is home, jaws open."""

    def __init__(self, column: int) -> None:
        super().__init__(f"my disc slipped out of the gripper on the way to column {column + 1}")
        self.column = column


@dataclass(frozen=True)
class ToolPose:
    """Where the tool (the held disc's centre) should be: position and yaw about vertical."""

    position_m: tuple[float, float, float]
    yaw_rad: float

    def matrix(self) -> np.ndarray:
        return pose_from_position_yaw(np.array(self.position_m), self.yaw_rad)

    def raised(self, height_m: float) -> ToolPose:
        x, y, z = self.position_m
        return ToolPose((x, y, z + height_m), self.yaw_rad)

    def at_height(self, z_m: float) -> ToolPose:
        x, y, _ = self.position_m
        return ToolPose((x, y, z_m), self.yaw_rad)


@dataclass(frozen=True)
class KeepOutBox:
    """A box the arm must not enter (the board): centre, half sizes, yaw about vertical."""

    centre_m: tuple[float, float, float]
    half_size_m: tuple[float, float, float]
    yaw_rad: float = 0.0

    @property
    def top_m(self) -> float:
        return self.centre_m[2] + self.half_size_m[2]

    def distance(self, points_m: np.ndarray) -> np.ndarray:
        """Distance of each point (N, 3) to the box, 0 inside."""
        offset = np.atleast_2d(points_m) - np.array(self.centre_m)
        c, s = math.cos(self.yaw_rad), math.sin(self.yaw_rad)
        local = offset @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        outside = np.maximum(np.abs(local) - np.array(self.half_size_m), 0.0)
        return np.linalg.norm(outside, axis=1)


@dataclass(frozen=True)
class Workcell:
    """What the planner needs to know about the table, in the arm's base frame."""

    pick: ToolPose
    drops: tuple[ToolPose, ...]
    board: KeepOutBox
    disc_radius_m: float

    @classmethod
    def from_drop_poses(cls, pick: ToolPose, drops: tuple[ToolPose, ...], disc_radius_m: float) -> Workcell:
        """A workcell whose board box is inferred from taught drop poses (a real setup).

        The board is taken to fill the band under the drop poses, one column pitch beyond the end
        columns and 3 cm deep, up to just below a held disc's lowest point at a drop pose.
        """
        if len(drops) < 2:
            raise ValueError(f"{len(drops)} drop poses: teach one per column (at least two)")
        points = np.array([d.position_m for d in drops])
        along = points[-1, :2] - points[0, :2]
        pitch = float(np.linalg.norm(along)) / (len(drops) - 1)
        top = float(points[:, 2].min()) - disc_radius_m - 0.004
        centre = points[:, :2].mean(axis=0)
        box = KeepOutBox(
            (float(centre[0]), float(centre[1]), top / 2),
            (float(np.linalg.norm(along)) / 2 + pitch, 0.015, top / 2),
            math.atan2(float(along[1]), float(along[0])),
        )
        return cls(pick, tuple(drops), box, disc_radius_m)


@dataclass(frozen=True)
class PlanStep:
    """One thing the arm does: follow a trajectory, grip, release, or wait."""

    kind: Literal["move", "grip", "release", "wait"]
    label: str
    trajectory: JointTrajectory | None = None
    duration_s: float = 0.0


@dataclass(frozen=True)
class TurnPlan:
    """The steps of one robot turn; `turn_steps` end with the retreat, `home_steps` go home."""

    column: int
    turn_steps: tuple[PlanStep, ...]
    home_steps: tuple[PlanStep, ...]
    ik_error_m: float  # the largest position error of the solved waypoints

    @property
    def turn_s(self) -> float:
        return sum(_step_duration(step) for step in self.turn_steps)

    @property
    def home_s(self) -> float:
        return sum(_step_duration(step) for step in self.home_steps)


def _step_duration(step: PlanStep) -> float:
    return step.trajectory.duration_s if step.trajectory is not None else step.duration_s


class Planner:
    """Plans turns for one arm in one workcell with one configuration."""

    def __init__(
        self,
        chain: KinematicChain,
        workcell: Workcell,
        config: ArmConfig,
        home_q: np.ndarray | None = None,
        seed_q: np.ndarray | None = None,
    ) -> None:
        """`home_q` None: home is above the dispenser at carrying height (out of the camera's view of
        the board, and the turn starts there); `seed_q` picks the IK branch of that home."""
        self.chain = chain
        self.workcell = workcell
        self.config = config
        self.limits = config.limits(chain.dof)
        self._ik_cache: dict[tuple, tuple[np.ndarray, float]] = {}
        if home_q is None:
            seed = chain.clamp(np.zeros(chain.dof)) if seed_q is None else np.asarray(seed_q, dtype=float)
            home_q, _ = self.solve(self._above_pick(), seed)
        self.home_q = np.asarray(home_q, dtype=float)

    @property
    def columns(self) -> int:
        return len(self.workcell.drops)

    def carry_height_m(self, drop: ToolPose) -> float:
        """Height of the disc's centre while carried: clear of the board top and of the approach."""
        return max(
            drop.position_m[2] + self.config.approach_m,
            self.workcell.board.top_m + self.workcell.disc_radius_m + self.config.clearance_m,
        )

    def _above_pick(self) -> ToolPose:
        """Over the dispenser, high enough to carry a disc over any column."""
        pick = self.workcell.pick
        carry_z = max(self.carry_height_m(drop) for drop in self.workcell.drops)
        return pick.at_height(max(pick.position_m[2] + self.config.approach_m, carry_z))

    def solve(self, pose: ToolPose, seed: np.ndarray) -> tuple[np.ndarray, float]:
        """Joint values for a tool pose (raises UnreachableError) and the remaining position error."""
        key = (tuple(np.round(pose.position_m, 6)), round(pose.yaw_rad, 6), tuple(np.round(seed, 4)))
        if key not in self._ik_cache:
            # A disc looks the same turned half a turn: take the yaw that keeps the wrist nearest straight.
            x, y, _ = pose.position_m
            yaw = pose.yaw_rad + math.pi * round((math.atan2(y, x) - pose.yaw_rad) / math.pi)
            target = ToolPose(pose.position_m, yaw).matrix()
            result = self.chain.inverse(target, seed=seed, tolerance_m=2e-5)
            self._ik_cache[key] = (result.q, result.position_error_m)
        return self._ik_cache[key]

    def clearance_violation_m(self, q: np.ndarray) -> float:
        """How deep the held disc or a link reaches into the board at `q` (0 when clear)."""
        frames = self.chain.joint_frames(q)
        tool = frames[-1][:3, 3]
        links = np.array([frame[:3, 3] for frame in frames[:-1]])
        disc_depth = self.workcell.disc_radius_m - float(self.workcell.board.distance(tool)[0])
        link_depth = LINK_RADIUS_M - float(self.workcell.board.distance(links).min())
        return max(disc_depth, link_depth, 0.0)

    def _safe_legs(self, start: np.ndarray, end: np.ndarray, depth: int = 0) -> list[np.ndarray]:
        """Waypoints after `start` up to `end`, split over raised midpoints where a leg hits the board."""
        fractions = np.linspace(0.0, 1.0, CHECK_SAMPLES_PER_LEG)
        if all(self.clearance_violation_m(start + f * (end - start)) <= 0 for f in fractions):
            return [end]
        if depth >= MAX_SPLITS:
            raise PlanningError(
                "every path found between two waypoints cuts through the board; raise clearance_mm "
                "in the arm settings or check the drop poses"
            )
        a, b = self.chain.forward(start), self.chain.forward(end)
        middle = (a[:3, 3] + b[:3, 3]) / 2
        middle[2] = max(a[2, 3], b[2, 3]) + SPLIT_RAISE_M
        yaw = math.atan2(a[1, 0] + b[1, 0], a[0, 0] + b[0, 0])
        mid_q, _ = self.solve(ToolPose(tuple(middle), yaw), (start + end) / 2)
        return self._safe_legs(start, mid_q, depth + 1) + self._safe_legs(mid_q, end, depth + 1)

    def _move(self, label: str, start: np.ndarray, end: np.ndarray) -> PlanStep:
        waypoints = [start, *self._safe_legs(start, end)]
        return PlanStep(
            "move",
            label,
            JointTrajectory(
                tuple(
                    plan_segment(a, b, self.limits, self.config.profile)
                    for a, b in zip(waypoints, waypoints[1:], strict=False)
                )
            ),
        )

    def plan(self, column: int, start_q: np.ndarray | None = None) -> TurnPlan:
        """The motions that take a disc from the dispenser into `column` (0-based) and go home.

        Raises ValueError for a column outside the board, UnreachableError when a pose is out of
        reach, PlanningError when no path clears the board.
        """
        if not 0 <= column < self.columns:
            raise ValueError(f"column {column + 1} is not on the board: use 1..{self.columns}")
        start = self.home_q if start_q is None else np.asarray(start_q, dtype=float)
        pick = self.workcell.pick
        drop = self.workcell.drops[column]
        above_pick = self._above_pick()
        above_drop = drop.at_height(self.carry_height_m(drop))
        errors = []

        def solve(pose: ToolPose, seed: np.ndarray) -> np.ndarray:
            q, error = self.solve(pose, seed)
            errors.append(error)
            return q

        q_above_pick = solve(above_pick, start)
        q_pick = solve(pick, q_above_pick)
        q_above_drop = solve(above_drop, q_above_pick)
        q_drop = solve(drop, q_above_drop)
        turn = (
            self._move("to dispenser", start, q_above_pick),
            *self.pick_steps(q_above_pick, q_pick),
            self._move(f"over column {column + 1}", q_above_pick, q_above_drop),
            self._move("descend", q_above_drop, q_drop),
            PlanStep("release", "release", duration_s=self.config.release_settle_s),
            self._move("retreat", q_drop, q_above_drop),
        )
        home = (self._move("home", q_above_drop, self.home_q),)
        return TurnPlan(column, turn, home, max(errors))

    def search_pick_steps(self, q_above_pick: np.ndarray, across_m: float, down_m: float) -> tuple[PlanStep, ...]:
        """The pick steps `across_m` beside the pick pose across the jaws and `down_m` lower, straight down and up."""
        pick, above = self.workcell.pick, self._above_pick()
        across = across_m * np.array([-math.sin(pick.yaw_rad), math.cos(pick.yaw_rad), 0.0])
        q_above, _ = self.solve(ToolPose(tuple(np.add(above.position_m, across)), pick.yaw_rad), q_above_pick)
        q_pick, _ = self.solve(ToolPose(tuple(np.add(pick.position_m, across - (0, 0, down_m))), pick.yaw_rad), q_above)
        return (
            self._move("beside the pick", q_above_pick, q_above),
            *self.pick_steps(q_above, q_pick),
            self._move("back over the dispenser", q_above, q_above_pick),
        )

    def pick_steps(self, q_above_pick: np.ndarray, q_pick: np.ndarray) -> tuple[PlanStep, ...]:
        """From above the dispenser down to the disc, grip, and back up (the steps a missed pick repeats)."""
        return (
            self._move("down to disc", q_above_pick, q_pick),
            PlanStep("grip", "grip", duration_s=self.config.grip_settle_s),
            self._move("lift", q_pick, q_above_pick),
        )


@dataclass(frozen=True)
class ArmTurnResult:
    """What one robot turn took: the column, the arm's time from leaving home to the end of the
    retreat, the time to get home again, whether the grip held a disc, the plan's IK error, and the
    picks that came up empty before the one that held."""

    column: int
    arm_s: float
    home_s: float
    gripped: bool
    ik_error_m: float
    picks_missed: int = 0


def run_steps(arm: Arm, steps: tuple[PlanStep, ...]) -> bool:
    """Play steps on `arm`; returns whether every grip held a disc (False stops before carrying it)."""
    for step in steps:
        if step.kind == "move":
            arm.follow(step.trajectory)
        elif step.kind == "grip":
            if not arm.grip():
                log.warning("the grip at the dispenser holds no disc")
                return False
            arm.wait(step.duration_s)
        elif step.kind == "release":
            arm.release()
            arm.wait(step.duration_s)
        else:
            arm.wait(step.duration_s)
    return True


def _is_holding(arm: Arm) -> bool:
    """The gripper's sense (a driver that cannot sense reports what it was told: the camera sees the rest)."""
    return arm.status().gripping


def _pick(arm: Arm, planner: Planner, first: tuple[PlanStep, ...]) -> int:
    """Down to the dispenser's disc, grip, lift (`first`); again, beside and below it (`PICK_SEARCH_M`), while
    the lifted gripper holds nothing. Returns the picks that came up empty; PickMissedError after the last."""
    q_above_pick = first[0].trajectory.position(0.0)
    for missed, (across_m, down_m) in enumerate(PICK_SEARCH_M):
        steps = first if missed == 0 else planner.search_pick_steps(q_above_pick, across_m, down_m)
        grip = next(i for i, step in enumerate(steps) if step.kind == "grip")
        run_steps(arm, steps[:grip])
        gripped = arm.grip()
        arm.wait(steps[grip].duration_s)
        run_steps(arm, steps[grip + 1 :])
        if gripped and _is_holding(arm):
            return missed
        arm.release()
        log.warning("pick %d of %d at the dispenser came up without a disc", missed + 1, PICK_ATTEMPTS)
    raise PickMissedError(
        f"the gripper closed on nothing at the dispenser {PICK_ATTEMPTS} times: refill the dispenser or free its "
        "feed; if a disc stands in it, the arm misses it: check the arm's calibration (c4robot calibrate check), then resume"
    )


def play_column(arm: Arm, planner: Planner, column: int, go_home: bool = True) -> ArmTurnResult:
    """Pick a disc and drop it into `column` (0-based), retreat, and (by default) go home.

    A pick that holds nothing is tried again (PickMissedError after `PICK_ATTEMPTS`); a disc lost on the
    way is DiscLostError, raised with the arm home and its jaws open. Raises ValueError for a bad column,
    UnreachableError / PlanningError when no safe motion exists, and the driver's OSError family for
    link faults.
    """
    plan = planner.plan(column, arm.joint_state())
    started_s = arm.now_s()
    steps = plan.turn_steps
    grip = next(i for i, step in enumerate(steps) if step.kind == "grip")
    release = next(i for i, step in enumerate(steps) if step.kind == "release")
    run_steps(arm, steps[: grip - 1])
    missed = _pick(arm, planner, steps[grip - 1 : grip + 2])
    run_steps(arm, steps[grip + 2 : release])
    if not _is_holding(arm):
        arm.release()
        run_steps(arm, steps[release + 1 :] + plan.home_steps)
        raise DiscLostError(column)
    run_steps(arm, steps[release:])
    arm_s = arm.now_s() - started_s
    home_started_s = arm.now_s()
    if go_home:
        run_steps(arm, plan.home_steps)
    return ArmTurnResult(column, arm_s, arm.now_s() - home_started_s, True, plan.ik_error_m, missed)
