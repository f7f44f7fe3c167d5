"""Image changes a webcam produces every day, for measuring the reader (`c4robot bench vision degrade`).

Each change takes a BGR photo and the centres of its four corner holes and returns the changed photo with
the corners where they now are (a rotation or a downscale moves them), so a reading can be checked against
the photo's labels with or without the corners given. Every change is seeded and deterministic: the same
photo, change and seed give the same pixels. Pure numpy/OpenCV so tests can use it as well as the bench.

`CHANGES` is the standard set, in the order the bench prints it; `apply_change(name, ...)` runs one. A photo
whose corners are not known (None) can take every change but the hands (`HANDS`), which must know
where the board is.
The synthetic hands (a shaded forearm, palm and fingers over part of the board) are in vision.synthetic_hand.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synthetic_hand import HELD_DISCS_BGR, HandScene, add_hand

WEBCAM_SIZE_PX = (640, 480)
# Per-channel gains (B, G, R) of an auto white balance that corrects only part of a room light's cast:
# warm ~ a 2700 K lamp, cool ~ 9000 K shade light, each about half corrected, as webcams leave it.
WARM_GAINS_BGR = (0.72, 1.0, 1.25)
COOL_GAINS_BGR = (1.25, 1.02, 0.8)


@dataclass(frozen=True)
class Degraded:
    """A changed photo: the image, its corner hole centres (tl, tr, br, bl) and, with a hand, what it hides.

    corners: None when they were not known. hidden: (rows, cols) share of each hole the hand hides, row 0 at the BOTTOM like the game grid (None
    without a hand). hand_mask: (H, W) bool, the hand's pixels. hand: the hand's description.
    """

    image: np.ndarray
    corners: np.ndarray | None
    hidden: np.ndarray | None = None
    hand_mask: np.ndarray | None = None
    hand: HandScene | None = None


def fit_within(
    image: np.ndarray, corners: np.ndarray | None, size_px: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray | None]:
    """The photo scaled down (never up) to fit inside size_px (width, height), keeping its aspect, and its corners."""
    scale = min(1.0, size_px[0] / image.shape[1], size_px[1] / image.shape[0])
    if scale >= 1.0:
        return image.copy(), _copied(corners)
    width, height = round(image.shape[1] * scale), round(image.shape[0] * scale)
    resized = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
    # Pixel centres: x' + 0.5 = (x + 0.5) * width / old width.
    factors = np.array([width / image.shape[1], height / image.shape[0]])
    return resized, None if corners is None else (np.asarray(corners, np.float64) + 0.5) * factors - 0.5


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """The photo after JPEG encoding at `quality` (1-100) and decoding: blocks and smeared colour."""
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError(f"JPEG quality {quality} could not be encoded: give 1 to 100")
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR)


def gaussian_noise(image: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Sensor noise: independent Gaussian noise of `sigma` grey levels on every channel of every pixel."""
    noisy = image.astype(np.float64) + rng.normal(0.0, sigma, image.shape)
    return np.clip(np.round(noisy), 0, 255).astype(np.uint8)


def motion_blur(image: np.ndarray, length_px: int, angle_deg: float) -> np.ndarray:
    """A camera or board moving during the exposure: a line `length_px` long at `angle_deg` smears each point."""
    kernel = np.zeros((length_px, length_px), np.float32)
    middle = (length_px - 1) / 2
    direction = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    for step in np.linspace(-middle, middle, 4 * length_px):
        x, y = np.round(middle + step * direction).astype(int)
        kernel[y, x] = 1.0
    return cv2.filter2D(image, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REFLECT)


def rotate(image: np.ndarray, corners: np.ndarray | None, angle_deg: float) -> tuple[np.ndarray, np.ndarray | None]:
    """The camera rolled by `angle_deg` (counter-clockwise): the frame grows so nothing of the photo is cut,
    the new margins continue the photo's edge pixels."""
    height, width = image.shape[:2]
    matrix = cv2.getRotationMatrix2D(((width - 1) / 2, (height - 1) / 2), angle_deg, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    new_width, new_height = int(np.ceil(width * cos + height * sin)), int(np.ceil(width * sin + height * cos))
    matrix[:, 2] += ((new_width - width) / 2, (new_height - height) / 2)
    rotated = cv2.warpAffine(
        image, matrix, (new_width, new_height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return rotated, None if corners is None else np.asarray(corners, np.float64) @ matrix[:, :2].T + matrix[:, 2]


def white_balance(image: np.ndarray, gains_bgr: tuple[float, float, float]) -> np.ndarray:
    """A colour cast: each channel scaled by its gain (clipped where it saturates)."""
    cast = image.astype(np.float64) * np.asarray(gains_bgr, np.float64)
    return np.clip(np.round(cast), 0, 255).astype(np.uint8)


def darken(image: np.ndarray, fraction: float) -> np.ndarray:
    """Less light: every pixel value scaled to `fraction` and re-quantised (the issue's "darkened to 45%";
    harsher than the same light change seen through a camera's gamma, which scales values by fraction**0.45)."""
    return np.round(image.astype(np.float64) * fraction).astype(np.uint8)


def exposure(image: np.ndarray, factor: float) -> np.ndarray:
    """The camera's exposure moved: every pixel value scaled by `factor`, saturating at 255 (a longer exposure
    burns bright colours into white, a shorter one darkens everything)."""
    return np.clip(np.round(image.astype(np.float64) * factor), 0, 255).astype(np.uint8)


def _seeded(seed: int, *names: str) -> np.random.Generator:
    """A generator fixed by the seed and names (crc32, not hash(), which changes from run to run)."""
    return np.random.default_rng([seed, *(zlib.crc32(name.encode()) for name in names)])


def _copied(corners: np.ndarray | None) -> np.ndarray | None:
    return None if corners is None else np.array(corners, np.float64)


ChangeFunction = Callable[[np.ndarray, np.ndarray | None, tuple[int, int], np.random.Generator], Degraded]


def _plain(transform: Callable[[np.ndarray, np.random.Generator], np.ndarray]) -> ChangeFunction:
    """A change that leaves the board where it is."""
    return lambda image, corners, shape, rng: Degraded(transform(image, rng), _copied(corners))


def _downscale(size_px: tuple[int, int]) -> ChangeFunction:
    return lambda image, corners, shape, rng: Degraded(*fit_within(image, corners, size_px))


def _rotation(angle_deg: float) -> ChangeFunction:
    def change(image, corners, shape, rng):
        return Degraded(*rotate(image, corners, angle_deg * rng.choice([-1.0, 1.0])))

    return change


def _hand(low: float, high: float, holds_disc: bool) -> ChangeFunction:
    def change(image, corners, shape, rng):
        disc = str(rng.choice(list(HELD_DISCS_BGR))) if holds_disc else None
        drawn = add_hand(image, np.asarray(corners, np.float64), shape, rng.uniform(low, high), rng, held_disc=disc)
        return Degraded(drawn.image, np.asarray(corners, np.float64), drawn.hidden, drawn.mask, drawn.scene)

    return change


CHANGES: dict[str, ChangeFunction] = {
    "none": _plain(lambda image, rng: image.copy()),
    "480x360": _downscale((480, 360)),
    "320x240": _downscale((320, 240)),
    "jpeg q25": _plain(lambda image, rng: jpeg(image, 25)),
    "noise 12": _plain(lambda image, rng: gaussian_noise(image, 12.0, rng)),
    "motion blur 9px": _plain(lambda image, rng: motion_blur(image, 9, rng.uniform(0.0, 180.0))),
    "rotation 8deg": _rotation(8.0),
    "warm light": _plain(lambda image, rng: white_balance(image, WARM_GAINS_BGR)),
    "cool light": _plain(lambda image, rng: white_balance(image, COOL_GAINS_BGR)),
    "light 60%": _plain(lambda image, rng: darken(image, 0.60)),
    "light 45%": _plain(lambda image, rng: darken(image, 0.45)),
    "light 30%": _plain(lambda image, rng: darken(image, 0.30)),
    # A webcam in a dim room raises its gain: dark and noisy together.
    "light 30% noisy": _plain(lambda image, rng: gaussian_noise(darken(image, 0.30), 5.0, rng)),
}
# The hands: the share of the board's face they cover and whether they hold a disc (a person about to play).
# They need the photo's corners.
HANDS = {
    "hand 5-15%": (0.05, 0.15, False),
    "hand 15-25%": (0.15, 0.25, False),
    "hand 25-40%": (0.25, 0.40, False),
    "hand with disc": (0.05, 0.20, True),
}
CHANGES.update({name: _hand(*hand) for name, hand in HANDS.items()})


# How the light of a room moves after calibration (a webcam's automatic exposure and white balance when a person
# leans over the board or a cloud passes): `c4robot bench vision calibrated` reads every photo under each.
DRIFTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "none": lambda image: image.copy(),
    **{
        f"exposure {percent:+d}%": (lambda image, factor=1 + percent / 100: exposure(image, factor))
        for percent in (-30, -20, -10, 10, 20, 30)
    },
    "warm light": lambda image: white_balance(image, WARM_GAINS_BGR),
    "cool light": lambda image: white_balance(image, COOL_GAINS_BGR),
}


def apply_change(
    name: str, image: np.ndarray, corners: np.ndarray | None, shape: tuple[int, int], seed: int, photo: str = ""
) -> Degraded:
    """The named change of CHANGES applied to a photo; `seed` and the photo's name fix every random choice.

    Raises ValueError for a name not in CHANGES (the sentence lists them), or a hand without corners.
    """
    if name not in CHANGES:
        raise ValueError(f"there is no image change {name!r}: choose from {', '.join(CHANGES)}")
    if corners is None and name in HANDS:
        raise ValueError(f"the change {name!r} needs the corners of the board, to know where to put the hand")
    return CHANGES[name](image, _copied(corners), shape, _seeded(seed, name, photo))


def change_names(text: str | None, known: Sequence[str] = tuple(CHANGES), what: str = "image changes") -> list[str]:
    """Comma-separated names of `known` (None: all of them, in order); ValueError of one sentence for an empty list
    or a name not known (the sentence lists the choices)."""
    if text is None:
        return list(known)
    chosen = [name.strip() for name in text.split(",") if name.strip()]
    if not chosen:
        raise ValueError(f"the list of {what} is empty: name one or more of {', '.join(known)}")
    if any(name not in known for name in chosen):
        shown = text if len(text) <= 40 else f"{text[:37]}..."
        raise ValueError(f"{what} {shown!r} are not all known: choose from {', '.join(known)}")
    return chosen
