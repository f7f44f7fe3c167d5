"""The room behind the board, as the holes a board leaves empty show it: what competes with the disc colours.

A wooden table or a beige curtain behind the board can be nearly a disc's colour. Learnt from the holes a reading
leaves empty (the face and shades of the disc colours left out), it claims the ring pixels it explains better than
any light on a disc colour does, so wood of nearly the yellow discs' colour neither passes for discs nor drags the
true pair down (vision.classify), nor makes the empty holes before it look like discs cut short (vision.deep_holes).
"""

from __future__ import annotations

import numpy as np

from vision.colour_clusters import SHADOW_RANGE, candidate_colours, shades_of
from vision.hole_samples import HoleSamples, shaded_distances
from vision.ring_coverage import colour_distances


def background_colours(
    samples: HoleSamples, grid: np.ndarray, colours: tuple[np.ndarray, ...]
) -> tuple[np.ndarray, ...]:
    """The colours seen through the holes a board leaves empty: the room behind it (clusters; the face and
    shades of the disc colours, such as a loose disc in the shade behind the board, left out).

    A wooden table or a beige curtain behind the board can be nearly a disc's colour; learnt from the empty
    holes, it competes for the ring pixels (background_claims), so what is nearer to it than to any shade of
    a disc colour stops counting as disc.
    """
    empty = samples.hole_colours[(grid.ravel() == 0) & samples.visible]
    clusters = candidate_colours(empty, samples.face) if len(empty) else []
    if not clusters or not colours:
        return ()
    return tuple(
        colour for colour, shade in zip(clusters, shades_of(clusters, colours).any(axis=1), strict=False) if not shade
    )


def background_claims(
    samples: HoleSamples, colours: tuple[np.ndarray, ...], background: tuple[np.ndarray, ...], margin: float = 0.0
) -> np.ndarray:
    """(holes, ring pixels): the pixels a background colour explains better than any light on a disc colour does.

    The disc colours are given every shade in SHADOW_RANGE here, so a disc's own shadowed side stays the
    disc's however near a background it comes; what no light makes of a disc colour (wood is a duller
    yellow at the same lightness) goes to the background; by `margin` at least, where only a clear win counts.
    """
    return colour_distances(samples, background).min(axis=0) + margin < shaded_disc(samples, colours)


def shaded_disc(samples: HoleSamples, colours: tuple[np.ndarray, ...]) -> np.ndarray:
    """(holes, ring pixels): from every ring pixel to the nearest shade (SHADOW_RANGE) of a disc colour."""
    return shaded_distances(samples.pixels, np.asarray(colours), SHADOW_RANGE).min(axis=0)


def room_claims(samples: HoleSamples, grid: np.ndarray, colours: tuple[np.ndarray, ...]) -> np.ndarray:
    """(holes, ring pixels): the pixels the room seen through the holes `grid` leaves empty explains better than any
    light on a disc colour does (none where those holes show nothing but the face and shades of the disc colours)."""
    background = background_colours(samples, grid, colours)
    if not background:
        return np.zeros(samples.pixels.shape[:2], dtype=bool)
    return background_claims(samples, colours, background)
