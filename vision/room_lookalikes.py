"""Which holes read as a disc show what the room shows through holes read empty: a disc there is not sure.

A curtain or a wall nearly a disc's colour in shade (a dull olive behind a board of bright yellow discs) can be
within a light of that colour, and a hole above a disc then reads as one more disc. Holes that the board leaves
empty show the room: when one of them explains a hole read as a disc about as well as the disc colour does
(within CLEAR_CLAIM_MARGIN, what JPEG and noise move a disc's pixels towards a room of nearly its colour), the
frame cannot tell the two apart, when the disc is also off the shade of its colour's best-matching disc in the
frame by as much (the real yellow discs before the olive curtain are bright; wood as yellow as the discs behind
a board, ts21, leaves every disc like its peers and is told apart by the holes' shape, vision.hole_fill), and the
disc is trusted no more than ROOM_LIKE_DISC_CONFIDENCE: the game looks again or asks. Empty holes not proven empty (vision.empty_proof) count too: the curtain above every column of
discs is one of them, and a disc the frame may have missed that looks like the disc read is as good a reason to
doubt it.
"""

from __future__ import annotations

import numpy as np

from vision.empty_proof import CLEAR_CLAIM_MARGIN
from vision.hole_samples import HoleSamples, shaded_distances

# A disc the room explains as well as its colour is a coin toss between the two.
ROOM_LIKE_DISC_CONFIDENCE = 0.5


def room_like_discs(
    samples: HoleSamples,
    grid: np.ndarray,
    colours: tuple[np.ndarray, ...],
    empty: np.ndarray,
    shading_range: tuple[float, float],
) -> np.ndarray:
    """(rows, cols) the holes read as a disc (grid k > 0, colours[k - 1]) whose colour (median of the ring) a hole
    in `empty` ((rows, cols) bool) explains within CLEAR_CLAIM_MARGIN of how well the disc colour does, and that
    the disc colour explains CLEAR_CLAIM_MARGIN worse than it does the disc of that colour it fits best; all are
    given the same `shading_range` of light."""
    flat = grid.ravel()
    discs = np.flatnonzero((flat > 0) & samples.visible)
    rooms = samples.hole_colours[empty.ravel() & samples.visible]
    like = np.zeros(grid.shape, dtype=bool)
    if not len(discs) or not len(rooms):
        return like
    seen = samples.hole_colours[discs]
    disc_fit = shaded_distances(seen, np.asarray(colours), shading_range)[flat[discs] - 1, np.arange(len(discs))]
    room_fit = shaded_distances(seen, rooms, shading_range).min(axis=0)
    best_fit = np.array([disc_fit[flat[discs] == index + 1].min(initial=np.inf) for index in range(len(colours))])
    off_its_peers = disc_fit > best_fit[flat[discs] - 1] + CLEAR_CLAIM_MARGIN
    like.ravel()[discs] = (room_fit <= disc_fit + CLEAR_CLAIM_MARGIN) & off_its_peers
    return like
