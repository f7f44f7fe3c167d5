"""A hole that looks as it did on the empty board is still empty: the same scene under new noise is unchanged; a disc
dropped in, a hand in front, a change of light or a camera moved by millimetres are changes (sim frames of a room
whose wooden table and light made its empty holes unsure for the reader). A known disc read gone is gone only where
its hole looks as on the empty board again; a dark sleeve over it is something in front."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import vision
from sim import World
from sim.hand import SKIN_TONES, Hand, HandLook
from sim.room import furnish, room_for
from vision.hole_samples import sample_holes
from vision.reliability import SURE
from vision.unchanged import (
    cover_unproven_removals,
    disc_patches,
    doubt_changed_empties,
    expected_disc_from_change,
    reference_patches,
    trust_unchanged_discs,
    trust_unchanged_empties,
    unchanged_holes,
)

SHAPE = (6, 7)


@dataclasses.dataclass
class EmptyBoard:
    world: World
    corners: np.ndarray
    reference: np.ndarray

    def unchanged(self) -> np.ndarray:
        return unchanged_holes(self.reference, sample_holes(self.world.render_camera(), self.corners, SHAPE))


@pytest.fixture(scope="module")
def board():
    """Room 'varied' seed 6: warm light, the wooden table seen through the bottom holes (unsure for the reader)."""
    with World(seed=6) as world:
        furnish(world, room_for("varied", 6))
        centres = world.hole_centres_px()
        corners = np.array([centres[-1, 0], centres[-1, -1], centres[0, -1], centres[0, 0]], np.float64)
        frames = [world.render_camera() for _ in range(4)]
        yield EmptyBoard(world, corners, reference_patches([sample_holes(f, corners, SHAPE) for f in frames]))


def test_the_same_scene_under_new_noise_is_unchanged(board: EmptyBoard) -> None:
    for _ in range(3):
        assert board.unchanged().all()


@pytest.mark.parametrize("player", [1, 2])
def test_a_disc_dropped_in_changes_its_hole_only(board: EmptyBoard, player: int) -> None:
    disc = board.world.drop_disc(3, player)
    board.world.wait_until_settled()
    try:
        unchanged = board.unchanged()
    finally:
        board.world.remove_disc(disc)
    assert not unchanged[0, 3]
    unchanged[0, 3] = True
    assert unchanged.all()


def test_a_hand_in_front_changes_the_holes_it_hides(board: EmptyBoard) -> None:
    hand = Hand(board.world.client, HandLook(skin_rgb=SKIN_TONES[2], sleeve_rgb=(0.2, 0.3, 0.6), bare_forearm_m=0.05))
    try:
        hand.place(np.array([0.0, -0.05, 0.10]), (0.0, 0.0, 0.0, 1.0), np.array([0.30, -0.38, 0.10]))
        hidden = hand.pixels(board.world.camera)
        unchanged = board.unchanged()
    finally:
        hand.remove()
    x, y = np.round(board.world.hole_centres_px()).astype(int).transpose(2, 0, 1)
    behind_the_hand = hidden[y, x]
    assert behind_the_hand.sum() >= 3, "the hand must hide some holes for this test"
    assert not unchanged[behind_the_hand].any()


def _with_camera(board: EmptyBoard, **change: object) -> np.ndarray:
    """A frame of `board` with its camera changed (dataclasses.replace of the camera's fields), then set back."""
    camera = board.world.camera
    board.world.set_camera(dataclasses.replace(camera, **change))
    try:
        return board.world.render_camera()
    finally:
        board.world.set_camera(camera)


@pytest.mark.parametrize("move_m", [(0.003, 0.0, 0.0), (0, 0, -0.003)], ids=["3 mm right", "3 mm down"])
def test_a_camera_moved_by_millimetres_changes_every_hole(board: EmptyBoard, move_m: tuple) -> None:
    camera = board.world.camera
    eye, target = np.asarray(camera.eye_m) + move_m, np.asarray(camera.target_m) + move_m
    frame = _with_camera(board, eye_m=tuple(eye), target_m=tuple(target))
    unchanged = unchanged_holes(board.reference, sample_holes(frame, board.corners, SHAPE))
    assert not unchanged.any(), f"holes unchanged: {np.argwhere(unchanged).tolist()}"


@pytest.mark.parametrize(
    "change", [{"exposure": 0.7}, {"exposure": 1.2}, {"colour_temperature_k": -1500.0}, {"colour_temperature_k": 900.0}]
)
def test_light_the_webcam_drifted_to_is_followed(board: EmptyBoard, change: dict) -> None:
    """Exposure and white balance change every colour by a gain per channel: the face round the holes gives it. A
    brighter frame burns the pale wall behind some holes at the camera's ceiling: those may count as changed."""
    camera = board.world.camera
    changes = {
        name: getattr(camera, name) * value if name == "exposure" else getattr(camera, name) + value
        for name, value in change.items()
    }
    frame = _with_camera(board, **changes)
    unchanged = unchanged_holes(board.reference, sample_holes(frame, board.corners, SHAPE))
    burnt = change.get("exposure", 1.0) > 1.0
    assert unchanged.mean() >= (0.9 if burnt else 1.0), f"holes changed: {np.argwhere(~unchanged).tolist()}"


def test_only_doubted_holes_known_empty_and_unchanged_are_trusted(board: EmptyBoard) -> None:
    disc = board.world.drop_disc(2, 1)
    board.world.wait_until_settled()
    try:
        frame = board.world.render_camera()
    finally:
        board.world.remove_disc(disc)
    reading = vision.read(frame, SHAPE, board.corners)
    unsure = np.ones(SHAPE, bool)
    unsure[5, 0] = False  # one sure cell stays as it was
    doubtful = dataclasses.replace(
        reading, grid=np.zeros(SHAPE, np.int8), confidence=np.where(unsure, 0.5, 1.0), covered=np.zeros(SHAPE, bool)
    )
    doubtful.covered[3, 6] = True
    known_empty = np.ones(SHAPE, bool)
    known_empty[4, 4] = False  # the game knows a disc there (taken away since, or never seen): not trusted
    trusted = trust_unchanged_empties(doubtful, frame, board.corners, known_empty, board.reference)
    sure = trusted.confidence >= SURE
    assert not sure[0, 2], "the hole with a disc in it changed: the reading read empty stays unsure"
    assert not sure[4, 4]
    assert sure[3, 6] and not trusted.covered[3, 6], "read covered, but as on the empty board, face round it too"
    assert sure[5, 0] and trusted.confidence[5, 0] == 1.0
    sure[[0, 4], [2, 4]] = True
    assert sure.all()
    discs = np.zeros(SHAPE, np.int8)
    discs[0, 1] = discs[0, 2] = discs[5, 0] = 1  # unsure over an empty hole and over the real disc; one sure
    as_discs = trust_unchanged_empties(
        dataclasses.replace(doubtful, grid=discs), frame, board.corners, known_empty, board.reference
    )
    assert as_discs.grid[0, 1] == 0 and as_discs.confidence[0, 1] == SURE, "unchanged since the empty board: empty"
    assert as_discs.grid[0, 2] == 1 and as_discs.confidence[0, 2] == 0.5, "the hole with a disc in it changed"
    assert as_discs.grid[5, 0] == 0 and as_discs.confidence[5, 0] == SURE, "a sure disc in a hole as it was: empty"


def test_a_known_disc_read_gone_is_covered_unless_its_hole_looks_as_on_the_empty_board(board: EmptyBoard) -> None:
    disc = board.world.drop_disc(3, 1)
    board.world.wait_until_settled()
    try:
        with_disc = board.world.render_camera()
    finally:
        board.world.remove_disc(disc)
    taken_out = board.world.render_camera()
    centres = board.world.hole_centres_px()
    half = int(0.6 * np.linalg.norm(centres[0, 4] - centres[0, 3]))
    x, y = np.round(centres[0, 3]).astype(int)
    sleeve = with_disc.copy()
    sleeve[y - half : y + half, x - half : x + half] = (28, 26, 30)  # a dark sleeve over the disc and its rim
    known_discs = np.zeros(SHAPE, bool)
    known_discs[0, 3] = True

    def read_gone(frame: np.ndarray):
        reading = vision.read(frame, SHAPE, board.corners)
        gone = dataclasses.replace(reading, grid=np.zeros(SHAPE, np.int8), covered=np.zeros(SHAPE, bool))
        return cover_unproven_removals(gone, frame, board.corners, known_discs, board.reference)

    hidden = read_gone(sleeve)
    assert hidden.covered[0, 3] and hidden.covered.sum() == 1
    assert hidden.problems[0].startswith("something in front of the board covers 1 hole in column 4")
    assert not read_gone(taken_out).covered.any(), "the hole looks as on the empty board: the disc was taken out"
    dimmer = _with_camera(board, exposure=board.world.camera.exposure * 0.7)
    assert not read_gone(dimmer).covered.any(), "taken out, seen in light that drifted since"
    dimmer[y - half : y + half, x - half : x + half] = (28, 26, 30)
    assert read_gone(dimmer).covered[0, 3], "the sleeve, in light that drifted since"


def test_a_changed_hole_where_a_disc_could_land_is_never_read_sure_and_empty(board: EmptyBoard) -> None:
    """Discs the reader missed (read empty at full confidence: seen aslant through a thick face, colours the light
    no longer fits) in column 4: only its lowest hole, where the game's next disc could land, is doubted, in
    light that drifted since too; the same scene unchanged leaves the reading as it was."""
    discs = []
    for player in (1, 2):
        discs.append(board.world.drop_disc(3, player))
        board.world.wait_until_settled()
    assert board.world.board_state()[:2, 3].tolist() == [1, 2]
    camera = board.world.camera
    try:
        frame = board.world.render_camera()
        board.world.set_camera(dataclasses.replace(camera, exposure=camera.exposure * 0.7))
        dimmer = board.world.render_camera()
    finally:
        board.world.set_camera(camera)
        for disc in discs:
            board.world.remove_disc(disc)
    as_before = board.world.render_camera()
    known = np.zeros(SHAPE, np.int8)

    def missed(image: np.ndarray) -> vision.BoardReading:
        reading = vision.read(image, SHAPE, board.corners)
        blind = dataclasses.replace(reading, grid=np.zeros(SHAPE, np.int8), confidence=np.ones(SHAPE))
        return doubt_changed_empties(blind, image, board.corners, known, board.reference)

    doubted = missed(frame)
    assert np.argwhere(doubted.confidence < SURE).tolist() == [[0, 3]]
    assert "column 4 row 1 changed since the empty board" in doubted.problems[-1]
    assert (missed(as_before).confidence == 1.0).all()
    assert np.argwhere(missed(dimmer).confidence < SURE).tolist() == [[0, 3]], "light that drifted is followed"
    known[0, 3] = 1  # the game knows the first disc: the second's hole is where the next could land
    assert np.argwhere(missed(frame).confidence < SURE).tolist() == [[1, 3]]


def _disc_frame(board: EmptyBoard, column: int, player: int) -> tuple[np.ndarray, tuple[float, float, float]]:
    """A frame with one disc of `player` dropped into `column`, and the disc's colour there (BGR)."""
    disc = board.world.drop_disc(column, player)
    board.world.wait_until_settled()
    try:
        frame = board.world.render_camera()
    finally:
        board.world.remove_disc(disc)
    x, y = np.round(board.world.hole_centres_px()[0, column]).astype(int)
    return frame, tuple(float(v) for v in np.median(frame[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3), axis=0))


def test_the_robot_s_own_disc_the_reader_missed_is_read_from_its_hole_s_change(board: EmptyBoard) -> None:
    """The game waits for its disc in column 4; the reader read the hole empty. The change there reads it as the
    robot's, at SURE, only if nothing else where a disc could land changed and the hole shows the robot's colour."""
    frame, robot_bgr = _disc_frame(board, 3, 1)
    _, other_bgr = _disc_frame(board, 3, 2)
    known = np.zeros(SHAPE, np.int8)
    reading = vision.read(frame, SHAPE, board.corners)
    blind = dataclasses.replace(reading, grid=np.zeros(SHAPE, np.int8), confidence=np.ones(SHAPE))

    def seen(column: int, player: int, colours: tuple) -> vision.BoardReading:
        return expected_disc_from_change(blind, frame, board.corners, known, board.reference, column, player, colours)

    robot_first = seen(3, 1, (robot_bgr, other_bgr))
    assert robot_first.grid[0, 3] == 1 and robot_first.confidence[0, 3] == SURE
    assert np.count_nonzero(robot_first.grid) == 1
    robot_second = seen(3, 2, (other_bgr, robot_bgr))
    assert robot_second.grid[0, 3] == 2 and robot_second.confidence[0, 3] == SURE
    assert not seen(3, 1, (other_bgr, robot_bgr)).grid.any(), "the hole shows the other player's colour"
    assert not seen(2, 1, (robot_bgr, other_bgr)).grid.any(), "another column changed: the disc went elsewhere"
    unchanged = board.world.render_camera()
    as_before = expected_disc_from_change(
        dataclasses.replace(blind), unchanged, board.corners, known, board.reference, 3, 1, (robot_bgr, other_bgr)
    )
    assert not as_before.grid.any(), "nothing changed: no disc"


def test_a_known_disc_that_looks_as_when_confirmed_is_still_there(board: EmptyBoard) -> None:
    """The reader reads the game's disc in column 4 as empty, or covered: where its hole looks as in the frame that
    confirmed it, in light that drifted since too, the disc is read there at SURE; taken out, the reading stands."""
    disc = board.world.drop_disc(3, 1)
    board.world.wait_until_settled()
    camera = board.world.camera
    try:
        confirmed, later = board.world.render_camera(), board.world.render_camera()
        board.world.set_camera(dataclasses.replace(camera, exposure=camera.exposure * 0.7))
        dimmer = board.world.render_camera()
    finally:
        board.world.set_camera(camera)
        board.world.remove_disc(disc)
    taken_out = board.world.render_camera()
    known = np.zeros(SHAPE, np.int8)
    known[0, 3] = 1
    looks = disc_patches(confirmed, board.corners, SHAPE, known != 0, board.reference)
    assert np.isnan(looks[1]).all() and not np.isnan(looks[3]).any()

    def misread(image: np.ndarray, covered: bool) -> vision.BoardReading:
        reading = vision.read(image, SHAPE, board.corners)
        hidden = np.zeros(SHAPE, bool)
        hidden[0, 3] = covered
        wrong = dataclasses.replace(reading, grid=np.zeros(SHAPE, np.int8), confidence=np.ones(SHAPE), covered=hidden)
        return trust_unchanged_discs(wrong, image, board.corners, known, looks, board.reference)

    for covered in (False, True):
        kept = misread(later, covered)
        assert kept.grid[0, 3] == 1 and kept.confidence[0, 3] == SURE and not kept.covered.any()
        assert np.count_nonzero(kept.grid) == 1
    assert misread(taken_out, False).grid[0, 3] == 0, "the disc was taken out: its hole changed"
    followed = misread(dimmer, True)
    assert followed.grid[0, 3] == 1 and not followed.covered.any(), "light that drifted since is followed"
