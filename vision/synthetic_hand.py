"""A synthetic hand in front of the board: a forearm (bare or in a sleeve), a palm, a thumb and four fingers.

Why: a hand over the board is the commonest thing a live game sees, and skin or a sleeve must never read as
empty holes or discs. The hand is drawn in the photo's own scale (one hole pitch ~ 3.4 cm, so a palm is
about 2.5 pitches wide), enters from an edge of the photo and reaches in until it covers the asked share
of the board's face. Each part is shaded like a rounded body (darker towards its outline), lit a little
more from one side, with a skin texture and a soft shadow cast on the board behind it. Skin tones are the
ten of the Monk skin tone scale (very light to very dark); sleeves come in plain colours, disc-like red and
yellow among them.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import grid_to_image_homography, hole_pitch_px, project

# Monk skin tone scale (Google, 2022), tones 1-10, as BGR.
SKIN_TONES_BGR = tuple(
    (int(h[4:6], 16), int(h[2:4], 16), int(h[0:2], 16))
    for h in ("f6ede4", "f3e7db", "f7ead0", "eadaba", "d7bd96", "a07e56", "825c43", "604134", "3a312a", "292420")
)
SLEEVES_BGR = {
    "navy": (80, 40, 30),
    "black": (28, 25, 25),
    "grey": (128, 128, 128),
    "white": (230, 235, 235),
    "red": (35, 30, 180),
    "yellow": (40, 190, 230),
    "green": (60, 110, 40),
    "denim": (140, 100, 70),
}
HELD_DISCS_BGR = {"red": (35, 35, 190), "yellow": (30, 200, 235)}
EDGES = {"bottom": (0.0, -1.0), "top": (0.0, 1.0), "left": (1.0, 0.0), "right": (-1.0, 0.0)}
HOLE_RADIUS = 0.38  # in pitches: where a hole counts as hidden (the holes of real boards: 0.37-0.42)
HAND_LENGTH = 5.6  # wrist to the middle fingertip, in pitches


@dataclass(frozen=True)
class HandScene:
    """What was drawn: skin tone (1-10, Monk scale), sleeve colour name or None, the photo edge the arm comes
    from, left or right hand, and the share of the board's face it covers."""

    skin_tone: int
    sleeve: str | None
    edge: str
    is_left: bool
    coverage: float
    held_disc: str | None = None

    def __str__(self) -> str:
        sleeve = f"{self.sleeve} sleeve" if self.sleeve else "bare arm"
        disc = f", holding a {self.held_disc} disc" if self.held_disc else ""
        return (
            f"skin {self.skin_tone}/10, {sleeve}{disc}, from the {self.edge}, {100 * self.coverage:.0f}% of the board"
        )


@dataclass(frozen=True)
class DrawnHand:
    """The photo with the hand, the hand's pixels (H, W) bool, and the share of each hole it hides
    ((rows, cols), row 0 at the BOTTOM like the game grid)."""

    image: np.ndarray
    mask: np.ndarray
    hidden: np.ndarray
    scene: HandScene


@dataclass(frozen=True)
class _Part:
    polygon: np.ndarray  # (n, 2) in hand units: u across (thumb side +), v from the wrist towards the fingers
    half_width: float
    roundness: float  # how much darker the outline is than the middle
    material: str = "skin"  # "skin", "sleeve" or "disc"


def photographed_skin(skin_tone: int) -> tuple[float, float, float]:
    """The BGR of a lit skin of Monk tone 1-10 as a webcam shows it: the swatches are pale paint chips, skin in a
    photo is a little darker and more saturated (light scattered under the skin)."""
    swatch = np.uint8([[SKIN_TONES_BGR[skin_tone - 1]]])
    lab = cv2.cvtColor(swatch, cv2.COLOR_BGR2LAB).astype(np.float64)[0, 0]
    lab = np.array([lab[0] * 0.88, lab[1] + 9, 128 + (lab[2] - 128) * 1.3 + 5])
    bgr = cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8)[None, None], cv2.COLOR_LAB2BGR)[0, 0]
    return tuple(float(v) for v in bgr)  # type: ignore[return-value]


def _capsule(base: tuple[float, float], angle_deg: float, length: float, half_width: float) -> np.ndarray:
    """A finger: straight sides from `base` along `angle_deg` (0 = +v, positive towards +u), a round tip."""
    along = np.array([np.sin(np.radians(angle_deg)), np.cos(np.radians(angle_deg))])
    across = np.array([along[1], -along[0]])
    start, tip = np.asarray(base), np.asarray(base) + along * length
    arc = np.linspace(0, np.pi, 9)
    tip_points = tip + half_width * (np.cos(arc)[:, None] * across + np.sin(arc)[:, None] * along)
    return np.vstack([start + half_width * across, tip_points, start - half_width * across])


def _hand_parts(
    rng: np.random.Generator, sleeve_from: float | None, arm_length: float, holds_disc: bool = False
) -> list[_Part]:
    """The parts in drawing order, in hand units (pitches at scale 1); a held disc lies between the index
    fingertip and the thumb, the thumb in front of it."""
    v = np.array([0.0, -2.0, -5.0, -arm_length])
    half = np.array([0.85, 1.0, 1.15, 1.3])
    forearm = np.vstack([np.column_stack([-half, v]), np.column_stack([half, v])[::-1]])
    parts = [_Part(forearm, 1.0, 0.45)]
    palm = np.array(
        [(-0.85, 0), (-1.0, 0.7), (-1.1, 1.6), (-1.05, 2.8), (-0.4, 3.05), (0.4, 3.05), (1.1, 2.8), (1.2, 1.9)]
        + [(1.1, 0.9), (0.85, 0)]
    )
    parts.append(_Part(palm, 1.1, 0.3))
    curl = rng.uniform(0.45, 1.0)  # fingers bent towards the camera look shorter
    spread = rng.uniform(0.5, 1.5)
    thumb_angle = rng.uniform(25, 60)
    thumb = _Part(_capsule((0.85, 0.9), thumb_angle, 2.0 * rng.uniform(0.6, 1.0), 0.3), 0.3, 0.45)
    fingers = zip(
        [-0.78, -0.26, 0.26, 0.76],
        [2.65, 2.9, 2.9, 2.75],
        [1.7, 2.3, 2.5, 2.25],
        [0.21, 0.25, 0.26, 0.25],
        [-12, -4, 2, 8],
        strict=True,
    )
    for u, base_v, length, width, angle in fingers:
        polygon = _capsule((u, base_v - 0.3), angle * spread + rng.uniform(-4, 4), (length + 0.3) * curl, width)
        parts.append(_Part(polygon, width, 0.5))
    if holds_disc:  # a disc is a little smaller than a hole (0.4 pitch); tilted, it shows as an ellipse
        index_tip = polygon[len(polygon) // 2]
        turn = np.radians(rng.uniform(0, 180))
        angles = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        ellipse = np.column_stack([0.4 * np.cos(angles), 0.4 * rng.uniform(0.45, 1.0) * np.sin(angles)])
        ellipse = ellipse @ np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])
        centre = index_tip + np.array([0.25, 0.1])
        parts.append(_Part(centre + ellipse, 0.4, 0.35, material="disc"))
        reach = centre - np.array([0.85, 0.9])  # the thumb pinches the disc against the index finger
        angle = float(np.degrees(np.arctan2(reach[0], reach[1])))
        length = max(float(np.linalg.norm(reach)) - 0.6, 0.5)  # its tip (0.3 round) over the disc's rim
        thumb = _Part(_capsule((0.85, 0.9), angle, length, 0.3), 0.3, 0.45)
    parts.append(thumb)
    if sleeve_from is not None:
        v = np.array([-sleeve_from, -sleeve_from - 3.0, -arm_length])
        half = np.array([1.05, 1.3, 1.45])
        sleeve = np.vstack([np.column_stack([-half, v]), np.column_stack([half, v])[::-1]])
        parts.insert(1, _Part(sleeve, 1.3, 0.5, material="sleeve"))
    return parts


def _to_image(
    polygon: np.ndarray, wrist_px: np.ndarray, along: np.ndarray, unit_px: float, mirror: float
) -> np.ndarray:
    across = np.array([-along[1], along[0]]) * mirror
    return wrist_px + unit_px * (polygon[:, :1] * across + polygon[:, 1:] * along)


def _fill(shape_hw: tuple[int, int], polygon_px: np.ndarray, antialiased: bool = False) -> np.ndarray:
    canvas = np.zeros(shape_hw, np.uint8)
    points = np.round(polygon_px * 16).astype(np.int32)[None]
    cv2.fillPoly(canvas, points, 255, cv2.LINE_AA if antialiased else cv2.LINE_8, shift=4)
    return canvas


def _board_face(corners: np.ndarray, shape: tuple[int, int], image_hw: tuple[int, int]) -> np.ndarray:
    """The board's face (the hole lattice and half a pitch round it) as a mask."""
    rows, cols = shape
    outline = np.array([[-0.5, -0.5], [cols - 0.5, -0.5], [cols - 0.5, rows - 0.5], [-0.5, rows - 0.5]])
    return _fill(image_hw, project(grid_to_image_homography(corners, shape), outline)) > 0


def hidden_share(mask: np.ndarray, corners: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Share of each hole (radius HOLE_RADIUS pitches) under `mask`, (rows, cols), row 0 at the BOTTOM."""
    rows, cols = shape
    offsets = np.stack(np.meshgrid(np.linspace(-1, 1, 9), np.linspace(-1, 1, 9)), axis=-1).reshape(-1, 2)
    offsets = offsets[np.linalg.norm(offsets, axis=1) <= 1.0] * HOLE_RADIUS
    column, row = np.meshgrid(np.arange(cols, dtype=np.float64), np.arange(rows, dtype=np.float64))
    points = np.stack([column, row], axis=-1)[:, :, None, :] + offsets
    pixels = np.round(project(grid_to_image_homography(corners, shape), points)).astype(int)
    x = np.clip(pixels[..., 0], 0, mask.shape[1] - 1)
    y = np.clip(pixels[..., 1], 0, mask.shape[0] - 1)
    return mask[y, x].mean(axis=-1)[::-1].copy()


def _place(parts, face, corners, shape, coverage, rng, along, unit_px, mirror):
    """The wrist (px) on a line through a random point of the board, where the hand covers `coverage` of
    the face (or as near as it gets), and the share it covers there."""
    rows, cols = shape
    aim_grid = np.array([[rng.uniform(0, cols - 1), rng.uniform(0, rows - 1)]])
    aim = project(grid_to_image_homography(corners, shape), aim_grid)[0]
    reach = float(np.hypot(*face.shape)) + HAND_LENGTH * unit_px

    def covered(t: float) -> float:
        union = np.zeros(face.shape, bool)
        for part in parts:
            union |= _fill(face.shape, _to_image(part.polygon, aim + t * along, along, unit_px, mirror)) > 0
        return float((union & face).sum() / face.sum())

    steps = np.linspace(-reach, 0.5 * reach, 25)
    shares = [covered(t) for t in steps]
    above = [i for i, share in enumerate(shares) if share >= coverage]
    if not above:
        best = int(np.argmax(shares))
        return aim + steps[best] * along, shares[best]
    low, high = steps[max(above[0] - 1, 0)], steps[above[0]]
    for _ in range(12):
        middle = (low + high) / 2
        low, high = (middle, high) if covered(middle) < coverage else (low, middle)
    return aim + high * along, covered(high)


def _shade(
    drawn: np.ndarray, part_alpha: np.ndarray, base_bgr, part: _Part, unit_px: float, lighting: np.ndarray
) -> None:
    """Composite one part onto `drawn` in place: darker to its outline (a rounded body), times `lighting`."""
    ys, xs = np.nonzero(part_alpha)
    if len(ys) == 0:
        return
    top, left = max(ys.min() - 2, 0), max(xs.min() - 2, 0)
    box = np.s_[top : ys.max() + 3, left : xs.max() + 3]
    inside = (part_alpha[box] > 0).astype(np.uint8)
    distance = cv2.distanceTransform(inside, cv2.DIST_L2, 5) / (part.half_width * unit_px)
    shade = 1.0 - part.roundness * (1.0 - np.sqrt(np.clip(distance, 0, 1)))
    colour = np.asarray(base_bgr, np.float64) * (shade * lighting[box])[..., None]
    alpha = (part_alpha[box].astype(np.float64) / 255)[..., None]
    drawn[box] = drawn[box] * (1 - alpha) + colour * alpha


def add_hand(
    image: np.ndarray,
    corners: np.ndarray,
    shape: tuple[int, int],
    coverage: float,
    rng: np.random.Generator,
    skin_tone: int | None = None,
    sleeve: str | None = None,
    edge: str | None = None,
    held_disc: str | None = None,
) -> DrawnHand:
    """The photo with a hand over about `coverage` (0-1) of the board's face. skin_tone 1-10, sleeve (a name of
    SLEEVES_BGR, or "" for a bare arm) and edge (a name of EDGES) are drawn from `rng` when None; held_disc (a
    name of HELD_DISCS_BGR) puts a disc between its fingers."""
    skin_tone = int(rng.integers(1, 11)) if skin_tone is None else skin_tone
    sleeve = (str(rng.choice(list(SLEEVES_BGR))) if rng.random() < 0.5 else "") if sleeve is None else sleeve
    edge = str(rng.choice(list(EDGES))) if edge is None else edge
    if (
        not 1 <= skin_tone <= 10
        or edge not in EDGES
        or (sleeve and sleeve not in SLEEVES_BGR)
        or (held_disc and held_disc not in HELD_DISCS_BGR)
    ):
        raise ValueError(f"no hand with skin tone {skin_tone}, sleeve {sleeve!r}, edge {edge!r}, disc {held_disc!r}")
    corners = np.asarray(corners, np.float64)
    height, width = image.shape[:2]
    face = _board_face(corners, shape, (height, width))
    angle = np.radians(rng.uniform(-30, 30))
    inward = np.asarray(EDGES[edge])
    along = np.array(
        [inward[0] * np.cos(angle) - inward[1] * np.sin(angle), inward[0] * np.sin(angle) + inward[1] * np.cos(angle)]
    )
    mirror = float(rng.choice([-1.0, 1.0]))
    unit_px = hole_pitch_px(corners, shape) * rng.uniform(1.0, 1.3)  # the hand is nearer the camera than the board
    arm_length = max(np.hypot(height, width) / unit_px + 2, 8.0)
    parts = _hand_parts(rng, rng.uniform(0.4, 3.0) if sleeve else None, arm_length, bool(held_disc))
    for _ in range(3):
        wrist, reached = _place(parts, face, corners, shape, coverage, rng, along, unit_px, mirror)
        if reached >= 0.8 * coverage:
            break
        unit_px *= 1.25
    base = {
        "skin": photographed_skin(skin_tone),
        "sleeve": SLEEVES_BGR.get(sleeve, (0, 0, 0)),
        "disc": HELD_DISCS_BGR.get(held_disc or "", (0, 0, 0)),
    }
    coarse = cv2.GaussianBlur(rng.normal(0.0, 1.0, (height // 4 + 1, width // 4 + 1)), (0, 0), unit_px / 16)
    blotches = cv2.resize(coarse / max(float(coarse.std()), 1e-9), (width, height))
    ys, xs = np.mgrid[0:height, 0:width]
    across = np.array([-along[1], along[0]]) * mirror
    side = ((xs - wrist[0]) * across[0] + (ys - wrist[1]) * across[1]) / (1.5 * unit_px)
    lighting = (1.0 + 0.12 * np.clip(side, -1, 1)) * (1.0 + 0.03 * blotches + rng.normal(0.0, 0.01, (height, width)))
    union = np.zeros((height, width), np.uint8)
    polygons = [_to_image(part.polygon, wrist, along, unit_px, mirror) for part in parts]
    for polygon in polygons:
        union = np.maximum(union, _fill((height, width), polygon, antialiased=True))
    shadow = cv2.GaussianBlur(union.astype(np.float64) / 255, (0, 0), 0.35 * unit_px)
    offset = rng.uniform(0.25, 0.5) * unit_px * np.array([np.cos(a := rng.uniform(0, 2 * np.pi)), np.sin(a)])
    shadow = cv2.warpAffine(shadow, np.float64([[1, 0, offset[0]], [0, 1, offset[1]]]), (width, height))
    drawn = image.astype(np.float64) * (1 - 0.45 * shadow)[..., None]
    for part, polygon in zip(parts, polygons, strict=True):
        alpha = _fill((height, width), polygon, antialiased=True)
        _shade(drawn, alpha, base[part.material], part, unit_px, lighting)
    mask = union > 127
    scene = HandScene(skin_tone, sleeve or None, edge, mirror < 0, float((mask & face).sum() / face.sum()), held_disc)
    return DrawnHand(np.clip(np.round(drawn), 0, 255).astype(np.uint8), mask, hidden_share(mask, corners, shape), scene)
