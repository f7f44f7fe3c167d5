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
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

import numpy as np
import pybullet as p

from sim import camera
from sim.arm import DISC_IN_TOOL, SimArm
from sim.arm_station import ArmStation
from sim.board import Board
from sim.config import RGBA, BoardPose, CameraConfig, WorldConfig
from sim.discs import Discs
from sim.person import careless_drop

log = logging.getLogger(__name__)

TABLE_COLOUR = (0.62, 0.48, 0.33, 1.0)
SLOT_ENTRY_CLEARANCE_M = 0.006  # between the released disc's rim and the funnel's top


class Actor(Protocol):
    """Something that acts in the world every physics step (`sim.person.Person`, `sim.upsets.Knock`)."""

    def act(self, world: World) -> bool:
        """Act after a physics step; False when done (the world then forgets it)."""


class World(ArmStation):
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
        self.actors: list[Actor] = []  # things that act every physics step: a person's hand, a knock
        self._step_listeners: list[Callable[[float], None]] = []
        self._camera = config.camera
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
        self.discs = Discs(c, self.config.board, self.config.discs, physics)
        self.arm: SimArm | None = None
        if self.config.arm is not None:
            self._build_arm_and_dispenser()

    def _box(self, centre: tuple[float, float, float], half_extents: tuple[float, float, float], colour: RGBA) -> int:
        collision = p.createCollisionShape(p.GEOM_BOX, halfExtents=half_extents, physicsClientId=self.client)
        visual = p.createVisualShape(
            p.GEOM_BOX, halfExtents=half_extents, rgbaColor=colour, physicsClientId=self.client
        )
        return p.createMultiBody(0.0, collision, visual, centre, physicsClientId=self.client)

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
        for actor in list(self.actors):
            if not actor.act(self):
                self.actors.remove(actor)
        if self._grip is not None and self._grip.check_slip() is not None:
            log.info("a disc slipped out of the arm's grip")
        self.discs.update_settling(self.time_step_s, self.held_disc)
        for listener in self._step_listeners:
            listener(self.time_s)

    def add_step_listener(self, listener: Callable[[float], None]) -> None:
        """Call `listener(time_s)` after every physics step (a film of the table, `sim.video`)."""
        self._step_listeners.append(listener)

    def remove_step_listener(self, listener: Callable[[float], None]) -> None:
        self._step_listeners.remove(listener)

    def is_settled(self) -> bool:
        """Whether every disc that is not held has come to rest."""
        return self.discs.are_settled(self.held_disc)

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

    def disc_player(self, body: int) -> int:
        return self.discs.player(body)

    def disc_ids(self) -> list[int]:
        return list(self.discs)

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
        return self.discs.spawn(player, position, orientation, is_frozen=False)

    def human_drop(self, column: int, player: int) -> int:
        """The simulated person drops a disc of `player` into `column` (`sim.person`); waits until it rests."""
        return careless_drop(self, column, player)

    def board_state(self) -> np.ndarray:
        """(rows, cols) int8 grid, row 0 at the bottom, 0 empty, 1/2 the player of the disc resting in each cell."""
        g = self.config.board
        grid = np.zeros((g.rows, g.columns), dtype=np.int8)
        for body in self.discs:
            cell = self.disc_cell(body) if body != self.held_disc else None
            if cell is not None:
                grid[cell] = self.discs.player(body)
        return grid

    def disc_pose(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        """(xyz, quaternion xyzw) of a disc in the world."""
        return self.discs.pose(body)

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
        if body not in self.discs:
            raise ValueError(f"body {body} is not a disc of this world")
        if body == self.held_disc:
            self._grip.open()
        if self.arm is not None and body == self.dispenser.waiting:
            self.dispenser.waiting = None
        self.discs.remove(body)

    def clear_board(self) -> None:
        """Empty the board (the release bar of a real board): every disc except the held and the dispenser's goes."""
        kept = (self.held_disc, self.dispenser.waiting if self.arm is not None else None)
        for body in [b for b in self.discs if b not in kept]:
            self.remove_disc(body)

    def set_board_pose(self, pose: BoardPose) -> None:
        """Move the board on the table; discs resting in it move with it."""
        carried = []
        for body in self.discs:
            if body != self.held_disc and self.disc_cell(body) is not None:
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
        self.discs.set_colours(self.config.discs)

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

    # -- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        if self.client >= 0 and p.isConnected(self.client):
            p.disconnect(self.client)

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
