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
