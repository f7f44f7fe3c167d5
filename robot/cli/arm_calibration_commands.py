"""`c4robot calibrate arm` and `calibrate drops` on hardware: the person moves or jogs the arm at a terminal;
`calibrate arm --from-lerobot` imports LeRobot's calibration of the arm instead."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from robot.cli.calibration_io import DISC_SETTLE_S, camera_source, load_setup, print_checks, save_setup
from robot.cli.progress_line import ProgressLine
from robot.cli.terminal import enter_pressed, read_key

if TYPE_CHECKING:  # numpy loads where it is used: `c4robot move` does without it
    import numpy as np

    from robot.arm import ArmConfig


def add_lerobot_options(parser: argparse.ArgumentParser) -> None:
    """`--from-lerobot [PATH]` and `--id ID` of `calibrate arm`."""
    parser.add_argument(
        "--from-lerobot",
        nargs="?",
        const="",
        default=None,
        metavar="PATH",
        help="import LeRobot's calibration of an SO-100/SO-101 follower (a JSON file, or --id's file in "
        "LeRobot's folder, which $HF_LEROBOT_CALIBRATION moves) instead of recording by hand",
    )
    parser.add_argument(
        "--id", dest="lerobot_id", default=None, help="import LeRobot's file of the arm with this --robot.id"
    )


def run_lerobot_import(args: argparse.Namespace) -> int:
    """Read LeRobot's calibration file into the setup's [arm] section (the rest of the file kept as it was)."""
    import dataclasses

    from calibration.lerobot import path_for_id, read_arm_settings
    from robot.arm import ArmConfig

    if args.sim:
        raise ValueError("--from-lerobot reads a file and moves no arm: drop --sim")
    if args.from_lerobot and args.lerobot_id:
        raise ValueError("give --from-lerobot PATH or --id ID, not both")
    if not args.from_lerobot and not args.lerobot_id:
        raise ValueError("--from-lerobot needs the file's PATH, or --id ID to find it in LeRobot's folder")
    path = args.from_lerobot or path_for_id(args.lerobot_id)
    setup = load_setup(args)
    arm = {**setup.arm, **read_arm_settings(path), **({"port": args.serial} if args.serial else {})}
    ArmConfig.from_dict(arm)  # what `play` will read must be usable before it is saved
    print(f"imported {path}: servos {arm['servo_ids']}, directions {arm['servo_directions']}")
    save_setup(args, dataclasses.replace(setup, arm=arm))
    if "urdf" not in arm:
        from sim.config import ASSETS_DIR

        print(
            "note: [arm] names no arm model (urdf), so the planner plans with the default arm's; for an SO-101 set "
            f'urdf = "{ASSETS_DIR / "so101.urdf"}"'
        )
    return 0


def run_servo_ranges(args: argparse.Namespace) -> int:
    """Record the Feetech servos' middles and ranges (calibration.servo_range) into the [arm] settings."""
    import dataclasses

    from calibration.servo_range import record_servo_ranges
    from robot.arm import ArmConfig
    from robot.arm.drivers.feetech import FeetechArm

    if args.from_lerobot is not None or args.lerobot_id:
        return run_lerobot_import(args)
    if args.sim:
        raise ValueError(
            "`calibrate arm` measures a real servo bus (the simulated arms need no calibration): drop --sim"
        )
    if not sys.stdin.isatty():
        raise OSError("calibrating the arm needs a terminal: run `c4robot calibrate arm` interactively")
    setup = load_setup(args)
    raw = {**setup.arm, **({"port": args.serial} if args.serial else {})}
    if raw.setdefault("protocol", "feetech") != "feetech":
        raise ValueError(f"`calibrate arm` is for Feetech servo arms; the [arm] protocol is {raw['protocol']!r}")
    config = ArmConfig.from_dict(raw)
    if not config.serial.port:
        raise ValueError("no serial port for the servo bus: give --serial PORT or set port in the [arm] section")
    with FeetechArm(config) as arm:
        settings = record_servo_ranges(arm, input, enter_pressed, print, _plus_hints(config, arm.layout.names))
    save_setup(args, dataclasses.replace(setup, arm={**raw, **settings}))
    return 0


def _plus_hints(config: ArmConfig, names: dict[int, str]) -> list[str]:
    """What each joint's + direction does, in words, from the arm's model (the SO-101's unless the setup names one)."""
    from calibration.servo_range import plus_hints
    from robot.arm.kinematics import KinematicChain
    from sim.config import ASSETS_DIR

    chain = KinematicChain.from_urdf(config.urdf_path or ASSETS_DIR / "so101.urdf", config.tool_link)
    joint_names = list(names.values())[: chain.dof] or [f"joint {i + 1}" for i in range(chain.dof)]
    return plus_hints(chain.forward, joint_names)


def run_jogged_drops(args: argparse.Namespace) -> int:
    """Jog over the first and last column (or each) and the dispenser, interpolate, then test-drop with the camera."""
    import dataclasses

    from calibration.arm_drops import ArmDropTester
    from calibration.drops import verify_and_correct
    from calibration.jogging import teach_drops
    from calibration.sim_steps import arm_config
    from robot.arm.drivers import serial_arm
    from robot.arm.kinematics import KinematicChain
    from sim.config import DEFAULT_ARM_URDF

    if not sys.stdin.isatty():
        raise OSError("jogging the arm needs a terminal: run `c4robot calibrate drops` interactively")
    setup = load_setup(args)
    if setup.board is None:
        raise ValueError("no board in the calibration: run `c4robot calibrate board` first")
    config = arm_config(setup, args.serial)
    if not config.serial.port:
        raise ValueError("no serial port for the arm: give --serial PORT or set port in the [arm] section")
    chain = KinematicChain.from_urdf(config.urdf_path or DEFAULT_ARM_URDF, config.tool_link)
    with serial_arm(config, chain) as arm:
        pick, drops = teach_drops(arm, chain, config, setup.board.cols, args.each, read_key)
        if not args.no_test:
            from vision.cameras import open_camera

            print("\ntest drops: empty the board, then press Enter")
            read_key()
            with open_camera(camera_source(args.camera)) as camera:

                def settled_frame() -> np.ndarray:
                    time.sleep(DISC_SETTLE_S)
                    return camera.read()

                tester = ArmDropTester(arm, chain, config, pick, list(drops), setup.board, settled_frame)
                with ProgressLine("calibrate drops") as progress:
                    drops, checks = verify_and_correct(
                        drops,
                        setup.board.column_pitch_m,
                        tester,
                        on_check=lambda check: progress.say(f"test drop into column {check.column + 1}"),
                    )
            print_checks(checks)
    save_setup(args, dataclasses.replace(setup, drops=drops, pick=pick))
    return 0
