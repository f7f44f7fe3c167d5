"""A dark room behind a pale board whose discs are black (vision.empty_proof): seen through the empty holes, a dark
grey that no light of the game makes of the black discs proves nothing either way, so it must not leave the holes
above a new disc unsure (the game stopped: its disc "did not show up"), while a real black disc stays one."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

import vision

DATA = Path(__file__).parent / "data"


def _rows(lines: list[str]) -> np.ndarray:
    """A board written top row first as digits, row 0 at the bottom."""
    return np.array([[int(cell) for cell in line] for line in lines[::-1]], dtype=np.int8)


def test_a_dark_room_seen_above_a_new_disc_is_no_black_disc() -> None:
    """A frame of `bench game rooms` (makes room 30: a white 3 mm board, glossy black and red discs seen 30 degrees
    from above, the dark arm behind columns 3 to 5), the robot's red disc just dropped in column 3, read as the
    watcher read it: the dark grey seen through column 3's empty holes (twelve times the black discs' lightness) read
    them unsure, and the disc below seen through the bottom of the hole above it kept that hole from looking as on
    the empty board, so the game never saw its disc."""
    as_then = _rows(["1111111", "1111111", "1111111", "1111111", "1101111", "0100110"]).astype(bool)
    reading = vision.read(
        cv2.imread(str(DATA / "sim_white_board_dark_room_behind_black_discs.png")),
        (6, 7),
        [[180.79, 175.02], [459.65, 186.43], [437.83, 355.45], [201.77, 339.77]],
        ((11, 10, 10), (8, 8, 117)),
        (200, 181, 181),
        known=_rows(["0000000", "0000000", "0000000", "0000000", "0000000", "1002001"]),
        as_on_empty_board=as_then,
        empty_insides=as_then,
    )
    shown = _rows(["0000000", "0000000", "0000000", "0000000", "0000000", "1022001"])
    above_new_discs = (np.array([1, 1]), np.array([2, 3]))
    assert (reading.grid[above_new_discs] == 0).all() and (reading.confidence[above_new_discs] >= 0.9).all(), reading
    assert not ((reading.grid != shown) & (reading.confidence >= 0.9)).any(), (reading.grid, reading.confidence)
    assert (reading.grid[0, [0, 6]] == 1).all() and (reading.confidence[0, [0, 6]] >= 0.9).all(), reading
