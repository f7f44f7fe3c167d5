"""`c4robot bench vision photos|degrade|calibrated` on a user's own folder of photos (rendered boards written as
JPEGs with labels.txt and corners.txt in the shared format), and their refusals: one sentence and a non-zero exit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import Scene, random_game_grid, render_board

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from one_sentence import assert_one_sentence, run_in_process  # noqa: E402

CHANGES = "none,light 45%,hand 15-25%"


@pytest.fixture(scope="module")
def own_photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two labelled photos in a folder of their own, as a user would bring them."""
    folder = tmp_path_factory.mktemp("my_photos")
    labels, corners = ["# my board"], []
    for index, moves in enumerate((9, 20)):
        grid = random_game_grid(moves, seed=index)
        image, corner_px = render_board(grid, Scene(tilt=0.04 * index, seed=index))
        name = f"board{index + 1}.jpg"
        cv2.imwrite(str(folder / name), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        rows = "/".join("".join(".RY"[value] for value in row) for row in grid[::-1])
        labels.append(f"{name} 6 7 {rows} view=full  # rendered")
        corners.append(f"{name} " + " ".join(f"{x:.1f},{y:.1f}" for x, y in corner_px))
    (folder / "labels.txt").write_text("\n".join(labels) + "\n")
    (folder / "corners.txt").write_text("\n".join(corners) + "\n")
    return folder


def test_json_figures_of_a_users_folder_add_up(own_photos: Path) -> None:
    argv = ["bench", "vision", "degrade", "--photos", str(own_photos), "--changes", CHANGES, "--mode", "corners"]
    status, out, err = run_in_process([*argv, "--json"])
    report = json.loads(out)
    failures = [t for t in report["trials"] if t["sure_wrong"] or t["is_hand_named"] is False]
    assert status == (1 if failures else 0), "exit status 1 exactly when a cell is wrong at >= 0.9 or a hand unnamed"
    assert report["is_trustworthy"] == (status == 0)
    assert report["photo_count"] == 2 and [row["change"] for row in report["rows"]] == CHANGES.split(",")
    for row in report["rows"]:
        assert row["photos"] == 2 and row["cells"] == 84 and row["mode"] == "corners"
        assert row["right"] + row["sure_wrong"] <= row["cells"] and row["honest"] >= row["fully_right"]
        trials = [t for t in report["trials"] if t["change"] == row["change"]]
        assert sum(t["sure_wrong"] for t in trials) == row["sure_wrong"]
        assert sum(t["right"] for t in trials) == row["right"]
    hand_row = report["rows"][2]
    assert hand_row["hands"] == 2, "each hand hides at least one hole"
    assert all(t["hand"] and "% of the board" in t["hand"] for t in report["trials"] if t["change"] == "hand 15-25%")
    assert sum(b["cells"] for b in report["reliability"]) + report["covered"]["cells"] == 3 * 84
    assert sum(b["wrong"] for b in report["reliability"] if b["low"] >= 0.9) == sum(
        r["sure_wrong"] for r in report["rows"]
    )


def test_table_and_saved_images(own_photos: Path, tmp_path: Path) -> None:
    saved = tmp_path / "changed"
    argv = ["bench", "vision", "degrade", "--photos", str(own_photos), "--changes", "light 30%", "--mode", "auto"]
    status, out, err = run_in_process([*argv, "--write-images", str(saved)])
    assert status in (0, 1) and not err, err
    assert "wrong@0.9" in out and "reliability over all 2 readings" in out
    assert any(line.startswith("light 30%        auto") for line in out.splitlines()), out
    written = sorted(path.name for path in saved.iterdir())
    assert written == ["board1_light_30.png", "board2_light_30.png"]
    original = cv2.imread(str(own_photos / "board1.jpg")).astype(np.float64)
    assert cv2.imread(str(saved / written[0])).mean() == pytest.approx(0.3 * original.mean(), rel=0.03)


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--photos", "/no/such/folder"], "photo folder /no/such/folder does not exist"),
        (["--changes", "light 10%"], "choose from"),
        (["--photos", __file__], "is a file"),
        (["--write-images", "/proc/no/such"], "/proc/no/such"),
    ],
)
def test_refusals_are_one_sentence(own_photos: Path, extra: list[str], says: str) -> None:
    status, _, err = run_in_process(["bench", "vision", "degrade", "--photos", str(own_photos), *extra])
    assert_one_sentence(status, err, extra)
    assert says in err


def test_a_ragged_label_is_one_sentence(own_photos: Path, tmp_path: Path) -> None:
    (tmp_path / "board1.jpg").write_bytes((own_photos / "board1.jpg").read_bytes())
    (tmp_path / "labels.txt").write_text("board1.jpg 6 7 ......./....../.......\n")
    status, _, err = run_in_process(["bench", "vision", "degrade", "--photos", str(tmp_path)])
    assert_one_sentence(status, err)
    assert "rows of different lengths" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["bench", "vision", "--json"], "unrecognized arguments: --json"),
        (["bench", "vision", "photos", "--changes", "none"], "unrecognized arguments: --changes"),
        (["bench", "vision", "calibrated", "--mode", "auto"], "unrecognized arguments: --mode"),
        (["bench", "vision", "degrade", "--changes", " , "], "the list of image changes is empty"),
        (["bench", "vision", "calibrated", "--drifts", ""], "the list of light drifts is empty"),
        (["bench", "vision", "calibrated", "--drifts", "dusk"], "choose from none, exposure -30%"),
    ],
)
def test_each_mode_takes_only_its_own_options(own_photos: Path, argv: list[str], says: str) -> None:
    status, _, err = run_in_process([*argv, "--photos", str(own_photos)])
    assert_one_sentence(status, err, argv)
    assert says in err


def test_the_photo_folder_goes_before_or_after_the_mode(own_photos: Path) -> None:
    before = run_in_process(["bench", "vision", "--photos", str(own_photos), "photos"])
    after = run_in_process(["bench", "vision", "photos", "--photos", str(own_photos)])
    default_mode = run_in_process(["bench", "vision", "--photos", str(own_photos)])
    tables = [[line.split()[:4] for line in out.splitlines()] for _, out, _ in (before, after, default_mode)]
    assert before[0] == after[0] == default_mode[0] == 0
    assert tables[0] == tables[1] == tables[2] and "board1.jpg" in before[1]


def test_help_strings_name_no_other_flag_first() -> None:
    from robot.cli.main import build_parser

    vision = build_parser()._subparsers._group_actions[0].choices["bench"]
    modes = vision._subparsers._group_actions[0].choices["vision"]._subparsers._group_actions[0].choices
    for mode in modes.values():
        for action in mode._actions:
            assert not (action.help or "").lower().startswith("with --"), action.help


def test_photos_without_corners_are_read_automatically_and_take_no_hand(own_photos: Path, tmp_path: Path) -> None:
    for name in ("board1.jpg", "board2.jpg", "labels.txt"):
        (tmp_path / name).write_bytes((own_photos / name).read_bytes())
    argv = ["bench", "vision", "degrade", "--photos", str(tmp_path), "--changes", "none,hand 5-15%"]
    status, out, err = run_in_process([*argv, "--json"])
    report = json.loads(out)
    assert report["without_corners"] == ["board1.jpg", "board2.jpg"]
    assert [(row["change"], row["mode"], row["photos"]) for row in report["rows"]] == [("none", "auto", 2)]
    status, out, err = run_in_process(argv)
    assert "none             corners no photo with corners" in out and "hand 5-15%       auto    no photo" in out
    status, _, err = run_in_process([*argv, "--mode", "corners"])
    assert_one_sentence(status, err)
    assert "--mode corners needs the corner holes" in err


def test_calibrated_figures_of_a_users_folder_add_up(own_photos: Path) -> None:
    argv = ["bench", "vision", "calibrated", "--photos", str(own_photos), "--drifts", "none,exposure -20%"]
    status, out, err = run_in_process([*argv, "--json"])
    report = json.loads(out)
    assert [row["drift"] for row in report["rows"]] == ["none", "exposure -20%"]
    assert status == (0 if report["is_trustworthy"] else 1)
    for row in report["rows"]:
        assert row["photos"] == 2 and row["cells"] == 84 and row["pairs"] >= 2
        assert row["right"] + row["sure_wrong"] <= row["cells"] and row["fully_right"] <= row["photos"]
        assert row["pairs_fully_right"] <= row["pairs"]
    assert report["median_cpu_ms"] > 0
    status, out, err = run_in_process(argv)
    assert status in (0, 1) and not err, err
    assert "pairs right" in out and out.count("exposure -20%") >= 1 and "median CPU" in out


def test_calibrated_as_a_game_reads_gives_its_own_rows(own_photos: Path) -> None:
    argv = ["bench", "vision", "calibrated", "--photos", str(own_photos), "--drifts", "warm light", "--as-game"]
    status, out, err = run_in_process([*argv, "--json"])
    report = json.loads(out)
    assert [row["drift"] for row in report["game_rows"]] == ["warm light"]
    assert status == (0 if report["is_trustworthy"] else 1) and report["game_median_cpu_ms"] > 0
    row = report["game_rows"][0]
    assert row["photos"] == 2 and row["cells"] == 84 and 0 <= row["light_named"] <= row["pairs"]
    assert row["right"] + row["sure_wrong"] <= row["cells"]


def test_the_board_a_move_before_takes_out_a_top_disc_of_the_last_mover() -> None:
    import numpy as np

    from robot.cli.vision_calibrated_bench import _before_last_disc

    grid = np.zeros((6, 7), np.int8)
    grid[0, 2], grid[0, 3], grid[1, 3] = 2, 1, 1  # player 1 moved last: a top disc of theirs goes
    before = _before_last_disc(grid)
    assert (before != grid).sum() == 1 and before[1, 3] == 0


def test_a_photo_not_fully_right_is_listed_with_its_worst_pair() -> None:
    from robot.cli.vision_calibrated_bench import PhotoResult, failure_line

    result = PhotoResult("ts02.jpg", 4, 3, "ts05.jpg 2,5", 40, 3, 1, 42, 2, 0, 42)
    assert (
        failure_line("warm light", result)
        == "  warm light      ts02.jpg: pair ts05.jpg 2,5 40/42 right, 1 wrong at >= 0.9"
    )
