"""Rooms: the light, the webcam's pose and what stands behind the board, drawn from a seed.

A real table is never the sim's studio: the lamp is dim or the sun bright, warm or cool, brighter on one
side; the webcam stands a few centimetres and degrees off; through the empty holes the camera sees a
wooden table, a curtain, or a wall painted nearly the colour of a disc. `room_for(kind, seed)` draws one
("plain" is the studio every test and the README's first game use; "varied" draws from every range,
"hard" from their ends; "makes" is a varied room with a board and discs of any make (`sim.makes`), the webcam
anywhere up to 40 degrees off the board's axis, and exposure and white balance that drift during the game
(`sim.light_drift`)), `furnish(world, room)` puts it into a `sim.World` before calibration, as a
person calibrates in the room they play in. The backdrop and the table top are visual only (no collision).
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import pybullet as p

from sim.config import XYZ
from sim.light_drift import LightDrift, follow
from sim.makes import Make, dress, make_for

ROOM_KINDS = ("plain", "varied", "hard", "makes")
BACKDROPS = ("none", "wall", "curtain", "wood")
TABLE_TOPS = ("plain", "wood", "cloth")
RGB = tuple[float, float, float]

# Colours a wall or curtain can have; the hard ones are close to the discs' red and yellow (and orange between).
NEAR_DISC_COLOURS: tuple[RGB, ...] = ((0.72, 0.10, 0.08), (0.92, 0.74, 0.16), (0.90, 0.45, 0.10), (0.60, 0.16, 0.22))
# A webcam meters the scene and white-balances it (UVC webcams do both by default): it makes up most, not all, of
# the room's light level and colour cast. What is left is the light's ratio to the studio's to this power.
AUTO_EXPOSURE_LEFT = 0.35  # 30% light looks 66%, 120% looks 107%: a dim room stays dim, its noise raised
AUTO_WHITE_BALANCE_LEFT = 0.4  # 2700 K looks 4700 K, 9000 K looks 7400 K
BACKDROP_Y_M = 0.44  # just beyond the table's far edge, behind the arm
BACKDROP_HALF_SIZE_M = (1.2, 0.005, 0.7)
TEXTURE_SIZE_PX = (256, 512)
OFF_AXIS_DEG = 40.0  # a makes room's webcam: at most this far from the board's axis, ...
VIEW_ELEVATION_DEG = (0.0, 38.0)  # ... level with the board's middle up to looking down on it


@dataclass(frozen=True)
class Room:
    """One room: light (level 0.3..1.2 of the studio's, colour temperature, gradient), the webcam's offset from
    its studio pose, sensor noise, what is behind the board and the table top's look."""

    kind: str = "plain"
    seed: int = 0
    light_level: float = 1.0
    colour_temperature_k: float = 6500.0
    light_gradient: tuple[float, float] = (0.0, 0.0)
    light_direction: XYZ = (-0.4, -1.0, 1.5)
    camera_shift_m: XYZ = (0.0, 0.0, 0.0)
    camera_turn_deg: tuple[float, float] = (0.0, 0.0)  # pan (positive: to the left), tilt (positive: up)
    noise_sigma: float = 0.0
    backdrop: str = "none"
    backdrop_rgb: RGB = (0.8, 0.8, 0.8)
    table_top: str = "plain"
    table_rgb: RGB = (0.62, 0.48, 0.33)
    make: Make | None = None  # None: the studio's blue board and red and yellow discs
    view_deg: tuple[float, float] | None = None  # the webcam around the board: (to its right, up), None: the studio's
    drift: LightDrift | None = None

    def __post_init__(self) -> None:
        if self.kind not in ROOM_KINDS:
            raise ValueError(f"there is no room kind {self.kind!r}: use {', '.join(ROOM_KINDS)}")
        if self.backdrop not in BACKDROPS or self.table_top not in TABLE_TOPS:
            raise ValueError(
                f"backdrop {self.backdrop!r} / table top {self.table_top!r}: use {BACKDROPS} / {TABLE_TOPS}"
            )

    def describe(self) -> str:
        """One line a person reads in a benchmark table."""
        if self.kind == "plain":
            return "the studio (plain room)"
        shift = ", ".join(f"{100 * v:+.1f}" for v in self.camera_shift_m)
        webcam = f"webcam {100 * self.webcam_exposure:.0f}%, {self.webcam_tint_k:.0f} K"
        turn = ", ".join(f"{v:+.1f}" for v in self.camera_turn_deg)
        gradient = ", ".join(f"{v:+.2f}" for v in self.light_gradient)
        backdrop = "nothing" if self.backdrop == "none" else f"{_colour_name(self.backdrop_rgb)} {self.backdrop}"
        made = ""
        if self.make is not None:
            made = f"; {self.make.describe()}"
        if self.view_deg is not None:
            made += f"; webcam {self.off_axis_deg:.0f} deg off axis ({self.view_deg[0]:+.0f} right, {self.view_deg[1]:+.0f} up)"
        if self.drift is not None:
            made += f"; {self.drift.describe()}"
        return (
            f"light {100 * self.light_level:.0f}% {self.colour_temperature_k:.0f} K ({webcam}), gradient ({gradient}), "
            f"camera moved ({shift}) cm turned ({turn}) deg, noise {self.noise_sigma:.1f}; "
            f"behind: {backdrop}; table: {self.table_top}{made}"
        )

    @property
    def off_axis_deg(self) -> float:
        """The angle between the webcam's line to the board and the board's axis (0 for the studio's pose)."""
        if self.view_deg is None:
            return 0.0
        right, up = (math.radians(v) for v in self.view_deg)
        return math.degrees(math.acos(math.cos(right) * math.cos(up)))

    @property
    def webcam_exposure(self) -> float:
        """The frame's brightness after the webcam's auto exposure, relative to the studio's."""
        return self.light_level**AUTO_EXPOSURE_LEFT

    @property
    def webcam_tint_k(self) -> float:
        """The colour cast left after the webcam's white balance, as the temperature of daylight-balanced light."""
        return 6500.0 * (self.colour_temperature_k / 6500.0) ** AUTO_WHITE_BALANCE_LEFT


def room_for(kind: str, seed: int) -> Room:
    """The room of `kind` for a game's seed (the same seed, the same room)."""
    if kind not in ROOM_KINDS:
        raise ValueError(f"there is no room {kind!r}: use {', '.join(ROOM_KINDS)}")
    if kind == "plain":
        return Room(seed=seed)
    rng = np.random.default_rng([seed, 20])
    hard = kind == "hard"

    def either_end(low: tuple[float, float], high: tuple[float, float]) -> float:
        return float(rng.uniform(*(low if rng.random() < 0.5 else high)))

    level = either_end((0.30, 0.45), (1.05, 1.20)) if hard else float(rng.uniform(0.30, 1.20))
    kelvin = either_end((2700.0, 3300.0), (7500.0, 9000.0)) if hard else float(rng.uniform(2700.0, 9000.0))
    gradient_size = rng.uniform(0.25, 0.45) if hard else rng.uniform(0.0, 0.25)
    gradient_angle = rng.uniform(0.0, 2 * math.pi)
    shift_m = 0.04 if hard else 0.02
    turn_deg = 4.0 if hard else 2.0
    backdrop = str(rng.choice(BACKDROPS[1:] if hard else BACKDROPS))
    if hard:
        base = np.array(NEAR_DISC_COLOURS[rng.integers(len(NEAR_DISC_COLOURS))])
        backdrop_rgb = np.clip(base + rng.uniform(-0.06, 0.06, 3), 0.0, 1.0)
    else:
        backdrop_rgb = rng.uniform(0.2, 0.9, 3)
    if backdrop == "wood":
        backdrop_rgb = rng.uniform([0.55, 0.35, 0.15], [0.85, 0.62, 0.32])
    makes = kind == "makes"
    return Room(
        kind=kind,
        seed=seed,
        make=make_for(seed) if makes else None,
        view_deg=_view(np.random.default_rng([seed, 22])) if makes else None,
        drift=LightDrift.drawn(np.random.default_rng([seed, 24])) if makes else None,
        light_level=level,
        colour_temperature_k=kelvin,
        light_gradient=(
            float(gradient_size * math.cos(gradient_angle)),
            float(gradient_size * math.sin(gradient_angle)),
        ),
        light_direction=tuple(float(v) for v in rng.uniform([-1.0, -1.5, 0.3], [1.0, -0.2, 2.0])),
        camera_shift_m=tuple(float(v) for v in rng.uniform(-shift_m, shift_m, 3)),
        camera_turn_deg=tuple(float(v) for v in rng.uniform(-turn_deg, turn_deg, 2)),
        # A dim room makes the webcam raise its gain: more noise.
        noise_sigma=float(rng.uniform(1.0, 3.0) + 4.0 * max(0.0, 1.0 - level)),
        backdrop=backdrop,
        backdrop_rgb=tuple(float(v) for v in backdrop_rgb),
        table_top=str(rng.choice(TABLE_TOPS[1:] if hard else TABLE_TOPS)),
        table_rgb=tuple(float(v) for v in rng.uniform([0.45, 0.28, 0.12], [0.85, 0.65, 0.40])),
    )


def furnish(world, room: Room) -> None:
    """Put `room` into `world` (a `sim.World`): the webcam's pose and light, the backdrop and the table top.

    Call it once, before calibrating: the plain room changes nothing.
    """
    if room.kind == "plain":
        return
    if room.make is not None:
        dress(world, room.make)
    world.set_camera(room_camera(world.camera, room))
    rng = np.random.default_rng([room.seed, 21])
    if room.backdrop != "none":
        texture = _texture(room.backdrop, room.backdrop_rgb, rng)
        _visual_panel(world.client, (0.0, BACKDROP_Y_M, BACKDROP_HALF_SIZE_M[2]), BACKDROP_HALF_SIZE_M, texture)
    if room.table_top != "plain":
        texture = _texture("wood" if room.table_top == "wood" else "wall", room.table_rgb, rng)
        _visual_panel(world.client, (0.0, 0.05, 0.0), (0.5, 0.4, 0.0008), texture)
    if room.drift is not None:
        follow(world, room.drift)


def _view(rng: np.random.Generator) -> tuple[float, float]:
    """Where a makes room's webcam looks at the board from: (degrees to the board's right, up), within the cone."""
    while True:
        right = float(rng.uniform(-OFF_AXIS_DEG, OFF_AXIS_DEG))
        up = float(rng.uniform(*VIEW_ELEVATION_DEG))
        if math.cos(math.radians(right)) * math.cos(math.radians(up)) >= math.cos(math.radians(OFF_AXIS_DEG)):
            return right, up


def room_camera(camera, room: Room):
    """The webcam's `CameraConfig` in `room`: placed around the board (a makes room), moved, turned about its eye,
    and lit as the room is."""
    if room.view_deg is not None:
        camera = _around_the_board(camera, *room.view_deg)
    eye = np.asarray(camera.eye_m, float) + np.asarray(room.camera_shift_m)
    forward = np.asarray(camera.target_m, float) - np.asarray(camera.eye_m, float)
    pan, tilt = (math.radians(v) for v in room.camera_turn_deg)
    forward = _rotation(np.array([0.0, 0.0, 1.0]), pan) @ forward
    right = np.cross(forward, np.asarray(camera.up, float))
    forward = _rotation(right / np.linalg.norm(right), tilt) @ forward
    return replace(
        camera,
        eye_m=tuple(float(v) for v in eye),
        target_m=tuple(float(v) for v in eye + forward),
        exposure=room.webcam_exposure,
        colour_temperature_k=room.webcam_tint_k,
        light_gradient=room.light_gradient,
        light_direction=room.light_direction,
        noise_sigma=room.noise_sigma,
    )


def _around_the_board(camera, right_deg: float, up_deg: float):
    """The camera at its distance from its target (the board's middle), seen from `right_deg` to the right of the
    board's axis and `up_deg` above it, looking at the target."""
    target = np.asarray(camera.target_m, float)
    distance = float(np.linalg.norm(np.asarray(camera.eye_m, float) - target))
    right, up = math.radians(right_deg), math.radians(up_deg)
    direction = np.array([math.sin(right) * math.cos(up), -math.cos(right) * math.cos(up), math.sin(up)])
    return replace(camera, eye_m=tuple(float(v) for v in target + distance * direction))


def _rotation(axis: np.ndarray, angle_rad: float) -> np.ndarray:
    """Rodrigues' rotation matrix about a unit axis."""
    x, y, z = axis
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + math.sin(angle_rad) * k + (1.0 - math.cos(angle_rad)) * (k @ k)


def _texture(kind: str, rgb: RGB, rng: np.random.Generator) -> np.ndarray:
    """An RGB uint8 image: a painted wall (faint mottling), a curtain's folds, or wood grain with planks."""
    height, width = TEXTURE_SIZE_PX
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    x, y = x / width, y / height
    mottling = cv2.GaussianBlur(rng.normal(0.0, 1.0, (height, width)).astype(np.float32), (0, 0), 6)
    if kind == "curtain":
        folds = rng.uniform(10, 18)
        wave = 0.5 + 0.5 * np.sin(2 * math.pi * (folds * x + 0.3 * np.sin(2 * math.pi * y + rng.uniform(0, 6))))
        shade = 0.55 + 0.45 * wave**0.7
    elif kind == "wood":
        warp = 0.02 * np.sin(2 * math.pi * (3 * y + rng.uniform(0, 1))) + 0.004 * mottling
        grain = 0.5 + 0.5 * np.sin(2 * math.pi * rng.uniform(50, 80) * (x + warp))
        planks = np.where((x * rng.integers(4, 8)) % 1.0 < 0.015, 0.6, 1.0)
        shade = (0.78 + 0.22 * grain) * planks
    else:
        shade = 1.0 + 0.03 * mottling
    image = np.asarray(rgb, np.float32)[None, None, :] * shade[:, :, None]
    return np.clip(255 * image, 0, 255).astype(np.uint8)


def _visual_panel(client: int, centre: XYZ, half_extents: XYZ, texture_rgb: np.ndarray) -> int:
    """A box that is only seen (no collision), wearing `texture_rgb`."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "texture.png"
        cv2.imwrite(str(path), texture_rgb[:, :, ::-1])
        texture = p.loadTexture(str(path), physicsClientId=client)
    visual = p.createVisualShape(
        p.GEOM_BOX, halfExtents=half_extents, rgbaColor=(1, 1, 1, 1), specularColor=(0, 0, 0), physicsClientId=client
    )
    body = p.createMultiBody(0.0, -1, visual, centre, physicsClientId=client)
    p.changeVisualShape(body, -1, textureUniqueId=texture, physicsClientId=client)
    return body


def _colour_name(rgb: RGB) -> str:
    """A rough name for a report: the hue's word, dark or pale when it is."""
    hsv = cv2.cvtColor(np.uint8([[[255 * v for v in rgb[::-1]]]]), cv2.COLOR_BGR2HSV)[0, 0]
    hue, saturation, value = int(hsv[0]) * 2, int(hsv[1]), int(hsv[2])
    if saturation < 50:
        return "grey" if value < 200 else "white"
    names = ((15, "red"), (40, "orange"), (70, "yellow"), (160, "green"), (200, "cyan"), (260, "blue"), (330, "purple"))
    name = next((word for limit, word in names if hue < limit), "red")
    return f"dark {name}" if value < 110 else name
