"""The simulated table: a Connect-4 board, discs, a dispenser, a desktop arm and a webcam, in PyBullet.

`World` is the one object the rest of the project talks to. Discs are real rigid bodies: dropped
above a slot they fall, are guided by the funnel and the dividers, and come to rest on the disc
below; a disc that has stayed still for a moment is frozen in place (made static), which keeps
stacks stable and the simulation fast. The board state is read back from where the discs are.
Deterministic for a given seed and call sequence; headless (DIRECT) unless `gui=True`.
"""

from __future__ import annotations

import logging
import math
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pybullet as p

from sim import camera
from sim.arm import DISC_IN_TOOL, JointLimit, SimArm
from sim.board import Board
from sim.config import RGBA, BoardPose, CameraConfig, WorldConfig

log = logging.getLogger(__name__)

TABLE_COLOUR = (0.62, 0.48, 0.33, 1.0)
PEDESTAL_COLOUR = (0.25, 0.25, 0.27, 1.0)
DISPENSER_COLOUR = (0.35, 0.35, 0.38, 1.0)
SLOT_ENTRY_CLEARANCE_M = 0.006  # between the released disc's rim and the funnel's top
GRIP_RADIUS_M = 0.012  # a disc centre this close to the tool can be gripped
DISPENSER_LEFT_M = 0.03  # the held disc is this far from the dispenser before the world refills it
HUMAN_PAUSE_S = (0.6, 1.6)
HUMAN_OFFSET_M = (0.004, 0.0015)
HUMAN_TILT_RAD = math.radians(4.0)


@dataclass
class _Disc:
    player: int
    is_frozen: bool = False
    still_s: float = 0.0


class World:
    """A simulated Connect-4 table; use as a context manager or call `close()`."""

    def __init__(self, config: WorldConfig = WorldConfig(), seed: int = 0, gui: bool = False) -> None:
        self.config = config
        self.seed = seed
        self.gui = gui
        self.rng = np.random.default_rng(seed)
        self._camera_rng = np.random.default_rng([seed, 1])
        if (
            gui
            and sys.platform.startswith("linux")
            and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
        ):
            raise OSError("no display for the PyBullet window (DISPLAY is not set): run headless, without --gui")
        self.client = p.connect(p.GUI if gui else p.DIRECT)
        if self.client < 0:
            raise OSError("could not open a PyBullet GUI window: run headless (gui=False) or check the display")
        self.time_s = 0.0
        self._camera = config.camera
        self._discs: dict[int, _Disc] = {}
        self._held: int | None = None
        self._dispenser_disc: int | None = None
        self._dispenser_player = 1
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    # -- construction -------------------------------------------------------------------------

    def _build(self) -> None:
        c, physics = self.client, self.config.physics
        p.resetSimulation(physicsClientId=c)
        p.setGravity(0.0, 0.0, -9.81, physicsClientId=c)
        p.setPhysicsEngineParameter(
            fixedTimeStep=physics.time_step_s,
            numSolverIterations=physics.solver_iterations,
            deterministicOverlappingPairs=1,
            physicsClientId=c,
        )
        if self.gui:
            p.configureDebugVisualizer(p.COV_ENABLE_GUI, 0, physicsClientId=c)
            p.resetDebugVisualizerCamera(0.7, 20.0, -25.0, [0.0, 0.0, 0.15], physicsClientId=c)
        self._box((0.0, 0.05, -0.015), (0.5, 0.4, 0.015), TABLE_COLOUR)
        self.board = Board(c, self.config.board, self.config.board_pose)
        geometry, discs = self.config.board, self.config.discs
        self._disc_shape = p.createCollisionShape(
            p.GEOM_CYLINDER, radius=geometry.disc_diameter_m / 2, height=geometry.disc_thickness_m, physicsClientId=c
        )
        self._disc_visuals = [self._disc_visual(colour) for colour in discs.colours]
        self.arm: SimArm | None = None
        if self.config.arm is not None:
            self._build_arm_and_dispenser()

    def _box(self, centre: tuple[float, float, float], half_extents: tuple[float, float, float], colour: RGBA) -> int:
        collision = p.createCollisionShape(p.GEOM_BOX, halfExtents=half_extents, physicsClientId=self.client)
        visual = p.createVisualShape(
            p.GEOM_BOX, halfExtents=half_extents, rgbaColor=colour, physicsClientId=self.client
        )
        return p.createMultiBody(0.0, collision, visual, centre, physicsClientId=self.client)

    def _disc_visual(self, colour: RGBA) -> int:
        g = self.config.board
        return p.createVisualShape(
            p.GEOM_CYLINDER,
            radius=g.disc_diameter_m / 2,
            length=g.disc_thickness_m,
            rgbaColor=colour,
            specularColor=(0.3, 0.3, 0.3),
            physicsClientId=self.client,
        )

    def _build_arm_and_dispenser(self) -> None:
        mount, g = self.config.arm, self.config.board
        x, y = mount.base_xy_m
        if mount.pedestal_height_m > 0:
            self._box((x, y, mount.pedestal_height_m / 2), (0.065, 0.065, mount.pedestal_height_m / 2), PEDESTAL_COLOUR)
        orientation = p.getQuaternionFromEuler((0.0, 0.0, mount.base_yaw_rad))
        self.arm = SimArm(self.client, mount.urdf_path, (x, y, mount.pedestal_height_m), orientation)
        # The dispenser: a post the disc stands on, with two cheeks holding its lower half upright.
        dx, dy = mount.dispenser_xy_m
        radius = g.disc_diameter_m / 2
        rest_z = mount.dispenser_height_m - radius
        self._box((dx, dy, rest_z / 2), (0.012, 0.012, rest_z / 2), DISPENSER_COLOUR)
        for side in (-1, 1):
            cheek_y = dy + side * (g.slot_gap_m / 2 + 0.0015)
            self._box((dx, cheek_y, rest_z + radius / 2), (0.018, 0.0015, radius / 2), DISPENSER_COLOUR)
        self._refill_dispenser()

    # -- time ---------------------------------------------------------------------------------

    @property
    def time_step_s(self) -> float:
        return self.config.physics.time_step_s

    def step(self, seconds: float) -> None:
        """Run physics for this much simulated time (whole time steps)."""
        for _ in range(max(0, round(seconds / self.time_step_s))):
            self._step_once()

    def _step_once(self) -> None:
        p.stepSimulation(physicsClientId=self.client)
        self.time_s += self.time_step_s
        self._update_settling()

    def _update_settling(self) -> None:
        physics = self.config.physics
        for body, disc in self._discs.items():
            if disc.is_frozen or body == self._held:
                continue
            velocity, spin = p.getBaseVelocity(body, physicsClientId=self.client)
            is_still = (
                math.hypot(*velocity) < physics.settle_speed_m_s and math.hypot(*spin) < physics.settle_spin_rad_s
            )
            disc.still_s = disc.still_s + self.time_step_s if is_still else 0.0
            if disc.still_s >= physics.settle_time_s and physics.freeze_settled:
                self._freeze(body)

    def _freeze(self, body: int) -> None:
        p.changeDynamics(body, -1, mass=0.0, physicsClientId=self.client)
        p.resetBaseVelocity(body, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), physicsClientId=self.client)
        self._discs[body].is_frozen = True

    def _unfreeze(self, body: int) -> None:
        p.changeDynamics(body, -1, mass=self.config.discs.mass_kg, physicsClientId=self.client)
        disc = self._discs[body]
        disc.is_frozen, disc.still_s = False, 0.0

    def is_settled(self) -> bool:
        """Whether every disc that is not held has come to rest."""
        settle_time_s = self.config.physics.settle_time_s
        return all(d.is_frozen or d.still_s >= settle_time_s for b, d in self._discs.items() if b != self._held)

    def wait_until_settled(self, timeout_s: float = 5.0) -> bool:
        """Run physics until every free disc rests; False when some disc still moves after `timeout_s`."""
        end_s = self.time_s + timeout_s
        while not self.is_settled():
            if self.time_s >= end_s:
                log.warning("discs still moving after %.1f s of simulated time", timeout_s)
                return False
            self._step_once()
        return True

    # -- discs and the board ------------------------------------------------------------------

    def _check_player(self, player: int) -> None:
        if player not in (1, 2):
            raise ValueError(f"player {player}: use 1 or 2")

    def _check_column(self, column: int) -> None:
        if not 0 <= column < self.config.board.columns:
            raise ValueError(f"column {column} is off the board: use 0..{self.config.board.columns - 1}")

    def _spawn_disc(self, player: int, position: np.ndarray, orientation: tuple[float, ...], is_frozen: bool) -> int:
        discs = self.config.discs
        body = p.createMultiBody(
            0.0 if is_frozen else discs.mass_kg,
            self._disc_shape,
            self._disc_visuals[player - 1],
            list(position),
            list(orientation),
            physicsClientId=self.client,
        )
        p.changeDynamics(
            body,
            -1,
            lateralFriction=discs.friction,
            restitution=discs.restitution,
            rollingFriction=0.0,
            spinningFriction=0.0,
            physicsClientId=self.client,
        )
        self._discs[body] = _Disc(player, is_frozen)
        if self.arm is not None:
            self.arm.ignore_collisions_with(body)
        return body

    def disc_player(self, body: int) -> int:
        return self._discs[body].player

    def disc_ids(self) -> list[int]:
        return list(self._discs)

    def slot_entry_pose(self, column: int) -> tuple[np.ndarray, float]:
        """(world xyz, yaw) where a held disc is released over `column`: centred above the funnel.

        The yaw is the board's: a tool yaw (of its x axis about world z) equal to it, or that plus pi,
        holds the disc's face parallel to the front plate.
        """
        self._check_column(column)
        g = self.config.board
        local = np.array([g.column_x_m(column), 0.0, g.funnel_top_m + g.disc_diameter_m / 2 + SLOT_ENTRY_CLEARANCE_M])
        return self.board.to_world(local), self.board.pose.yaw_rad

    def drop_disc(
        self,
        column: int,
        player: int,
        offset_m: tuple[float, float] = (0.0, 0.0),
        tilt_rad: float = 0.0,
        yaw_rad: float = 0.0,
    ) -> int:
        """Put a free disc of `player` at the slot entry of `column` and return its body id; it falls as physics
        runs (call `wait_until_settled`). `offset_m` shifts it along the board's x and y, `tilt_rad` leans it
        about the board's x axis (positive: its top towards the front), `yaw_rad` turns it about the vertical."""
        self._check_column(column)
        self._check_player(player)
        entry, yaw = self.slot_entry_pose(column)
        c, s = math.cos(yaw), math.sin(yaw)
        position = entry + np.array([c * offset_m[0] - s * offset_m[1], s * offset_m[0] + c * offset_m[1], 0.0])
        turn = p.getQuaternionFromEuler((tilt_rad, 0.0, yaw + yaw_rad))
        _, orientation = p.multiplyTransforms((0, 0, 0), turn, (0, 0, 0), DISC_IN_TOOL)
        return self._spawn_disc(player, position, orientation, is_frozen=False)

    def human_drop(self, column: int, player: int) -> int:
        """The simulated person: a hand-like pause, then a slightly careless drop into `column`; waits until it rests."""
        self._check_column(column)
        self._check_player(player)
        self.step(float(self.rng.uniform(*HUMAN_PAUSE_S)))
        offset = (
            float(self.rng.uniform(-1, 1) * HUMAN_OFFSET_M[0]),
            float(self.rng.uniform(-1, 1) * HUMAN_OFFSET_M[1]),
        )
        tilt = float(self.rng.uniform(-1, 1) * HUMAN_TILT_RAD)
        body = self.drop_disc(column, player, offset, tilt)
        self.wait_until_settled()
        return body

    def board_state(self) -> np.ndarray:
        """(rows, cols) int8 grid, row 0 at the bottom, 0 empty, 1/2 the player of the disc resting in each cell."""
        g = self.config.board
        grid = np.zeros((g.rows, g.columns), dtype=np.int8)
        for body, disc in self._discs.items():
            if body == self._held:
                continue
            position, _ = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
            cell = self.board.cell_of(np.array(position))
            if cell is not None:
                grid[cell] = disc.player
        return grid

    def disc_pose(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        """(xyz, quaternion xyzw) of a disc in the world."""
        position, orientation = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
        return np.array(position), np.array(orientation)

    def disc_cell(self, body: int) -> tuple[int, int] | None:
        """(row, column) of the cell a disc rests in, or None."""
        position, _ = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
        return self.board.cell_of(np.array(position))

    def is_disc_on_board(self, body: int) -> bool:
        """Whether a disc is within the board's slots or funnel (else it fell out)."""
        position, _ = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
        return self.board.is_inside(np.array(position))

    def remove_disc(self, body: int) -> None:
        """Take a disc out of the world (a person removing it, or emptying the board)."""
        if body not in self._discs:
            raise ValueError(f"body {body} is not a disc of this world")
        if body == self._held:
            self._held = None
        if body == self._dispenser_disc:
            self._dispenser_disc = None
        p.removeBody(body, physicsClientId=self.client)
        del self._discs[body]

    def clear_board(self) -> None:
        """Empty the board (the release bar of a real board): every disc except the held and the dispenser's goes."""
        for body in [b for b in self._discs if b not in (self._held, self._dispenser_disc)]:
            self.remove_disc(body)

    def set_board_pose(self, pose: BoardPose) -> None:
        """Move the board on the table; discs resting in it move with it."""
        carried = []
        for body in self._discs:
            if body != self._held and self.disc_cell(body) is not None:
                position, orientation = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
                carried.append((body, self.board.to_board(np.array(position)), orientation))
        old_yaw = self.board.pose.yaw_rad
        self.board.set_pose(pose)
        turn = p.getQuaternionFromEuler((0.0, 0.0, pose.yaw_rad - old_yaw))
        for body, local, orientation in carried:
            _, new_orientation = p.multiplyTransforms((0, 0, 0), turn, (0, 0, 0), orientation)
            p.resetBasePositionAndOrientation(
                body, list(self.board.to_world(local)), new_orientation, physicsClientId=self.client
            )
        self.config = replace(self.config, board_pose=pose)

    def set_disc_colours(self, colours: tuple[RGBA, RGBA]) -> None:
        """Recolour the players' discs (RGBA 0..1), those in the world included."""
        self.config = replace(self.config, discs=replace(self.config.discs, colours=tuple(colours)))
        self._disc_visuals = [self._disc_visual(colour) for colour in self.config.discs.colours]
        for body, disc in self._discs.items():
            p.changeVisualShape(
                body, -1, rgbaColor=self.config.discs.colours[disc.player - 1], physicsClientId=self.client
            )

    # -- camera -------------------------------------------------------------------------------

    @property
    def camera(self) -> CameraConfig:
        return self._camera

    def set_camera(self, config: CameraConfig) -> None:
        """Change the webcam's pose, optics, light or noise for the following frames."""
        self._camera = config

    def render_camera(self) -> np.ndarray:
        """The webcam's current frame: (height, width, 3) uint8 BGR."""
        return camera.render(self.client, self._camera, self._camera_rng, use_opengl=self.gui)

    def camera_intrinsics(self) -> np.ndarray:
        return camera.intrinsics(self._camera)

    def camera_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(3x3 rotation world-to-camera with rows x right, y down, z forward; camera position in the world)."""
        return camera.camera_axes(self._camera), np.array(self._camera.eye_m, float)

    def project_to_image(self, points_m: np.ndarray) -> np.ndarray:
        """Pixel positions (..., 2) of world points (..., 3) in the webcam's frames."""
        return camera.project(points_m, self._camera)

    def hole_centres_px(self) -> np.ndarray:
        """(rows, cols, 2) image positions (x, y) of the hole centres on the front plate's face, row 0 at the bottom."""
        g = self.config.board
        return self.project_to_image(self.board.to_world(g.cell_centres_m(y_m=g.front_face_y_m)))

    def disc_centres_px(self) -> np.ndarray:
        """(rows, cols, 2) image positions of the centres of discs resting in each cell (behind the holes)."""
        return self.project_to_image(self.board.to_world(self.config.board.cell_centres_m()))

    # -- the arm ------------------------------------------------------------------------------

    def _require_arm(self) -> SimArm:
        if self.arm is None:
            raise RuntimeError("this world has no arm: build it with WorldConfig(arm=ArmMount(...))")
        return self.arm

    @property
    def arm_urdf_path(self) -> Path:
        return self._require_arm().urdf_path

    def arm_joint_names(self) -> list[str]:
        return self._require_arm().joint_names()

    def arm_joint_limits(self) -> list[JointLimit]:
        return self._require_arm().joint_limits()

    def arm_base_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(xyz, quaternion xyzw) of the URDF's base link in the world."""
        return self._require_arm().base_pose()

    def arm_joints(self) -> np.ndarray:
        return self._require_arm().joints()

    def set_arm_joints(self, q: list[float] | np.ndarray) -> None:
        """Put the arm at joint positions `q` at once (in `arm_joint_names()` order); a held disc follows."""
        arm = self._require_arm()
        arm.set_joints(q)
        if self._held is not None:
            position, orientation = arm.held_disc_pose()
            p.resetBasePositionAndOrientation(
                self._held, list(position), list(orientation), physicsClientId=self.client
            )
        if self._dispenser_disc is None:
            self._refill_dispenser()

    def tool_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(xyz, quaternion xyzw) of the tool frame, the centre of a held disc."""
        return self._require_arm().tool_pose()

    @property
    def held_disc(self) -> int | None:
        return self._held

    def grip(self) -> bool:
        """Close the gripper; True when it holds a disc (one whose centre is within 12 mm of the tool)."""
        arm = self._require_arm()
        arm.set_fingers_open(False)
        if self._held is not None:
            return True
        tool, _ = arm.tool_pose()
        nearest, nearest_m = None, GRIP_RADIUS_M
        for body in self._discs:
            position, _ = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
            distance = float(np.linalg.norm(np.array(position) - tool))
            if distance <= nearest_m:
                nearest, nearest_m = body, distance
        if nearest is None:
            return False
        self._freeze(nearest)
        self._held = nearest
        if nearest == self._dispenser_disc:
            self._dispenser_disc = None
        position, orientation = arm.held_disc_pose()
        p.resetBasePositionAndOrientation(nearest, list(position), list(orientation), physicsClientId=self.client)
        return True

    def release(self) -> None:
        """Open the gripper; a held disc falls from where it is."""
        self._require_arm().set_fingers_open(True)
        if self._held is not None:
            body, self._held = self._held, None
            self._unfreeze(body)

    def dispenser_pick_pose(self) -> tuple[np.ndarray, float]:
        """(world xyz, yaw) of the disc waiting in the dispenser: the tool pose that grips it."""
        self._require_arm()
        mount = self.config.arm
        x, y = mount.dispenser_xy_m
        return np.array([x, y, mount.dispenser_height_m]), 0.0

    @property
    def dispenser_player(self) -> int:
        return self._dispenser_player

    def set_dispenser_player(self, player: int) -> None:
        """Whose discs the dispenser gives (the robot's); the waiting disc is swapped for one of that colour."""
        self._check_player(player)
        self._dispenser_player = player
        if self._dispenser_disc is not None:
            self.remove_disc(self._dispenser_disc)
            self._refill_dispenser()

    def _refill_dispenser(self) -> None:
        if self._held is not None:
            tool, _ = self.arm.tool_pose()
            if np.linalg.norm(tool - self.dispenser_pick_pose()[0]) < DISPENSER_LEFT_M:
                return
        position, _ = self.dispenser_pick_pose()
        self._dispenser_disc = self._spawn_disc(self.dispenser_player, position, DISC_IN_TOOL, is_frozen=True)

    # -- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        if self.client >= 0 and p.isConnected(self.client):
            p.disconnect(self.client)

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
