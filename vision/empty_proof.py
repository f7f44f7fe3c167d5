"""Which holes read empty are not proven empty: they may hold a disc that light or the camera has changed.

An empty cell is sure only when its hole shows what is behind the board. A disc under a warm lamp, in dim light
under a webcam's noise, or smeared by JPEG blocks and blur can drift from the colour learnt for it, and the count
prior or a background colour learnt from the holes read empty (which may be such discs) then empties it. Such a
hole is filled to the rim all round by one colour, as a disc is; read empty, it is no surer than
UNPROVEN_EMPTY_CONFIDENCE, so the game looks again or asks instead of playing on a board that is not there.
Above a hole proven empty no disc can be (discs fall), so the room seen through the holes above it proves
nothing either way and stays sure.
"""

from __future__ import annotations

import numpy as np

from vision.colour_clusters import MATCH_RADIUS, SATURATED_CHROMA, SHADOW_RANGE
from vision.hole_fill import fill_dents
from vision.hole_samples import BLACK, HoleSamples, shaded_distances
from vision.rim_band import Band

# A hole whose ring is, all but a DISC_LIKE_SHARE, one light of a disc colour (SHADOW_RANGE) that no background
# colour clearly explains, reaching the rim all round but for UNPROVEN_DENT_PITCH (JPEG blocks and blur move a
# disc's edge by 0.05 pitch), may be that disc.
DISC_LIKE_SHARE = 0.8
UNPROVEN_DENT_PITCH = 0.08
# Or whose ring is a disc colour in about the light it was calibrated in (CUT_DISC_LIGHT_RANGE) this much, however
# short of the rim it stops on one side: a disc in its slot behind a thick face seen from aside shows a crescent (the
# tunnel's wall hides one side of it), a ring disc's hole adding the room in its middle, its colour in two fifths of
# the ring; an empty hole shows the room and the tunnel's wall, a disc colour in a quarter at most. A loose disc
# lying behind the board, in its shadow, is darker; a room of a disc's hue far lighter or darker (grey walls behind
# white discs) is no disc either. Near black, MATCH_RADIUS spans many times a colour's own lightness, so a pixel
# must also be no lighter than that light makes the colour, give or take CUT_DISC_LIGHTNESS_NOISE (weighted Lab, a
# webcam's noise on a dark disc): a dark grey room seen through the holes is no black disc in any light of the game.
# (Darker is let be: a black disc's calibrated colour is mostly the camera's black level and flare.)
CUT_DISC_SHARE = 0.4
CUT_DISC_LIGHT_RANGE = (0.88, 1.5)
CUT_DISC_LIGHTNESS_NOISE = 2.0
# Or, where the hole's middle shows a ring, whose band just inside the rim is one colour this much of the way round
# (vision.rim_band, no sector spared), however short of the rim it seems to stop: a wide ring seen from 40 degrees
# aside shows the room through its hole right to the rim on one side, as a loose disc behind the board leaves a
# crescent; the disc below, seen through the bottom of an empty hole above it, fills a third of the band at most.
BAND_DISC_LIKE_SHARE = 0.6
UNPROVEN_EMPTY_CONFIDENCE = 0.5
# A ring pixel is the room's, not a disc's in other light, when a background colour explains it better by this
# much (weighted Lab): JPEG and noise move a yellow disc's pixels half way to wood of nearly its colour.
CLEAR_CLAIM_MARGIN = 6.0
# A background colour proves holes empty only when no light makes a disc colour within this of it: learnt from
# the holes read empty, it may be discs the count prior emptied (dim pink discs a little off the pink learnt).
DISTINCT_BACKGROUND = 12.0
# With fewer than two disc colours learnt (none: the board read empty), a hole filled to the rim by one colour this
# vivid may hold a disc of the colour missed (dim, noisy red discs stay above it); with two, one as vivid as plastic
# (SATURATED_CHROMA) may be a disc off its colour (one more orange than the rest under a warm lamp).
FILLED_CHROMA = 30.0
# A hole is at the camera's ceiling when at least this share of its ring pixels is, in some channel.
AT_CEILING_SHARE = 0.5


def distinct_backgrounds(background: tuple[np.ndarray, ...], colours: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """The background colours (vision.room_behind.background_colours) that no light makes of a disc colour."""
    if not colours:
        return background
    return tuple(
        colour
        for colour in background
        if shaded_distances(colour, np.asarray(colours), SHADOW_RANGE).min() >= DISTINCT_BACKGROUND
    )


def unproven_empty(
    samples: HoleSamples,
    grid: np.ndarray,
    colours: tuple[np.ndarray, ...],
    dents: np.ndarray,
    claimed: np.ndarray | None,
    band: Band | None = None,
) -> np.ndarray:
    """(rows, cols) the holes read empty (grid 0, not covered) a disc could rest in that look like one.

    `dents` (holes, colours) as vision.hole_fill measures them; `claimed` (holes, ring pixels) the pixels a
    distinct background colour clearly explains (None: none). `band`: the band just inside the rim of the holes whose
    middle shows a ring (vision.rim_band): a ring disc's middle shows the room, so there the band tells whether a
    colour fills the hole.
    """
    empty = (grid.ravel() == 0) & samples.visible
    if not empty.any():
        return np.zeros(grid.shape, dtype=bool)
    vivid = FILLED_CHROMA if len(colours) < 2 else SATURATED_CHROMA
    unproven = _filled_by_one_colour(samples, empty, vivid) | (empty & _vivid_at_ceiling(samples, vivid))
    if colours:
        in_some_light = shaded_distances(samples.pixels, np.asarray(colours), SHADOW_RANGE) < MATCH_RADIUS
        if claimed is not None:
            in_some_light &= ~claimed
        like_a_disc = ((in_some_light.mean(axis=2) >= DISC_LIKE_SHARE) & (dents.T <= UNPROVEN_DENT_PITCH)).any(axis=0)
        in_its_light = shaded_distances(samples.pixels, np.asarray(colours), CUT_DISC_LIGHT_RANGE) < MATCH_RADIUS
        in_its_light &= _no_lighter_than_its_light(samples.pixels, np.asarray(colours), CUT_DISC_LIGHT_RANGE)
        if claimed is not None:
            in_its_light &= ~claimed
        cut_short = (in_its_light.mean(axis=2) >= CUT_DISC_SHARE).any(axis=0)
        unproven |= empty & (like_a_disc | cut_short)
        if band is not None:
            unproven |= empty & (band.all_round(band.distances(colours)) >= BAND_DISC_LIKE_SHARE).any(axis=1)
    return _could_hold_a_disc(unproven.reshape(grid.shape), grid, samples)


def _no_lighter_than_its_light(pixels: np.ndarray, colours: np.ndarray, light_range: tuple[float, float]) -> np.ndarray:
    """(colours, holes, ring pixels) bool: whether each pixel is no lighter than each colour gets in the brightest
    light of `light_range` (shading scales lightness from BLACK, as vision.hole_samples.shaded_distances does), give
    or take CUT_DISC_LIGHTNESS_NOISE."""
    lightness = pixels[None, ..., 0] - BLACK[0]
    own = (colours[:, 0] - BLACK[0]).reshape(-1, *(1,) * (pixels.ndim - 1))
    return lightness <= light_range[1] * own + CUT_DISC_LIGHTNESS_NOISE


def _vivid_at_ceiling(samples: HoleSamples, chroma: float) -> np.ndarray:
    """(holes,) the holes of a colour of at least `chroma` whose ring is mostly at the camera's ceiling in some
    channel: how far such a colour reaches towards the rim cannot be measured (its burnt middle and its unburnt
    edge differ), so a disc there may fail every test of one."""
    if samples.at_ceiling is None:
        return np.zeros(len(samples.hole_colours), dtype=bool)
    own = samples.hole_colours
    return ((samples.at_ceiling >= 1).mean(axis=1) >= AT_CEILING_SHARE) & (np.hypot(own[:, 1], own[:, 2]) >= chroma)


def _filled_by_one_colour(samples: HoleSamples, holes: np.ndarray, chroma: float) -> np.ndarray:
    """(holes,) which of `holes` one colour of at least `chroma` fills to the rim, as a disc does, whatever
    colours were learnt."""
    own = samples.hole_colours
    filled = np.zeros(len(holes), dtype=bool)
    for hole in np.flatnonzero(holes & (np.hypot(own[:, 1], own[:, 2]) >= chroma)):
        pixels, colour = samples.pixels[hole : hole + 1], own[hole : hole + 1]
        if (shaded_distances(pixels, colour, SHADOW_RANGE) < MATCH_RADIUS).mean() < DISC_LIKE_SHARE:
            continue
        dent = fill_dents(
            samples.rays[hole : hole + 1], samples.rim_offsets[hole : hole + 1], colour, samples.face, MATCH_RADIUS
        )
        filled[hole] = dent[0, 0] <= UNPROVEN_DENT_PITCH
    return filled


def _could_hold_a_disc(unproven: np.ndarray, grid: np.ndarray, samples: HoleSamples) -> np.ndarray:
    """(rows, cols) the unproven holes on the bottom row, or on a disc, a covered hole or another unproven hole."""
    covered = ~samples.visible.reshape(grid.shape)
    kept = unproven.copy()
    for row in range(1, grid.shape[0]):
        kept[row] &= (grid[row - 1] != 0) | covered[row - 1] | kept[row - 1]
    return kept
