"""Which holes something in front of the board covers: a hand, an arm, a sleeve, a disc held up.

A hole is seen when the board's face shows all round it and its rim shows as a line. Something in front of
the board breaks both: it crosses the ring of face just outside the hole (fingers cross it in two arcs of a
few rays, a palm all round), or, when it has nearly the face's own colour (a blue sleeve before a blue
board), the hole and its rim vanish into it. What is behind a covered hole cannot be read: the reader says
so per hole instead of calling it empty (skin and sleeves never fill a hole as a disc does).

The face just outside a hole is compared with the face seen there round the holes that look most like the
board (a bevel or uneven light gives that ring its own colour, the same round every hole), and with the
board's face colour; both under a wide range of light. Rays of edge holes that point off the board are left
out: the board's frame may end there.
"""

from __future__ import annotations

import numpy as np

from vision.colour_clusters import MATCH_RADIUS, SHADOW_RANGE
from vision.hole_samples import RAY_COUNT, RAY_RADII_PITCH, HoleSamples, shaded_distances, shifted_planes

# Samples of the face ring: beyond every hole's rim (holes measure 0.33 to 0.38 pitch, lattices sit within
# 0.03 of the rims), inside the face between neighbours.
FACE_RING_RADIUS_PITCH = 0.425
# Light the face ring may take across a board (a lamp to one side, a shadow).
FACE_SHADING_RANGE = (0.5, 1.6)
# Weighted-Lab distance from both face references that blocks a ray: a face ring's bevels and light gradients
# stay under it, skin from very light to very dark and coloured sleeves go over it.
BLOCKED_DISTANCE = 16.0
# A run of blocked rays this long (of RAY_COUNT) is something in front: a finger 0.3 pitch wide crosses 3 to 4,
# when a neighbour's ring is touched too (a run of MIN_TOUCHED_RUN); alone, a run of MIN_LONE_BLOCKED_RUN, longer
# than a bare face ring shows beside a foot of the stand.
MIN_BLOCKED_RUN = 3
MIN_LONE_BLOCKED_RUN = 4
MIN_TOUCHED_RUN = 1
# The reference ring: the face round the share of holes whose rings look most like the board's face.
REFERENCE_SHARE = 1 / 3
# An edge hole's ray with this much of its direction off the board is not looked at.
OFF_BOARD_COMPONENT = 0.3
# A hole is unseen when this share of its ring is the face's colour ...
UNSEEN_RING_SHARE = 0.75
UNSEEN_DISTANCE = 12.0
UNSEEN_SHADING_RANGE = (0.7, 1.4)
# ... and its rim (a line that differs from the face by RIM_CONTRAST, as in vision.rims) shows on fewer rays
# than this share (an empty hole showing a tray of the face's colour behind still shows its rim on more).
RIM_CONTRAST = 9.0
MIN_RIM_RAYS = 0.25
RIM_BAND_PITCH = (0.28, 0.43)
# Both contrasts at most this share of the board's median one: low enough that dim light and JPEG blocks leave
# every uncovered hole seen.
UNSEEN_RELATIVE = 0.35
# A hole whose ring pixels show a calibrated disc colour (within MATCH_RADIUS of a shade in SHADOW_RANGE) for at
# least this share holds that disc: behind a clear face, or a thin one seen aside, the disc shows past its rim.
DISC_FILL_SHARE = 0.5
# A face-ring sample this near (weighted Lab, in FACE_SHADING_RANGE) a calibrated disc colour is that disc seen past
# its rim: nearer than any skin comes to a disc colour (dark skin and black, light skin and white, about 14 apart).
DISC_RING_DISTANCE = 12.0
# A disc seen past its rim through a clear face shows the face's own tint over it: its colour mixed with the face's by
# up to this share (a clear face's opacity), as well as its own.
FACE_TINT_SHARES = (0.0, 0.15, 0.3)
# The most a cell is trusted where something in front may reach into its hole (grazed), and anywhere when the
# lattice or the colours were learnt from a frame that shows something in front of the board.
OCCLUDED_CONFIDENCE = 0.5


def _ray_directions() -> np.ndarray:
    angles = np.arange(RAY_COUNT) * 2 * np.pi / RAY_COUNT
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def _off_board_rays(shape: tuple[int, int]) -> np.ndarray:
    """(holes, RAY_COUNT): rays of edge holes that point off the board (rectified: x right, y down, row 0 at the bottom)."""
    rows, cols = shape
    row, column = np.divmod(np.arange(rows * cols), cols)
    x, y = _ray_directions().T
    off = (column == 0)[:, None] & (x < -OFF_BOARD_COMPONENT)[None]
    off |= (column == cols - 1)[:, None] & (x > OFF_BOARD_COMPONENT)[None]
    off |= (row == rows - 1)[:, None] & (y < -OFF_BOARD_COMPONENT)[None]
    off |= (row == 0)[:, None] & (y > OFF_BOARD_COMPONENT)[None]
    return off


def _longest_run(blocked: np.ndarray) -> np.ndarray:
    """(holes,) the longest run of True round each hole's rays (circular)."""
    doubled = np.concatenate([blocked, blocked], axis=1)
    longest = np.zeros(len(blocked), dtype=int)
    current = np.zeros(len(blocked), dtype=int)
    for column in doubled.T:
        current = (current + 1) * column
        longest = np.maximum(longest, current)
    return np.minimum(longest, blocked.shape[1])


def _face_ring_samples(samples: HoleSamples) -> tuple[np.ndarray, np.ndarray]:
    """The radii (indices into RAY_RADII_PITCH) that reach the face ring somewhere, and (holes, RAY_COUNT, those
    radii) bool: the ray samples on the face ring, measured from each hole's own rim centre (a lattice a little off
    the holes would otherwise put the ring's near side on the rim)."""
    directions = _ray_directions()
    along_x = RAY_RADII_PITCH[None, :] * directions[:, :1] - samples.rim_offsets[:, None, None, 0]
    along_y = RAY_RADII_PITCH[None, :] * directions[:, 1:] - samples.rim_offsets[:, None, None, 1]
    on_ring = np.sqrt(along_x * along_x + along_y * along_y) >= FACE_RING_RADIUS_PITCH
    outer = np.flatnonzero(on_ring.any(axis=(0, 1)))
    return outer, on_ring[:, :, outer]


def _masked_median(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(holes,) or (holes, channels): the median of each hole's `values` (holes, n) or (holes, n, channels) where
    `mask` (holes, n), NaN where none is; as np.nanmedian of the rest set to NaN, without its loop over holes."""
    wide = values if values.ndim == 3 else values[..., None]
    ordered = np.sort(np.where(mask[..., None], wide, np.inf), axis=1)
    count = mask.sum(axis=1)
    middle = [np.broadcast_to(index[:, None, None], (len(wide), 1, wide.shape[2])) for index in (count - 1, count)]
    low, high = (np.take_along_axis(ordered, np.maximum(index // 2, 0), axis=1)[:, 0] for index in middle)
    median = np.where(count[:, None] > 0, (low + high) / 2, np.nan)
    return median if values.ndim == 3 else median[:, 0]


def _distance_under_light(values: np.ndarray, reference: np.ndarray, shading_range: tuple[float, float]) -> np.ndarray:
    """Weighted-Lab distance from `values` to the nearest light of `reference` (broadcast) within `shading_range`."""
    shifted, towards = shifted_planes(values), shifted_planes(reference)
    dot = shifted[0] * towards[0] + shifted[1] * towards[1] + shifted[2] * towards[2]
    factor = np.clip(
        dot / np.maximum(towards[0] * towards[0] + towards[1] * towards[1] + towards[2] * towards[2], 1e-6),
        *shading_range,
    )
    apart = [shifted[channel] - factor * towards[channel] for channel in range(3)]
    return np.sqrt(apart[0] * apart[0] + apart[1] * apart[1] + apart[2] * apart[2])


def disc_filled_holes(samples: HoleSamples, disc_colours: np.ndarray | None) -> np.ndarray:
    """(holes,) int: the index of the calibrated disc colour (`disc_colours`, (k, 3) weighted Lab) that fills each
    hole's ring (DISC_FILL_SHARE of it), -1 for none or when no colours are given."""
    if disc_colours is None or not len(disc_colours):
        return np.full(samples.pixels.shape[0], -1)
    share = (shaded_distances(samples.pixels, np.asarray(disc_colours), SHADOW_RANGE) < MATCH_RADIUS).mean(axis=2)
    return np.where(share.max(axis=0) >= DISC_FILL_SHARE, share.argmax(axis=0), -1)


def _disc_like_rays(samples: HoleSamples, disc_colours: np.ndarray) -> np.ndarray:
    """(colours, holes, RAY_COUNT) bool: rays whose face-ring samples show a calibrated disc colour somewhere (the
    outermost sample for a ray that reaches no face ring: a rim found off the hole's centre)."""
    outer, on_ring = _face_ring_samples(samples)
    on_ring = on_ring | (~on_ring.any(axis=2, keepdims=True) & (np.arange(len(outer)) == len(outer) - 1))
    return (_disc_coloured(samples.rays[:, :, outer], disc_colours, samples.face) & on_ring).any(axis=3)


def _disc_coloured(ring: np.ndarray, disc_colours: np.ndarray, face: np.ndarray | None = None) -> np.ndarray:
    """(colours, *ring's leading axes) bool: the ring samples (weighted Lab) of each disc colour in some light, or,
    given the board face's colour (`face`), of that colour seen through a clear face (face_tinted); something in
    front of the board shows no tint."""
    return np.stack(
        [
            np.any(
                [
                    _distance_under_light(ring, tinted.reshape((1,) * (ring.ndim - 1) + (3,)), FACE_SHADING_RANGE)
                    < DISC_RING_DISTANCE
                    for tinted in ([colour] if face is None else face_tinted(colour, face))
                ],
                axis=0,
            )
            for colour in np.asarray(disc_colours)
        ]
    )


def face_tinted(colour: np.ndarray, face: np.ndarray) -> list[np.ndarray]:
    """A disc colour (weighted Lab) as seen through a clear face whose colour is `face`, for each of FACE_TINT_SHARES."""
    return [(1 - share) * np.asarray(colour) + share * np.asarray(face) for share in FACE_TINT_SHARES]


def _spilled_gaps(samples: HoleSamples, disc_colours: np.ndarray) -> np.ndarray:
    """(colours, rows - 1, cols - 1) bool: gaps a disc of that colour may show in, seen past its rim (a clear face,
    seen aside): one of the gap's four holes is filled by that colour, its face ring shows the colour towards the
    gap (through the face) and not at its outer edge on the side away from it (untinted, as in front). A disc a
    pitch across that reaches a gap, 0.7 pitch from its hole's centre, leaves that edge of its hole's face ring (a
    ring disc seen far aside may reach just inside it); a hand or a sleeve in front of the hole covers it all round.
    Behind a thick clear face a disc wider than its hole shows whole, past that edge all round: its gap shows it
    too where one of the gap's holes that no disc fills shows none of its colour towards the gap, as a hand or a
    sleeve across the gap would cover it there (the hole above such a disc may show its top towards the gap)."""
    rows, cols = samples.shape
    filled = disc_filled_holes(samples, disc_colours).reshape(rows, cols)
    like = _disc_like_rays(samples, disc_colours).reshape(len(disc_colours), rows, cols, RAY_COUNT)
    outermost = _disc_coloured(samples.rays[:, :, -1:], disc_colours)[..., 0].reshape(like.shape)
    eighth = RAY_COUNT // 8
    shape = (len(disc_colours), rows - 1, cols - 1)
    spilled, whole, unreached = (np.zeros(shape, dtype=bool) for _ in range(3))
    # (row step, column step) from the gap's lower-left hole to each of its holes, and the ray from that hole to the
    # gap (rectified: x right, y down, angles from the x axis; row 0 at the bottom).
    for d_row, d_col, towards in ((0, 0, 7), (0, 1, 5), (1, 0, 1), (1, 1, 3)):
        ray = towards * eighth
        away = [(ray + RAY_COUNT // 2 + step) % RAY_COUNT for step in (-1, 0, 1)]
        hole = (slice(d_row, d_row + rows - 1), slice(d_col, d_col + cols - 1))
        for index in range(len(disc_colours)):
            shown, beyond = like[index][hole], outermost[index][hole]
            spilled[index] |= (filled[hole] == index) & shown[..., ray] & ~beyond[..., away].any(axis=-1)
            whole[index] |= (filled[hole] == index) & shown[..., ray]
            unreached[index] |= (filled[hole] < 0) & ~shown[..., ray]
    return spilled | (whole & unreached)


def _disc_coloured_corners(samples: HoleSamples, disc_colours: np.ndarray) -> np.ndarray:
    """(holes,) bool: holes with a gap between holes at one of their corners that shows a disc colour and not the
    face, where no disc in a slot reaches but one seen past its rim (_spilled_gaps): something of a disc's colour
    is in front of the board there (a hand, a sleeve)."""
    rows, cols = samples.shape
    if samples.gaps is None:
        return np.ones(rows * cols, dtype=bool)
    off_face = _distance_under_light(samples.gaps, samples.face[None, None], FACE_SHADING_RANGE) >= BLOCKED_DISTANCE
    coloured = _disc_coloured(samples.gaps, disc_colours, samples.face) & off_face[None]
    if coloured.any():
        coloured &= ~_spilled_gaps(samples, np.asarray(disc_colours))
    marked = np.pad(coloured.any(axis=0), 1)
    corners = marked[:-1, :-1] | marked[:-1, 1:] | marked[1:, :-1] | marked[1:, 1:]
    return corners.ravel()


def discs_in_view(samples: HoleSamples, disc_colours: np.ndarray | None) -> np.ndarray:
    """(holes,) bool: holes a calibrated disc colour (`disc_colours`, (k, 3) weighted Lab, or None for none) fills
    with no disc colour off the face at the gaps round them: a disc, whatever the face round it shows (a clear
    face shows the disc past its rim, or the room as the empty holes do)."""
    if disc_colours is None or not len(disc_colours):
        return np.zeros(samples.pixels.shape[0], dtype=bool)
    return (disc_filled_holes(samples, disc_colours) >= 0) & ~_disc_coloured_corners(samples, disc_colours)


def rays_off_the_face(samples: HoleSamples, disc_colours: np.ndarray | None = None) -> np.ndarray:
    """(holes, RAY_COUNT): rays whose face-ring samples differ from both the board's face and the reference ring,
    the rays of edge holes that point off the board (onto the board's frame) included. With calibrated
    `disc_colours` ((k, 3) weighted Lab), ring samples of a disc colour are a disc seen past its rim (through a
    clear face, or round a thin one's rim seen aside), not off the face, unless a gap at the hole's corners shows
    a disc colour too (a disc in its slot never reaches there: a hand or a sleeve of that colour does)."""
    outer, on_ring = _face_ring_samples(samples)
    ring = samples.rays[:, :, outer]
    from_face = shaded_distances(ring, samples.face[None], FACE_SHADING_RANGE)[0]
    likeness = _masked_median(from_face.reshape(len(ring), -1), on_ring.reshape(len(ring), -1))
    reference = np.median(ring[np.argsort(likeness)[: max(1, int(len(ring) * REFERENCE_SHARE))]], axis=0)
    from_reference = _distance_under_light(ring, reference[None], FACE_SHADING_RANGE)
    far = (from_face >= BLOCKED_DISTANCE) & (from_reference >= BLOCKED_DISTANCE)
    if disc_colours is not None and len(disc_colours):
        disc_like = _disc_coloured(ring, disc_colours, samples.face).any(axis=0)
        marked = _disc_coloured_corners(samples, disc_colours)
        far &= ~(disc_like & ~marked[:, None, None])
        seen = (disc_filled_holes(samples, disc_colours) >= 0) & ~marked
        flanked = (disc_like & on_ring).any(axis=2) | _off_board_rays(samples.shape)
        far &= ~_rays_between_discs(seen.reshape(samples.shape), flanked)[..., None]
    return (far | ~on_ring).all(axis=2) & on_ring.any(axis=2)


def _rays_between_discs(seen: np.ndarray, flanks: np.ndarray) -> np.ndarray:
    """(holes, RAY_COUNT) bool: the rays of holes a disc is seen in (`seen`, (rows, cols) bool) that point at a next
    hole a disc is seen in too (within a ray each side), where the hole's face ring shows a disc colour just beyond
    them on both sides (`flanks`, (holes, RAY_COUNT) bool, or the ray points off the board): behind a clear face two
    discs side by side show their shaded edges between their holes, neither a disc's colour nor the room, while a
    finger between them hides more of the ring than that."""
    rows, cols = seen.shape
    padded = np.pad(seen, 1)
    flanks = flanks.reshape(rows, cols, RAY_COUNT)
    between = np.zeros((rows, cols, RAY_COUNT), dtype=bool)
    for d_row in (-1, 0, 1):
        for d_col in (-1, 0, 1):
            if not (d_row or d_col):
                continue
            # Rectified: x right, y down, angles from the x axis; row 0 at the bottom, so a row up is y down.
            ray = round(np.arctan2(-d_row, d_col) / (2 * np.pi) * RAY_COUNT) % RAY_COUNT
            beside = seen & padded[1 + d_row : 1 + d_row + rows, 1 + d_col : 1 + d_col + cols]
            beside &= flanks[..., (ray - 2) % RAY_COUNT] & flanks[..., (ray + 2) % RAY_COUNT]
            for step in (-1, 0, 1):
                between[..., (ray + step) % RAY_COUNT] |= beside
    return between.reshape(rows * cols, RAY_COUNT)


def _unseen_holes(samples: HoleSamples, disc_colours: np.ndarray | None) -> np.ndarray:
    """(holes,): holes that look like what lies just outside them, rim and all: something in front of them (a sleeve
    of the face's own colour, a sheet) hides the hole; an open hole shows what is behind the board, a disc, or at
    least its rim. A hole a calibrated disc colour fills is that disc, shown past its rim by a clear face, unless a
    gap at its corners shows a disc colour too."""
    outer, on_ring = _face_ring_samples(samples)
    local = _masked_median(samples.rays[:, :, outer].reshape(len(on_ring), -1, 3), on_ring.reshape(len(on_ring), -1))
    ring = _distance_under_light(samples.pixels, local[:, None], UNSEEN_SHADING_RANGE)
    band = (RIM_BAND_PITCH[0] <= RAY_RADII_PITCH) & (RIM_BAND_PITCH[1] >= RAY_RADII_PITCH)
    across_rim = _distance_under_light(samples.rays[:, :, band], local[:, None, None], UNSEEN_SHADING_RANGE)
    rim_rays = (across_rim.max(axis=2) >= RIM_CONTRAST).mean(axis=1)
    unseen = ((ring < UNSEEN_DISTANCE).mean(axis=1) >= UNSEEN_RING_SHARE) & (rim_rays < MIN_RIM_RAYS)
    return unseen & ~discs_in_view(samples, disc_colours)


def _neighbour_count(holes: np.ndarray) -> np.ndarray:
    """(rows, cols) int: how many of each hole's 8 neighbours are True."""
    padded = np.pad(holes, 1).astype(int)
    rows, cols = holes.shape
    return sum(padded[r : r + rows, c : c + cols] for r in range(3) for c in range(3)) - holes


def _neighbours(holes: np.ndarray) -> np.ndarray:
    """(rows, cols) bool: the True holes and those next to them."""
    return holes | (_neighbour_count(holes) > 0)


def occluded_holes(
    samples: HoleSamples,
    off_the_face: np.ndarray,
    tunnels: bool = False,
    clear: np.ndarray | None = None,
    disc_colours: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(covered, grazed), each (rows, cols) bool, row 0 at the bottom: holes something in front of the board
    covers (see the module), and, when something does, the holes it may reach into without hiding them (a
    blocked ray round them, or next to a covered hole), which are read but not trusted. `off_the_face` is
    rays_off_the_face(samples), which the frame check (vision.frame_check) looks at too. `tunnels`: the holes go
    through a thick face seen from aside (vision.deep_holes), so an empty one shows the face's own material all
    round (the tunnel's wall, the slot's far wall) and only what crosses the face round a hole covers it.

    A lone hole with a short blocked run (MIN_BLOCKED_RUN, no neighbour touched) is a shadow or a bevel, and a
    lone unseen hole a dull disc in dim light or JPEG blocks: a hand or a sleeve that reaches one hole crosses
    its neighbours' rings on its way.

    `clear` ((rows, cols) bool, or None): holes known to have nothing in front of them, as they look just as on the
    empty board, face ring and all (vision.unchanged): a pale wall behind a white or clear board makes an empty
    hole look like the face, yet nothing covers or grazes it. `disc_colours`: the calibrated ones, as for
    rays_off_the_face.
    """
    clear = np.zeros(samples.shape, dtype=bool) if clear is None else np.asarray(clear, dtype=bool)
    runs = _longest_run(off_the_face & ~_off_board_rays(samples.shape)).reshape(samples.shape)
    runs = np.where(clear, 0, runs)
    touched = runs >= MIN_TOUCHED_RUN
    blocked = (runs >= MIN_LONE_BLOCKED_RUN) | ((runs >= MIN_BLOCKED_RUN) & (_neighbour_count(touched) > 0))
    unseen = (
        np.zeros(samples.shape, dtype=bool) if tunnels else _unseen_holes(samples, disc_colours).reshape(samples.shape)
    )
    unseen &= ~clear
    covered = blocked | (unseen & (_neighbour_count(unseen | touched) > 0))
    if not covered.any():
        return covered, np.zeros_like(covered)
    return covered, (touched | _neighbours(covered)) & ~covered & ~clear


def column_span(columns: list[int]) -> str:
    """0-based columns as a person reads them: "column 3", "columns 3-5", "columns 1, 4-6"."""
    runs: list[list[int]] = []
    for column in sorted(columns):
        if runs and column == runs[-1][-1] + 1:
            runs[-1].append(column)
        else:
            runs.append([column])
    parts = [f"{run[0] + 1}" if len(run) == 1 else f"{run[0] + 1}-{run[-1] + 1}" for run in runs]
    return f"column{'s' if len(columns) > 1 else ''} {', '.join(parts)}"


def covered_sentence(covered: np.ndarray) -> str:
    """The problem sentence for covered holes ((rows, cols) bool)."""
    where = column_span([int(c) for c in np.flatnonzero(covered.any(axis=0))])
    holes = int(covered.sum())
    return (
        f"something in front of the board covers {holes} hole{'s' if holes > 1 else ''} in {where}: I cannot read them"
    )
