"""The physical Connect-4 board: static bodies that guide falling discs into their cells.

Parts, in the board frame (x along the columns, y front to back, z up; see `BoardGeometry`):
the holed front and back plates (concave triangle meshes from `board_mesh`), the base that
the discs land on, feet front and back, a divider between every two columns and an outer wall on
each side, and a funnel on top (two sloping lips and the dividers' fins) that catches a disc dropped
a few millimetres off or tilted. `Board.cell_of` maps a disc's position back to its cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pybullet as p

from sim.board_mesh import COLLISION_HOLE_SEGMENTS, VISUAL_HOLE_SEGMENTS, plate_obj
from sim.config import RGBA, BoardGeometry, BoardPose

BOARD_BLUE = (0.08, 0.22, 0.72, 1.0)
FUNNEL_LIP_THICKNESS_M = 0.002
FOOT_HEIGHT_M = 0.012


@dataclass(frozen=True)
class _Box:
    """A box part: centre and half extents in the board frame, turned about x by `tilt_rad`."""

    centre: tuple[float, float, float]
    half_extents: tuple[float, float, float]
    tilt_rad: float = 0.0


def _box_parts(g: BoardGeometry) -> list[_Box]:
    half_gap = g.slot_gap_m / 2
    half_plate = g.plate_width_m / 2
    half_grid = g.grid_width_m / 2
    half_wall = g.divider_thickness_m / 2
    slot_height = g.plate_top_m - g.base_height_m
    parts = [
        _Box((0.0, 0.0, g.base_height_m / 2), (half_plate, half_gap, g.base_height_m / 2)),
        _Box((0.0, 0.0, FOOT_HEIGHT_M / 2), (half_plate, g.base_depth_m / 2, FOOT_HEIGHT_M / 2)),
    ]
    # Dividers between the columns; the outer walls fill the plate's margin on both sides.
    for k in range(1, g.columns):
        x = -half_grid + k * g.column_pitch_m
        parts.append(_Box((x, 0.0, g.base_height_m + slot_height / 2), (half_wall, half_gap, slot_height / 2)))
    outer_half_width = (g.side_margin_m + half_wall) / 2
    for side in (-1, 1):
        x = side * (half_plate - outer_half_width)
        parts.append(_Box((x, 0.0, g.base_height_m + slot_height / 2), (outer_half_width, half_gap, slot_height / 2)))
    # The funnel: fins continuing every wall above the plates, and two lips sloping outwards.
    fin_half_depth = half_gap + g.funnel_spread_m
    fin_z = g.plate_top_m + g.funnel_height_m / 2
    for k in range(g.columns + 1):
        x = -half_grid + k * g.column_pitch_m
        parts.append(_Box((x, 0.0, fin_z), (half_wall, fin_half_depth, g.funnel_height_m / 2)))
    lip_length = math.hypot(g.funnel_spread_m, g.funnel_height_m)
    lean = math.atan2(g.funnel_spread_m, g.funnel_height_m)
    for side in (-1, 1):  # -1 front, +1 back
        tilt = -side * lean
        normal_out = np.array([0.0, side * math.cos(lean), -math.sin(lean)])
        middle = np.array([0.0, side * (half_gap + g.funnel_spread_m / 2), fin_z])
        centre = middle + normal_out * FUNNEL_LIP_THICKNESS_M / 2
        parts.append(_Box(tuple(centre), (half_plate, FUNNEL_LIP_THICKNESS_M / 2, lip_length / 2), tilt))
    return parts


class Board:
    """The board's static bodies in one PyBullet client, and the board frame's pose on the table."""

    def __init__(self, client: int, geometry: BoardGeometry, pose: BoardPose, colour: RGBA = BOARD_BLUE) -> None:
        self.client = client
        self.colour = colour
        self.geometry = geometry
        self.pose = pose
        self._parts: list[tuple[int, np.ndarray, np.ndarray]] = []  # body, local position, local quaternion
        for box in _box_parts(geometry):
            collision = p.createCollisionShape(p.GEOM_BOX, halfExtents=box.half_extents, physicsClientId=client)
            visual = p.createVisualShape(
                p.GEOM_BOX, halfExtents=box.half_extents, rgbaColor=colour, physicsClientId=client
            )
            self._add_part(
                collision, visual, np.array(box.centre), np.array(p.getQuaternionFromEuler((box.tilt_rad, 0.0, 0.0)))
            )
        for is_front in (True, False):
            collision_mesh = str(plate_obj(geometry, is_front, COLLISION_HOLE_SEGMENTS))
            visual_mesh = str(plate_obj(geometry, is_front, VISUAL_HOLE_SEGMENTS))
            collision = p.createCollisionShape(
                p.GEOM_MESH, fileName=collision_mesh, flags=p.GEOM_FORCE_CONCAVE_TRIMESH, physicsClientId=client
            )
            visual = p.createVisualShape(p.GEOM_MESH, fileName=visual_mesh, rgbaColor=colour, physicsClientId=client)
            self._add_part(collision, visual, np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0]))
        self.set_pose(pose)

    def _add_part(self, collision: int, visual: int, position: np.ndarray, orientation: np.ndarray) -> None:
        body = p.createMultiBody(0.0, collision, visual, physicsClientId=self.client)
        self._parts.append((body, position, orientation))

    def remove(self) -> None:
        """Take the board's bodies out of the world (a board of another make takes its place)."""
        for body, _, _ in self._parts:
            p.removeBody(body, physicsClientId=self.client)
        self._parts = []

    @property
    def body_ids(self) -> list[int]:
        return [body for body, _, _ in self._parts]

    @property
    def orientation(self) -> tuple[float, float, float, float]:
        return p.getQuaternionFromEuler((0.0, 0.0, self.pose.yaw_rad))

    def set_pose(self, pose: BoardPose) -> None:
        """Move the whole board on the table (discs inside it are not moved)."""
        self.pose = pose
        origin = (pose.x_m, pose.y_m, 0.0)
        for body, position, orientation in self._parts:
            world_position, world_orientation = p.multiplyTransforms(origin, self.orientation, position, orientation)
            p.resetBasePositionAndOrientation(body, world_position, world_orientation, physicsClientId=self.client)

    def to_world(self, points_m: np.ndarray) -> np.ndarray:
        """Board-frame points (..., 3) in the world frame."""
        c, s = math.cos(self.pose.yaw_rad), math.sin(self.pose.yaw_rad)
        rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        return np.asarray(points_m, float) @ rotation.T + np.array([self.pose.x_m, self.pose.y_m, 0.0])

    def to_board(self, points_m: np.ndarray) -> np.ndarray:
        """World-frame points (..., 3) in the board frame."""
        c, s = math.cos(self.pose.yaw_rad), math.sin(self.pose.yaw_rad)
        rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        return (np.asarray(points_m, float) - np.array([self.pose.x_m, self.pose.y_m, 0.0])) @ rotation

    def cell_of(self, position_m: np.ndarray) -> tuple[int, int] | None:
        """(row, column) of a disc resting at this world position, or None when it is in no cell."""
        g = self.geometry
        x, y, z = self.to_board(position_m)
        if abs(y) > g.slot_gap_m / 2 or abs(x) > g.grid_width_m / 2:
            return None
        column = int((x + g.grid_width_m / 2) // g.column_pitch_m)
        row = int(round((z - g.base_height_m) / g.row_pitch_m - 0.5))
        if not (0 <= row < g.rows and 0 <= column < g.columns) or abs(z - g.row_z_m(row)) > 0.25 * g.row_pitch_m:
            return None
        return row, column

    def is_inside(self, position_m: np.ndarray) -> bool:
        """Whether a world position lies within the board's slots or funnel (a disc there is not out)."""
        g = self.geometry
        x, y, z = self.to_board(position_m)
        return (
            abs(x) <= g.plate_width_m / 2
            and abs(y) <= g.slot_gap_m / 2 + g.funnel_spread_m
            and 0 < z <= g.funnel_top_m + g.disc_diameter_m
        )
