"""Ring-shaped discs set deep behind a thick face, seen in their lenses (vision.lens_rings): the room shows through
the ring's hole round the disc's centre, the disc's colour all round beyond it. A loose disc's crescent, an empty
tunnel and a solid disc are no ring disc; the sim's thick faces with ring discs read sure and right."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from robot.cli.vision_makes_bench import read_make
from vision.classify import Classification
from vision.deep_holes import lens_scales, seen_thickness
from vision.hole_samples import RAY_COUNT, RAY_RADII_PITCH, RING_PLANE, RING_SECTOR, HoleSamples
from vision.lens_rings import ring_discs_in_lenses, with_sure_ring_discs

RED = np.array([27.0, 60.0, 45.0])  # weighted Lab
YELLOW = np.array([45.0, -5.0, 80.0])
ROOM = np.array([25.0, 15.0, 30.0])  # brown wood, near a dim red
FACE = np.array([48.0, 0.0, 0.0])  # a white face
BLACK_FACE = np.array([1.3, -0.2, -1.8])
SHIFT = np.array([[0.12, -0.14]])  # the back circle's shift, pitches
RING_HOLE = 0.19
DATA = Path(__file__).parent / "data"


def _lens_samples(colour_at) -> HoleSamples:
    """One hole sampled in its lens, `colour_at` giving each sample's colour from its position in the lens (pitches,
    from the hole's front centre) as vision.deep_holes maps it."""
    angles = np.arange(RAY_COUNT) * 2 * np.pi / RAY_COUNT
    rays = np.stack([np.cos(angles), np.sin(angles)], axis=1)[:, None, :] * RAY_RADII_PITCH[None, :, None]
    scale = lens_scales(SHIFT)[0]

    def seen(points: np.ndarray) -> np.ndarray:
        return np.array([colour_at(SHIFT[0] / 2 + scale * point) for point in points.reshape(-1, 2)])

    pixels = seen(RING_PLANE[:, 1:])[None]
    return HoleSamples(
        shape=(1, 1),
        pixels=pixels.astype(np.float32),
        sector=RING_SECTOR,
        face=FACE,
        rays=seen(rays).reshape(1, RAY_COUNT, len(RAY_RADII_PITCH), 3).astype(np.float32),
        rim_offsets=np.zeros((1, 2)),
        hole_colours=np.median(pixels, axis=1),
        lens_shifts=SHIFT,
    )


def _lens_edge(point: np.ndarray) -> bool:
    return np.linalg.norm(point) > 0.35 or np.linalg.norm(point - SHIFT[0]) > 0.35


def _ring_disc(point: np.ndarray) -> np.ndarray:
    """A red ring disc a little deeper than the face, the room through its hole."""
    if _lens_edge(point):
        return FACE
    return ROOM if np.linalg.norm(point - 1.4 * SHIFT[0]) < RING_HOLE else RED


def _loose_crescent(point: np.ndarray) -> np.ndarray:
    """A red disc lying low behind the board: its colour on one side, the room along the rim on the other."""
    if _lens_edge(point):
        return FACE
    return RED if np.linalg.norm(point - np.array([-0.05, 0.25])) < 0.38 else ROOM


def _empty_tunnel(point: np.ndarray) -> np.ndarray:
    """The slot's far wall (the face's material) round the room seen through the board's back."""
    if _lens_edge(point):
        return FACE
    return ROOM if np.linalg.norm(point - 1.4 * SHIFT[0]) < RING_HOLE else 0.8 * FACE


def _solid_disc(point: np.ndarray) -> np.ndarray:
    return FACE if _lens_edge(point) else RED


def test_a_ring_disc_deep_in_its_lens_is_found_in_its_own_colour_only() -> None:
    assert ring_discs_in_lenses(_lens_samples(_ring_disc), (RED, YELLOW)).tolist() == [[True, False]]


@pytest.mark.parametrize("look", [_loose_crescent, _empty_tunnel, _solid_disc])
def test_a_crescent_an_empty_tunnel_or_a_solid_disc_is_no_ring_disc(look) -> None:
    assert not ring_discs_in_lenses(_lens_samples(look), (RED, YELLOW)).any()


def test_a_white_ring_disc_in_a_tunnels_shade_is_found_by_its_own_light() -> None:
    """A white disc calibrated mid-grey, darker still in a black face's tunnel, the dark back plate seen through its
    hole: that plate is a shade of the calibrated grey, but far from the disc's own ring."""
    grey, ring, plate = np.array([29.0, -1.0, 1.0]), np.array([26.5, -1.5, -4.0]), np.array([6.5, 1.0, -4.5])

    def white_ring(point: np.ndarray) -> np.ndarray:
        if _lens_edge(point):
            return BLACK_FACE
        return plate if np.linalg.norm(point - 1.4 * SHIFT[0]) < RING_HOLE else ring

    samples = dataclasses.replace(_lens_samples(white_ring), face=BLACK_FACE)
    assert ring_discs_in_lenses(samples, (YELLOW, grey)).tolist() == [[False, True]]


@pytest.mark.parametrize("seed", [13, 20])
def test_ring_discs_behind_a_thick_face_read_sure_and_right(seed: int) -> None:
    """White and blue boards 9-10 mm thick, red and yellow ring discs, 17-22 degrees aside (bench vision makes)."""
    result = read_make(seed, 7)
    assert result.sure_wrong == 0 and result.discs_right == 7 and result.empty_right == 35, result


def test_ring_discs_deep_in_a_thick_face_read_sure_as_the_game_reads_them() -> None:
    """A frame of `bench game rooms` (makes room 20: a blue board 10 mm thick, yellow and red ring discs, the arm's
    shadow behind column 3), the person's disc just dropped, read as the game's watcher reads it: calibrated corners kept, the holes known empty that
    look as on the empty board given. The thin face's look reads the ring discs as unproven empty holes (no disc read
    sure at all), so their lenses are looked at, and show them."""
    reading = _read_as_the_game(
        "sim_ring_discs_deep_in_a_thick_face.png",
        [[171.58, 156.91], [463.27, 158.16], [450.25, 363.03], [184.86, 358.72]],
        ((5, 98, 122), (6, 6, 106)),
        (81, 24, 8),
        known=["0000000", "0000000", "0000000", "0000000", "0010000", "0012000"],
        as_on_empty_board=["1111111", "1111111", "1111111", "1101111", "1101111", "1100111"],
    )
    shown = _rows(["0000000", "0000000", "0000000", "0020000", "0010000", "0012000"])  # the person's disc on top
    assert (reading.grid == shown).all() and (reading.confidence >= 0.9).all(), (reading.grid, reading.confidence)


def _rows(lines: list[str]) -> np.ndarray:
    """A board written top row first as digits, row 0 at the bottom."""
    return np.array([[int(cell) for cell in line] for line in lines[::-1]], dtype=np.int8)


def _read_as_the_game(
    name: str,
    corners: list[list[float]],
    disc_colours: tuple,
    face_colour: tuple,
    known: list[str],
    as_on_empty_board: list[str],
) -> vision.BoardReading:
    """A saved game frame read as the watcher reads it: calibrated corners, the board the game knows, and the holes
    (whole, and insides) that looked as on the empty board."""
    as_then = _rows(as_on_empty_board).astype(bool)
    return vision.read(
        cv2.imread(str(DATA / name)),
        (6, 7),
        corners,
        disc_colours,
        face_colour,
        known=_rows(known),
        as_on_empty_board=as_then,
        empty_insides=as_then,
    )


def test_a_thin_faces_ring_disc_seen_aside_reads_sure_as_the_game_reads_it() -> None:
    """A frame of `bench game rooms` (makes room 18: a white board 3 mm thick, black and red ring discs 34 degrees
    aside, a dark room behind the right half), the person's black ring disc just dropped in column 2, read as the
    game's watcher reads it. Seen aside, the ring's hole nears the rim and the plain look takes the disc for one cut
    short (unsure); its lens shows the ring round the wood behind. The holes before the dark room, as black as the
    discs, stay unsure, never read sure and wrong."""
    reading = _read_as_the_game(
        "sim_thin_face_ring_disc_aside.png",
        [[218.04, 142.68], [451.95, 137.5], [444.95, 369.1], [222.27, 323.38]],
        ((40, 38, 37), (10, 11, 132)),
        (169, 168, 161),
        known=["0000000", "0000000", "0000000", "0000000", "0000000", "0000210"],
        as_on_empty_board=["1111111", "1111111", "1111111", "1111111", "1111111", "1011001"],
    )
    shown = _rows(["0000000", "0000000", "0000000", "0000000", "0000000", "0100210"])
    assert reading.grid[0, 1] == 1 and reading.confidence[0, 1] >= 0.9, (reading.grid, reading.confidence)
    assert not ((reading.grid != shown) & (reading.confidence >= 0.9)).any(), (reading.grid, reading.confidence)


def test_ring_discs_found_in_their_lenses_stack_from_the_bottom_only() -> None:
    """A column of two ring discs the plain look is unsure of both take the lens look's reading; one over a hole the
    plain look reads empty does not (no disc floats)."""
    one = _lens_samples(_ring_disc)
    column = dataclasses.replace(
        one,
        shape=(2, 1),
        pixels=np.concatenate([one.pixels] * 2),
        rays=np.concatenate([one.rays] * 2),
        rim_offsets=np.zeros((2, 2)),
        hole_colours=np.concatenate([one.hole_colours] * 2),
        lens_shifts=np.concatenate([SHIFT] * 2),
    )
    lens = Classification(np.array([[1], [1]], np.int8), np.array([[0.99], [0.99]]), (RED, YELLOW), [])
    plain = Classification(np.zeros((2, 1), np.int8), np.array([[0.5], [0.5]]), (RED, YELLOW), [])
    read, found = with_sure_ring_discs(column, lens, plain, 0.9)
    assert found.ravel().tolist() == [True, True] and read.grid.ravel().tolist() == [1, 1]
    assert read.confidence.ravel().tolist() == [0.99, 0.99]
    sure_empty_below = dataclasses.replace(plain, confidence=np.array([[0.95], [0.5]]))
    read, found = with_sure_ring_discs(column, lens, sure_empty_below, 0.9)
    assert not found.any() and not read.grid.any()


# Makes room 16's calibrated corners in its frames, cropped about the centre.
ROOM_16_CORNERS = np.array([[137.18, 52.79], [417.46, 73.85], [387.15, 251.91], [150.21, 220.87]])


def test_ring_discs_behind_a_black_thick_face_read_sure_as_the_game_reads_them() -> None:
    """A frame of `bench game rooms` (makes room 16: a black board 9 mm thick, yellow and white ring discs 31 degrees
    aside; cropped about the frame's centre), the robot's white disc just dropped on column 4. The tunnels' walls and
    the slot behind are one black, so only the holes with a disc show the tunnels' depth; the white disc in the
    tunnel's shade is a ring round the dark back plate."""
    frame = cv2.imread(str(DATA / "sim_black_thick_face_ring_discs.png"))
    corners = ROOM_16_CORNERS
    assert 0.21 <= seen_thickness(frame, corners, (6, 7)) <= 0.3  # 9.5 mm is 0.27 pitch
    reading = _read_as_the_game(
        "sim_black_thick_face_ring_discs.png",
        corners.tolist(),
        ((6, 117, 151), (137, 139, 137)),
        (14, 10, 7),
        known=["0000000", "0000000", "0000000", "0000000", "0001000", "0002100"],
        as_on_empty_board=["1111111", "1111111", "1111111", "1110111", "1110111", "1110011"],
    )
    shown = _rows(["0000000", "0000000", "0000000", "0002000", "0001000", "0002100"])
    discs = shown != 0
    assert (reading.grid[discs] == shown[discs]).all() and (reading.confidence[discs] >= 0.9).all(), reading
    assert not ((reading.grid != shown) & (reading.confidence >= 0.9)).any(), (reading.grid, reading.confidence)


def test_a_ring_disc_stacked_on_another_behind_a_thin_face_reads_sure() -> None:
    """A frame of makes room 18 (cropped about its centre), the person's second black ring disc just dropped on the
    first in column 2: the wood seen through its hole is dark, within a shade of the calibrated black, but far from
    the disc's own ring."""
    reading = _read_as_the_game(
        "sim_thin_face_stacked_ring_disc.png",
        [[118.04, 62.68], [351.95, 57.5], [344.95, 289.1], [122.27, 243.38]],
        ((41, 39, 39), (10, 11, 143)),
        (165, 167, 160),
        known=["0000000", "0000000", "0000000", "0000000", "0000200", "0100210"],
        as_on_empty_board=["1111111", "1111111", "1111111", "1111111", "1011011", "1011001"],
    )
    shown = _rows(["0000000", "0000000", "0000000", "0000000", "0100200", "0100210"])
    assert (reading.grid[:2, 1] == 1).all() and (reading.confidence[:2, 1] >= 0.9).all(), reading
    assert not ((reading.grid != shown) & (reading.confidence >= 0.9)).any(), (reading.grid, reading.confidence)


def test_a_half_full_black_thick_face_reads_its_empty_holes_sure() -> None:
    """A frame of makes room 16 (cropped as above), 21 discs in, the robot's white disc just dropped in column 2: half
    the holes show a disc behind the tunnel, half show none, so a median over all holes would land between the two
    kinds and pass for an edge at a wrong depth (the lenses then miss every disc, and the empty holes the light's
    drift has changed stay unsure: the game stopped, its disc "not shown"). Each hole that shows an edge gives the
    depth."""
    frame = cv2.imread(str(DATA / "sim_black_thick_face_half_full.png"))
    corners = ROOM_16_CORNERS
    assert 0.21 <= seen_thickness(frame, corners, (6, 7)) <= 0.3
    reading = _read_as_the_game(
        "sim_black_thick_face_half_full.png",
        corners.tolist(),
        ((6, 93, 115), (115, 109, 105)),
        (12, 8, 6),
        known=["0000000", "0000000", "0002200", "0001120", "0022210", "1011211"],
        as_on_empty_board=["1111111", "1111100", "1110000", "1110000", "1000001", "0000000"],
    )
    shown = _rows(["0000000", "0000000", "0002200", "0001120", "0022210", "1211211"])
    stopped_on = (np.array([2, 3, 3, 4]), np.array([6, 5, 6, 5]))  # the cells the game stopped on, unsure
    assert (reading.grid[stopped_on] == 0).all() and (reading.confidence[stopped_on] >= 0.9).all(), reading
    assert not ((reading.grid != shown) & (reading.confidence >= 0.9)).any(), (reading.grid, reading.confidence)
