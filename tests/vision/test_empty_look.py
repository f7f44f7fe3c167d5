"""The empty board's look, used by the reader and the game: holes that look as on the empty board have nothing in front
of them (a pale wall behind a white or clear board made the reader call them covered), the edge of a disc seen in the
hole above it is no disc there, and a person's disc the reader cannot tell is read from its hole's change, below full
confidence. Sim frames of boards of several makes (sim.makes)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import vision
from calibration.sim_truth import sim_board, sim_camera
from sim import World, WorldConfig
from sim.config import DISC_COLOURS
from sim.hand import SKIN_TONES, Hand, HandLook
from sim.makes import BOARD_COLOURS, Make
from sim.room import Room, furnish
from vision.hole_samples import sample_holes
from vision.reliability import SURE
from vision.unchanged import (
    CHANGED_DISTANCE,
    INFERRED_CONFIDENCE,
    as_on_empty_board,
    discless_holes,
    patch_changes,
    person_disc_from_change,
    reference_patches,
    refreshed_reference,
    trust_unchanged_empties,
    unchanged_holes,
)

SHAPE = (6, 7)
PALE_WALL = (0.85, 0.85, 0.82)
BGR = {letter: tuple(int(255 * v) for v in DISC_COLOURS[letter][:3][::-1]) for letter in "YKBR"}


@dataclasses.dataclass
class Table:
    world: World
    corners: np.ndarray
    reference: np.ndarray

    def frame_with(self, *drops: tuple[int, int]) -> np.ndarray:
        """A frame with discs dropped ((column, player) each), which are taken out again."""
        bodies = []
        try:
            for column, player in drops:
                bodies.append(self.world.drop_disc(column, player))
                self.world.wait_until_settled()
            return self.world.render_camera()
        finally:
            for body in bodies:
                self.world.remove_disc(body)


def _table(board: str, letters: str, view_deg: tuple[float, float], wall: tuple[float, float, float]):
    looks = {"board_rgb": BOARD_COLOURS[board], "disc_rgbs": tuple(DISC_COLOURS[letter][:3] for letter in letters)}
    make = Make(board=board, disc_letters=letters, finish="matte", face_thickness_m=0.003, **looks)
    room = Room(kind="makes", make=make, view_deg=view_deg, backdrop="wall", backdrop_rgb=wall)
    world = World(WorldConfig(arm=None))
    furnish(world, room)
    corners = np.asarray(sim_board(world, sim_camera(world)).corners_px)
    reference = reference_patches([sample_holes(world.render_camera(), corners, SHAPE) for _ in range(4)])
    return Table(world, corners, reference)


@pytest.fixture(scope="module")
def white_board():
    """A white board before a pale wall, seen 32 degrees aside: its empty holes look like its face."""
    table = _table("white", "BR", (-26.0, 19.0), PALE_WALL)
    with table.world:
        yield table


@pytest.fixture(scope="module")
def seen_from_above():
    """A blue board, yellow and black discs, the webcam 34 degrees above: a disc shows in the hole above it."""
    table = _table("blue", "YK", (-18.0, 34.0), (0.45, 0.30, 0.50))
    with table.world:
        yield table


def test_holes_as_on_the_empty_board_are_neither_covered_nor_grazed(white_board: Table) -> None:
    frame = white_board.world.render_camera()
    cold = vision.read(frame, SHAPE, white_board.corners)
    assert cold.covered_holes.any(), "the pale wall must pass for the face for the test to mean anything"
    clear = as_on_empty_board(frame, white_board.corners, SHAPE, white_board.reference)
    reading = vision.read(frame, SHAPE, white_board.corners, as_on_empty_board=clear)
    assert not reading.covered_holes.any()
    assert (reading.grid == 0).all() and (reading.confidence >= SURE).all()


def test_a_clear_board_before_a_pale_wall_is_not_taken_for_a_covered_one() -> None:
    table = _table("clear", "BY", (-17.0, 0.0), PALE_WALL)
    with table.world:
        frame = table.world.render_camera()
    assert not vision.read(frame, SHAPE, table.corners).is_board_found, "the test needs the board taken for covered"
    clear = as_on_empty_board(frame, table.corners, SHAPE, table.reference)
    reading = vision.read(frame, SHAPE, table.corners, as_on_empty_board=clear)
    assert reading.is_board_found and not reading.covered_holes.any()
    assert (reading.grid == 0).all()


def _frame_with_hand(world: World, skin: tuple, sleeve: tuple, fingertip_height_m: float):
    """A frame with a hand held before the board, its fingertips at that height, and (rows, cols) which holes it hides."""
    hand = Hand(world.client, HandLook(skin_rgb=skin, sleeve_rgb=sleeve, bare_forearm_m=0.05))
    try:
        hand.place(np.array([0.0, -0.05, fingertip_height_m]), (0.0, 0.0, 0.0, 1.0), np.array([0.30, -0.38, 0.10]))
        hidden = hand.pixels(world.camera)
        frame = world.render_camera()
    finally:
        hand.remove()
    x, y = np.round(world.hole_centres_px()).astype(int).transpose(2, 0, 1)
    return frame, hidden[y, x]


def test_a_hand_in_front_is_still_covered_with_the_empty_look(white_board: Table) -> None:
    frame, behind_the_hand = _frame_with_hand(white_board.world, SKIN_TONES[2], (0.2, 0.3, 0.6), 0.10)
    assert behind_the_hand.sum() >= 3, "the hand must hide some holes for this test"
    clear = as_on_empty_board(frame, white_board.corners, SHAPE, white_board.reference)
    assert not clear[behind_the_hand].any()
    reading = vision.read(frame, SHAPE, white_board.corners, as_on_empty_board=clear)
    assert reading.covered_holes.any()
    assert not (reading.covered_holes & clear).any()


def test_the_edge_of_a_disc_in_the_hole_above_is_no_disc_there(seen_from_above: Table) -> None:
    table = seen_from_above
    frame = table.frame_with((3, 1))
    samples = sample_holes(frame, table.corners, SHAPE)
    changes = patch_changes(table.reference, samples)
    assert changes[1, 3] >= CHANGED_DISTANCE, "the disc must show in the hole above it for the test to mean anything"
    discless = discless_holes(table.reference, samples)
    assert discless[1, 3] and not discless[0, 3]
    reading = vision.read(frame, SHAPE, table.corners)
    unsure = dataclasses.replace(reading, confidence=np.full(SHAPE, 0.5), covered=np.zeros(SHAPE, bool))
    known_empty = np.ones(SHAPE, bool)
    trusted = trust_unchanged_empties(unsure, frame, table.corners, known_empty, table.reference)
    assert trusted.grid[1, 3] == 0 and trusted.confidence[1, 3] == SURE
    assert trusted.confidence[0, 3] == 0.5, "the hole the disc fills changed: never read sure and empty"


def test_a_disc_of_the_room_s_colour_changes_its_rim_all_round_and_is_no_empty_hole(seen_from_above: Table) -> None:
    """A black ring disc before a black room leaves the hole's inside nearly as it was: its rim, changed all round,
    still says a disc is there; the edge of a disc, one side of the rim, does not."""
    table = seen_from_above
    frame = table.world.render_camera()
    centres = table.world.hole_centres_px()
    pitch = float(np.linalg.norm(centres[0, 4] - centres[0, 3]))
    ys, xs = np.mgrid[: frame.shape[0], : frame.shape[1]]
    x, y = centres[0, 3]
    radius = np.hypot(xs - x, ys - y) / pitch
    rim = (radius >= 0.27) & (radius <= 0.36)
    ringed, edged = frame.copy(), frame.copy()
    ringed[rim] = (40, 40, 40)
    edged[rim & (ys > y + 0.25 * pitch)] = (40, 40, 40)
    assert not discless_holes(table.reference, sample_holes(ringed, table.corners, SHAPE))[0, 3]
    assert discless_holes(table.reference, sample_holes(edged, table.corners, SHAPE))[0, 3]


def test_the_empty_look_is_taken_again_where_the_game_knows_a_hole_empty(seen_from_above: Table) -> None:
    table = seen_from_above
    frame = table.frame_with((3, 1))
    empty = np.ones(SHAPE, bool)
    empty[0, 3] = False
    refreshed = refreshed_reference(table.reference, frame, table.corners, SHAPE, empty)
    samples = sample_holes(table.frame_with((3, 1)), table.corners, SHAPE)
    assert unchanged_holes(refreshed, samples)[1, 3], "the hole above the disc now looks as it should"
    assert not unchanged_holes(refreshed, samples)[0, 3]
    missed = refreshed_reference(table.reference, frame, table.corners, SHAPE, np.ones(SHAPE, bool))
    assert not unchanged_holes(missed, samples)[0, 3], "a disc the game missed is never taken for the empty look"


def _unsure_at(reading, row: int, column: int):
    """The reading with the hole at (row, column) read empty and unsure, the rest sure and empty."""
    confidence = np.ones(SHAPE)
    confidence[row, column] = 0.5
    return dataclasses.replace(
        reading, grid=np.zeros(SHAPE, np.int8), confidence=confidence, covered=np.zeros(SHAPE, bool)
    )


def test_a_persons_disc_the_reader_cannot_tell_is_read_from_its_hole_below_full_confidence(
    seen_from_above: Table,
) -> None:
    table = seen_from_above
    colours = (BGR["Y"], BGR["K"])
    known = np.zeros(SHAPE, np.int8)
    frame = table.frame_with((2, 2))
    unsure = _unsure_at(vision.read(frame, SHAPE, table.corners), 0, 2)
    inferred = person_disc_from_change(unsure, frame, table.corners, known, table.reference, 2, colours)
    assert inferred.grid[0, 2] == 2 and inferred.confidence[0, 2] == INFERRED_CONFIDENCE < SURE
    assert any("person's disc from its hole's change" in problem for problem in inferred.problems)
    other = person_disc_from_change(unsure, frame, table.corners, known, table.reference, 1, colours)
    assert other.grid[0, 2] == 0, "the robot's colour is never read as the person's disc"
    two = table.frame_with((2, 2), (5, 2))
    unsure_two = _unsure_at(vision.read(two, SHAPE, table.corners), 0, 2)
    kept = person_disc_from_change(unsure_two, two, table.corners, known, table.reference, 2, colours)
    assert kept.grid[0, 2] == 0, "two holes changed: no one disc is inferred"


def test_no_persons_disc_is_read_while_a_hand_is_in_front(seen_from_above: Table) -> None:
    """Even where the reader missed the hand (nothing read covered), a hand over the bottom row is no disc."""
    table = seen_from_above
    frame, behind_the_hand = _frame_with_hand(table.world, SKIN_TONES[4], (0.8, 0.6, 0.1), 0.04)
    assert behind_the_hand[0].any(), "the hand must hide a hole of the bottom row for this test"
    known = np.zeros(SHAPE, np.int8)
    reading = vision.read(frame, SHAPE, table.corners)
    for column in range(SHAPE[1]):
        unsure = _unsure_at(reading, 0, column)
        inferred = person_disc_from_change(
            unsure, frame, table.corners, known, table.reference, 2, (BGR["Y"], BGR["K"])
        )
        assert (inferred.grid == 0).all(), f"column {column + 1}"


def _covered_at(reading, row: int, column: int):
    """`reading` with the hole at (row, column) read covered and empty, as the reader reads a dark disc it takes for
    a shadow in front of the board."""
    covered, grid = reading.covered_holes.copy(), reading.grid.copy()
    covered[row, column], grid[row, column] = True, 0
    return dataclasses.replace(reading, covered=covered, grid=grid)


def test_a_persons_disc_the_reader_took_for_something_in_front_is_read_from_its_hole(seen_from_above: Table) -> None:
    """The face round the hole looks as on the empty board: nothing is in front of it, a disc changed its inside."""
    table = seen_from_above
    known = np.zeros(SHAPE, np.int8)
    frame = table.frame_with((2, 2))
    clear = as_on_empty_board(frame, table.corners, SHAPE, table.reference)
    covered = _covered_at(vision.read(frame, SHAPE, table.corners, as_on_empty_board=clear), 0, 2)
    inferred = person_disc_from_change(covered, frame, table.corners, known, table.reference, 2, (BGR["Y"], BGR["K"]))
    assert inferred.grid[0, 2] == 2 and inferred.confidence[0, 2] == INFERRED_CONFIDENCE
    assert not inferred.covered_holes.any() and not any("something in front" in p for p in inferred.problems)


def test_a_hole_read_covered_with_a_hand_round_it_is_no_persons_disc(seen_from_above: Table) -> None:
    table = seen_from_above
    frame, behind_the_hand = _frame_with_hand(table.world, SKIN_TONES[4], (0.8, 0.6, 0.1), 0.04)
    known = np.zeros(SHAPE, np.int8)
    reading = vision.read(frame, SHAPE, table.corners)
    for column in np.flatnonzero(behind_the_hand[0]):
        covered = _covered_at(reading, 0, column)
        kept = person_disc_from_change(covered, frame, table.corners, known, table.reference, 2, (BGR["Y"], BGR["K"]))
        assert kept.covered_holes[0, column] and (kept.grid == 0).all(), f"column {column + 1}"


def test_a_sure_disc_in_a_hole_that_looks_as_on_the_empty_board_is_read_empty(seen_from_above: Table) -> None:
    """The dark room behind a hole the game knows empty read surely as a black disc: the hole is as it was, so it
    is empty; a disc really dropped there changes it and is left to the reader."""
    table = seen_from_above
    known_empty = np.ones(SHAPE, bool)
    empty_frame, with_disc = table.frame_with(), table.frame_with((2, 2))
    for frame, kept in ((empty_frame, False), (with_disc, True)):
        reading = vision.read(frame, SHAPE, table.corners)
        grid, confidence = reading.grid.copy(), reading.confidence.copy()
        grid[0, 2], confidence[0, 2] = 2, 1.0
        sure_disc = dataclasses.replace(reading, grid=grid, confidence=confidence, covered=np.zeros(SHAPE, bool))
        trusted = trust_unchanged_empties(sure_disc, frame, table.corners, known_empty, table.reference)
        assert (trusted.grid[0, 2] == 2) == kept and trusted.confidence[0, 2] >= SURE
