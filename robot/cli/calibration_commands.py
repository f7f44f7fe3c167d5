"""`c4robot calibrate camera|board|colours|drops|show|check` and `c4robot bench calibration`.

Each step measures one section of the setup's calibration file (`--config PATH`, default under the
user's config directory), checks it, saves it atomically and prints what it found. With `--sim` the
step runs on the simulated world (board moved with `--board-x-mm/--board-y-mm/--board-yaw-deg`) and
prints its error against the world's truth. The prompts and the key-driven jogging live here; the
procedures are in `calibration/`.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from robot.cli.common import COMMON

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
LIVE_FRAME_LIMIT = 3000
JOG_STEPS_M = (0.001, 0.005, 0.02)
JOG_YAW_STEP_RAD = math.radians(1.0)
CORNER_DRIFT_LIMIT_PX = 4.0
DISC_SETTLE_S = 1.0  # a real disc has come to rest this long after the release


def _setup_options() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(add_help=False, parents=[COMMON])
    options.add_argument(
        "--config", type=Path, default=None, help="calibration file (default: $XDG_CONFIG_HOME/c4robot/setup.toml)"
    )
    options.add_argument("--sim", action="store_true", help="calibrate the simulated world instead of hardware")
    options.add_argument("--seed", type=int, default=0, help="seed of the simulated world")
    options.add_argument("--board-x-mm", type=float, default=0.0, help="sim: move the board along the table's x (mm)")
    options.add_argument("--board-y-mm", type=float, default=0.0, help="sim: move the board along the table's y (mm)")
    options.add_argument("--board-yaw-deg", type=float, default=0.0, help="sim: turn the board on the table (degrees)")
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
    camera.add_argument("--square-mm", type=float, default=25.0, help="printed square size (default 25 mm)")
    camera.add_argument("--views", type=int, default=15, help="views to collect live or render in the sim (default 15)")
    camera.set_defaults(run=run_camera)

    board = steps.add_parser(
        "board", parents=[setup, frame], help="the board's corner holes in the image, and its pose"
    )
    board.add_argument("--corners", help='rough corner hole centres "x,y x,y x,y x,y" (tl, tr, br, bl)')
    board.add_argument("--click", action="store_true", help="click the four corner holes in a window (needs a display)")
    board.add_argument("--rows", type=int, default=None, help="rows of holes (default: the file's, else 6)")
    board.add_argument("--cols", type=int, default=None, help="columns of holes (default: the file's, else 7)")
    board.set_defaults(run=run_board)

    colours = steps.add_parser(
        "colours", aliases=["colors"], parents=[setup, frame], help="which disc colour is the robot's and the person's"
    )
    colours.add_argument(
        "--robot-column", type=int, default=1, help="the column (1-based) of the robot's disc (default 1)"
    )
    colours.add_argument(
        "--person-column", type=int, default=None, help="the column of the person's disc (default: the last)"
    )
    colours.set_defaults(run=run_colours)

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
    servos.set_defaults(run=run_servo_ranges)

    show = steps.add_parser("show", parents=[setup], help="print the calibration file")
    show.set_defaults(run=run_show)

    check = steps.add_parser(
        "check", parents=[setup, frame], help="re-verify the calibration against the camera (and the arm)"
    )
    check.add_argument(
        "--drops", action="store_true", help="also test-drop into every column (sim, or a real arm with --serial)"
    )
    check.add_argument(
        "--serial", default=None, help="the arm's serial port for --drops (default: the file's [arm] port)"
    )
    check.set_defaults(run=run_check)

    bench = bench_targets.add_parser(
        "calibration", parents=[COMMON], help="sim: focal error, corner error, drops after moving the board"
    )
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--views", type=int, default=15, help="chessboard views for the camera step")
    bench.add_argument("--shift-mm", type=float, default=20.0, help="how far the board is moved")
    bench.add_argument("--turn-deg", type=float, default=3.0, help="how far the board is turned")
    bench.set_defaults(run=run_bench)


# --- shared helpers ----------------------------------------------------------------------------------


def _load(args: argparse.Namespace) -> Any:
    from calibration import store

    return store.load(args.config, missing_ok=True)


def _save(args: argparse.Namespace, setup: Any) -> None:
    from calibration import store

    path = store.save(setup, args.config)
    print(f"saved {path}")


@contextmanager
def _sim_world(args: argparse.Namespace) -> Iterator[Any]:
    from sim import World, WorldConfig

    config = WorldConfig().with_board_pose(
        args.board_x_mm / 1000.0, args.board_y_mm / 1000.0, math.radians(args.board_yaw_deg)
    )
    with World(config, seed=args.seed) as world:
        yield world


def _read_frame(args: argparse.Namespace) -> np.ndarray:
    """One frame from --image or --camera (default camera 0)."""
    import cv2

    if args.image is not None:
        image = cv2.imread(str(args.image), cv2.IMREAD_COLOR)
        if image is None:
            raise FileNotFoundError(f"cannot read image {args.image}: give a PNG or JPEG file")
        return image
    from vision.cameras import open_camera

    with open_camera(_camera_source(args.camera)) as camera:
        return camera.read()


def _camera_source(text: str | None) -> int | str:
    text = "0" if text is None else text
    return int(text) if text.isdigit() else text


def _parse_corners(text: str) -> np.ndarray:
    try:
        corners = np.array([[float(v) for v in point.split(",")] for point in text.split()], float)
    except ValueError:
        corners = np.zeros(0)
    if corners.shape != (4, 2):
        raise ValueError(f'corners "{text}": give four x,y points separated by spaces (tl tr br bl)')
    return corners


def _has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in ("win32", "darwin")


def _click_corners(image: np.ndarray) -> np.ndarray:
    """Four clicks on the corner holes (tl, tr, br, bl) in an OpenCV window."""
    import cv2

    if not _has_display():
        raise OSError("no display for --click: give --corners, or let the board be found automatically")
    clicks: list[tuple[float, float]] = []
    window = "click the centres of the top-left, top-right, bottom-right, bottom-left holes (Esc cancels)"

    def on_mouse(event: int, x: int, y: int, *_: object) -> None:
        if event == cv2.EVENT_LBUTTONDOWN and len(clicks) < 4:
            clicks.append((float(x), float(y)))

    cv2.namedWindow(window)
    cv2.setMouseCallback(window, on_mouse)
    try:
        while len(clicks) < 4:
            shown = image.copy()
            for x, y in clicks:
                cv2.circle(shown, (int(x), int(y)), 6, (0, 255, 0), 2)
            cv2.imshow(window, shown)
            if cv2.waitKey(30) == 27:
                raise KeyboardInterrupt
    finally:
        cv2.destroyWindow(window)
    return np.array(clicks)


def _board_dimensions(setup: Any, rows: int | None, cols: int | None) -> Any:
    import dataclasses

    from calibration.store import BoardCalibration

    base = setup.board or BoardCalibration(rows=6, cols=7, corners_px=((0.0, 0.0),) * 4)
    return dataclasses.replace(base, rows=rows or base.rows, cols=cols or base.cols, rvec_rad=None, tvec_m=None)


def _corner_error_px(measured: Any, truth: Any) -> float:
    return float(np.abs(np.asarray(measured.corners_px) - np.asarray(truth.corners_px)).max())


# --- camera ------------------------------------------------------------------------------------------


def _chessboard(args: argparse.Namespace) -> Any:
    from calibration.camera import Chessboard

    try:
        cols, rows = (int(v) for v in args.chessboard.lower().split("x"))
    except ValueError:
        raise ValueError(f"chessboard {args.chessboard!r}: give inner corners as COLSxROWS, e.g. 9x6") from None
    return Chessboard(cols, rows, args.square_mm / 1000.0)


def _live_views(args: argparse.Namespace, board: Any) -> tuple[list[Any], tuple[int, int]]:
    from calibration.camera import find_chessboard, is_new_view
    from vision.cameras import open_camera

    views: list[Any] = []
    size = (0, 0)
    print(f"show the chessboard to the camera: {args.views} views, moved and tilted between them (Ctrl-C stops)")
    with open_camera(_camera_source(args.camera)) as camera:
        for _ in range(LIVE_FRAME_LIMIT):
            frame = camera.read()
            size = (frame.shape[1], frame.shape[0])
            view = find_chessboard(frame, board)
            if view is not None and view.is_sharp and is_new_view(view, views, size):
                views.append(view)
                print(f"  view {len(views)}/{args.views}")
                if len(views) >= args.views:
                    break
    return views, size


def run_camera(args: argparse.Namespace) -> int:
    """Measure intrinsics from a folder, a live camera or rendered sim views; refuse a bad result."""
    from calibration.camera import calibrate_camera, calibrate_from_views

    setup = _load(args)
    if args.sim:
        from calibration.sim_chessboard import SIM_CHESSBOARD, render_chessboard_views

        with _sim_world(args) as world:
            camera = calibrate_camera(render_chessboard_views(world, args.views, args.seed), SIM_CHESSBOARD)
            truth_fx = float(world.camera_intrinsics()[0, 0])
        print(
            f"sim truth: fx {truth_fx:.2f} px; measured fx {camera.focal_px[0]:.2f} px "
            f"({100 * (camera.focal_px[0] / truth_fx - 1):+.2f}%)"
        )
    elif args.images is not None:
        import cv2

        paths = (
            sorted(p for p in Path(args.images).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if args.images.is_dir()
            else []
        )
        if not paths:
            raise FileNotFoundError(f"no images in {args.images}: give a folder of chessboard photos")
        camera = calibrate_camera((cv2.imread(str(p), cv2.IMREAD_COLOR) for p in paths), _chessboard(args))
    else:
        board = _chessboard(args)
        views, size = _live_views(args, board)
        camera = calibrate_from_views(views, size, board)
    _print_camera(camera)
    import dataclasses

    _save(args, dataclasses.replace(setup, camera=camera))
    return 0


def _print_camera(camera: Any) -> None:
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

    from calibration.board import register_board

    setup = _load(args)
    dimensions = _board_dimensions(setup, args.rows, args.cols)
    truth = None
    if args.sim:
        from calibration.sim_truth import sim_board, sim_camera

        with _sim_world(args) as world:
            frame = world.render_camera()
            truth = sim_board(world, sim_camera(world))
    else:
        frame = _read_frame(args)
    corners = _parse_corners(args.corners) if args.corners else (_click_corners(frame) if args.click else None)
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
        print(f"sim truth: largest corner error {_corner_error_px(board, truth):.2f} px")
    _save(args, dataclasses.replace(setup, board=board))
    return 0


# --- colours -----------------------------------------------------------------------------------------


def run_colours(args: argparse.Namespace) -> int:
    """Sample the two disc colours from the bottom holes of --robot-column and --person-column."""
    import dataclasses

    from calibration.colours import colours_from_frame

    setup = _load(args)
    if setup.board is None:
        raise ValueError("no board in the calibration: run `c4robot calibrate board` first")
    cols = setup.board.cols
    robot_column = args.robot_column - 1
    person_column = (args.person_column or (1 if args.robot_column == cols else cols)) - 1
    if args.sim:
        with _sim_world(args) as world:
            if 0 <= robot_column < cols and 0 <= person_column < cols:
                world.drop_disc(robot_column, world.dispenser_player)
                world.drop_disc(person_column, 3 - world.dispenser_player)
                world.wait_until_settled()
            frame = world.render_camera()
    else:
        print(
            f"put one of the robot's discs in column {robot_column + 1} and one of the person's in column {person_column + 1}"
        )
        frame = _read_frame(args)
    colours = colours_from_frame(frame, setup.board, robot_column, person_column)
    print(
        f"robot plays {colours.robot} (BGR {np.round(colours.robot_bgr).astype(int).tolist()}), "
        f"the person {colours.person} (BGR {np.round(colours.person_bgr).astype(int).tolist()})"
    )
    _save(args, dataclasses.replace(setup, colours=colours))
    return 0


# --- drops -------------------------------------------------------------------------------------------


def _arm_config(setup: Any, serial_port: str | None) -> Any:
    import dataclasses

    from robot.arm import ArmConfig

    config = ArmConfig.from_dict(dict(setup.arm)) if setup.arm else ArmConfig()
    if serial_port:
        config = dataclasses.replace(config, serial=dataclasses.replace(config.serial, port=serial_port))
    return config


def _print_checks(checks: list[Any]) -> None:
    for check in checks:
        landed = "not seen" if check.landed is None else f"column {check.landed + 1}"
        print(f"  test drop into column {check.column + 1}: {landed}")


def _sim_drop_tester(world: Any, setup: Any, board: Any) -> Any:
    from calibration.arm_drops import ArmDropTester
    from robot.arm.drivers.sim import SimArm, sim_chain

    def settled_frame() -> np.ndarray:
        world.wait_until_settled()
        return world.render_camera()

    return ArmDropTester(
        SimArm(world), sim_chain(world), _arm_config(setup, None), setup.pick, list(setup.drops), board, settled_frame
    )


def _taught_sim_setup(setup: Any) -> Any:
    """The file's calibration, or the one taught on the sim board at its home position when the file has none."""
    import dataclasses

    if setup.drops and setup.board is not None and setup.board.has_pose and setup.pick is not None:
        return setup
    from calibration.sim_truth import sim_setup
    from sim import World

    print("no taught drops in the file: starting from those taught with the sim board at its home position")
    with World() as home_world:
        taught = sim_setup(home_world)
    return dataclasses.replace(
        taught, camera=setup.camera or taught.camera, colours=setup.colours or taught.colours, arm=setup.arm
    )


def run_drops(args: argparse.Namespace) -> int:
    """Sim: follow the board the camera sees and verify by test drops. Hardware: jog, interpolate, test."""
    import dataclasses

    if not args.sim:
        return _run_jogged_drops(args)
    from calibration.arm_drops import follow_and_verify
    from calibration.board import register_board
    from calibration.sim_truth import sim_arm_poses

    setup = _taught_sim_setup(_load(args))
    with _sim_world(args) as world:
        board_now = register_board(world.render_camera(), setup.board, camera=setup.camera)
        drops, checks = follow_and_verify(setup, board_now, _sim_drop_tester(world, setup, board_now))
        world.clear_board()
        true_drops, _ = sim_arm_poses(world)
    _print_checks(checks)
    print(f"every column's test drop landed right after {len(checks)} drops")
    error_mm = max(
        1000 * float(np.linalg.norm(np.subtract(a.xyz_m, b.xyz_m))) for a, b in zip(drops, true_drops, strict=False)
    )
    print(f"sim truth: largest drop pose error {error_mm:.1f} mm")
    _save(args, dataclasses.replace(setup, board=board_now, drops=drops))
    return 0


def _read_key() -> str:
    """One key press from the terminal, without Enter."""
    import termios
    import tty

    descriptor = sys.stdin.fileno()
    saved = termios.tcgetattr(descriptor)
    try:
        tty.setraw(descriptor)
        return sys.stdin.read(1)
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)


JOG_KEYS = {"w": (0, 1), "s": (0, -1), "a": (1, 1), "d": (1, -1), "r": (2, 1), "f": (2, -1)}
JOG_HELP = (
    "w/s: x +/-  a/d: y +/-  r/f: z +/-  q/e: turn the disc  1/2/3: step 1/5/20 mm  "
    "g: grip a disc  Enter: this pose  x: abort"
)


def _jog_to_pose(arm: Any, chain: Any, config: Any, what: str) -> Any:
    """Let the person jog the tool with keys until Enter; returns the pose as an ArmPose."""
    from calibration.store import ArmPose
    from robot.arm.planner import ToolPose
    from robot.arm.trajectory import JointTrajectory, plan_segment

    tool = chain.forward(arm.joint_state())
    position = tool[:3, 3].copy()
    yaw = math.atan2(tool[1, 0], tool[0, 0])
    step_m = JOG_STEPS_M[1]
    print(f"jog the held disc {what}. {JOG_HELP}")
    while True:
        key = _read_key().lower()
        if key in ("\r", "\n"):
            return ArmPose(*position, yaw)
        if key in ("x", "\x03", "\x1b"):
            raise KeyboardInterrupt
        if key in "123" and key:
            step_m = JOG_STEPS_M[int(key) - 1]
            continue
        if key == "g":
            arm.grip()
            continue
        target, target_yaw = position.copy(), yaw
        if key in JOG_KEYS:
            axis, sign = JOG_KEYS[key]
            target[axis] += sign * step_m
        elif key in ("q", "e"):
            target_yaw += JOG_YAW_STEP_RAD * (1 if key == "q" else -1)
        else:
            continue
        result = chain.inverse(ToolPose(tuple(target), target_yaw).matrix(), seed=arm.joint_state())
        arm.follow(JointTrajectory((plan_segment(arm.joint_state(), result.q, config.limits(chain.dof)),)))
        position, yaw = target, target_yaw
        print(
            f"\r  x {1000 * position[0]:7.1f}  y {1000 * position[1]:7.1f}  z {1000 * position[2]:7.1f} mm  "
            f"yaw {math.degrees(yaw):6.1f} deg  step {1000 * step_m:.0f} mm   ",
            end="",
            flush=True,
        )


def run_servo_ranges(args: argparse.Namespace) -> int:
    """Record the Feetech servos' middles and ranges (calibration.servo_range) into the [arm] settings."""
    import dataclasses

    from calibration.servo_range import record_servo_ranges
    from robot.arm import ArmConfig
    from robot.arm.drivers.feetech import FeetechArm

    if not sys.stdin.isatty():
        raise OSError("calibrating the arm needs a terminal: run `c4robot calibrate arm` interactively")
    setup = _load(args)
    raw = {**setup.arm, **({"port": args.serial} if args.serial else {})}
    if raw.setdefault("protocol", "feetech") != "feetech":
        raise ValueError(f"`calibrate arm` is for Feetech servo arms; the [arm] protocol is {raw['protocol']!r}")
    config = ArmConfig.from_dict(raw)
    if not config.serial.port:
        raise ValueError("no serial port for the servo bus: give --serial PORT or set port in the [arm] section")
    with FeetechArm(config) as arm:
        settings = record_servo_ranges(arm, input, _enter_pressed, print)
    _save(args, dataclasses.replace(setup, arm={**raw, **settings}))
    return 0


def _enter_pressed() -> bool:
    """True once the person has pressed Enter (the line is read), without waiting for it."""
    import select

    if select.select([sys.stdin], [], [], 0)[0]:
        sys.stdin.readline()
        return True
    return False


def _open_arm(config: Any, chain: Any) -> Any:
    from robot.arm.drivers import serial_arm

    if not config.serial.port:
        raise ValueError("no serial port for the arm: give --serial PORT or set port in the [arm] section")
    return serial_arm(config, chain)


def _run_jogged_drops(args: argparse.Namespace) -> int:
    """Jog over the first and last column (or each) and the dispenser, interpolate, then test-drop with the camera."""
    import dataclasses

    from calibration.arm_drops import ArmDropTester
    from calibration.drops import interpolate_drops, verify_and_correct
    from robot.arm.kinematics import KinematicChain
    from sim.config import DEFAULT_ARM_URDF

    if not sys.stdin.isatty():
        raise OSError("jogging the arm needs a terminal: run `c4robot calibrate drops` interactively")
    setup = _load(args)
    if setup.board is None:
        raise ValueError("no board in the calibration: run `c4robot calibrate board` first")
    config = _arm_config(setup, args.serial)
    chain = KinematicChain.from_urdf(config.urdf_path or DEFAULT_ARM_URDF, config.tool_link)
    cols = setup.board.cols
    with _open_arm(config, chain) as arm:
        arm.home()
        pick = _jog_to_pose(arm, chain, config, "onto the disc waiting in the dispenser (g grips it)")
        arm.grip()
        if args.each:
            drops = tuple(
                _jog_to_pose(arm, chain, config, f"over column {c + 1}, ready to release") for c in range(cols)
            )
        else:
            first = _jog_to_pose(arm, chain, config, "over column 1, ready to release")
            last = _jog_to_pose(arm, chain, config, f"over column {cols}, ready to release")
            drops = interpolate_drops(first, last, cols)
        arm.release()
        if not args.no_test:
            from vision.cameras import open_camera

            print("\ntest drops: empty the board, then press Enter")
            _read_key()
            with open_camera(_camera_source(args.camera)) as camera:

                def settled_frame() -> np.ndarray:
                    time.sleep(DISC_SETTLE_S)
                    return camera.read()

                tester = ArmDropTester(arm, chain, config, pick, list(drops), setup.board, settled_frame)
                drops, checks = verify_and_correct(drops, setup.board.column_pitch_m, tester)
            _print_checks(checks)
    _save(args, dataclasses.replace(setup, drops=drops, pick=pick))
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
    from calibration.board import register_board

    setup = store.load(args.config)
    problems: list[str] = []
    for name in ("camera", "board", "colours", "pick"):
        if getattr(setup, name) is None:
            problems.append(f"no {name} calibration")
    if not setup.drops:
        problems.append("no drops calibration")
    print(
        f"sections: {', '.join(n for n in ('camera', 'board', 'colours', 'pick', 'drops', 'arm') if getattr(setup, n))}"
    )
    with _sim_world(args) if args.sim else _no_world() as world:
        if setup.board is not None:
            frame = world.render_camera() if world is not None else _read_frame(args)
            seen = register_board(frame, setup.board, camera=setup.camera)
            drift_px = _corner_error_px(seen, setup.board)
            print(f"board corners moved {drift_px:.1f} px since calibration")
            if drift_px > CORNER_DRIFT_LIMIT_PX:
                problems.append(
                    f"the board moved {drift_px:.1f} px: run `c4robot calibrate board` and `calibrate drops`"
                )
        if args.drops and setup.drops and setup.board is not None and setup.pick is not None:
            problems += _check_drops(args, setup, world)
    for problem in problems:
        print(f"problem: {problem}")
    print("calibration ok" if not problems else f"{len(problems)} problem(s)")
    return 0 if not problems else 1


@contextmanager
def _no_world() -> Iterator[None]:
    yield None


def _check_drops(args: argparse.Namespace, setup: Any, world: Any) -> list[str]:
    if world is None:
        raise ValueError("check --drops runs on the sim (--sim); on hardware run `c4robot calibrate drops`")
    tester = _sim_drop_tester(world, setup, setup.board)
    missed = []
    for column, pose in enumerate(setup.drops):
        landed = tester(column, pose)
        print(f"  test drop into column {column + 1}: {'not seen' if landed is None else f'column {landed + 1}'}")
        if landed != column:
            missed.append(column + 1)
    world.clear_board()
    return [f"test drops into columns {missed} missed: run `c4robot calibrate drops`"] if missed else []


# --- benchmark ---------------------------------------------------------------------------------------


def run_bench(args: argparse.Namespace) -> int:
    """Sim figures: focal error of the camera step, corner error of the board step, drops after a board move."""
    import dataclasses

    from calibration.arm_drops import follow_and_verify
    from calibration.board import register_board
    from calibration.camera import calibrate_camera
    from calibration.sim_chessboard import SIM_CHESSBOARD, render_chessboard_views
    from calibration.sim_truth import sim_board, sim_setup
    from sim import World, WorldConfig

    rows: list[tuple[str, str, str]] = []
    started = time.perf_counter()
    with World(seed=args.seed) as world:
        camera = calibrate_camera(render_chessboard_views(world, args.views, args.seed), SIM_CHESSBOARD)
        truth_k = world.camera_intrinsics()
        focal_error = max(abs(camera.focal_px[i] / truth_k[i, i] - 1) for i in (0, 1))
        rows.append(("camera: focal length error", f"{100 * focal_error:.2f} %", "< 1 %"))
        rows.append(("camera: reprojection error", f"{camera.reprojection_error_px:.3f} px", "<= 1 px"))
        rows.append(("camera: time", f"{time.perf_counter() - started:.1f} s", ""))
        taught = dataclasses.replace(sim_setup(world), camera=camera)
        taught = dataclasses.replace(taught, board=register_board(world.render_camera(), taught.board, camera=camera))
        rows.append(
            (
                "board: corner error (home)",
                f"{_corner_error_px(taught.board, sim_board(world, camera)):.2f} px",
                "< 2 px",
            )
        )
    turn_rad = math.radians(args.turn_deg)
    direction = math.radians(-45.0)  # sideways and away from the arm (towards it, the arm reaches its limit)
    moved = WorldConfig().with_board_pose(
        args.shift_mm / 1000 * math.cos(direction), args.shift_mm / 1000 * math.sin(direction), turn_rad
    )
    with World(moved, seed=args.seed) as world:
        truth_board = sim_board(world, camera)
        board_now = register_board(world.render_camera(), taught.board, camera=camera)
        rows.append(("board: corner error (moved)", f"{_corner_error_px(board_now, truth_board):.2f} px", "< 2 px"))
        tester = _sim_drop_tester(world, taught, board_now)
        stale_right = sum(_lands_right(world, tester, c, pose) for c, pose in enumerate(taught.drops))
        world.clear_board()
        started = time.perf_counter()
        drops, checks = follow_and_verify(taught, board_now, tester)
        world.clear_board()
        restored_right = sum(_lands_right(world, tester, c, pose) for c, pose in enumerate(drops))
        world.clear_board()
        elapsed_s = time.perf_counter() - started
    cols = len(drops)
    label = f"{args.shift_mm:.0f} mm, {args.turn_deg:.0f} deg"
    rows.append((f"drops right, stale poses ({label})", f"{stale_right}/{cols}", ""))
    rows.append((f"drops right after calibrate drops ({label})", f"{restored_right}/{cols}", f"{cols}/{cols}"))
    rows.append(("drops: test drops used", str(len(checks)), ""))
    rows.append(("drops: step time (wall)", f"{elapsed_s:.1f} s", ""))
    width = max(len(r[0]) for r in rows)
    print(f"{'figure':<{width}}  {'measured':>12}  target")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>12}  {target}")
    return 0


def _lands_right(world: Any, tester: Any, column: int, pose: Any) -> bool:
    """A test drop judged by the world's truth (the bench checks the camera's verdicts against it)."""
    before = world.board_state()
    tester(column, pose)
    world.wait_until_settled()
    gained = (world.board_state() > 0).sum(axis=0) - (before > 0).sum(axis=0)
    return bool(gained[column] == 1 and gained.sum() == 1)
