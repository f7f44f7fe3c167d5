"""Disc colours learnt from the whole game, not from one sample.

Every disc the game knows (the robot's own drops, a person's move once it is confirmed) shows its player's colour in
the light of the moment, where the reader looks for it (vision.deep_holes.holes_as_read: behind a thick face, in the
part of the hole its tunnel does not hide; a ring-shaped disc in its ring, not the room its middle shows); so do the
holes the game knows empty for what shows through them. The model keeps the most recent of them, each put in the
board's light (vision.hole_samples.in_board_light: a lamp to one side makes a gradient of light, not of colour), and
gives the reader their median: colours that follow light drifting during the game and do not hang on one disc that
happened to be pale or in a shadow. It also says when two colours, or a colour and the empty holes, are too close to
tell apart: an empty hole whose colour is a disc's counts against it only where the game's reading did not tell it
empty (a black disc before a dark room behind the holes is told from an empty hole by its rim and by the empty
board's look, and the game goes on).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

from vision.deep_holes import holes_as_read
from vision.hole_samples import BLACK, from_weighted_lab_to_bgr, local_light, to_weighted_lab
from vision.rim_band import ring_disc_colours

# The discs of a player the model remembers: enough for a median that one odd disc does not move, few enough to
# follow the light of the last moves.
RECENT_DISCS = 12
# Two colours nearer than this (weighted Lab) are hard to tell apart in every light a game brings.
TOO_CLOSE = 16.0
# A colour is too close to the empty holes when more than this share of them look like it.
EMPTY_LOOKALIKE_SHARE = 0.25


class ColourModel:
    """The two players' disc colours and the empty holes' look, learnt from the boards the game knows."""

    def __init__(
        self,
        shape: tuple[int, int] = (6, 7),
        recent: int = RECENT_DISCS,
        calibrated: Sequence[Sequence[float]] | None = None,
    ) -> None:
        """`calibrated`: the two players' colours from `calibrate colours` (BGR in the board's light, the first
        player's first), each kept as one disc until the game's own discs outnumber it."""
        self.shape = shape
        self.discs: tuple[deque, deque] = (deque(maxlen=recent), deque(maxlen=recent))
        self.empty: deque = deque(maxlen=recent * 3)
        self.empty_told: deque = deque(maxlen=recent * 3)  # per empty sample: the game's reading told it empty
        for discs, bgr in zip(self.discs, calibrated or (), strict=False):
            discs.append(
                to_weighted_lab(np.clip(np.asarray(bgr, float), 0, 255).astype(np.uint8).reshape(1, 1, 3))[0, 0]
            )

    def learn(
        self,
        frame_bgr: np.ndarray,
        corners_px: np.ndarray,
        known: np.ndarray,
        skip: np.ndarray | None = None,
        relearn: bool = False,
        told: np.ndarray | None = None,
    ) -> None:
        """Add what `frame_bgr` shows at every disc and every empty hole of `known` (the board the game knows,
        values 1 and 2 the players', row 0 at the bottom), seen at `corners_px`; `skip` ((rows, cols) bool) names
        holes that show something else (a hand in front). `relearn`: the light has changed, so what this frame shows
        replaces what was learnt before (for each kind of hole it shows). `told` ((rows, cols) bool): the holes the
        game's reading of this frame read surely as `known` (None: no reading, the colours alone judge)."""
        known = np.asarray(known)
        if known.shape != self.shape:
            raise ValueError(f"the known board is {known.shape[0]}x{known.shape[1]}, the model's {self.shape}")
        samples = holes_as_read(frame_bgr, np.asarray(corners_px, float), self.shape)
        values = known.ravel()
        rings, bands = ring_disc_colours(samples)  # a ring disc is its band's colour, not the room's through it
        filling = np.where((rings & (values != 0))[:, None], bands, samples.hole_colours)
        in_board_light = (filling - BLACK) / local_light(samples)[:, None] + BLACK
        used = np.ones(values.shape, bool) if skip is None else ~np.asarray(skip, bool).ravel()
        told_holes = np.zeros(values.shape, bool) if told is None else np.asarray(told, bool).ravel()
        for kept, value in ((self.empty, 0), (self.discs[0], 1), (self.discs[1], 2)):
            seen = in_board_light[(values == value) & used]
            if relearn and len(seen):
                kept.clear()
                if value == 0:
                    self.empty_told.clear()
            kept.extend(seen)
        self.empty_told.extend(told_holes[(values == 0) & used])

    def colours(self) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
        """Both players' colours (BGR, the first player's first) for vision.read, None until each has a disc."""
        if not all(self.discs):
            return None
        return tuple(tuple(int(v) for v in from_weighted_lab_to_bgr(self._median(d))) for d in self.discs)  # type: ignore[return-value]

    def separation_problem(self) -> str | None:
        """A sentence when the two colours, or a colour and the empty holes, are too close to tell apart."""
        known = [self._median(discs) if discs else None for discs in self.discs]
        if known[0] is not None and known[1] is not None and np.linalg.norm(known[0] - known[1]) < TOO_CLOSE:
            return "the two players' discs look alike in this light: use discs of two clearly different colours"
        for player, colour in enumerate(known, start=1):
            if colour is not None and self.empty:
                looks_empty = np.linalg.norm(np.asarray(self.empty) - colour, axis=1) < TOO_CLOSE
                if (looks_empty & ~np.asarray(self.empty_told)).mean() > EMPTY_LOOKALIKE_SHARE:
                    return (
                        f"player {player}'s discs look like what shows through the empty holes: use other discs, "
                        "or put something plain behind the board"
                    )
        return None

    @staticmethod
    def _median(colours: deque) -> np.ndarray:
        return np.median(np.asarray(colours), axis=0)
