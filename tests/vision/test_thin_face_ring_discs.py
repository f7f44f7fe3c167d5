"""Ring-shaped discs behind a thin face seen far aside (vision.deep_holes.thin_face_lens_depth): the discs stand the
slot's half gap behind a 3 mm face, so the ring's hole nears the rim and the plain look takes many of them for discs
cut short; once most holes hold a disc, the holes show no tunnel's back to measure. Their lenses at a thin face's depth
show the rings, and the reader takes them where the plain look is unsure."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from calibration.sim_truth import sim_board, sim_camera, sim_colours
from sim.config import DISC_COLOURS, BoardGeometry
from sim.makes import BOARD_COLOURS, Make
from tests.makes_tables import makes_table
from vision.deep_holes import THIN_FACE_PITCH, thin_face_lens_depth

G = BoardGeometry()
# Player 1, 2, 1, ... in these columns: every column but the middle one filled four high.
MOVES = (0, 1, 2, 4, 5, 6) * 4
SURE = 0.9
DATA = Path(__file__).parent / "data"


def _thin_ring_make(letters: str, hole_share: float) -> Make:
    return Make(
        board="white",
        disc_letters=letters,
        finish="ring",
        board_rgb=BOARD_COLOURS["white"],
        disc_rgbs=tuple(DISC_COLOURS[letter][:3] for letter in letters),
        ring_hole_m=hole_share * G.disc_diameter_m,
    )


@pytest.mark.parametrize(
    ("letters", "hole_share", "view_deg", "backdrop"),
    [("KR", 0.45, (33.0, 7.0), "wall"), ("KR", 0.50, (30.0, 15.0), "wood")],
    ids=["45% 33 deg", "50% 30 deg"],
)
def test_ring_discs_behind_a_thin_face_seen_far_aside_read_sure_and_right(
    letters: str, hole_share: float, view_deg: tuple[float, float], backdrop: str
) -> None:
    """A white 3 mm face, black and red ring discs (makes room 18's kind), 24 discs in."""
    with makes_table(_thin_ring_make(letters, hole_share), view_deg, backdrop) as world:
        board = sim_board(world, sim_camera(world))
        colours = sim_colours(world, board, robot_player=2)
        for index, column in enumerate(MOVES):
            world.drop_disc(column, 1 + index % 2)
            world.wait_until_settled()
        truth = world.board_state()
        frame = world.render_camera()
    reading = vision.read(frame, (6, 7), np.asarray(board.corners_px), (colours.robot_bgr, colours.person_bgr))
    expected = np.select([truth == 2, truth == 1], [1, 2], 0)
    sure = reading.confidence >= SURE
    assert not ((reading.grid != expected) & sure).any(), (reading.grid, reading.confidence)
    right = int(((reading.grid == expected) & sure & (expected > 0)).sum())
    assert right == len(MOVES), f"{right} of {len(MOVES)} discs read right and sure"


@pytest.mark.parametrize(("view_deg", "depth"), [((0.0, 10.0), 0.0), ((33.0, 7.0), THIN_FACE_PITCH)])
def test_a_thin_faces_lenses_are_looked_at_only_far_aside(view_deg: tuple[float, float], depth: float) -> None:
    with makes_table(_thin_ring_make("KR", 0.45), view_deg) as world:
        corners = np.asarray(sim_board(world, sim_camera(world)).corners_px)
    assert thin_face_lens_depth(corners, (6, 7), (640, 480)) == depth


def _rows(lines: list[str]) -> np.ndarray:
    """A board written top row first as digits, row 0 at the bottom."""
    return np.array([[int(cell) for cell in line] for line in lines[::-1]], dtype=np.int8)


def test_the_robots_ring_disc_late_in_the_game_reads_sure_as_the_game_reads_it() -> None:
    """A frame of `bench game rooms` (makes room 18: a white board 3 mm thick, black and red ring discs 34 degrees
    aside), 28 discs in, the robot's red ring disc just dropped in column 7 row 4, read as the game's watcher reads it
    with the colours it had learnt by then. The plain look reads every hole empty and unsure (the game stopped: "my
    disc did not show up"); the lenses show the rings."""
    as_then = _rows(["0001001", "0001001", "0001000", "0001000", "0001000", "0001000"]).astype(bool)
    reading = vision.read(
        cv2.imread(str(DATA / "sim_thin_face_ring_discs_late_game.png")),
        (6, 7),
        [[218.04, 142.68], [451.95, 137.5], [444.95, 369.1], [222.27, 323.38]],
        ((43, 39, 40), (16, 17, 83)),
        (163, 153, 139),
        known=_rows(["2120110", "2210110", "1210210", "2110121", "2120222", "2110212"]),
        as_on_empty_board=as_then,
        empty_insides=as_then,
    )
    shown = _rows(["2120110", "2210110", "1210212", "2110121", "2120222", "2110212"])
    assert reading.grid[3, 6] == 2 and reading.confidence[3, 6] >= SURE, (reading.grid, reading.confidence)
    assert not ((reading.grid != shown) & (reading.confidence >= SURE)).any(), (reading.grid, reading.confidence)


def test_black_and_red_ring_discs_read_with_corners_only_are_never_sure_empty() -> None:
    """The same frame read with its corners only, no colours learnt: black discs lose to an empty board by the prior
    that discs are vivid, ring discs cover their rings in part, so no disc colours at all explains the board best;
    the holes two dull colours fill as discs do are then no proven empty holes."""
    shown = _rows(["2120110", "2210110", "1210212", "2110121", "2120222", "2110212"])
    reading = vision.read(
        cv2.imread(str(DATA / "sim_thin_face_ring_discs_late_game.png")),
        (6, 7),
        np.asarray([[218.04, 142.68], [451.95, 137.5], [444.95, 369.1], [222.27, 323.38]]),
    )
    sure = reading.confidence >= SURE
    assert not ((shown > 0) & (reading.grid == 0) & sure).any(), (reading.grid, reading.confidence)
    assert not ((reading.grid != 0) & sure & (shown == 0)).any(), (reading.grid, reading.confidence)
