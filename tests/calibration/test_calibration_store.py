"""The calibration file: round trip, atomic writes, and clear errors on bad files."""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from pathlib import Path

import numpy as np
import pytest

from calibration import store
from calibration.store import (
    ArmPose,
    BoardCalibration,
    CalibrationError,
    CameraCalibration,
    ColourCalibration,
    Setup,
)


def full_setup() -> Setup:
    return Setup(
        camera=CameraCalibration(
            camera_matrix=np.array([[612.5, 0.0, 320.25], [0.0, 611.75, 240.5], [0.0, 0.0, 1.0]]),
            distortion=(0.05, -0.125, 0.001, 0.0, 0.02),
            image_size_px=(640, 480),
            reprojection_error_px=0.21,
        ),
        board=BoardCalibration(
            rows=6,
            cols=7,
            corners_px=((100.5, 80.25), (520.0, 82.0), (515.75, 400.0), (104.0, 398.5)),
            rvec_rad=(0.1, -0.2, 0.05),
            tvec_m=(0.012, -0.034, 0.55),
        ),
        colours=ColourCalibration(robot="R", person="Y", robot_bgr=(30, 20, 200), person_bgr=(20, 210, 220)),
        drops=tuple(ArmPose(0.2 + 0.0347 * c, -0.05, 0.31, math.radians(90.0)) for c in range(7)),
        pick=ArmPose(0.05, 0.17, 0.18, 0.0),
        arm={"port": "/dev/ttyUSB0", "baud": 115200, "protocol": "gcode", "limits": {"speed_deg_s": [90.0, 90.0]}},
    )


def assert_setups_close(a: Setup, b: Setup) -> None:
    assert a.camera == b.camera
    assert a.colours == b.colours
    assert a.board.rows == b.board.rows and a.board.cols == b.board.cols
    np.testing.assert_allclose(a.board.corners_px, b.board.corners_px, atol=1e-3)
    np.testing.assert_allclose(a.board.tvec_m, b.board.tvec_m, atol=1e-6)
    np.testing.assert_allclose(a.board.rvec_rad, b.board.rvec_rad)
    np.testing.assert_allclose(
        [p.xyz_m + (p.yaw_rad,) for p in a.drops], [p.xyz_m + (p.yaw_rad,) for p in b.drops], atol=1e-5
    )
    assert a.pick == b.pick
    assert dict(a.arm) == dict(b.arm)


def test_round_trip_keeps_every_section(tmp_path: Path) -> None:
    path = tmp_path / "setup.toml"
    setup = full_setup()
    assert store.save(setup, path) == path
    assert_setups_close(store.load(path), setup)


def test_file_is_human_units_and_one_based(tmp_path: Path) -> None:
    path = store.save(full_setup(), tmp_path / "setup.toml")
    document = tomllib.loads(path.read_text())
    assert document["schema_version"] == store.SCHEMA_VERSION
    columns = document["drops"]["column"]
    assert [entry["column"] for entry in columns] == list(range(1, 8))
    assert columns[0]["x_mm"] == pytest.approx(200.0)
    assert columns[0]["yaw_deg"] == pytest.approx(90.0)
    assert document["board"]["tvec_mm"][2] == pytest.approx(550.0)


def test_sections_are_optional_and_missing_file_is_explicit(tmp_path: Path) -> None:
    path = store.save(Setup(colours=full_setup().colours), tmp_path / "setup.toml")
    loaded = store.load(path)
    assert loaded.camera is None and loaded.board is None and loaded.drops == ()
    assert loaded.colours == full_setup().colours
    with pytest.raises(FileNotFoundError, match="calibrate"):
        store.load(tmp_path / "absent.toml")
    assert store.load(tmp_path / "absent.toml", missing_ok=True) == Setup()


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert store.default_path() == tmp_path / "c4robot" / "setup.toml"
    store.save(Setup(colours=full_setup().colours))
    assert store.load().colours == full_setup().colours


def test_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = store.save(full_setup(), tmp_path / "setup.toml")
    before = path.read_bytes()

    def disk_full(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space"):
        store.save(Setup(), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["setup.toml"]


def test_unwritable_value_keeps_the_old_file(tmp_path: Path) -> None:
    path = store.save(full_setup(), tmp_path / "setup.toml")
    before = path.read_bytes()
    with pytest.raises(TypeError, match="cannot write"):
        store.save(Setup(arm={"port": object()}), path)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("schema_version = 1\n[camera\n", "not valid TOML"),
        ("[colours]\nrobot = 'R'\n", "schema_version is missing"),
        ("schema_version = 0\n", "older c4robot"),
        ("schema_version = 99\n", "another c4robot"),
        (
            "schema_version = 1\n[colours]\nrobot = 'R'\nperson = 'Y'\nrobot_bgr = [0, 0, 200]\n",
            "person_bgr is missing",
        ),
        (
            "schema_version = 1\n[colours]\nrobot = 'R'\nperson = 'R'\nrobot_bgr = [0,0,9]\nperson_bgr = [0,0,9]\n",
            "different",
        ),
        (
            "schema_version = 1\n[board]\nrows = 6\ncols = 7\ncolumn_pitch_mm = 34.7\nrow_pitch_mm = 31.8\ndisc_plane_depth_mm = 7.25\ncorners_px = [[1, 2], [3, 4]]\n",
            "four",
        ),
        (
            "schema_version = 1\n[board]\nrows = 6\ncols = 7\ncorners_px = [[1,2],[3,4],[5,6],[7,8]]\nrvec_rad = [0,0,0]\n",
            "tvec_mm",
        ),
        (
            "schema_version = 1\n[board]\nrows = 6\ncols = 7\ncorners_px = [[1,2],[3,4],[5,6],[7,8]]\n",
            "column_pitch_mm is missing",
        ),
        (
            "schema_version = 1\n[camera]\nimage_size_px = [640, 480]\ncamera_matrix = [[1, 0, 0], [0, 1, 0]]\n",
            "3 rows",
        ),
        (
            "schema_version = 1\n[[drops.column]]\ncolumn = 2\nx_mm = 1\ny_mm = 2\nz_mm = 3\nyaw_deg = 0\n",
            "columns 1..1",
        ),
        (
            "schema_version = 1\n[[drops.column]]\ncolumn = 1\nx_mm = 'a'\ny_mm = 2\nz_mm = 3\nyaw_deg = 0\n",
            "x_mm must be a finite number",
        ),
        ("schema_version = 1\n[extra]\n", "unknown sections"),
        ("schema_version = 1\n[pick]\nx_mm = 1\ny_mm = 2\nz_mm = 3\n", r"\[pick\] is incomplete: yaw_deg"),
    ],
)
def test_bad_files_name_the_file_and_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "setup.toml"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=message) as caught:
        store.load(path)
    assert str(path) in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_truncated_file_is_an_error(tmp_path: Path) -> None:
    path = store.save(full_setup(), tmp_path / "setup.toml")
    text = path.read_text()
    path.write_text(text[: text.index("reprojection_error_px")])
    with pytest.raises(CalibrationError, match="reprojection_error_px is missing"):
        store.load(path)


def test_drops_must_match_the_board(tmp_path: Path) -> None:
    setup = full_setup()
    with pytest.raises(ValueError, match="7 columns"):
        Setup(board=setup.board, drops=setup.drops[:5])
    assert setup.drop_pose(6) == setup.drops[6]
    with pytest.raises(LookupError, match="column 8"):
        setup.drop_pose(7)


def test_saving_over_a_file_keeps_its_comments_order_and_untouched_values(tmp_path: Path) -> None:
    path = tmp_path / "setup.toml"
    path.write_text(
        "# the kitchen table\nschema_version = 1\n\n[arm]\n# the bus\nport = '/dev/ttyACM0'  # left port\n"
        "velocity_deg_s = 60\nretries = 3\n"
    )
    setup = dataclasses.replace(full_setup(), arm={"port": "/dev/ttyACM0", "velocity_deg_s": 45, "protocol": "feetech"})
    store.save(setup, path)
    text = path.read_text()
    assert text.startswith("# the kitchen table\n") and "# the bus\nport = '/dev/ttyACM0'  # left port\n" in text
    assert "velocity_deg_s = 45" in text and "retries" not in text  # changed and removed as the setup says
    assert_setups_close(store.load(path), setup)
    store.save(dataclasses.replace(setup, drops=setup.drops[::-1]), path)  # a section's values replaced in place
    assert_setups_close(store.load(path), dataclasses.replace(setup, drops=setup.drops[::-1]))
    assert "# left port" in path.read_text()
