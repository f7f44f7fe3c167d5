"""`vision.read`: one frame in, the board it shows out (grid, colour names, confidence, corners, timing).

Pipeline: find the hole lattice (or take calibrated corners and refine them to the real holes), rectify
the board, sample a ring in every hole, learn or apply the two disc colours, and pick the most likely
legal board (vision.classify). Calibrated colours are checked against the colours the frame itself shows
(vision.stale_colours), and the board against the one the game knows (vision.known_board). Whatever looked
wrong is reported in `problems`, never hidden.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.classify import classify, doubting_impossible_counts
from vision.colour_names import LETTERS, colour_letters
from vision.deep_holes import cut_short, in_lenses, seen_thickness, thin_face_lens_depth, unproven_in_lenses
from vision.frame_check import framed
from vision.geometry import check_corners, check_shape, hole_centres_px
from vision.hole_samples import FACE_RADIUS, HoleSamples, from_weighted_lab_to_bgr, sample_holes, to_weighted_lab
from vision.known_board import judged_against_known, with_empty_look
from vision.lens_rings import shows_ring_discs
from vision.localise import BoardNotFoundError, locate_board, refine_corners
from vision.looks import SURE, Look, as_calibrated, kept_look, unsure_holes_show_rings, with_thin_face_rings
from vision.occlusion import (
    OCCLUDED_CONFIDENCE,
    covered_sentence,
    discs_in_view,
    occluded_holes,
    rays_off_the_face,
)
from vision.rim_band import banded
from vision.stale_colours import checked_against_frame, drifted

UNKNOWN_COLOUR = "?"
# Median over holes of the weighted-Lab distance between a hole and the board face, far above this for a board
# in view, about 0 for a covered one.
COVERED_CONTRAST = 10.0
# A dim frame is lifted, as a webcam's auto exposure would, until its brightest values (99th percentile of the
# brightest channel) reach LIT_FRAME_VALUE, by MAX_LIFT at most; a frame of a lit room is left as it is.
LIT_FRAME_VALUE = 200.0
MAX_LIFT = 4.0
# A frame lifted by this much or more was taken in a dim room; one lifted less has nothing bright in view (a blue
# board before a purple wall in a lit room), and its board's lightness says nothing of the light.
DIM_LIFT = 2.0
# Below this weighted-Lab lightness of the board's brightest samples (99th percentile of holes and rims), the
# board is too dark to trust: a board lifted from 30% light stays above it, one from 15% light mostly falls below.
MIN_BOARD_LIGHTNESS = 26.0
TOO_DARK = "too dark to read: add light"
COVERED_BOARD = "the holes look like the board around them: something covers the board or the camera"
# With this share of the holes looking just as on the empty board, nothing covers the board.
CLEAR_BOARD_SHARE = 0.5


@dataclass(frozen=True)
class BoardReading:
    """What one frame shows.

    grid: np.int8 (rows, cols), row 0 at the BOTTOM, 0 empty, 1 and 2 the two disc colours.
    colour_names: letters of value 1 and value 2 ("?" for a colour not on the board and not calibrated).
    confidence: (rows, cols) 0..1, how sure each cell is. corners: (4, 2) px, centres of the tl, tr, br, bl
    holes (None when the board was not found). hole_centres_px: (rows, cols, 2), row 0 at the bottom.
    colours_bgr: the disc colours used, value 1 first (what calibration stores). problems: plain sentences.
    covered: (rows, cols) bool, holes something in front of the board hides (a hand, a sleeve): their grid
    value is a guess at confidence 0. None when the board was not found.
    """

    grid: np.ndarray
    colour_names: tuple[str, str]
    confidence: np.ndarray
    corners: np.ndarray | None
    elapsed_s: float
    problems: list[str] = field(default_factory=list)
    hole_centres_px: np.ndarray | None = None
    colours_bgr: tuple[tuple[int, int, int], ...] = ()
    covered: np.ndarray | None = None

    @property
    def is_board_found(self) -> bool:
        return self.corners is not None

    @property
    def covered_holes(self) -> np.ndarray:
        """(rows, cols) bool, row 0 at the bottom: the holes something in front of the board covers (none when the
        reading does not say)."""
        return np.zeros(self.grid.shape, bool) if self.covered is None else self.covered

    @property
    def covered_columns(self) -> list[int]:
        """0-based columns with a covered hole, left to right."""
        return [] if self.covered is None else [int(c) for c in np.flatnonzero(self.covered.any(axis=0))]


def _check_image(image_bgr: np.ndarray) -> np.ndarray:
    image = np.asarray(image_bgr)
    if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 16 or image.shape[1] < 16:
        raise ValueError(f"image of shape {image.shape} is not a BGR colour frame: give an (H, W, 3) array")
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    return image


def _lifted(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame brightened until its brightest values reach LIT_FRAME_VALUE (by MAX_LIFT at most), and by how much
    (1.0: not at all)."""
    sample = image[::4, ::4]
    brightest = float(np.percentile(np.maximum(np.maximum(sample[..., 0], sample[..., 1]), sample[..., 2]), 99))
    gain = min(LIT_FRAME_VALUE / max(brightest, 1.0), MAX_LIFT)
    return (image, 1.0) if gain <= 1.0 else (cv2.convertScaleAbs(image, alpha=gain), gain)


def _is_too_dark(samples: HoleSamples, is_dim: bool) -> bool:
    """In a dim room, the board's brightest samples are too dark for its colours and holes to be told apart (in a
    lit room a dark board is something in front of it: _check_uncovered)."""
    if not is_dim:
        return False
    lightness = np.concatenate([samples.pixels[..., 0].ravel(), samples.rays[..., 0].ravel()])
    return float(np.percentile(lightness, 99)) < MIN_BOARD_LIGHTNESS


def _reference_colours(colours: Sequence[Sequence[float]] | None, lift: float) -> tuple[np.ndarray, ...] | None:
    """Calibrated disc colours (BGR triples, value 1 first) as weighted Lab, lifted as the frame was (calibration
    samples the camera's own frames, in the room's light: unlifted, a disc in a dim room would be darker than any
    shading in the lifted frame explains)."""
    if colours is None:
        return None
    bgr = np.asarray(colours, dtype=np.float64)
    if bgr.shape != (2, 3) or not np.all((bgr >= 0) & (bgr <= 255)):
        raise ValueError(f"colours must be two BGR triples 0..255 (value 1 first), got {np.asarray(colours).tolist()}")
    lab = _lifted_lab(bgr, lift)
    return (lab[0], lab[1])


def _lifted_lab(bgr: np.ndarray, lift: float) -> np.ndarray:
    """(n, 3) BGR colours of the camera's own frames as weighted Lab, lifted as the frame was."""
    if bgr.ndim != 2 or bgr.shape[1] != 3 or not np.all((bgr >= 0) & (bgr <= 255)):
        raise ValueError(f"colours must be BGR triples 0..255, got {bgr.tolist()}")
    return to_weighted_lab(np.clip(bgr[None] * lift, 0, 255).astype(np.uint8))[0]


def _bgr_triple(weighted_lab: np.ndarray) -> tuple[int, int, int]:
    return tuple(int(v) for v in from_weighted_lab_to_bgr(weighted_lab))  # type: ignore[return-value]


def _in_the_light_of_now(samples: HoleSamples, known_face: np.ndarray, own_face: np.ndarray | None) -> HoleSamples:
    """With nothing in front of the board, the face the frame itself shows where that is the face known from the
    empty board in some light within reach: the light has drifted since, and the disc colours are looked for in the
    light the face shows now. The known face stays for finding what covers the board (a hand, a sleeve)."""
    if own_face is None or np.linalg.norm(drifted(known_face) - own_face, axis=1).min() >= FACE_RADIUS:
        return samples
    return dataclasses.replace(samples, face=own_face)


def _check_uncovered(samples: HoleSamples, disc_colours: np.ndarray | None) -> None:
    """Raise BoardNotFoundError when the holes look just like the face around them: a hand, a sheet or
    a grey frame covers the board, and known corners alone would read it as an empty board. A clear face shows
    the room as its empty holes do: discs of the calibrated colours (`disc_colours`, weighted Lab, or None)
    standing on each other from the bottom row, unlike the face, show it is in view."""
    contrast = np.linalg.norm(samples.hole_colours - samples.face, axis=1)
    if float(np.median(contrast)) >= COVERED_CONTRAST:
        return
    discs = (discs_in_view(samples, disc_colours) & (contrast >= COVERED_CONTRAST)).reshape(samples.shape)
    if not discs.any() or (discs[1:] & ~discs[:-1]).any():
        raise BoardNotFoundError(COVERED_BOARD)


def read(
    image_bgr: np.ndarray,
    shape: tuple[int, int] = (6, 7),
    corners: np.ndarray | Sequence[Sequence[float]] | None = None,
    colours: Sequence[Sequence[float]] | None = None,
    face: Sequence[float] | None = None,
    known: np.ndarray | None = None,
    as_on_empty_board: np.ndarray | None = None,
    empty_insides: np.ndarray | None = None,
    unchanged_rays: np.ndarray | None = None,
) -> BoardReading:
    """Read the board in a BGR frame.

    corners: centres of the tl, tr, br, bl holes in px (from calibration); refined to the real holes. None finds the
    board automatically. colours: two calibrated disc colours as BGR triples, value 1 first; None learns them from
    the frame (then value 1 is the colour with more discs). face: the board face's colour as a BGR triple in frames
    of the empty board (vision.hole_samples.face_colour), for a hand or a sleeve over most of the board, which the
    frame alone takes for the face; None learns it from the frame. known: the board the game knows ((rows, cols),
    values as `colours`, row 0 at the bottom): many new discs, or known discs in the other colour, are unsure
    (vision.known_board). as_on_empty_board: (rows, cols) bool, row 0 at the bottom, with calibrated corners: the
    holes that look just as on the empty board, face ring and all (vision.unchanged): nothing is in front of them,
    however like the face a pale room seen through them looks, and one `known` empty holds no disc, however like a
    disc. empty_insides: holes whose insides alone look so: nothing is in front, though a disc may be in one.
    unchanged_rays: (rows * cols, RAY_COUNT) bool, rays whose face round their hole looks so: nothing is in front
    there. Raises ValueError for a bad image, shape, corners or colours. A board that cannot be found is not an
    error: the reading has corners None, an all-empty grid, zero confidence and a problem sentence."""
    started = time.perf_counter()
    image, lift = _lifted(_check_image(image_bgr))
    is_dim = lift >= DIM_LIFT
    rows, cols = check_shape(shape)
    reference = _reference_colours(colours, lift)
    known_face = None if face is None else _lifted_lab(np.asarray(face, dtype=np.float64)[None], lift)[0]
    unchanged = clear = np.zeros((rows, cols), dtype=bool)
    if corners is not None and as_on_empty_board is not None:
        unchanged = np.asarray(as_on_empty_board, dtype=bool).reshape(rows, cols)
        clear = unchanged | (False if empty_insides is None else np.asarray(empty_insides, bool).reshape(rows, cols))
    quiet = False if corners is None or unchanged_rays is None else np.asarray(unchanged_rays, dtype=bool)
    discs = None if reference is None else np.asarray(reference)

    def off_face(samples: HoleSamples) -> np.ndarray:
        return rays_off_the_face(samples, discs)

    own_faces: dict[bytes, np.ndarray] = {}  # the face each lattice's frame showed, by the lattice

    def sample(lattice: np.ndarray) -> HoleSamples:
        """The holes of a lattice, with the board's face colour known from the game when it is."""
        samples = sample_holes(image, lattice, (rows, cols))
        own_faces[np.asarray(lattice).tobytes()] = samples.face
        return samples if known_face is None else dataclasses.replace(samples, face=known_face)

    def looked(lattice: np.ndarray, tunnels: bool) -> Look:
        """The holes of a lattice as seen, or BoardNotFoundError; `tunnels`: read in their lenses (vision.deep_holes)."""
        samples = sample(lattice)
        too_dark = _is_too_dark(samples, is_dim)
        covered = grazed = np.zeros((rows, cols), dtype=bool)
        off_frame = None
        if not too_dark:  # in the dark, holes and face look alike whatever is in front of them
            # The tunnels' back edges showed, or most holes look as on the empty board: the holes are in view.
            if not tunnels and clear.mean() < CLEAR_BOARD_SHARE:
                _check_uncovered(samples, discs)
            off_the_face = off_face(samples) & ~clear.reshape(-1, 1) & ~quiet
            covered, grazed = occluded_holes(samples, off_the_face, tunnels, clear, discs)
            moved, moved_samples, off_frame = (
                (lattice, samples, None) if tunnels else framed(lattice, samples, off_the_face, sample, off_face)
            )
            moved_covered, moved_grazed = (
                occluded_holes(moved_samples, off_face(moved_samples), disc_colours=discs)
                if moved is not lattice
                else (covered, grazed)
            )
            # A calibrated lattice is moved only when that leaves nothing covered: a hand over one edge hides the
            # frame beyond it too, and moving away from it (a room of the face's colour on the other side) would put
            # the lattice off the board; one found in the frame is more often off than a calibrated one.
            allowed = 0 if corners is not None else max(covered.sum(), 1) - 1
            if moved is not lattice and moved_covered.sum() <= allowed:
                lattice, samples, covered, grazed = moved, moved_samples, moved_covered, moved_grazed
            if covered.all():  # a sheet or a grey frame unlike the face known from the empty board
                raise BoardNotFoundError(COVERED_BOARD)
            if covered.any():  # a hand at an edge hides the frame too
                off_frame = None
        samples = dataclasses.replace(samples, covered=covered.ravel(), grazed=grazed.ravel())
        if known_face is not None and not (covered.any() or grazed.any()):
            samples = _in_the_light_of_now(samples, known_face, own_faces.get(np.asarray(lattice).tobytes()))
        if tunnels:
            samples = in_lenses(samples, image, lattice, thickness)
        ringed, band = banded(samples)
        result = classify(ringed, reference, band)
        if reference is not None:
            result = checked_against_frame(
                result,
                classify(ringed, band=band, doubts_dull_discs=False),
                reference,
                lambda colours: classify(ringed, colours, band),
            )
        if tunnels:  # a lens one colour fills as a disc does is no proven empty hole
            unproven = unproven_in_lenses(samples, result.grid)
            confidence = np.where(unproven, np.minimum(result.confidence, OCCLUDED_CONFIDENCE), result.confidence)
            result = dataclasses.replace(result, confidence=confidence)
        return Look(lattice, samples, result, off_frame, too_dark)

    try:
        given = None if corners is None else check_corners(corners)
        found = locate_board(image, (rows, cols)) if given is None else refine_corners(image, given, (rows, cols))
        if clear.mean() >= CLEAR_BOARD_SHARE:  # most holes look as on the empty board where calibration put them
            found = given
        plain, unseen = None, None
        try:
            plain = looked(found, tunnels=False)
        except BoardNotFoundError as error:
            unseen = error
        if plain is not None and given is not None and found is not given and plain.unsure_cells():
            plain = as_calibrated(plain, lambda: looked(given, tunnels=False))
        hidden = plain is None or not plain.samples.visible.all()  # what a thick face's tunnels do to a plain look
        # Holes read empty that a disc colour fills but for a crescent, or cells read unsure, as many as the discs read:
        # a tunnel's wall cuts short every disc behind a thick face seen aside (a loose disc or two are what they seem).
        cut = None if plain is None else cut_short(plain.samples, plain.result.grid, plain.result.colours)
        doubtful = 0 if plain is None else cut.sum() + (plain.result.confidence < SURE).sum()
        is_doubtful = hidden or (doubtful and doubtful >= (plain.result.grid != 0).sum())
        lattice = found if given is None else given  # a tunnel's lit wall passes for the face when corners are refined
        thickness = seen_thickness(image, lattice, (rows, cols)) if is_doubtful else 0.0
        if thickness:
            look = looked(lattice, tunnels=True)
            if plain is not None:
                look = kept_look(
                    plain, look, hidden or shows_ring_discs(look.samples, look.result.grid, reference), cut
                )
        elif plain is None:
            raise unseen
        else:  # a thin face: where it is seen far aside, its ring discs may show in their lenses only
            is_unsure = reference is not None and plain.unsure_cells() > 0
            image_size = (image.shape[1], image.shape[0])
            thickness = thin_face_lens_depth(lattice, (rows, cols), image_size) if is_unsure else 0.0
            is_ringed = bool(thickness) and unsure_holes_show_rings(plain, image, thickness, reference)
            look = with_thin_face_rings(plain, lambda: looked(lattice, tunnels=True), reference) if is_ringed else plain
    except BoardNotFoundError as error:
        return BoardReading(
            grid=np.zeros((rows, cols), dtype=np.int8),
            colour_names=(UNKNOWN_COLOUR, UNKNOWN_COLOUR),
            confidence=np.zeros((rows, cols)),
            corners=None,
            elapsed_s=time.perf_counter() - started,
            problems=[str(error)],
        )
    found, samples, result, off_frame, too_dark = look
    problems: list[str] = []
    grid, disc_colours = result.grid, result.colours
    if reference is not None:
        names = colour_letters(list(reference))
    else:
        names = colour_letters(list(disc_colours)) if disc_colours else ()
        if (
            len(names) == 2
            and (grid == 1).sum() == (grid == 2).sum()
            and LETTERS.index(names[1]) < LETTERS.index(names[0])
        ):
            grid = np.where(grid == 0, 0, 3 - grid).astype(np.int8)
            names, disc_colours = names[::-1], disc_colours[::-1]
    names = tuple(names) + (UNKNOWN_COLOUR,) * (2 - len(names))
    problems += result.problems
    covered = samples.covered.reshape(rows, cols)
    confidence = result.confidence
    if too_dark:
        problems.insert(0, TOO_DARK)
        confidence = np.minimum(confidence, OCCLUDED_CONFIDENCE)
    if known is not None:
        grid, problems = with_empty_look(grid, problems, known, unchanged, clear)
        confidence, contradictions = judged_against_known(grid, confidence, known, reference is not None)
        problems[:0] = contradictions
    elif reference is not None:  # calibrated colours leave counts free for the game to judge; without one, games do
        confidence = doubting_impossible_counts(grid, confidence, SURE)
    if off_frame:
        problems.insert(0, off_frame)
        confidence = np.minimum(confidence, OCCLUDED_CONFIDENCE)
    if covered.any():
        problems.insert(0, covered_sentence(covered))
        if corners is None or reference is None:
            # The lattice or the colours were learnt from a frame that shows a hand: none of its cells is sure.
            confidence = np.minimum(confidence, OCCLUDED_CONFIDENCE)
    return BoardReading(
        grid=grid,
        colour_names=names,  # type: ignore[arg-type]
        confidence=confidence,
        corners=found,
        elapsed_s=time.perf_counter() - started,
        problems=problems,
        hole_centres_px=hole_centres_px(found, (rows, cols)),
        colours_bgr=tuple(_bgr_triple(colour) for colour in disc_colours),
        covered=covered,
    )
