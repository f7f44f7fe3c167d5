"""`c4robot calibrate camera|board|colours|drops|show|check` and `c4robot bench calibration`.

Each step measures one section of the setup's calibration file (`--config PATH`, default under the
user's config directory), checks it, saves it atomically and prints what it found. With `--sim` the
step runs on the simulated world (board moved with `--board-x-mm/--board-y-mm/--board-yaw-deg`) and
prints its error against the world's truth. Parsing and printing only: the
procedures are in `calibration/`, the hardware steps in `arm_calibration_commands`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from robot.cli.arm_calibration_commands import add_lerobot_options, run_jogged_drops, run_servo_ranges
from robot.cli.calibration_io import (
    camera_source,
    held_settings,
    load_setup,
    print_checks,
    read_frame,
    save_setup,
    sim_world,
)
from robot.cli.colour_calibration import register_colours
from robot.cli.common import COMMON, bounded_int, finite_float
from robot.cli.progress_line import ProgressLine

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
LIVE_FRAME_LIMIT = 3000


def _setup_options() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(add_help=False, parents=[COMMON])
    options.add_argument(
        "--config", type=Path, default=None, help="calibration file (default: $XDG_CONFIG_HOME/c4robot/setup.toml)"
    )
    options.add_argument("--sim", action="store_true", help="calibrate the simulated world instead of hardware")
    options.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0, help="seed of the simulated world")
    options.add_argument(
        "--board-x-mm",
        type=finite_float(-200, 200),
        default=0.0,
        help="sim: move the board along the table's x (mm)",
    )
    options.add_argument(
        "--board-y-mm",
        type=finite_float(-200, 200),
        default=0.0,
        help="sim: move the board along the table's y (mm)",
    )
    options.add_argument(
        "--board-yaw-deg",
        type=finite_float(-45, 45),
        default=0.0,
        help="sim: turn the board on the table (degrees)",
    )
    return options


def _frame_options() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(add_help=False)
    source = options.add_mutually_exclusive_group()
    source.add_argument("--image", type=Path, help="read this photo instead of a camera")
    source.add_argument("--camera", default=None, help="OpenCV camera index or URL (default 0 when no --image/--sim)")
    return options


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `calibrate` with its steps, and the `calibration` benchmark."""
    setup, frame = _setup_options(), _frame_options()
    calibrate = commands.add_parser(
        "calibrate", parents=[COMMON], help="measure the setup: camera, board, colours, drops"
    )
    steps = calibrate.add_subparsers(dest="step", required=True, metavar="STEP")

    camera = steps.add_parser(
        "camera", parents=[setup], help="camera intrinsics and distortion from a printed chessboard"
    )
    source = camera.add_mutually_exclusive_group()
    source.add_argument("--images", type=Path, help="a folder of chessboard photos")
    source.add_argument("--camera", default=None, help="OpenCV camera index or URL for live capture (default 0)")
    camera.add_argument("--chessboard", default="9x6", help="inner corners across x down (default 9x6)")
    camera.add_argument(
        "--square-mm",
        type=finite_float(1, 500),
        default=25.0,
        help="printed square size (default 25 mm)",
    )
    camera.add_argument(
        "--views",
        type=bounded_int(3, 100),
        default=15,
        help="views to collect live or render in the sim (default 15)",
    )
    camera.set_defaults(run=run_camera)

    board = steps.add_parser(
        "board", parents=[setup, frame], help="the board's corner holes in the image, and its pose"
    )
    board.add_argument("--corners", help='rough corner hole centres "x,y x,y x,y x,y" (tl, tr, br, bl)')
    board.add_argument("--click", action="store_true", help="click the four corner holes in a window (needs a display)")
    board.add_argument(
        "--rows", type=bounded_int(2, 20), default=None, help="rows of holes (default: the file's, else 6)"
    )
    board.add_argument(
        "--cols", type=bounded_int(2, 20), default=None, help="columns of holes (default: the file's, else 7)"
    )
    board.set_defaults(run=run_board)

    register_colours(steps, [setup, frame])

    drops = steps.add_parser(
        "drops", parents=[setup, frame], help="the arm's drop pose over every column, verified by test drops"
    )
    drops.add_argument("--serial", default=None, help="the arm's serial port (default: the file's [arm] port)")
    drops.add_argument("--each", action="store_true", help="jog over every column instead of the first and last")
    drops.add_argument("--no-test", action="store_true", help="skip the test drops (no camera at hand)")
    drops.set_defaults(run=run_drops)

    servos = steps.add_parser(
        "arm", parents=[setup], help="a Feetech servo arm (SO-100/SO-101): each joint's middle and range, by hand"
    )
    servos.add_argument("--serial", default=None, help="the servo bus's port (default: the file's [arm] port)")
    add_lerobot_options(servos)
    servos.set_defaults(run=run_servo_ranges)

    show = steps.add_parser("show", parents=[setup], help="print the calibration file")
    show.set_defaults(run=run_show)

    check = steps.add_parser(
        "check", parents=[setup, frame], help="re-verify the calibration against the camera (and the arm)"
    )
    check.add_argument(
        "--drops", action="store_true", help="also test-drop into every column (sim only: on an arm, `calibrate drops`)"
    )
    check.set_defaults(run=run_check)

    bench = bench_targets.add_parser(
        "calibration", parents=[COMMON], help="sim: focal error, corner error, drops after moving the board"
    )
    bench.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0)
    bench.add_argument("--views", type=bounded_int(3, 100), default=15, help="chessboard views for the camera step")
    bench.add_argument("--shift-mm", type=finite_float(0, 100), default=20.0, help="how far the board is moved")
    bench.add_argument("--turn-deg", type=finite_float(-20, 20), default=3.0, help="how far the board is turned")
    bench.set_defaults(run=run_bench)


# --- camera ------------------------------------------------------------------------------------------


def run_camera(args: argparse.Namespace) -> int:
    """Measure intrinsics from a folder, a live camera or rendered sim views; refuse a bad result."""
    import dataclasses

    from calibration.camera import calibrate_camera, calibrate_from_views, collect_live_views, parse_chessboard

    setup = load_setup(args)
    if args.sim:
        from calibration.sim_chessboard import SIM_CHESSBOARD, render_chessboard_views

        with sim_world(args) as world, ProgressLine("calibrate camera") as progress:
            progress.say(f"rendering {args.views} chessboard views in the sim")
            views = render_chessboard_views(world, args.views, args.seed)
            camera = calibrate_camera(views, SIM_CHESSBOARD, _chessboard_progress(progress, len(views)))
            truth_fx = float(world.camera_intrinsics()[0, 0])
        print(
            f"sim truth: fx {truth_fx:.2f} px; measured fx {camera.focal_px[0]:.2f} px "
            f"({100 * (camera.focal_px[0] / truth_fx - 1):+.2f}%)"
        )
    elif args.images is not None:
        from robot.cli.vision_commands import load_image

        paths = (
            sorted(p for p in Path(args.images).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if args.images.is_dir()
            else []
        )
        if not paths:
            raise FileNotFoundError(f"no images in {args.images}: give a folder of chessboard photos")
        board = parse_chessboard(args.chessboard, args.square_mm)
        with ProgressLine("calibrate camera") as progress:
            camera = calibrate_camera((load_image(p) for p in paths), board, _chessboard_progress(progress, len(paths)))
    else:
        from vision.cameras import open_camera

        board = parse_chessboard(args.chessboard, args.square_mm)
        print(f"show the chessboard to the camera: {args.views} views, moved and tilted between them (Ctrl-C stops)")
        with open_camera(camera_source(args.camera)) as source:
            views, size = collect_live_views(
                source.read, board, args.views, LIVE_FRAME_LIMIT, lambda n: print(f"  view {n}/{args.views}")
            )
        setup = dataclasses.replace(setup, camera_settings=held_settings(source) or setup.camera_settings)
        with ProgressLine("calibrate camera") as progress:
            progress.say(f"solving for the lens from {len(views)} views")
            camera = calibrate_from_views(views, size, board)
    _print_camera(camera)
    save_setup(args, dataclasses.replace(setup, camera=camera))
    return 0


def _chessboard_progress(progress: ProgressLine, total: int) -> Callable[[int, int], None]:
    """calibrate_camera's `on_image`: the views looked at and kept, then the solve."""

    def looked_at(count: int, kept: int) -> None:
        solving = ": solving for the lens" if count == total else ""
        progress.say(f"looked for the chessboard in {count} of {total} views, found {kept}{solving}")

    return looked_at


def _print_camera(camera: Any) -> None:
    import numpy as np

    matrix = np.asarray(camera.camera_matrix)
    print(
        f"focal {matrix[0, 0]:.2f} x {matrix[1, 1]:.2f} px, centre ({matrix[0, 2]:.1f}, {matrix[1, 2]:.1f}) px, "
        f"image {camera.image_size_px[0]}x{camera.image_size_px[1]}"
    )
    print(
        f"distortion {np.round(camera.distortion, 4).tolist()}, reprojection error {camera.reprojection_error_px:.3f} px"
    )


# --- board -------------------------------------------------------------------------------------------


def run_board(args: argparse.Namespace) -> int:
    """Find the board's corner holes (automatic, typed or clicked) and, with intrinsics, its pose."""
    import dataclasses

    import numpy as np

    from calibration.board import board_dimensions, corner_error_px, parse_corners, register_board

    setup = load_setup(args)
    dimensions = board_dimensions(setup.board, args.rows, args.cols)
    corners = parse_corners(args.corners) if args.corners else None
    truth = None
    if args.sim:
        from calibration.sim_truth import sim_board, sim_camera

        with sim_world(args) as world:
            frame = world.render_camera()
            truth = sim_board(world, sim_camera(world))
    else:
        frame = read_frame(args, setup.camera_settings)
    if corners is None and args.click:
        from robot.cli.terminal import click_corners

        corners = click_corners(frame)
    board = register_board(frame, dimensions, corners, setup.camera)
    print("corner holes (tl, tr, br, bl): " + "  ".join(f"{x:.1f},{y:.1f}" for x, y in board.corners_px))
    if board.has_pose:
        print(
            f"board pose: {np.round(np.asarray(board.tvec_m) * 1000, 1).tolist()} mm from the camera, "
            f"rotation {np.round(board.rvec_rad, 4).tolist()} rad"
        )
    else:
        print("no camera calibration: corners only (run `c4robot calibrate camera` for the board's pose)")
    if truth is not None:
        print(f"sim truth: largest corner error {corner_error_px(board, truth):.2f} px")
    save_setup(args, dataclasses.replace(setup, board=board))
    return 0


# --- drops -------------------------------------------------------------------------------------------


def run_drops(args: argparse.Namespace) -> int:
    """Sim: follow the board the camera sees and verify by test drops. Hardware: jog, interpolate, test."""
    import dataclasses

    if not args.sim:
        return run_jogged_drops(args)
    if args.serial:
        raise ValueError("--sim and --serial exclude each other: choose the simulation or the real arm")
    from calibration.sim_steps import sim_drops, taught_sim_setup

    setup = taught_sim_setup(load_setup(args))
    with sim_world(args) as world, ProgressLine("calibrate drops") as progress:
        progress.say(f"finding the board, then a test drop into each of its {setup.board.cols} columns in the sim")
        board_now, drops, checks, error_mm = sim_drops(setup, world)
    print_checks(checks)
    print(f"every column's test drop landed right after {len(checks)} drops")
    print(f"sim truth: largest drop pose error {error_mm:.1f} mm")
    save_setup(args, dataclasses.replace(setup, board=board_now, drops=drops))
    return 0


# --- show and check ----------------------------------------------------------------------------------


def run_show(args: argparse.Namespace) -> int:
    """Print the calibration file (it must load: a broken file is reported as an error)."""
    from calibration import store

    path = args.config or store.default_path()
    store.load(path)
    print(f"# {path}")
    print(Path(path).read_text(encoding="utf-8"), end="")
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Re-verify: every section present, the board where it was, the colours seen, and (with --drops) every drop."""
    from calibration import store
    from calibration.check import board_drift, check_sim_drops, missing_sections, present_sections

    setup = store.load(args.config)
    if args.drops and not args.sim:
        raise ValueError("check --drops runs on the sim (--sim); on hardware run `c4robot calibrate drops`")
    problems = missing_sections(setup)
    print(f"sections: {', '.join(present_sections(setup))}")
    if setup.colours is None:
        print("note: no disc colours: the game's first moves will teach them (calibrate colours records them now)")
    with sim_world(args) if args.sim else nullcontext() as world:
        if setup.board is not None:
            frame = world.render_camera() if world is not None else read_frame(args, setup.camera_settings)
            drift_px, drift_problems = board_drift(setup, frame)
            print(f"board corners moved {drift_px:.1f} px since calibration")
            problems += drift_problems
        if args.drops and setup.drops and setup.board is not None and setup.pick is not None:
            with ProgressLine("calibrate check") as progress:
                progress.say(f"a test drop into each of the {setup.board.cols} columns in the sim")
                problems += check_sim_drops(world, setup)
    for problem in problems:
        print(f"problem: {problem}")
    print("calibration ok" if not problems else f"{len(problems)} problem(s)")
    return 0 if not problems else 1


# --- benchmark ---------------------------------------------------------------------------------------


def run_bench(args: argparse.Namespace) -> int:
    """Sim figures: focal error of the camera step, corner error of the board step, drops after a board move."""
    from calibration.bench import calibration_figures

    with ProgressLine("bench calibration") as progress:
        progress.say("the camera, board and drops steps in the sim, the board moved between them")
        rows = calibration_figures(args.seed, args.views, args.shift_mm, args.turn_deg)
    width = max(len(r[0]) for r in rows)
    print(f"{'figure':<{width}}  {'measured':>12}  target")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>12}  {target}")
    return 0
