"""Letters for disc colours (R red, Y yellow, B blue, G green, P pink, O orange, K black, W white).

A learnt disc colour gets the letter of the nearest reference colour in weighted Lab. Two discs never
share a letter, and a pair read as orange and yellow is called red and yellow: warm light pulls red
towards orange, and red/yellow is the common set.
"""

from __future__ import annotations

import numpy as np

from vision.hole_samples import to_weighted_lab

REFERENCE_RGB = {
    "R": (200, 35, 40),
    "Y": (240, 205, 40),
    "B": (30, 70, 190),
    "G": (70, 180, 70),
    "P": (230, 100, 170),
    "O": (240, 120, 30),
    "K": (30, 30, 30),
    "W": (235, 235, 235),
}
LETTERS = tuple(REFERENCE_RGB)
_REFERENCE_LAB = to_weighted_lab(np.array([[rgb[::-1] for rgb in REFERENCE_RGB.values()]], dtype=np.uint8))[0]


def _distances(weighted_lab: np.ndarray) -> np.ndarray:
    return np.linalg.norm(_REFERENCE_LAB - np.asarray(weighted_lab, dtype=np.float64), axis=1)


def colour_letter(weighted_lab: np.ndarray) -> str:
    """The letter of the reference colour nearest to one weighted-Lab colour."""
    return LETTERS[int(np.argmin(_distances(weighted_lab)))]


def colour_letters(colours: list[np.ndarray]) -> tuple[str, ...]:
    """Distinct letters for one or two disc colours (see the module docstring for the red/orange rule)."""
    letters = [colour_letter(colour) for colour in colours]
    if len(letters) == 2:
        if set(letters) == {"O", "Y"}:
            letters = ["R" if letter == "O" else letter for letter in letters]
        if letters[0] == letters[1]:
            distances = [_distances(colour) for colour in colours]
            further = int(np.argmax([distance.min() for distance in distances]))
            order = np.argsort(distances[further])
            letters[further] = next(LETTERS[i] for i in order if LETTERS[i] != letters[1 - further])
    return tuple(letters)
