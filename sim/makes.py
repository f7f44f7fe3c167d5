"""Boards and discs of every make, drawn per seed: what the `makes` rooms of `sim.room` stand on the table.

Real sets differ: the board is blue, red, black, white or clear plastic; the discs glossy, matte, translucent,
speckled or ring-shaped; some boards have a thick face with the discs set deep behind it. Only combinations real
sets have are drawn: the two players' colours differ from each other and from the board's (a red board never holds
red, orange or pink discs, a black board no black ones, a white board no white ones), since a disc of the board's
colour, or two players of one colour, is a game no reader could follow. The pairs (either player either colour):

    board   disc pairs
    blue    red + yellow, red + black, yellow + black
    red     yellow + black, yellow + blue, white + black
    black   red + yellow, red + white, yellow + white
    white   red + black, red + blue, red + yellow
    clear   red + yellow, red + blue, yellow + blue

Finishes (one per set, both players alike): glossy (a lamp's or a window's glare on the plastic), matte,
translucent (the board and the room seen through the disc's colour; glossy too), speckled (paler shades with
darker and lighter flecks), ring (a hole through the middle, 35 to 50% of the disc's width). Faces: half the boards
have the standard 3 mm face, the others a thick one (6 to 10 mm), the discs set that much deeper behind it.
Shades vary a little from set to set. `dress(world, make)` puts a make into a `sim.World`, before any disc is
played and before calibration, so the world's board geometry (where the holes and discs are), its truth and the
calibration taken from it all follow the make.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sim.board import Board
from sim.config import DISC_COLOURS, XYZ, BoardGeometry, SeenMaterials

RGB = tuple[float, float, float]
BOARD_COLOURS: dict[str, RGB] = {
    "blue": (0.08, 0.22, 0.72),
    "red": (0.74, 0.07, 0.07),
    "black": (0.06, 0.06, 0.07),
    "white": (0.90, 0.90, 0.88),
    "clear": (0.86, 0.90, 0.94),
}
DISC_PAIRS: dict[str, tuple[str, ...]] = {
    "blue": ("RY", "RK", "YK"),
    "red": ("YK", "YB", "WK"),
    "black": ("RY", "RW", "YW"),
    "white": ("RK", "RB", "RY"),
    "clear": ("RY", "RB", "YB"),
}
FINISHES = ("glossy", "matte", "translucent", "speckled", "ring")
GLOSSY = ("glossy", "translucent")
STANDARD_FACE_M = 0.003
THICK_FACE_M = (0.006, 0.010)
CLEAR_BOARD_OPACITY = (0.15, 0.3)
TRANSLUCENT_DISC_OPACITY = (0.55, 0.8)
SPECKLED_PALENESS = (0.15, 0.35)  # mixed with white
RING_HOLE_SHARE = (0.35, 0.50)
GLARE_RADIUS_M = (0.003, 0.007)


@dataclass(frozen=True)
class Make:
    """One make of board and discs. `disc_letters` are player 1's and player 2's colours (vision's letters);
    glare spots are board-frame (x, z) points on the discs' face plane."""

    board: str = "blue"
    disc_letters: str = "RY"
    finish: str = "glossy"
    face_thickness_m: float = STANDARD_FACE_M
    board_rgb: RGB = BOARD_COLOURS["blue"]
    disc_rgbs: tuple[RGB, RGB] = (DISC_COLOURS["R"][:3], DISC_COLOURS["Y"][:3])
    board_opacity: float = 1.0
    disc_opacity: float = 1.0
    ring_hole_m: float = 0.0
    glare_spots_m: tuple[tuple[float, float], ...] = ()
    glare_radius_m: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.board not in BOARD_COLOURS or self.finish not in FINISHES:
            raise ValueError(
                f"a {self.board!r} board with {self.finish!r} discs: boards are {', '.join(BOARD_COLOURS)}; "
                f"finishes {', '.join(FINISHES)}"
            )
        first, second = self.disc_letters
        if first == second or not any(set(pair) == {first, second} for pair in DISC_PAIRS[self.board]):
            raise ValueError(
                f"no real set has {self.disc_letters} discs on a {self.board} board: "
                f"use one of {', '.join(DISC_PAIRS[self.board])}"
            )

    def describe(self) -> str:
        """One line a person reads in a benchmark table."""
        names = {"R": "red", "Y": "yellow", "K": "black", "B": "blue", "W": "white"}
        discs = " and ".join(names[letter] for letter in self.disc_letters)
        face = f"{1000 * self.face_thickness_m:.0f} mm face"
        extra = ""
        if self.finish == "ring":
            extra = f", holes of {1000 * self.ring_hole_m:.0f} mm"
        elif self.glare_spots_m:
            extra = f", {len(self.glare_spots_m)} glare spot(s) of {1000 * self.glare_radius_m:.0f} mm"
        return f"{self.board} board ({face}), {self.finish} {discs} discs{extra}"


def make_for(seed: int) -> Make:
    """The make of a `makes` room's seed (the same seed, the same make)."""
    rng = np.random.default_rng([seed, 23])
    board = str(rng.choice(list(BOARD_COLOURS)))
    pair = str(rng.choice(DISC_PAIRS[board]))
    letters = pair if rng.random() < 0.5 else pair[::-1]
    finish = str(rng.choice(FINISHES))
    board_rgb = np.clip(np.array(BOARD_COLOURS[board]) + rng.uniform(-0.03, 0.03, 3), 0.0, 1.0)
    disc_rgbs = []
    for letter in letters:
        rgb = np.clip(np.array(DISC_COLOURS[letter][:3]) * rng.uniform(0.92, 1.04, 3), 0.0, 1.0)
        if finish == "speckled":
            rgb = rgb + rng.uniform(*SPECKLED_PALENESS) * (1.0 - rgb)
        disc_rgbs.append(tuple(float(v) for v in rgb))
    geometry = BoardGeometry()
    glare_count = int(rng.integers(1, 3)) if finish in GLOSSY else 0
    half_grid, bottom = geometry.grid_width_m / 2, geometry.base_height_m
    return Make(
        board=board,
        disc_letters=letters,
        finish=finish,
        face_thickness_m=STANDARD_FACE_M if rng.random() < 0.5 else float(rng.uniform(*THICK_FACE_M)),
        board_rgb=tuple(float(v) for v in board_rgb),
        disc_rgbs=tuple(disc_rgbs),
        board_opacity=float(rng.uniform(*CLEAR_BOARD_OPACITY)) if board == "clear" else 1.0,
        disc_opacity=float(rng.uniform(*TRANSLUCENT_DISC_OPACITY)) if finish == "translucent" else 1.0,
        ring_hole_m=float(rng.uniform(*RING_HOLE_SHARE) * geometry.disc_diameter_m) if finish == "ring" else 0.0,
        glare_spots_m=tuple(
            (
                float(rng.uniform(-half_grid, half_grid)),
                float(rng.uniform(bottom, bottom + geometry.rows * geometry.row_pitch_m)),
            )
            for _ in range(glare_count)
        ),
        glare_radius_m=float(rng.uniform(*GLARE_RADIUS_M)) if glare_count else 0.0,
        seed=seed,
    )


def dress(world, make: Make) -> None:
    """Put `make` into `world` (a `sim.World` with no disc on its board yet): the board rebuilt with its face and
    colour, the discs' colours and finish, and what the camera must composite (`SeenMaterials`)."""
    config = world.config
    geometry = replace(config.board, plate_thickness_m=make.face_thickness_m)
    world.board.remove()
    world.board = Board(world.client, geometry, config.board_pose, colour=(*make.board_rgb, 1.0))
    discs = replace(
        config.discs,
        colours=tuple((*rgb, 1.0) for rgb in make.disc_rgbs),
        finish=make.finish,
        hole_diameter_m=make.ring_hole_m,
        look_seed=make.seed,
    )
    world.config = replace(config, board=geometry, discs=discs)
    world.discs.geometry = geometry
    world.discs.set_colours(discs)
    if world.arm is not None:
        world.set_dispenser_player(world.dispenser_player)  # the waiting disc, again in the make's finish
    world.set_camera(replace(world.camera, materials=seen_materials(world, make)))


def seen_materials(world, make: Make) -> SeenMaterials | None:
    """What the camera composites for `make` in `world` (None when the renderer draws it all)."""
    if make.board_opacity >= 1.0 and make.disc_opacity >= 1.0 and not make.glare_spots_m:
        return None
    board = world.board
    face_y = -world.config.board.disc_thickness_m / 2
    centres: tuple[XYZ, ...] = tuple(
        tuple(float(v) for v in board.to_world(np.array([x, face_y, z]))) for x, z in make.glare_spots_m
    )
    across = board.to_world(np.array([1.0, 0.0, 0.0])) - board.to_world(np.zeros(3))
    return SeenMaterials(
        board_bodies=tuple(board.body_ids),
        board_opacity=make.board_opacity,
        disc_rgbas=tuple((*rgb, 1.0) for rgb in make.disc_rgbs),
        disc_opacity=make.disc_opacity,
        glare_centres_m=centres,
        glare_axes=(tuple(float(v) for v in across), (0.0, 0.0, 1.0)),
        glare_radius_m=make.glare_radius_m,
    )
