"""The board's front and back plates as triangle meshes: a plate with one round hole per cell.

A real board is two holed grids with the discs standing between them, so the camera sees through
the empty holes. A plate is concave, so PyBullet cannot use its convex hull for collision; the world loads this mesh
with GEOM_FORCE_CONCAVE_TRIMESH on a static body. The mesh is generated from `BoardGeometry` in the
board frame (x along the columns, y towards the back, z up) and cached as an OBJ file per geometry.

Each cell is a rectangle (column pitch x row pitch) minus its hole; it is triangulated as a ring of
quads between the hole's circle and the rectangle's border, seen along rays from the hole's centre:

    +-----K-------+      C_i: circle point at angle i * 2pi / n
    |   .-'''-.   |      P_i: where the ray through C_i leaves the rectangle
    |  /  hole \\  |      K:   a rectangle corner between P_i and P_(i+1) joins the fan from C_i
    |  \\       / C_i--P_i
    |   '-...-'   |
    +-------------+
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
from pathlib import Path

import numpy as np

from sim.config import BoardGeometry

VISUAL_HOLE_SEGMENTS = 40
COLLISION_HOLE_SEGMENTS = 12  # discs are wider than the holes: a coarse hole collides the same, and faster


class _MeshBuilder:
    """Vertices shared by position, triangles as index triples."""

    def __init__(self) -> None:
        self.vertices: list[tuple[float, float, float]] = []
        self.index: dict[tuple[float, float, float], int] = {}
        self.faces: list[tuple[int, int, int]] = []

    def vertex(self, x: float, y: float, z: float) -> int:
        key = (round(x, 7), round(y, 7), round(z, 7))
        if key not in self.index:
            self.index[key] = len(self.vertices)
            self.vertices.append(key)
        return self.index[key]

    def triangle_2d(
        self, a: tuple[float, float], b: tuple[float, float], c: tuple[float, float], y_front: float, y_back: float
    ) -> None:
        """A triangle of the plate (x, z counter-clockwise seen from -y) on both faces (y_front < y_back)."""
        front = [self.vertex(p[0], y_front, p[1]) for p in (a, b, c)]
        back = [self.vertex(p[0], y_back, p[1]) for p in (a, c, b)]
        self.faces.append((front[0], front[1], front[2]))
        self.faces.append((back[0], back[1], back[2]))

    def quad_3d(self, corners: list[tuple[float, float, float]]) -> None:
        ids = [self.vertex(*p) for p in corners]
        self.faces.append((ids[0], ids[1], ids[2]))
        self.faces.append((ids[0], ids[2], ids[3]))


def _ray_to_rectangle(angle: float, half_w: float, half_h: float) -> tuple[float, float]:
    """Where a ray from the rectangle's centre leaves it."""
    dx, dz = math.cos(angle), math.sin(angle)
    scale = min(half_w / abs(dx) if abs(dx) > 1e-12 else math.inf, half_h / abs(dz) if abs(dz) > 1e-12 else math.inf)
    return dx * scale, dz * scale


def _cell_with_hole(
    mesh: _MeshBuilder,
    cx: float,
    cz: float,
    half_w: float,
    half_h: float,
    radius: float,
    y_front: float,
    y_back: float,
    segments: int,
) -> None:
    corner_angles = sorted(math.atan2(sz * half_h, sx * half_w) % (2 * math.pi) for sx in (-1, 1) for sz in (-1, 1))
    step = 2 * math.pi / segments
    for i in range(segments):
        a0, a1 = i * step, (i + 1) * step
        c0 = (cx + radius * math.cos(a0), cz + radius * math.sin(a0))
        c1 = (cx + radius * math.cos(a1), cz + radius * math.sin(a1))
        border = [_ray_to_rectangle(a0, half_w, half_h)]
        border += [
            (half_w * math.copysign(1, math.cos(k)), half_h * math.copysign(1, math.sin(k)))
            for k in corner_angles
            if a0 < k < a1
        ]
        border.append(_ray_to_rectangle(a1, half_w, half_h))
        points = [(cx + bx, cz + bz) for bx, bz in border]
        for p, q in zip(points, points[1:], strict=False):
            mesh.triangle_2d(c0, p, q, y_front, y_back)
        mesh.triangle_2d(c0, points[-1], c1, y_front, y_back)
        mesh.quad_3d([(c0[0], y_front, c0[1]), (c1[0], y_front, c1[1]), (c1[0], y_back, c1[1]), (c0[0], y_back, c0[1])])


def _rectangle(mesh: _MeshBuilder, x0: float, z0: float, x1: float, z1: float, y_front: float, y_back: float) -> None:
    mesh.triangle_2d((x0, z0), (x1, z0), (x1, z1), y_front, y_back)
    mesh.triangle_2d((x0, z0), (x1, z1), (x0, z1), y_front, y_back)


def plate_mesh(geometry: BoardGeometry, y_front: float, y_back: float, segments: int) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3) metres in the board frame, faces (m, 3) vertex indices) of a holed plate between
    the planes y = y_front and y = y_back (y_front < y_back), each hole a polygon of `segments` sides."""
    g = geometry
    mesh = _MeshBuilder()
    half_plate, half_grid = g.plate_width_m / 2, g.grid_width_m / 2
    grid_bottom, grid_top = g.base_height_m, g.base_height_m + g.rows * g.row_pitch_m
    for row in range(g.rows):
        for column in range(g.columns):
            _cell_with_hole(
                mesh,
                g.column_x_m(column),
                g.row_z_m(row),
                g.column_pitch_m / 2,
                g.row_pitch_m / 2,
                g.hole_diameter_m / 2,
                y_front,
                y_back,
                segments,
            )
    _rectangle(mesh, -half_plate, 0.0, -half_grid, g.plate_top_m, y_front, y_back)
    _rectangle(mesh, half_grid, 0.0, half_plate, g.plate_top_m, y_front, y_back)
    _rectangle(mesh, -half_grid, 0.0, half_grid, grid_bottom, y_front, y_back)
    _rectangle(mesh, -half_grid, grid_top, half_grid, g.plate_top_m, y_front, y_back)
    outline = [(-half_plate, 0.0), (half_plate, 0.0), (half_plate, g.plate_top_m), (-half_plate, g.plate_top_m)]
    for (xa, za), (xb, zb) in zip(outline, outline[1:] + outline[:1], strict=False):
        mesh.quad_3d([(xa, y_front, za), (xa, y_back, za), (xb, y_back, zb), (xb, y_front, zb)])
    return np.array(mesh.vertices), np.array(mesh.faces, dtype=np.int64)


def _obj_text(vertices: np.ndarray, faces: np.ndarray) -> str:
    lines = ["# Connect-4 plate with holes, generated by sim/board_mesh.py"]
    lines += [f"v {x:.7f} {y:.7f} {z:.7f}" for x, y, z in vertices]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in faces]
    return "\n".join(lines) + "\n"


def plate_obj(geometry: BoardGeometry, is_front: bool, segments: int, cache_dir: Path | None = None) -> Path:
    """Path of the front (or back) plate's OBJ file for this geometry, written once (atomically) and cached."""
    cache_dir = cache_dir or Path(tempfile.gettempdir()) / "c4robot-sim-meshes"
    name = "front" if is_front else "back"
    digest = hashlib.sha1(f"{segments}{geometry!r}".encode()).hexdigest()[:16]
    path = cache_dir / f"{name}_plate_{segments}_{digest}.obj"
    if path.is_file():
        return path
    cache_dir.mkdir(parents=True, exist_ok=True)
    inner_y = geometry.slot_gap_m / 2
    y_range = (
        (-inner_y - geometry.plate_thickness_m, -inner_y)
        if is_front
        else (inner_y, inner_y + geometry.plate_thickness_m)
    )
    vertices, faces = plate_mesh(geometry, *y_range, segments)
    handle, temporary = tempfile.mkstemp(dir=cache_dir, suffix=".obj.tmp")
    with os.fdopen(handle, "w") as stream:
        stream.write(_obj_text(vertices, faces))
    os.replace(temporary, path)
    return path
