"""A person's hand and forearm in the simulated world: palm, fingers, thumb, forearm and sleeve as simple shapes.

On a real table a hand comes into the webcam's view every turn, and it is never the same hand: skin from
very light to very dark, a long sleeve of any colour (one close to a disc's, or to the board's blue), or
a bare forearm. `HandLook.drawn` draws one from a seed; `Hand` puts it into a world as visual-only bodies
(nothing collides with a hand: a person's fingers do not knock discs out of the board), placed by where
its pinch is (the fingertips that hold a disc by its top edge) and where the elbow is (the forearm points
there and runs on out of the picture).

Hand frame: origin at the pinch, x along the board's columns, y towards the board, z up; the palm lies in
the x-z plane (parallel to the board's face), the fingers point down to the disc, the wrist is above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pybullet as p

from sim import camera
from sim.config import CameraConfig

RGB = tuple[float, float, float]

# Skin from very light to very dark (sRGB 0..1): a tone is drawn between two neighbours.
SKIN_TONES: tuple[RGB, ...] = (
    (0.97, 0.86, 0.79),
    (0.92, 0.75, 0.63),
    (0.83, 0.62, 0.47),
    (0.70, 0.49, 0.34),
    (0.54, 0.35, 0.23),
    (0.37, 0.23, 0.15),
    (0.21, 0.13, 0.09),
)
# Sleeves people wear; the last four are hard for a camera that reads discs on a blue board.
SLEEVE_COLOURS: tuple[RGB, ...] = (
    (0.08, 0.08, 0.09),  # black
    (0.92, 0.92, 0.90),  # white
    (0.50, 0.50, 0.52),  # grey
    (0.12, 0.16, 0.36),  # navy
    (0.27, 0.38, 0.58),  # denim
    (0.16, 0.44, 0.24),  # green
    (0.45, 0.30, 0.18),  # brown
    (0.85, 0.55, 0.65),  # pink
    (0.75, 0.10, 0.10),  # red, near the red discs
    (0.93, 0.79, 0.18),  # yellow, near the yellow discs
    (0.92, 0.46, 0.10),  # orange, between them
    (0.10, 0.24, 0.70),  # blue, near the board
)
HARD_SLEEVES = 4  # the last ones of SLEEVE_COLOURS
FOREARM_LENGTH_M = 0.45  # from the wrist on out of the picture (the upper arm is never in view)
FOREARM_RADIUS_M = 0.026  # at the wrist
SLEEVE_RADIUS_M = 0.036
FOREARM_TAPER = 0.4  # a forearm this much thicker at FOREARM_LENGTH_M from the wrist
CUFF_OVERLAP_M = 0.02  # the bare forearm goes on this far inside the sleeve
FINGER_RADIUS_M = 0.0085
THUMB_RADIUS_M = 0.0105
PALM_HALF_EXTENTS_M = (0.041, 0.013, 0.046)
PALM_CENTRE_M = (0.012, 0.002, 0.118)
WRIST_M = (0.012, 0.0, 0.168)  # where the forearm starts, in the hand frame (scale 1)
# Fingers as (tip, knuckle) in the hand frame at scale 1: index and middle behind the disc's top edge, the
# thumb before it, ring and little finger curled under the palm.
FINGERS_M: tuple[tuple[tuple[float, float, float], tuple[float, float, float]], ...] = (
    ((-0.004, 0.0125, 0.000), (-0.016, 0.008, 0.074)),
    ((0.014, 0.0125, -0.002), (0.008, 0.008, 0.076)),
    ((0.030, 0.006, 0.034), (0.026, 0.006, 0.076)),
    ((0.044, 0.002, 0.046), (0.044, 0.004, 0.074)),
)
THUMB_M = ((-0.006, -0.0125, 0.004), (-0.034, -0.010, 0.088))


@dataclass(frozen=True)
class HandLook:
    """What one person's hand looks like: skin, sleeve, how much forearm shows bare, and its size."""

    skin_rgb: RGB = SKIN_TONES[2]
    sleeve_rgb: RGB = SLEEVE_COLOURS[3]
    bare_forearm_m: float = 0.0  # skin between the wrist and the sleeve's cuff (0: a long sleeve)
    scale: float = 1.0  # 0.9 a small hand, 1.1 a large one

    def __post_init__(self) -> None:
        for name, colour in (("skin", self.skin_rgb), ("sleeve", self.sleeve_rgb)):
            if len(colour) != 3 or not all(0.0 <= v <= 1.0 for v in colour):
                raise ValueError(f"{name} colour {colour}: use RGB in 0..1")
        if not 0.0 <= self.bare_forearm_m < FOREARM_LENGTH_M:
            raise ValueError(f"bare forearm {self.bare_forearm_m} m: use 0..{FOREARM_LENGTH_M}")
        if not 0.7 <= self.scale <= 1.3:
            raise ValueError(f"hand scale {self.scale}: use 0.7..1.3")

    @classmethod
    def drawn(cls, rng: np.random.Generator, hard: bool = False) -> HandLook:
        """A person's hand from `rng`; `hard` draws skin from the ends of the range and sleeves near the discs'
        and the board's colours."""
        where = float(rng.choice([0.0, 0.08, 0.92, 1.0])) if hard else float(rng.uniform(0.0, 1.0))
        position = where * (len(SKIN_TONES) - 1)
        low = min(int(position), len(SKIN_TONES) - 2)
        skin = np.array(SKIN_TONES[low]) + (position - low) * (np.array(SKIN_TONES[low + 1]) - SKIN_TONES[low])
        sleeves = SLEEVE_COLOURS[-HARD_SLEEVES:] if hard else SLEEVE_COLOURS
        sleeve = np.array(sleeves[int(rng.integers(len(sleeves)))]) + rng.uniform(-0.04, 0.04, 3)
        skin = skin + rng.uniform(-0.015, 0.015, 3)
        bare = 0.0 if rng.uniform() < 0.5 else float(rng.uniform(0.05, 0.22))
        return cls(_rgb(skin), _rgb(sleeve), bare, float(rng.uniform(0.9, 1.1)))

    def describe(self) -> str:
        """One line a person reads: how dark the skin is and what the sleeve is."""
        lightness = float(np.mean(self.skin_rgb))
        tones = ("very dark", "dark", "medium", "light", "very light")
        tone = tones[min(len(tones) - 1, int((lightness - 0.14) / 0.17))] if lightness > 0.14 else tones[0]
        sleeve = "long sleeve" if self.bare_forearm_m == 0 else f"sleeve {100 * self.bare_forearm_m:.0f} cm up"
        rgb = ", ".join(f"{v:.2f}" for v in self.sleeve_rgb)
        return f"{tone} skin, {sleeve} ({rgb})"


def _rgb(values: np.ndarray) -> RGB:
    return tuple(float(v) for v in np.clip(values, 0.0, 1.0))


def turn_z_onto(direction: np.ndarray) -> tuple[float, float, float, float]:
    """Quaternion (xyzw) that turns the z axis onto `direction` (a cylinder's axis onto a forearm)."""
    x, y, z = (float(v) for v in direction)
    length = math.sqrt(x * x + y * y + z * z)
    sine = math.sqrt(x * x + y * y) / length  # |z x d| of the unit direction: the axis is (-y, x, 0)
    if sine < 1e-9:
        return (0.0, 0.0, 0.0, 1.0) if z > 0 else (1.0, 0.0, 0.0, 0.0)
    half = math.atan2(sine, z / length) / 2
    along = math.sin(half) / (sine * length)
    return (-y * along, x * along, 0.0, math.cos(half))


class Hand:
    """One hand and forearm in a PyBullet client, visual only, moved with `place`; `park` takes it out of view."""

    PARKED_M = (0.0, -5.0, -5.0)

    def __init__(self, client: int, look: HandLook) -> None:
        self.client = client
        self.look = look
        skin, sleeve = (*look.skin_rgb, 1.0), (*look.sleeve_rgb, 1.0)
        s = look.scale
        shapes = [self._capsule(tip, knuckle, FINGER_RADIUS_M * s, skin) for tip, knuckle in FINGERS_M]
        shapes.append(self._capsule(*THUMB_M, THUMB_RADIUS_M * s, skin))
        palm = p.createVisualShape(
            p.GEOM_BOX,
            halfExtents=[h * s for h in PALM_HALF_EXTENTS_M],
            rgbaColor=skin,
            visualFramePosition=[c * s for c in PALM_CENTRE_M],
            physicsClientId=client,
        )
        self.hand_body = self._body(palm, shapes)
        bare = look.bare_forearm_m
        forearm = self._prism(FOREARM_RADIUS_M * s, 0.0, bare + CUFF_OVERLAP_M, skin)
        cuff = self._prism(SLEEVE_RADIUS_M * s, bare, FOREARM_LENGTH_M - bare, sleeve)
        self.forearm_body = self._body(forearm, [cuff])
        self.wrist_m = np.array(WRIST_M) * s
        self.park()

    def _prism(self, wrist_radius_m: float, start_m: float, length_m: float, colour: tuple) -> int:
        """A forearm or a sleeve: an eight-sided tube along z from `start_m`, thickening towards the elbow,
        closed at both ends. (PyBullet's own cylinder has so many long thin faces that TinyRenderer takes
        twice as long over a forearm near the camera.)"""
        sides, pieces = 8, 8
        angles = 2 * np.pi * np.arange(sides) / sides
        ring = np.stack([np.cos(angles), np.sin(angles), np.zeros(sides)], axis=1)
        vertices, normals = [], []
        for k in range(pieces + 1):
            z = start_m + length_m * k / pieces
            radius = wrist_radius_m * (1 + FOREARM_TAPER * z / FOREARM_LENGTH_M)
            vertices += list(ring * radius + (0.0, 0.0, z))
            normals += list(ring)
        indices = []
        for k in range(pieces):
            for side in range(sides):
                a, b = k * sides + side, k * sides + (side + 1) % sides
                indices += [a, b, b + sides, a, b + sides, a + sides]
        for end, facing in ((0, -1.0), (pieces * sides, 1.0)):  # the caps: a fan round each end's centre
            centre = len(vertices)
            vertices.append(np.mean(vertices[end : end + sides], axis=0))
            normals.append(np.array([0.0, 0.0, facing]))
            for side in range(sides):
                a, b = end + side, end + (side + 1) % sides
                indices += [centre, b, a] if facing < 0 else [centre, a, b]
        return p.createVisualShape(
            p.GEOM_MESH,
            vertices=[list(map(float, v)) for v in vertices],
            normals=[list(map(float, n)) for n in normals],
            indices=indices,
            rgbaColor=colour,
            physicsClientId=self.client,
        )

    def _capsule(self, tip: tuple, knuckle: tuple, radius: float, colour: tuple) -> int:
        """A finger: a capsule from `tip` to `knuckle` (hand frame, scale 1)."""
        s = self.look.scale
        a, b = np.array(tip) * s, np.array(knuckle) * s
        return p.createVisualShape(
            p.GEOM_CAPSULE,
            radius=radius,
            length=float(np.linalg.norm(b - a)),
            rgbaColor=colour,
            visualFramePosition=list((a + b) / 2),
            visualFrameOrientation=turn_z_onto(b - a),
            physicsClientId=self.client,
        )

    def _body(self, base_visual: int, link_visuals: list[int]) -> int:
        """A massless body without collision: a base and parts fixed to it."""
        n = len(link_visuals)
        return p.createMultiBody(
            0.0,
            -1,
            base_visual,
            self.PARKED_M,
            linkMasses=[0.0] * n,
            linkCollisionShapeIndices=[-1] * n,
            linkVisualShapeIndices=link_visuals,
            linkPositions=[(0.0, 0.0, 0.0)] * n,
            linkOrientations=[(0.0, 0.0, 0.0, 1.0)] * n,
            linkInertialFramePositions=[(0.0, 0.0, 0.0)] * n,
            linkInertialFrameOrientations=[(0.0, 0.0, 0.0, 1.0)] * n,
            linkParentIndices=[0] * n,
            linkJointTypes=[p.JOINT_FIXED] * n,
            linkJointAxis=[(0.0, 0.0, 1.0)] * n,
            physicsClientId=self.client,
        )

    def place(self, pinch_m: np.ndarray, orientation: tuple[float, ...], elbow_m: np.ndarray) -> None:
        """Put the pinch at `pinch_m` with the hand frame turned by `orientation` (xyzw), the forearm from the
        wrist towards `elbow_m` and on."""
        p.resetBasePositionAndOrientation(self.hand_body, list(pinch_m), list(orientation), physicsClientId=self.client)
        wrist, _ = p.multiplyTransforms(list(pinch_m), list(orientation), list(self.wrist_m), (0, 0, 0, 1))
        direction = np.asarray(elbow_m, float) - wrist
        if float(direction @ direction) < 1e-12:
            raise ValueError("the elbow is at the wrist: give an elbow away from the hand")
        p.resetBasePositionAndOrientation(
            self.forearm_body, list(wrist), turn_z_onto(direction), physicsClientId=self.client
        )

    def pixels(self, config: CameraConfig) -> np.ndarray:
        """(height, width) bool: where a camera with `config` sees the hand or its forearm now, whatever their
        colours against what is behind them (PyBullet's segmentation of a render from that pose)."""
        _, _, _, _, segmentation = p.getCameraImage(
            config.width_px,
            config.height_px,
            camera.view_matrix(config),
            camera.projection_matrix(config),
            renderer=p.ER_TINY_RENDERER,
            physicsClientId=self.client,
        )
        segmentation = np.asarray(segmentation).reshape(config.height_px, config.width_px)
        return np.isin(segmentation, (self.hand_body, self.forearm_body))

    def park(self) -> None:
        """Out of every camera's view (under the floor, far away)."""
        for body in (self.hand_body, self.forearm_body):
            p.resetBasePositionAndOrientation(body, self.PARKED_M, (0, 0, 0, 1), physicsClientId=self.client)

    def remove(self) -> None:
        for body in (self.hand_body, self.forearm_body):
            p.removeBody(body, physicsClientId=self.client)
