"""Settings of the simulated world: board geometry, board pose, discs, camera, arm and physics.

One frozen dataclass per component, checked in `__post_init__`; everything is in metres, radians,
seconds and kelvin. `WorldConfig()` is the standard 7x6 board on a table with a webcam in front and
the shipped desktop arm behind it. `config_variants(n, seed)` makes varied but plausible worlds
(camera pose, light, colour temperature, noise, board pose) so vision can be tested on many frames.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

ASSETS_DIR = Path(__file__).resolve().parent / "assets"
DEFAULT_ARM_URDF = ASSETS_DIR / "c4arm.urdf"

RGBA = tuple[float, float, float, float]
XYZ = tuple[float, float, float]

# Disc colours by the letters vision uses (R red, Y yellow, B blue, G green, P pink, O orange, K black, W white).
DISC_COLOURS: dict[str, RGBA] = {
    "R": (0.80, 0.06, 0.05, 1.0),
    "Y": (0.97, 0.80, 0.05, 1.0),
    "B": (0.05, 0.20, 0.85, 1.0),
    "G": (0.05, 0.60, 0.15, 1.0),
    "P": (0.95, 0.45, 0.70, 1.0),
    "O": (0.97, 0.45, 0.05, 1.0),
    "K": (0.05, 0.05, 0.05, 1.0),
    "W": (0.95, 0.95, 0.95, 1.0),
}


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


@dataclass(frozen=True)
class BoardGeometry:
    """The board, made to measure; defaults are a common 7x6 board.

    Board frame: origin on the table below the middle of the slot, x along the columns (column 0 at
    -x, seen from the front), y from the front plate towards the back plate, z up. Discs rest on each
    other, so the row pitch of the holes is the disc diameter.
    """

    columns: int = 7
    rows: int = 6
    column_pitch_m: float = 0.0347
    disc_diameter_m: float = 0.0318
    disc_thickness_m: float = 0.0065
    hole_diameter_m: float = 0.025
    slot_gap_m: float = 0.0085  # between the front and the back plate; the disc stands in it
    plate_thickness_m: float = 0.003
    divider_thickness_m: float = 0.0015  # walls between the columns
    side_margin_m: float = 0.012  # plate beyond the outer walls
    base_height_m: float = 0.03  # table to the bottom of the slots
    base_depth_m: float = 0.09  # feet front to back, so the board stands
    top_margin_m: float = 0.008  # plate above the top row of holes
    funnel_height_m: float = 0.014
    funnel_spread_m: float = 0.008  # how much wider the funnel opens on each side than the slot

    def __post_init__(self) -> None:
        _require(
            2 <= self.columns <= 12 and 2 <= self.rows <= 12,
            f"board of {self.columns}x{self.rows}: use 2..12 columns and rows",
        )
        for name in (
            "column_pitch_m",
            "disc_diameter_m",
            "disc_thickness_m",
            "hole_diameter_m",
            "slot_gap_m",
            "plate_thickness_m",
            "divider_thickness_m",
            "base_height_m",
            "base_depth_m",
        ):
            _require(getattr(self, name) > 0, f"board {name} = {getattr(self, name)}: must be positive")
        _require(
            self.slot_width_m > self.disc_diameter_m,
            f"disc diameter {self.disc_diameter_m} m does not fit between "
            f"the dividers ({self.slot_width_m:.4f} m): widen column_pitch_m or thin divider_thickness_m",
        )
        _require(
            self.slot_gap_m > self.disc_thickness_m,
            f"disc thickness {self.disc_thickness_m} m does not fit in the "
            f"slot gap {self.slot_gap_m} m: widen slot_gap_m",
        )
        _require(
            self.hole_diameter_m < min(self.disc_diameter_m, self.row_pitch_m, self.column_pitch_m),
            f"hole diameter {self.hole_diameter_m} m must be smaller than the disc and the pitches",
        )
        _require(self.side_margin_m >= self.divider_thickness_m / 2, "side_margin_m must cover half an outer wall")

    @property
    def row_pitch_m(self) -> float:
        """Discs stand on each other, so the rows are one disc diameter apart."""
        return self.disc_diameter_m

    @property
    def slot_width_m(self) -> float:
        return self.column_pitch_m - self.divider_thickness_m

    @property
    def grid_width_m(self) -> float:
        return self.columns * self.column_pitch_m

    @property
    def plate_width_m(self) -> float:
        return self.grid_width_m + 2 * self.side_margin_m

    @property
    def plate_top_m(self) -> float:
        return self.base_height_m + self.rows * self.row_pitch_m + self.top_margin_m

    @property
    def funnel_top_m(self) -> float:
        return self.plate_top_m + self.funnel_height_m

    def column_x_m(self, column: int) -> float:
        """x of a column's centre in the board frame."""
        return (column - (self.columns - 1) / 2) * self.column_pitch_m

    def row_z_m(self, row: int) -> float:
        """z of a resting disc's centre in a row (row 0 at the bottom) in the board frame."""
        return self.base_height_m + (row + 0.5) * self.row_pitch_m

    def cell_centres_m(self, y_m: float = 0.0) -> np.ndarray:
        """(rows, cols, 3) cell centres in the board frame at depth y (0 = the discs' mid-plane)."""
        xs = np.array([self.column_x_m(c) for c in range(self.columns)])
        zs = np.array([self.row_z_m(r) for r in range(self.rows)])
        grid = np.zeros((self.rows, self.columns, 3))
        grid[:, :, 0] = xs[None, :]
        grid[:, :, 1] = y_m
        grid[:, :, 2] = zs[:, None]
        return grid

    @property
    def front_face_y_m(self) -> float:
        """y of the front plate's outer face (the one the camera sees)."""
        return -self.slot_gap_m / 2 - self.plate_thickness_m


@dataclass(frozen=True)
class BoardPose:
    """Where the board stands on the table: its frame's origin (x, y) and its turn about z."""

    x_m: float = 0.0
    y_m: float = 0.0
    yaw_rad: float = 0.0


# How a disc's plastic looks: "plain" is the studio's; the others are the makes of `sim.makes`.
DISC_FINISHES = ("plain", "glossy", "matte", "translucent", "speckled", "ring")


@dataclass(frozen=True)
class DiscConfig:
    """Discs: the colours of player 1 and 2 (RGBA 0..1), their finish and the plastic's physical properties.

    A "ring" disc has a hole of `hole_diameter_m` through its middle; a "speckled" one wears flecks drawn from
    `look_seed`.
    """

    colours: tuple[RGBA, RGBA] = (DISC_COLOURS["R"], DISC_COLOURS["Y"])
    mass_kg: float = 0.0045
    friction: float = 0.35
    restitution: float = 0.05
    finish: str = "plain"
    hole_diameter_m: float = 0.0
    look_seed: int = 0

    def __post_init__(self) -> None:
        _require(len(self.colours) == 2, f"disc colours {self.colours}: give exactly two RGBA colours")
        for colour in self.colours:
            _require(
                len(colour) == 4 and all(0.0 <= v <= 1.0 for v in colour), f"disc colour {colour}: use RGBA in 0..1"
            )
        _require(self.mass_kg > 0, f"disc mass {self.mass_kg} kg: must be positive")
        _require(self.finish in DISC_FINISHES, f"disc finish {self.finish!r}: use one of {', '.join(DISC_FINISHES)}")
        _require(
            (self.finish == "ring") == (self.hole_diameter_m > 0),
            f"a disc hole of {self.hole_diameter_m} m: only a ring disc has one, and it must",
        )


@dataclass(frozen=True)
class SeenMaterials:
    """What the headless renderer cannot draw of a board and its discs, composited into every frame (`sim.finish`).

    A clear board is seen through (`board_opacity` < 1), translucent discs too (`disc_opacity` < 1, the light
    behind them tinted by their colour); glossy plastic shows the glare of a lamp or window: discs of
    `glare_radius_m` on the discs' face plane (spanned by `glare_axes`) around each of `glare_centres_m`.
    Bodies are named by id: the board's parts, and the disc colours that tell a disc body from others.
    """

    board_bodies: tuple[int, ...] = ()
    board_opacity: float = 1.0
    disc_rgbas: tuple[RGBA, ...] = ()
    disc_opacity: float = 1.0
    glare_centres_m: tuple[XYZ, ...] = ()
    glare_axes: tuple[XYZ, XYZ] = ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    glare_radius_m: float = 0.0

    def __post_init__(self) -> None:
        _require(
            0.0 < self.board_opacity <= 1.0 and 0.0 < self.disc_opacity <= 1.0,
            f"opacities {self.board_opacity}, {self.disc_opacity}: use 0..1 (1 opaque)",
        )
        _require(self.glare_radius_m >= 0, f"glare radius {self.glare_radius_m} m: must not be negative")


@dataclass(frozen=True)
class CameraConfig:
    """The webcam: pose in the world frame, field of view, image size, lighting and sensor imperfections."""

    eye_m: XYZ = (0.0, -0.46, 0.21)
    target_m: XYZ = (0.0, 0.0, 0.13)
    up: XYZ = (0.0, 0.0, 1.0)
    vertical_fov_deg: float = 45.0
    width_px: int = 640
    height_px: int = 480
    light_direction: XYZ = (-0.4, -1.0, 1.5)  # towards the light, world frame
    colour_temperature_k: float = 6500.0  # 6500 K is neutral; lower is warmer (more red)
    noise_sigma: float = 0.0  # std-dev of Gaussian pixel noise, in grey levels
    ambient: float = 0.55
    diffuse: float = 0.45
    specular: float = 0.05
    shadows: bool = False
    exposure: float = 1.0  # how bright the room is: 0.3 a dim evening, 1.2 a sunny window (1.0 the studio)
    light_gradient: tuple[float, float] = (0.0, 0.0)  # brightness change from the frame's centre to its right, bottom
    materials: SeenMaterials | None = None  # a make's clear board, translucent discs, glare (None: the studio's)

    def __post_init__(self) -> None:
        _require(5.0 <= self.vertical_fov_deg <= 150.0, f"camera fov {self.vertical_fov_deg} deg: use 5..150")
        _require(
            16 <= self.width_px <= 4096 and 16 <= self.height_px <= 4096,
            f"camera size {self.width_px}x{self.height_px}: use 16..4096 px",
        )
        _require(
            1000.0 <= self.colour_temperature_k <= 15000.0,
            f"colour temperature {self.colour_temperature_k} K: use 1000..15000",
        )
        _require(self.noise_sigma >= 0, f"camera noise {self.noise_sigma}: must not be negative")
        _require(0.05 <= self.exposure <= 4.0, f"camera exposure {self.exposure}: use 0.05..4")
        _require(
            all(abs(v) <= 0.9 for v in self.light_gradient), f"light gradient {self.light_gradient}: use -0.9..0.9"
        )
        _require(math.dist(self.eye_m, self.target_m) > 1e-3, "camera eye and target must differ")


@dataclass(frozen=True)
class ArmMount:
    """The arm: which URDF, where its base stands (world frame, on a pedestal) and where its dispenser is.

    World-frame positions, so moving the board (calibration) moves it relative to the arm and camera;
    the default board stands at the world origin. The arm stands behind the board (+y), out of the
    webcam's view of the front plate; its base frame's x axis faces the board. The dispenser holds one
    disc upright, face parallel to the default board's front plate.
    """

    urdf_path: Path = DEFAULT_ARM_URDF
    base_xy_m: tuple[float, float] = (0.0, 0.14)
    pedestal_height_m: float = 0.16
    base_yaw_rad: float = -math.pi / 2  # x axis towards the board (-y)
    dispenser_xy_m: tuple[float, float] = (0.17, 0.10)
    dispenser_height_m: float = 0.18  # table to the held disc's centre

    def __post_init__(self) -> None:
        _require(Path(self.urdf_path).is_file(), f"arm URDF {self.urdf_path} not found: give an existing .urdf file")
        _require(self.pedestal_height_m >= 0, f"pedestal height {self.pedestal_height_m} m: must not be negative")

    @classmethod
    def pybullet_arm(cls, name: str) -> ArmMount:
        """One of the arms pybullet_data ships ("panda" or "kuka"), standing on the table farther behind the board."""
        import pybullet_data

        if name not in PYBULLET_ARMS:
            raise ValueError(f"arm {name!r} is not shipped with pybullet_data: use one of {', '.join(PYBULLET_ARMS)}")
        return cls(
            urdf_path=Path(pybullet_data.getDataPath()) / PYBULLET_ARMS[name],
            base_xy_m=(0.0, 0.45),
            pedestal_height_m=0.0,
            dispenser_xy_m=(0.25, 0.25),
            dispenser_height_m=0.18,
        )

    @classmethod
    def so101(cls) -> ArmMount:
        """The SO-101 (LeRobot's desktop arm, `so101.urdf`): a shorter reach than the shipped arm, so it
        stands closer to the board and higher, with its dispenser nearer (every column and the dispenser
        in reach with the tool pointing down)."""
        return cls(
            urdf_path=ASSETS_DIR / "so101.urdf",
            base_xy_m=(0.0, 0.12),
            pedestal_height_m=0.20,
            dispenser_xy_m=(0.12, 0.14),
            dispenser_height_m=0.22,
        )

    @classmethod
    def named(cls, name: str) -> ArmMount:
        """The arm `c4robot play --sim --arm NAME` stands up: one of `SIM_ARMS`."""
        if name == "c4arm":
            return cls()
        if name == "so101":
            return cls.so101()
        if name in PYBULLET_ARMS:
            return cls.pybullet_arm(name)
        raise ValueError(f"there is no simulated arm {name!r}: use one of {', '.join(SIM_ARMS)}")


PYBULLET_ARMS = {"panda": "franka_panda/panda.urdf", "kuka": "kuka_iiwa/model.urdf"}
SIM_ARMS = ("c4arm", "so101", *PYBULLET_ARMS)


@dataclass(frozen=True)
class PhysicsConfig:
    """Step size and the settling rules; small steps keep thin discs from bouncing through each other."""

    time_step_s: float = 1.0 / 480.0
    solver_iterations: int = 30
    settle_speed_m_s: float = 0.01  # a disc slower than this (rocking on the disc below, not falling) ...
    settle_spin_rad_s: float = 0.8
    settle_time_s: float = 0.06  # ... for this long is frozen in place
    freeze_settled: bool = True

    def __post_init__(self) -> None:
        _require(0 < self.time_step_s <= 0.01, f"physics time step {self.time_step_s} s: use up to 0.01 s")
        _require(self.solver_iterations >= 1, "solver_iterations must be at least 1")


@dataclass(frozen=True)
class WorldConfig:
    """The whole world; `sim.World(WorldConfig(...))`. Replace fields with `dataclasses.replace`."""

    board: BoardGeometry = field(default_factory=BoardGeometry)
    board_pose: BoardPose = field(default_factory=BoardPose)
    discs: DiscConfig = field(default_factory=DiscConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    arm: ArmMount | None = field(default_factory=ArmMount)  # None: a world without an arm
    physics: PhysicsConfig = field(default_factory=PhysicsConfig)
    table_height_m: float = 0.0  # the table top is the plane z = 0; kept for clarity

    def with_board_pose(self, x_m: float, y_m: float, yaw_rad: float) -> WorldConfig:
        """The same world with the board moved (calibration moves it 2 cm and turns it 3 degrees)."""
        return replace(self, board_pose=BoardPose(x_m, y_m, yaw_rad))


def config_variants(count: int, seed: int, base: WorldConfig | None = None) -> list[WorldConfig]:
    """`count` plausible variations of `base`: camera pose, light, colour temperature, noise, board pose."""
    _require(count >= 0, f"variant count {count}: must not be negative")
    base = base or WorldConfig()
    rng = np.random.default_rng(seed)
    variants = []
    for _ in range(count):
        cam = base.camera
        eye = tuple(float(v) for v in np.asarray(cam.eye_m) + rng.uniform([-0.06, -0.05, -0.05], [0.06, 0.08, 0.08]))
        target = tuple(float(v) for v in np.asarray(cam.target_m) + rng.uniform(-0.015, 0.015, 3))
        light = tuple(float(v) for v in rng.uniform([-1.0, -1.5, 0.3], [1.0, -0.2, 2.0]))
        camera = replace(
            cam,
            eye_m=eye,
            target_m=target,
            light_direction=light,
            colour_temperature_k=float(rng.uniform(3200.0, 8000.0)),
            noise_sigma=float(rng.uniform(0.0, 6.0)),
            ambient=float(rng.uniform(0.4, 0.7)),
            diffuse=float(rng.uniform(0.3, 0.6)),
        )
        pose = BoardPose(
            float(rng.uniform(-0.02, 0.02)), float(rng.uniform(-0.02, 0.02)), float(rng.uniform(-0.06, 0.06))
        )
        variants.append(replace(base, camera=camera, board_pose=pose))
    return variants
