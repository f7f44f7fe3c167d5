"""`c4robot bench vision makes`: one frame of a makes room read with the sim's calibration, its figures adding up,
and a bad seed range refused in one sentence."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from one_sentence import assert_one_sentence, run_in_process  # noqa: E402

from robot.cli.vision_makes_bench import seed_list  # noqa: E402


def test_the_figures_of_two_rooms_add_up() -> None:
    status, out, _ = run_in_process(["bench", "vision", "makes", "--seeds", "6,15", "--discs", "5", "--json"])
    report = json.loads(out)
    seeds, totals = report["seeds"], report["totals"]
    assert [room["seed"] for room in seeds] == [6, 15] and totals["rooms"] == 2
    assert "ring" in seeds[0]["make"] and "matte" in seeds[1]["make"]
    for room in seeds:
        assert room["discs"] == 5 and not room["refused"]
        assert room["discs_right"] + room["empty_right"] + room["sure_wrong"] + room["unsure"] == 42
        assert room["empty_as_disc"] <= 37 and room["empty_covered"] <= 37 and room["cpu_ms"] > 0
    assert totals["sure_wrong"] == sum(room["sure_wrong"] for room in seeds)
    assert totals["discs_right"] == sum(room["discs_right"] for room in seeds) and totals["discs"] == 10
    assert status == (1 if totals["sure_wrong"] else 0), "exit status 1 exactly when a cell is wrong at >= 0.9"


def test_seed_ranges() -> None:
    assert seed_list("1-3,7") == (1, 2, 3, 7) and seed_list(" 5 ") == (5,)


@pytest.mark.parametrize("seeds", ["3-1", "x", "1-2000", ""])
def test_a_bad_seed_range_is_one_sentence(seeds: str) -> None:
    status, _, err = run_in_process(["bench", "vision", "makes", "--seeds", seeds])
    assert_one_sentence(status, err, seeds)


@pytest.mark.parametrize(
    "seed",
    [
        14,  # matte discs behind a 7 mm face seen from 29 degrees: every disc cut short by the tunnel's wall
        6,  # ring discs before a lit wall: their middles burnt to the camera's ceiling, read by the band
    ],
)
def test_a_fuller_board_of_these_makes_is_never_read_wrong_at_full_confidence(seed: int) -> None:
    from robot.cli.vision_makes_bench import read_make

    result = read_make(seed, 20)
    assert not result.refused and result.sure_wrong == 0, result


def test_the_colour_step_takes_a_disc_behind_a_thick_face_in_its_lens() -> None:
    """Speckled discs behind a 10 mm face: the step took the yellow disc's band mixed with the red tunnel wall, an
    orange no disc shows, and every yellow disc read empty at full confidence (10 cells); one is left."""
    from robot.cli.vision_makes_bench import read_make

    result = read_make(17, 20)
    assert not result.refused and result.sure_wrong <= 1, result


def test_the_frames_are_saved_to_be_read_again(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    import vision

    status, out, _ = run_in_process(
        ["bench", "vision", "makes", "--seeds", "15", "--discs", "3", "--frames", str(tmp_path), "--json"]
    )
    record = json.loads((tmp_path / "makes-15.json").read_text())
    frame = cv2.imread(str(tmp_path / "makes-15.png"))
    assert (
        frame.shape == (480, 640, 3) and len(record["board"]) == 6 and sum(r.count("0") for r in record["board"]) == 39
    )
    reading = vision.read(frame, (6, 7), np.asarray(record["corners"]), record["colours"])
    board = np.array([[int(c) for c in row] for row in record["board"][::-1]])
    expected = np.select([board == 2, board == 1], [1, 2], 0)
    right = (reading.grid == expected) & (reading.confidence >= 0.9)
    assert int(right[expected > 0].sum()) == json.loads(out)["seeds"][0]["discs_right"]
