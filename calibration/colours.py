"""Which disc colour is the robot's and which the person's, sampled from the board.

The person shows the camera discs of both colours in holes the step is told about (one or several of each in the
bottom row, in columns they name, nothing above); what fills those holes, compared with holes known to be
empty, gives both reference colours (BGR, as the camera sees them in this light) and their letters, saved robot
first so that vision names and tells them apart in every later frame. Several discs of a colour give their
median. The step refuses, in one sentence, a disc that looks like the empty holes or two colours that look alike:
the reader could not tell them apart either.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from calibration.failures import CalibrationFailedError
from calibration.store import BoardCalibration, ColourCalibration

# A hole holds a disc when its colour differs this much (BGR distance) from the empty holes it is compared with,
# or from itself in a frame of the empty board (same room, same light: a webcam's noise moves a mean by a few levels).
DISC_CONTRAST_MIN = 40.0
DISC_CHANGE_MIN = 15.0
# Two discs are of different colours when they differ at least this much.
COLOUR_DIFFERENCE_MIN = 40.0
# A colour is too close to the empty holes when more than this share of the known-empty holes look like it.
EMPTY_LOOKALIKE_SHARE = 0.25
# Given a frame of the empty board, a disc is the pixels round its hole's centre that changed by DISC_CHANGE_MIN at
# least, where this share of them did (behind a thick face seen from aside the tunnel's wall, unchanged, fills the
# rest); else all of them.
CHANGED_SHARE = 0.25

Cell = tuple[int, int]


def colours_from_frame(
    frame_bgr: np.ndarray,
    board: BoardCalibration,
    robot_column: int,
    person_column: int,
    empty_frame_bgr: np.ndarray | None = None,
) -> ColourCalibration:
    """The colours of the discs in the bottom holes of `robot_column` and `person_column` (0-based): one disc of
    each (colours_from_columns)."""
    return colours_from_columns(frame_bgr, board, [robot_column], [person_column], empty_frame_bgr)


def colours_from_columns(
    frame_bgr: np.ndarray,
    board: BoardCalibration,
    robot_columns: Sequence[int],
    person_columns: Sequence[int],
    empty_frame_bgr: np.ndarray | None = None,
) -> ColourCalibration:
    """The colours of the discs in the bottom holes of `robot_columns` and `person_columns` (0-based), each
    colour the median of its discs.

    A disc is told from an empty hole by the empty holes above the discs, or, given `empty_frame_bgr` (the board
    before the discs went in), by its own hole in that frame: a room of nearly a disc's colour behind the board can
    make the hole above look like the disc.

    Raises ValueError for columns off the board or given twice, CalibrationFailedError when a column looks
    empty or the two colours look the same.
    """
    for name, columns in (("robot", robot_columns), ("person", person_columns)):
        if not columns:
            raise ValueError(f"give at least one column of the {name}'s discs")
        for column in columns:
            if not 0 <= column < board.cols:
                raise ValueError(f"{name} column {column + 1} is not on a board of {board.cols} columns")
    used = [*robot_columns, *person_columns]
    if len(set(used)) < len(used):
        twice = next(column for column in used if used.count(column) > 1)
        raise ValueError(f"the discs need different columns: column {twice + 1} is given twice")
    above = [(1, column) for column in used]
    robot_cells, person_cells = [(0, c) for c in robot_columns], [(0, c) for c in person_columns]
    before = holes = None
    if empty_frame_bgr is not None:
        before = _hole_bgr(empty_frame_bgr, board)
        _same_but_the_discs(before, _hole_bgr(frame_bgr, board), [*robot_cells, *person_cells])
        holes = _hole_bgr(frame_bgr, board, empty_frame_bgr)
    return colours_from_discs(frame_bgr, board, robot_cells, person_cells, above, before, holes)


def separation_problem(
    frame_bgr: np.ndarray, board: BoardCalibration, robot_columns: Sequence[int], person_columns: Sequence[int]
) -> str | None:
    """A sentence when the colours of the discs in the bottom holes of the columns, as the game's colour model
    learns them (vision.colour_model), are too close to each other or to what shows through the empty holes above
    them (the step's own checks passed: a warning, not a refusal)."""
    from vision.colour_model import ColourModel

    known = np.full((board.rows, board.cols), -1)
    known[1:, [*robot_columns, *person_columns]] = 0
    known[0, list(robot_columns)], known[0, list(person_columns)] = 1, 2
    model = ColourModel((board.rows, board.cols))
    model.learn(frame_bgr, np.asarray(board.corners_px, float), np.maximum(known, 0), skip=known < 0)
    return model.separation_problem()


def colours_from_discs(
    frame_bgr: np.ndarray,
    board: BoardCalibration,
    robot_cells: Sequence[Cell],
    person_cells: Sequence[Cell],
    empty_cells: Sequence[Cell] = (),
    before: np.ndarray | None = None,
    holes: np.ndarray | None = None,
) -> ColourCalibration:
    """The robot's and the person's colours from discs at known cells (row 0 at the bottom, 0-based), each the
    median over its discs.

    Each disc must differ from the holes known empty in this frame (`empty_cells`: a colour that more than
    EMPTY_LOOKALIKE_SHARE of them, or the one, look like is refused) or, given `before` ((rows, cols, 3) BGR of the
    board before the discs went in), from its own hole then. `holes` ((rows, cols, 3) BGR): what fills every hole of
    the frame, as `_hole_bgr` finds it (given a frame of the empty board, what changed), else found here. Raises
    CalibrationFailedError, naming the column, for a disc that looks like the empty holes, and for two colours that
    look alike.
    """
    from vision.colour_names import colour_letters
    from vision.hole_samples import in_board_light, local_light, sample_holes, to_weighted_lab

    holes = _hole_bgr(frame_bgr, board) if holes is None else holes
    samples = []
    for cells in (robot_cells, person_cells):
        if not cells:
            raise ValueError("each colour needs at least one disc")
        for cell in cells:
            if before is not None:
                references, least = before[cell][None], DISC_CHANGE_MIN
            else:
                empty = [holes[other] for other in empty_cells if other != cell]
                references, least = np.array(empty).reshape(-1, 3), DISC_CONTRAST_MIN
            close = np.linalg.norm(references - holes[cell], axis=1) < least
            if len(references) and close.mean() > (0 if len(references) == 1 else EMPTY_LOOKALIKE_SHARE):
                raise CalibrationFailedError(
                    f"column {cell[1] + 1} looks empty: put a disc in it (and none above it), or use discs that look "
                    "unlike the empty holes"
                )
        samples.append(np.median([holes[cell] for cell in cells], axis=0))
    if np.linalg.norm(samples[0] - samples[1]) < COLOUR_DIFFERENCE_MIN:
        raise CalibrationFailedError(
            f"the discs in columns {robot_cells[0][1] + 1} and {person_cells[0][1] + 1} look alike: use one disc of "
            "each colour"
        )
    # A disc lit more or less than the board as a whole (a lamp above, a window to one side) is kept in the board's
    # light, as the reader looks for the references in each hole's own light.
    light = local_light(sample_holes(frame_bgr, np.asarray(board.corners_px, float), (board.rows, board.cols)))
    light = light.reshape(board.rows, board.cols)
    samples = [
        in_board_light(sample, float(np.median([light[cell] for cell in cells])))
        for sample, cells in zip(samples, (robot_cells, person_cells), strict=True)
    ]
    lab = to_weighted_lab(np.array([samples], np.float64).clip(0, 255).astype(np.uint8))[0]
    robot_letter, person_letter = colour_letters([lab[0], lab[1]])
    return ColourCalibration(robot_letter, person_letter, tuple(samples[0]), tuple(samples[1]))


def _same_but_the_discs(before: np.ndarray, after: np.ndarray, disc_cells: Sequence[Cell]) -> None:
    """Raise CalibrationFailedError unless the holes other than the discs' look as in the empty board's frame: a
    camera, board or light that moved between the two frames would make every change look like a disc."""
    others = np.ones(before.shape[:2], bool)
    others[tuple(np.transpose(disc_cells))] = False
    if np.median(np.linalg.norm(after[others] - before[others], axis=1)) >= DISC_CHANGE_MIN:
        raise CalibrationFailedError(
            "the board looks different from its empty picture beyond the discs: the camera, the board or the light "
            "moved between the two pictures; take both again"
        )


def _hole_bgr(frame_bgr: np.ndarray, board: BoardCalibration, empty_frame_bgr: np.ndarray | None = None) -> np.ndarray:
    """(rows, cols, 3) BGR of what fills every hole (calibration.board.hole_colours), a ring disc's colour seen round
    its hole (vision.rim_band.with_ring_discs): behind a face thick enough to hide part of the holes, the band in each
    hole's lens (vision.deep_holes.in_lenses), not the tunnel's wall beside it, and given a frame of the empty board,
    what changed round each hole's centre since (`_changed_fillings`): the disc, not the wall."""
    from calibration.board import hole_colours
    from vision.deep_holes import in_lenses, seen_thickness
    from vision.hole_samples import sample_holes
    from vision.rim_band import with_ring_discs

    corners, shape = np.asarray(board.corners_px, float), (board.rows, board.cols)
    thickness = seen_thickness(frame_bgr, corners, shape)
    if not thickness:
        return with_ring_discs(frame_bgr, corners, shape, hole_colours(frame_bgr, board))
    lenses = in_lenses(sample_holes(frame_bgr, corners, shape), frame_bgr, corners, thickness)
    centres = (
        hole_colours(frame_bgr, board)
        if empty_frame_bgr is None
        else _changed_fillings(frame_bgr, empty_frame_bgr, board)
    )
    return with_ring_discs(frame_bgr, corners, shape, centres, lenses)


def _changed_fillings(frame_bgr: np.ndarray, empty_frame_bgr: np.ndarray, board: BoardCalibration) -> np.ndarray:
    """(rows, cols, 3) mean BGR in a small disc round every hole's centre (as calibration.board.hole_colours) of the
    pixels that differ from the empty board's by DISC_CHANGE_MIN, where CHANGED_SHARE of them do: a disc set deep
    behind a thick face and seen from aside shows to one side of the centre, the tunnel's wall on the other."""
    from calibration.board import HOLE_SAMPLE_RADIUS_PITCH
    from vision.geometry import hole_centres_px, hole_pitch_px

    if np.shape(empty_frame_bgr) != np.shape(frame_bgr):
        raise ValueError(f"the empty board's frame is {np.shape(empty_frame_bgr)}, the discs' {np.shape(frame_bgr)}")
    corners, shape = np.asarray(board.corners_px, float), (board.rows, board.cols)
    radius = max(2, int(HOLE_SAMPLE_RADIUS_PITCH * hole_pitch_px(corners, shape)))
    dy, dx = np.mgrid[-radius : radius + 1, -radius : radius + 1]
    inside = dx * dx + dy * dy <= radius * radius
    centres = np.round(hole_centres_px(corners, shape)).astype(int)
    height, width = frame_bgr.shape[:2]
    xs = np.clip(centres[..., 0, None] + dx[inside], 0, width - 1)
    ys = np.clip(centres[..., 1, None] + dy[inside], 0, height - 1)
    pixels = frame_bgr[ys, xs].astype(np.float64)  # (rows, cols, n, 3)
    changed = np.linalg.norm(pixels - empty_frame_bgr[ys, xs], axis=3) >= DISC_CHANGE_MIN
    kept = np.where((changed.mean(axis=2) >= CHANGED_SHARE)[..., None], changed, True)
    return (pixels * kept[..., None]).sum(axis=2) / kept.sum(axis=2)[..., None]
