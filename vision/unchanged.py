"""Which holes look exactly as they did in a reference frame, put in its light: same camera pose, nothing in front.

One photo cannot prove every empty hole empty (vision.empty_proof); a game knows more: a hole it saw empty at the
start whose look has not changed since still shows the same room through it. Both frames are sampled at the same
corners (vision.hole_samples); every hole's ring and rays (its inside, its rim, the face round it) are cut into
patches, and the hole is unchanged when every patch's median colour, in the reference's light (the webcam's drift,
vision.reference_light), is where it was, within a webcam's noise. A disc changes the inside and the rim's shading,
a hand the face round the hole, a camera moved by a pixel or two the rim. A hole the game knows empty that is
unchanged is empty, however it is read; a known disc read empty is a disc taken out only if its hole looks as on
the empty board, otherwise something is in front of it (a dark sleeve) and it is read covered.

Longer than 400 lines because the game's checks of one frame share its samples and patches (`_LastLook`, the light
they are put in): split into modules, each would sample the frame again or reach into the others' cache.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from vision.hole_samples import (
    RAY_COUNT,
    RAY_RADII_PITCH,
    SECTOR_COUNT,
    HoleSamples,
    sample_holes,
    shaded_distances,
    to_weighted_lab,
)
from vision.known_board import doubted_removals
from vision.occlusion import FACE_RING_RADIUS_PITCH, covered_sentence, face_tinted
from vision.reading import BoardReading
from vision.reference_light import in_reference_light, light_gains
from vision.reliability import SURE

# Rays in a patch (RAY_COUNT / RAYS_PER_PATCH patches round a hole), and the radii (pitches) that split each ray
# into the hole's inside, its rim (holes measure 0.33 to 0.38 pitch) and the face beyond.
RAYS_PER_PATCH = 4
RAY_BANDS_PITCH = (0.265, 0.365)
# The most a patch's median colour may move (weighted Lab) from the reference (the mean of a few frames) in a frame
# of the same scene: above a webcam's noise, well below what a dropped disc or a moved camera does to a hole.
UNCHANGED_DISTANCE = 12.0
# The empty board's frames prove a disc gone only while most holes the game knows empty still look as they did
# then: when fewer do, the light or the camera has moved since, and no hole is expected to look as it did.
REFERENCE_VALID_SHARE = 0.5
# A hole changed this much (weighted Lab, a patch's median) has something new in it: a disc dropped in moves its patches
# by 50 or more, a webcam's noise by under UNCHANGED_DISTANCE.
CHANGED_DISTANCE = 30.0
# A patch that moved this much (weighted Lab) more than the same patch of the holes round the board did has something
# of its own in front of it (a forearm before a clear board), not light that drifted: drift moves every hole alike,
# and a webcam's noise leaves the difference under 4.5.
LOCAL_CHANGE = 6.0
# A disc in a hole changes its patches inside and on the rim (the ring's sectors, the rays' inside and rim bands):
# all of them, or, a disc of nearly the room's colour, its rim all round; a hole that shows the edge of the disc
# below it (seen from above, through a thin face) changes one or two of them. At most this many changed: no disc.
MOST_INNER_CHANGED = 2
INNER_PATCHES = SECTOR_COUNT + 2 * (RAY_COUNT // RAYS_PER_PATCH)
PATCH_COUNT = INNER_PATCHES + RAY_COUNT // RAYS_PER_PATCH
FACE = slice(INNER_PATCHES, PATCH_COUNT)  # the rays' band beyond the rim, on the face round the hole
# After the patches, every ray's own look on the face ring (vision.occlusion), where a hand in front shows: a
# patch's median mixes what its rays show (a glossy face's glare spot and the face beside it), each ray far from it.
FACE_RAYS = slice(PATCH_COUNT, None)
# A person's disc read from its hole's change: its colour at most this share of its distance from the robot's, and
# the confidence it is read at (below SURE: the reader could not tell it; at or above the stabiliser's floor).
PERSON_COLOUR_SHARE = 0.5
INFERRED_CONFIDENCE = 0.8
# How much dimmer or brighter than its calibrated colour a disc may look in the light of the game.
DISC_SHADING = (0.6, 1.6)
# A patch of the face round a hole this near (weighted Lab, shaded by DISC_SHADING) a disc colour shows that disc past
# its rim (a clear face); skin and sleeves stay farther from both colours of a pair the game tells apart.
DISC_FACE_DISTANCE = 12.0
# A face patch the disc's edge crosses shows its colour mixed with what the patch showed before (these shares of the
# disc's), within DISC_FACE_DISTANCE; one such patch round a hole at most, as one edge crosses one patch.
EDGE_SHARES = (0.25, 0.5, 0.75)
MOST_EDGE_PATCHES = 1
# The confidence of an empty reading that its hole's change doubts: unsure, so the game looks again or asks.
DOUBTED_EMPTY_CONFIDENCE = 0.5


class _LastLook:
    """The last frame's samples and patches, taken once; its key holds a sparse grid of the frame's pixels too."""

    key: tuple = ()
    samples: HoleSamples | None = None
    patches: np.ndarray | None = None


def _looked_at(frame: np.ndarray, corners: np.ndarray, shape: tuple[int, int]) -> HoleSamples:
    """sample_holes(frame, corners, shape), once per frame."""
    key = (id(frame), frame[::7, ::7].tobytes(), np.asarray(corners, np.float64).tobytes(), tuple(shape))
    if _LastLook.key != key:
        _LastLook.key, _LastLook.samples, _LastLook.patches = key, sample_holes(frame, corners, shape), None
    return _LastLook.samples


def _patches_of(samples: HoleSamples) -> np.ndarray:
    """patch_colours(samples), once for the last frame looked at."""
    if samples is not _LastLook.samples:
        return patch_colours(samples)
    if _LastLook.patches is None:
        _LastLook.patches = patch_colours(samples)
    return _LastLook.patches


def _in_light_of(reference: np.ndarray | None, samples: HoleSamples, light: np.ndarray | None = None) -> np.ndarray:
    """The patch colours of `samples`, to compare with `reference`, in the light of the `light` frame (default the
    reference's; None: as seen), both reference_patches (vision.reference_light)."""
    patches, light = _patches_of(samples), reference if light is None else light
    gains = None if light is None else light_gains(patches, light, FACE)
    return patches if gains is None else in_reference_light(patches, gains, reference)


def patch_colours(samples: HoleSamples) -> np.ndarray:
    """(holes, PATCH_COUNT + RAY_COUNT, 3): the median weighted-Lab colour of every patch of every hole: the ring's
    sectors, then the rays' patches band by band; then of every ray on the face ring (FACE_RAYS)."""
    holes = len(samples.pixels)
    ring = [np.median(samples.pixels[:, samples.sector == sector], axis=1) for sector in range(SECTOR_COUNT)]
    band = np.searchsorted(RAY_BANDS_PITCH, RAY_RADII_PITCH)
    rays = samples.rays.reshape(holes, RAY_COUNT // RAYS_PER_PATCH, RAYS_PER_PATCH, len(RAY_RADII_PITCH), 3)
    bands = [
        np.median(rays[:, :, :, band == index].reshape(holes, RAY_COUNT // RAYS_PER_PATCH, -1, 3), axis=2)
        for index in range(len(RAY_BANDS_PITCH) + 1)
    ]
    face_rays = np.median(samples.rays[:, :, RAY_RADII_PITCH >= FACE_RING_RADIUS_PITCH], axis=2)
    return np.concatenate([np.stack(ring, axis=1), *bands, face_rays], axis=1)


def reference_patches(samples: Sequence[HoleSamples]) -> np.ndarray:
    """The reference for `unchanged_holes`: the mean patch colours of a few frames of one scene (its noise halved)."""
    return np.mean([patch_colours(each) for each in samples], axis=0)


def patch_changes(reference: np.ndarray, samples: HoleSamples) -> np.ndarray:
    """(rows, cols): every hole's largest move of a patch's colour from `reference` (sampled as `samples`)."""
    seen = _in_light_of(reference, samples)[:, :PATCH_COUNT]
    return np.linalg.norm(seen - reference[:, :PATCH_COUNT], axis=2).max(axis=1).reshape(samples.shape)


def discless_holes(reference: np.ndarray, samples: HoleSamples) -> np.ndarray:
    """(rows, cols) bool, row 0 at the bottom: the holes with no disc in them, their insides and rims looking as in
    the reference (reference_patches, sampled as `samples`) but for a patch or two (MOST_INNER_CHANGED: the edge of a
    disc next to it); a disc in it changes its inside, or its rim all round (a black disc before a black room)."""
    return _few_changed(_inner_changes(_in_light_of(reference, samples), reference)).reshape(samples.shape)


def _inner_changes(seen: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """(holes, INNER_PATCHES): how far each patch inside a hole and on its rim (`seen`, in the reference's light)
    moved from the reference's."""
    return np.linalg.norm(seen[:, :INNER_PATCHES] - reference[:, :INNER_PATCHES], axis=2)


def _inside_changed_by_far(reference: np.ndarray, samples: HoleSamples) -> np.ndarray:
    """(rows, cols) bool: the holes whose inside (the ring's sectors, the rays' inside band) changed by far
    (CHANGED_DISTANCE) since `reference`, or their rim on more than MOST_INNER_CHANGED patches, as a disc dropped in
    changes them: the discs round a hole seen past their rims (a clear face) change its face and a rim patch or two."""
    far = _inner_changes(_in_light_of(reference, samples), reference) >= CHANGED_DISTANCE
    rim = SECTOR_COUNT + RAY_COUNT // RAYS_PER_PATCH
    return (far[:, :rim].any(axis=1) | (far[:, rim:].sum(axis=1) > MOST_INNER_CHANGED)).reshape(samples.shape)


def _few_changed(inner: np.ndarray) -> np.ndarray:
    """(holes,) bool: the holes whose inner patches' moves (holes, INNER_PATCHES) pass UNCHANGED_DISTANCE in at most
    MOST_INNER_CHANGED of them."""
    return (inner >= UNCHANGED_DISTANCE).sum(axis=1) <= MOST_INNER_CHANGED


def unchanged_holes(reference: np.ndarray, samples: HoleSamples) -> np.ndarray:
    """(rows, cols) bool, row 0 at the bottom: the holes that look as in `reference` (sampled as `samples`)."""
    return patch_changes(reference, samples) < UNCHANGED_DISTANCE


def as_on_empty_board(
    frame: np.ndarray, corners: np.ndarray, shape: tuple[int, int], empty_reference: np.ndarray
) -> np.ndarray:
    """(rows, cols) bool: the holes of `frame` that look as on the empty board (`empty_reference`), for vision.read."""
    return unchanged_holes(empty_reference, _looked_at(frame, corners, shape))


def insides_as_on_empty_board(
    frame: np.ndarray, corners: np.ndarray, shape: tuple[int, int], empty_reference: np.ndarray
) -> np.ndarray:
    """(rows, cols) bool: the holes of `frame` whose insides look as on the empty board but for a patch or two
    (discless_holes), for vision.read's empty_insides; the frame's samples shared with as_on_empty_board."""
    return discless_holes(empty_reference, _looked_at(frame, corners, shape))


def face_rays_as_on_empty_board(
    frame: np.ndarray, corners: np.ndarray, shape: tuple[int, int], empty_reference: np.ndarray
) -> np.ndarray:
    """(rows * cols, RAY_COUNT) bool: the rays whose samples on the face ring round their hole (vision.occlusion)
    look as they did on the empty board (`empty_reference`: FACE_RAYS), in its light, for vision.read's
    unchanged_rays: nothing is in front of them, whatever a clear face shows there (the room, the robot's body behind
    it) or a glossy face's glare, though a disc seen past its rim may have changed the face nearer the hole."""
    seen = _in_light_of(empty_reference, _looked_at(frame, corners, shape))[:, FACE_RAYS]
    return np.linalg.norm(seen - empty_reference[:, FACE_RAYS], axis=2) < UNCHANGED_DISTANCE


def refreshed_reference(
    reference: np.ndarray, frame: np.ndarray, corners: np.ndarray, shape: tuple[int, int], empty: np.ndarray
) -> np.ndarray:
    """The empty board's look (`reference`, sampled at `corners`) taken again from `frame` for the holes the game
    knows empty that it shows empty (`empty`, (rows, cols) bool), where no disc could be in them: their insides
    unchanged but for a patch or two (the edge of a disc just dropped next to them), or changed by less than a disc
    does (light that drifted since), and no more than a patch or two changed otherwise than the same patches of
    those holes did as a whole (LOCAL_CHANGE: a forearm in front of a few holes, which a clear board shows as dimly
    as the room behind it). Later frames are then judged against the look of the last confirmed board."""
    samples = _looked_at(frame, corners, shape)
    seen = _in_light_of(reference, samples)
    inner = _inner_changes(seen, reference)
    drifted = inner.max(axis=1) < CHANGED_DISTANCE
    candidates = np.asarray(empty, dtype=bool).ravel() & (drifted | _few_changed(inner))
    if not candidates.any():
        return reference
    moved = seen - reference
    local = np.linalg.norm((moved - np.median(moved[candidates], axis=0))[:, :PATCH_COUNT], axis=2) >= LOCAL_CHANGE
    renewed = candidates & (local.sum(axis=1) <= MOST_INNER_CHANGED)
    refreshed = reference.copy()
    refreshed[renewed] = seen[renewed]
    return refreshed


def with_looks_above_new_discs(
    reference: np.ndarray, frame: np.ndarray, corners: np.ndarray, shape: tuple[int, int], above: np.ndarray
) -> np.ndarray:
    """The empty board's look (`reference`, sampled at `corners`) taken again from `frame` for the holes just above
    discs the game has just come to know (`above`, (rows, cols) bool: known empty, read surely empty in `frame`),
    however far they changed, where their ring changed on one side only (at most half its sectors by
    UNCHANGED_DISTANCE): seen from above through a thick clear face, an empty hole shows the top of the disc below
    it, which later frames must not take for a disc dropped in; a disc in the hole changes its ring all round."""
    above = np.asarray(above, dtype=bool).ravel()
    if not above.any():
        return reference
    seen = _in_light_of(reference, _looked_at(frame, corners, shape))
    ring = _inner_changes(seen, reference)[:, :SECTOR_COUNT]
    learnt = above & ((ring >= UNCHANGED_DISTANCE).sum(axis=1) <= SECTOR_COUNT // 2)
    refreshed = reference.copy()
    refreshed[learnt] = seen[learnt]
    return refreshed


def trust_unchanged_empties(
    reading: BoardReading, frame: np.ndarray, corners: np.ndarray, known_empty: np.ndarray, empty_reference: np.ndarray
) -> BoardReading:
    """`reading` of `frame` read sure and empty where the game knows the hole is empty (`known_empty`) and it looks
    as on the empty board (`empty_reference`, sampled at `corners`): an unsure reading where its inside is unchanged
    but for a patch or two (discless_holes); one read covered (seen from high above, the bottom row shows the
    board's foot) or a sure disc (a dark room) where all of it is, face ring and all: a hand changes the face round
    the hole, a disc its inside far beyond UNCHANGED_DISTANCE. Other cells keep the reader's reading."""
    if not reading.is_board_found:
        return reading
    covered = reading.covered_holes
    unsure = reading.confidence < SURE
    doubted = known_empty & (unsure | covered | (reading.grid != 0))
    if not doubted.any():
        return reading
    samples = _looked_at(frame, corners, reading.grid.shape)
    trusted = doubted & np.where(
        unsure & ~covered, discless_holes(empty_reference, samples), unchanged_holes(empty_reference, samples)
    )
    if not trusted.any():
        return reading
    return trusting(reading, trusted, 0)


def doubt_changed_empties(
    reading: BoardReading, frame: np.ndarray, corners: np.ndarray, known: np.ndarray, empty_reference: np.ndarray
) -> BoardReading:
    """`reading` of `frame` with its sure empty cells made unsure where the game's next disc could land (the lowest
    hole of a column the game knows, `known` in players' values) and the hole no longer looks as it did on the empty
    board (`empty_reference`, sampled at `corners`) by far, its inside and not just the edge of a disc next to it
    (discless_holes): a disc the reader could not tell from the room behind is never read surely empty. Only while
    most holes known empty look as they did (REFERENCE_VALID_SHARE): a change of light or a moved camera changes all."""
    if not reading.is_board_found:
        return reading
    covered = reading.covered_holes
    playable = _lowest_empty(known)
    suspect = playable & (reading.grid == 0) & (reading.confidence >= SURE) & ~covered
    if not suspect.any():
        return reading
    samples = _looked_at(frame, corners, reading.grid.shape)
    changes = patch_changes(empty_reference, samples)
    if not _empty_board_fits(changes < UNCHANGED_DISTANCE, (known == 0) & ~covered):
        return reading
    doubted = suspect & _inside_changed_by_far(empty_reference, samples) & ~discless_holes(empty_reference, samples)
    if not doubted.any():
        return reading
    where = ", ".join(f"column {column + 1} row {row + 1}" for row, column in np.argwhere(doubted))
    said = f"{where} changed since the empty board, yet reads empty"
    return dataclasses.replace(
        reading,
        confidence=np.where(doubted, np.minimum(reading.confidence, DOUBTED_EMPTY_CONFIDENCE), reading.confidence),
        problems=[*reading.problems, said],
    )


def expected_disc_from_change(
    reading: BoardReading,
    frame: np.ndarray,
    corners: np.ndarray,
    known: np.ndarray,
    empty_reference: np.ndarray,
    column: int,
    player: int,
    colours: Sequence[Sequence[float]],
) -> BoardReading:
    """`reading` (in players' values, as read with `colours`, BGR, the first player's first) with the disc the game
    expects (the robot's own, `player`'s, dropped into `column`) read at SURE where the reader could not tell it
    (read empty, or unsure) from what the game knows: the lowest empty hole of `column` is the one hole where a disc
    could land whose inside changed by far since the empty board (`filled_landing_holes`), and its colour is nearer
    the robot's than the other player's; or, the one whose inside changed at all (a translucent disc before a room
    of its colour), and its colour far nearer the robot's (PERSON_COLOUR_SHARE). A disc the reader reads surely is
    left to it (the other player's colour is an event)."""
    found = _lone_landing_hole(reading, frame, corners, known, empty_reference, column)
    if found is None:
        return reading
    row, share = found
    if reading.grid[row, column] != 0 and reading.confidence[row, column] >= SURE:
        return reading
    distances = _colour_distances(frame, corners, reading.grid.shape, row, column, colours)
    if distances[player - 1] >= share * distances[2 - player]:
        return reading
    return _with_disc(reading, row, column, player, SURE)


def _lone_landing_hole(
    reading: BoardReading,
    frame: np.ndarray,
    corners: np.ndarray,
    known: np.ndarray,
    empty_reference: np.ndarray,
    column: int,
) -> tuple[int, float] | None:
    """The row of `column`'s landing hole when it is the one hole where a disc could land whose inside changed by far,
    or else changed at all (filled_landing_holes), and the share of the other colour's distance the robot's colour
    must be under there: 1, or PERSON_COLOUR_SHARE for a hole changed by less than a disc usually changes it."""
    for least_change, share in ((CHANGED_DISTANCE, 1.0), (0.0, PERSON_COLOUR_SHARE)):
        filled = filled_landing_holes(reading, frame, corners, known, empty_reference, least_change)
        if filled is None:
            return None
        if filled[:, column].any() and filled.sum() == 1:
            return int(np.flatnonzero(filled[:, column])[0]), share
    return None


def person_disc_from_change(
    reading: BoardReading,
    frame: np.ndarray,
    corners: np.ndarray,
    known: np.ndarray,
    empty_reference: np.ndarray,
    player: int,
    colours: Sequence[Sequence[float]],
) -> BoardReading:
    """`reading` (in players' values, as read with `colours`) with the person's disc (`player`'s) read at
    INFERRED_CONFIDENCE, below SURE and with a problem that says so, where the reader could not tell it (read empty,
    or unsure) but the board shows it: one hole where a disc could land, and no other, has its inside changed by far
    since the empty board (`filled_landing_holes`), the face round it is as it was or shows the person's colour (a
    hand in front changes it otherwise), and its colour is far nearer the person's than the robot's
    (PERSON_COLOUR_SHARE); the stabiliser asks it again."""
    filled = filled_landing_holes(reading, frame, corners, known, empty_reference)
    if filled is None or filled.sum() != 1:
        return reading
    row, column = (int(v) for v in np.argwhere(filled)[0])
    if reading.grid[row, column] != 0 and reading.confidence[row, column] >= SURE:
        return reading
    samples = _looked_at(frame, corners, reading.grid.shape)
    if not _face_as_on_empty_board_or_disc(empty_reference, samples, row * known.shape[1] + column, colours, player):
        return reading
    distances = _colour_distances(frame, corners, reading.grid.shape, row, column, colours)
    if distances[player - 1] >= PERSON_COLOUR_SHARE * distances[2 - player]:
        return reading
    said = f"column {column + 1} row {row + 1} read as the person's disc from its hole's change since the empty board"
    return _with_disc(reading, row, column, player, INFERRED_CONFIDENCE, said)


def filled_landing_holes(
    reading: BoardReading,
    frame: np.ndarray,
    corners: np.ndarray,
    known: np.ndarray,
    empty_reference: np.ndarray,
    least_change: float = CHANGED_DISTANCE,
) -> np.ndarray | None:
    """(rows, cols) bool: the holes where a disc could land (`known`, players' values) whose insides changed by far
    (`least_change`, a patch's largest move) since the empty board (`empty_reference`, sampled at `corners`), as a
    disc dropped in changes them, not just by the edge of a disc next to them (discless_holes). None when that
    cannot be told: the board not found, something in front of it (a hole read covered whose face looks as on the
    empty board has none: a dark disc the reader took for a shadow), or the empty board's look no longer fits
    (REFERENCE_VALID_SHARE)."""
    if not reading.is_board_found:
        return None
    samples = _looked_at(frame, corners, reading.grid.shape)
    if (reading.covered_holes & ~_faces_as_on_empty_board(empty_reference, samples)).any():
        return None
    changes = patch_changes(empty_reference, samples)
    if not _empty_board_fits(changes < UNCHANGED_DISTANCE, np.asarray(known) == 0):
        return None
    return _lowest_empty(known) & (changes >= least_change) & ~discless_holes(empty_reference, samples)


def _faces_as_on_empty_board(empty_reference: np.ndarray, samples: HoleSamples) -> np.ndarray:
    """(rows, cols) bool: the holes whose face round them (FACE) looks as on the empty board (`empty_reference`)."""
    moved = np.linalg.norm(_in_light_of(empty_reference, samples)[:, FACE] - empty_reference[:, FACE], axis=2)
    return (moved < UNCHANGED_DISTANCE).all(axis=1).reshape(samples.shape)


def _face_as_on_empty_board_or_disc(
    empty_reference: np.ndarray, samples: HoleSamples, hole: int, colours: Sequence, player: int
) -> bool:
    """Whether every patch of the face round `hole` looks as on the empty board or shows `player`'s colour (BGR
    `colours`, the first player's first), far nearer it than the other's (DISC_FACE_DISTANCE, PERSON_COLOUR_SHARE),
    or, one patch at most (MOST_EDGE_PATCHES), the disc's edge across what it showed before (EDGE_SHARES): behind a
    clear face a disc shows past its rim, under the face's tint (vision.occlusion.face_tinted), a hand does not."""
    seen, then = _in_light_of(empty_reference, samples)[hole, FACE], empty_reference[hole, FACE]
    moved = np.linalg.norm(seen - then, axis=1)
    lab = to_weighted_lab(np.asarray([colours], np.float32))[0]
    tinted = face_tinted(lab, samples.face)
    distances = np.min(
        [shaded_distances(_patches_of(samples)[hole, FACE], each, DISC_SHADING) for each in tinted], axis=0
    )
    own, other = distances[player - 1], distances[2 - player]
    shown = (moved < UNCHANGED_DISTANCE) | ((own < DISC_FACE_DISTANCE) & (own < PERSON_COLOUR_SHARE * other))
    edges = [(1 - share) * then + share * each[player - 1] for share in EDGE_SHARES for each in tinted]
    edge = np.min([np.linalg.norm(seen - each, axis=1) for each in edges], axis=0) < DISC_FACE_DISTANCE
    return bool(shown.all() or ((shown | edge).all() and (~shown).sum() <= MOST_EDGE_PATCHES))


def _colour_distances(
    frame: np.ndarray, corners: np.ndarray, shape: tuple[int, int], row: int, column: int, colours: Sequence
) -> np.ndarray:
    """(2,): one hole's median ring colour's distance from each player's colour (BGR) shaded by DISC_SHADING."""
    samples = _looked_at(frame, corners, shape)
    seen = np.median(samples.pixels[row * shape[1] + column], axis=0)
    return shaded_distances(seen, to_weighted_lab(np.asarray([colours], np.float32))[0], DISC_SHADING)


def _with_disc(
    reading: BoardReading, row: int, column: int, player: int, confidence: float, said: str = ""
) -> BoardReading:
    """`reading` with `player`'s disc at (row, column) at `confidence`, uncovered, that hole's doubt dropped."""
    grid, confidences, covered = reading.grid.copy(), reading.confidence.copy(), reading.covered_holes.copy()
    grid[row, column], confidences[row, column], covered[row, column] = player, confidence, False
    problems = [p for p in reading.problems if not p.startswith(f"column {column + 1} row {row + 1} changed")]
    return with_covered(
        dataclasses.replace(reading, problems=problems + ([said] if said else [])),
        covered,
        grid=grid,
        confidence=confidences,
    )


def _lowest_empty(known: np.ndarray) -> np.ndarray:
    """(rows, cols) bool: the lowest empty hole of every column that has one (row 0 at the bottom)."""
    empty = np.asarray(known) == 0
    return empty & (np.cumsum(empty, axis=0) == 1)


def disc_patches(
    frame: np.ndarray, corners: np.ndarray, shape: tuple[int, int], holes: np.ndarray, light: np.ndarray | None
) -> np.ndarray:
    """(rows * cols, patches, 3): the patch colours of `holes` ((rows, cols) bool) in `frame`, NaN elsewhere, in the
    light of the empty board's frames (`light`: their reference_patches; None: as seen): the look of discs the game
    has just confirmed, for `trust_unchanged_discs`."""
    patches = _in_light_of(None, _looked_at(frame, corners, shape), light).copy()
    patches[~np.asarray(holes).ravel()] = np.nan
    return patches


def trust_unchanged_discs(
    reading: BoardReading,
    frame: np.ndarray,
    corners: np.ndarray,
    known: np.ndarray,
    disc_reference: np.ndarray,
    light: np.ndarray | None,
) -> BoardReading:
    """`reading` with the discs the game knows (`known`, players' values) read as known, at SURE, where the reader
    read them otherwise (empty, covered, unsure) but their holes look as when the game confirmed them
    (`disc_reference`: disc_patches of those frames in `light`'s, NaN where none was kept): a disc seen aslant
    through a thick face, or a ring, the reader takes for the room behind is still the disc it was a move ago. A
    disc taken out or a sleeve in front changes its hole, and the reader's reading stands."""
    if not reading.is_board_found:
        return reading
    covered = reading.covered_holes
    known = np.asarray(known)
    doubted = (known != 0) & ((reading.confidence < SURE) | covered | (reading.grid != known))
    if not doubted.any():
        return reading
    with np.errstate(invalid="ignore"):
        seen = _in_light_of(disc_reference, _looked_at(frame, corners, known.shape), light)
        moved = np.linalg.norm(seen[:, :PATCH_COUNT] - disc_reference[:, :PATCH_COUNT], axis=2)
        trusted = doubted & (moved.max(axis=1) < UNCHANGED_DISTANCE).reshape(known.shape)
    if not trusted.any():
        return reading
    return trusting(reading, trusted, known)


def cover_unproven_removals(
    reading: BoardReading, frame: np.ndarray, corners: np.ndarray, known_discs: np.ndarray, empty_reference: np.ndarray
) -> BoardReading:
    """`reading` of `frame` with the holes the game knows hold a disc (`known_discs`, (rows, cols) bool) that read
    empty marked covered unless they look as they did in frames of the empty board (`empty_reference`, sampled at
    `corners`): a disc taken out leaves the hole as it was on the empty board, a sleeve or a shadow in front of
    it does not. While the reference no longer fits the holes known empty (REFERENCE_VALID_SHARE), as a forearm
    across most of a clear board that the reader does not see in front makes it, such discs are unsure instead
    (vision.known_board.doubted_removals)."""
    if not reading.is_board_found:
        return reading
    covered = reading.covered_holes
    gone = known_discs & (reading.grid == 0) & ~covered
    if not gone.any():
        return reading
    unchanged = unchanged_holes(empty_reference, _looked_at(frame, corners, reading.grid.shape))
    if not _empty_board_fits(unchanged, ~known_discs & ~covered):
        confidence, said = doubted_removals(reading.grid, reading.confidence, covered, known_discs, unchanged)
        return dataclasses.replace(reading, confidence=confidence, problems=[*reading.problems, *said])
    hidden = gone & ~unchanged
    if not hidden.any():
        return reading
    return with_covered(reading, covered | hidden)


def _empty_board_fits(unchanged: np.ndarray, known_empty: np.ndarray) -> bool:
    """Whether the empty board's look still fits this frame: most holes the game knows empty (`known_empty`, not
    covered) are `unchanged` since (REFERENCE_VALID_SHARE); a change of light or a moved camera changes every hole."""
    return not known_empty.any() or unchanged[known_empty].mean() >= REFERENCE_VALID_SHARE


def trusting(reading: BoardReading, trusted: np.ndarray, values: np.ndarray | int) -> BoardReading:
    """`reading` with the `trusted` holes ((rows, cols) bool) read surely as `values` (the game's board, or 0) and no
    longer covered: they look as the game knows them."""
    return with_covered(
        reading,
        reading.covered_holes & ~trusted,
        grid=np.where(trusted, values, reading.grid).astype(reading.grid.dtype),
        confidence=np.where(trusted, SURE, reading.confidence),
    )


def with_covered(reading: BoardReading, covered: np.ndarray, **changes: np.ndarray) -> BoardReading:
    """`reading` with `covered` as its covered holes and its sentence about them said again (none when none is)."""
    problems = [p for p in reading.problems if not p.startswith("something in front")]
    said = [covered_sentence(covered)] if covered.any() else []
    return dataclasses.replace(reading, covered=covered, problems=said + problems, **changes)
