"""`c4robot calibrate colours`: which disc colour is the robot's and which the person's, from discs shown in the
bottom row (one or several of each), or taught by the game's first moves (`--from-moves`).

The board is seen empty first (a live camera asks for it; a photo may come with `--empty-image`), so a disc is
what changed in its hole since then: a room of nearly a disc's colour seen through the holes, or a thick face's
tunnel wall, is not taken for the disc.

A webcam's exposure and white balance are held while the discs are sampled, and saved with the colours, so that
`play` sees the discs in the same settings; colours too close to tell apart are named.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from robot.cli.calibration_io import load_setup, read_frame_and_settings, save_setup, sim_world
from robot.cli.common import bounded_int

if TYPE_CHECKING:
    import numpy as np


def register_colours(steps: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `colours` step."""
    colours = steps.add_parser(
        "colours", aliases=["colors"], parents=parents, help="which disc colour is the robot's and the person's"
    )
    colours.add_argument(
        "--robot-column",
        type=bounded_int(1, 20),
        nargs="+",
        default=[1],
        help="the column(s) (1-based) of the robot's discs in the bottom row (default 1)",
    )
    colours.add_argument(
        "--person-column",
        type=bounded_int(1, 20),
        nargs="+",
        default=None,
        help="the column(s) of the person's discs (default: the last)",
    )
    colours.add_argument(
        "--empty-image",
        metavar="FILE",
        default=None,
        help="with --image: a photo of the same board empty, from the same place and light",
    )
    colours.add_argument(
        "--from-moves",
        action="store_true",
        help="show no discs: the game's first moves teach the colours (any colours calibrated before are dropped)",
    )
    colours.set_defaults(run=run_colours)


def run_colours(args: argparse.Namespace) -> int:
    """Sample the two disc colours from the bottom holes of the robot's and the person's columns."""
    import dataclasses

    import numpy as np

    from calibration.colours import colours_from_columns, separation_problem

    setup = load_setup(args)
    if setup.board is None:
        raise ValueError("no board in the calibration: run `c4robot calibrate board` first")
    if args.from_moves:
        print("no colours sampled: the first moves of each game teach them")
        save_setup(args, dataclasses.replace(setup, colours=None))
        return 0
    cols = setup.board.cols
    robot_columns = [column - 1 for column in args.robot_column]
    person_columns = [column - 1 for column in args.person_column or [1 if cols - 1 in robot_columns else cols]]
    held = setup.camera_settings
    if args.sim:
        if len(robot_columns) > 1 or len(person_columns) > 1:
            raise ValueError("--sim shows one disc of each colour: give one --robot-column and one --person-column")
        from calibration.sim_steps import sim_colour_frames

        with sim_world(args) as world:
            empty, frame = sim_colour_frames(world, robot_columns[0], person_columns[0])
    else:
        empty, frame, held = _frames(args, robot_columns, person_columns, held)
    colours = colours_from_columns(frame, setup.board, robot_columns, person_columns, empty)
    print(
        f"robot plays {colours.robot} (BGR {np.round(colours.robot_bgr).astype(int).tolist()}), "
        f"the person {colours.person} (BGR {np.round(colours.person_bgr).astype(int).tolist()})"
    )
    problem = separation_problem(frame, setup.board, robot_columns, person_columns)
    if problem is not None:
        print(f"warning: {problem}")
    save_setup(args, dataclasses.replace(setup, colours=colours, camera_settings=held))
    return 0


def _frames(
    args: argparse.Namespace, robot_columns: list[int], person_columns: list[int], held: Any
) -> tuple[np.ndarray | None, np.ndarray, Any]:
    """The empty board's frame (None where there is none: a photo without --empty-image, a camera with no person
    at the terminal), the discs' frame, and the webcam settings both were read in (the same, so that only the discs
    differ)."""
    import numpy as np

    from robot.cli.vision_commands import load_image

    if args.empty_image is not None and args.image is None:
        raise ValueError("--empty-image goes with --image (a live camera sees the empty board itself)")
    empty = None
    if args.image is not None and args.empty_image is not None:
        empty = load_image(args.empty_image)
    elif _asks(args):
        print("take every disc off the board so the camera sees it empty, then press Enter", flush=True)
        input()
        empty, settled = read_frame_and_settings(args)
        held = settled or held
    print(
        f"put the robot's discs in column(s) {_listed(robot_columns)} and the person's in {_listed(person_columns)}"
        ", bottom row, nothing above them" + (", then press Enter" if _asks(args) else ""),
        flush=True,
    )
    if _asks(args):
        input()
    frame, settled = read_frame_and_settings(args, held if empty is not None else None)
    if empty is not None and np.shape(empty) != np.shape(frame):
        raise ValueError(
            f"the empty board's picture is {_size(empty)} and the discs' {_size(frame)}: take both from the same camera"
        )
    return empty, frame, settled or held


def _size(image: np.ndarray) -> str:
    return f"{image.shape[1]}x{image.shape[0]}"


def _asks(args: argparse.Namespace) -> bool:
    """Whether the step waits for Enter: a live camera and a person at the terminal."""
    return args.image is None and sys.stdin.isatty()


def _listed(columns: list[int]) -> str:
    return ", ".join(str(column + 1) for column in columns)
