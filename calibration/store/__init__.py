"""The calibration file of one setup: what was measured, in a versioned, human-readable TOML file.

One file per setup (camera, board on the table, arm) holds every calibration step's result, so any
layer can read it: this module imports nothing of the project. The file is TOML because people open
it: they fix a serial port or a colour by hand, and TOML keeps comments and reads without quoting
every key; the standard library reads it (`tomllib`), a small writer makes a new file, and tomlkit
rewrites one that exists, keeping what the person wrote (comments, order, values left alone).

Layout (units in the key names; mm and degrees in the file, metres and radians in Python; columns
1-based in the file, 0-based in Python)::

    schema_version = 1
    [camera]   image_size_px = [w, h], camera_matrix = 3x3, distortion = [k1, k2, p1, p2, k3, ...],
               reprojection_error_px
    [camera_settings]  exposure (the driver's units), white_balance_k   (held fixed at play; each optional)
    [board]    rows, cols, column_pitch_mm, row_pitch_mm, disc_plane_depth_mm, corners_px = [[x, y] x4]
               (centres of the tl, tr, br, bl holes on the front face), optional rvec_rad = [3],
               tvec_mm = [3] (board pose in the camera frame)
    [colours]  robot = "R", person = "Y", robot_bgr = [b, g, r], person_bgr = [b, g, r]
    [[drops.column]]  column = 1, x_mm, y_mm, z_mm, yaw_deg   (one per board column, arm base frame)
    [pick]     x_mm, y_mm, z_mm, yaw_deg   (where the arm grips a disc at the dispenser, arm base frame)
    [arm]      free-form table read by the arm layer's ArmConfig (port, baud, protocol, limits...)

Every section is optional (calibration goes step by step) but a section that is present must be
complete. Writes are atomic (a temp file beside the target, then os.replace), so a failed write leaves
the previous file as it was.
"""

from __future__ import annotations

import os
from pathlib import Path

from calibration.store.atomic import remove_stale_temps, write_atomically
from calibration.store.reading import SCHEMA_VERSION, parse
from calibration.store.sections import (
    DISC_COLOUR_LETTERS,
    ArmPose,
    BoardCalibration,
    CalibrationError,
    CameraCalibration,
    CameraSettings,
    ColourCalibration,
    Setup,
)
from calibration.store.writing import format_setup, format_toml, merge_setup

CONFIG_ENV = "XDG_CONFIG_HOME"
STALE_TEMP_S = 600.0  # a temp file this old beside the calibration is from a write that died


def default_path() -> Path:
    """$XDG_CONFIG_HOME/c4robot/setup.toml (XDG_CONFIG_HOME defaults to ~/.config)."""
    base = os.environ.get(CONFIG_ENV) or str(Path.home() / ".config")
    return Path(base) / "c4robot" / "setup.toml"


def load(path: str | os.PathLike[str] | None = None, missing_ok: bool = False) -> Setup:
    """Read a calibration file (default_path() when None).

    Raises FileNotFoundError when absent (an empty Setup instead with missing_ok) and CalibrationError
    (a ValueError) naming the file and the problem when it is malformed, partial or of another schema.
    """
    file = Path(path) if path is not None else default_path()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return Setup()
        raise FileNotFoundError(
            f"no calibration file at {file}: run `c4robot calibrate` or pass --config PATH"
        ) from None
    try:
        return parse(text)
    except CalibrationError as error:
        raise CalibrationError(f"calibration file {file}: {error}") from None


def save(setup: Setup, path: str | os.PathLike[str] | None = None) -> Path:
    """Write the setup atomically (default_path() when None); returns the path written. A file already there
    keeps its comments, order and untouched values (`merge_setup`)."""
    file = Path(path) if path is not None else default_path()
    try:
        previous = file.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        previous = None
    write_atomically(file, format_setup(setup) if previous is None else merge_setup(previous, setup))
    remove_stale_temps(file, STALE_TEMP_S)
    return file


__all__ = [
    "DISC_COLOUR_LETTERS",
    "SCHEMA_VERSION",
    "ArmPose",
    "BoardCalibration",
    "CalibrationError",
    "CameraCalibration",
    "CameraSettings",
    "ColourCalibration",
    "Setup",
    "default_path",
    "format_setup",
    "format_toml",
    "merge_setup",
    "remove_stale_temps",
    "load",
    "parse",
    "save",
    "write_atomically",
]
