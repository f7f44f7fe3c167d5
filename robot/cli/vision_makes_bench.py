"""`c4robot bench vision makes`: the reader on boards and discs of every make, one frame per `makes` room.

Each seed's room (sim.room.room_for("makes", seed): its board, discs and finish from sim.makes, its webcam up to 40
degrees off axis) is calibrated exactly from the simulation's truth, corners and colours as `calibrate --sim` takes
them (calibration.sim_truth), a fixed sequence of discs is dropped, and one frame is read with that calibration as a
game reads it. The light stays at the calibrated level unless `--drift` lets the room's drift run, so what is
measured is the make, not the light. Printed per seed: discs read right, cells wrong at >= 0.9 confidence (the
defect that must never happen), cells unsure, empty holes read as discs or as covered.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from robot.cli.common import COMMON, bounded_int

SURE = 0.9
ROWS, COLS = 6, 7
# The discs dropped, player 1 first then alternating, columns 0-based: the first nine as tests/sim/test_makes.py
# drops them, then round the board; the bottom corners fill late (the colour step samples them first).
DROP_COLUMNS = (3, 3, 2, 4, 4, 2, 1, 5, 3, 5, 1, 2, 4, 3, 1, 5, 2, 4, 6, 0, 6, 0, 3, 1, 5, 2, 4, 6, 0, 6, 0, 1, 5)
MAX_SEED = 2**31 - 1
SEED_PATTERN = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def seed_list(text: str) -> tuple[int, ...]:
    """An argparse type: seeds as "1-20", "6" or "1,5,7-9" (each 0 .. 2**31 - 1, at most 1000 of them)."""
    seeds: list[int] = []
    for part in text.split(","):
        match = SEED_PATTERN.match(part)
        if not match:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is not a seed or a range of seeds such as 1-20")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) else low
        if high < low or high > MAX_SEED:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is not a range of seeds from 0 to {MAX_SEED}")
        if len(seeds) + high - low + 1 > 1000:
            raise argparse.ArgumentTypeError("more than 1000 seeds: give a shorter range")
        seeds.extend(range(low, high + 1))
    return tuple(seeds)


def register_makes(modes: argparse._SubParsersAction) -> None:
    """Add the `makes` mode of `bench vision`."""
    makes = modes.add_parser(
        "makes",
        parents=[COMMON],
        help="one frame of each makes room (boards and discs of every make, the webcam off axis) read with the "
        "sim's exact calibration: discs right, cells wrong at >= 0.9, unsure, empty holes read covered",
    )
    makes.add_argument("--seeds", type=seed_list, default=seed_list("1-20"), help="rooms' seeds (default 1-20)")
    makes.add_argument(
        "--discs", type=bounded_int(1, len(DROP_COLUMNS)), default=9, help="discs dropped before the frame (default 9)"
    )
    makes.add_argument("--drift", action="store_true", help="let the room's light drift while the discs drop")
    makes.add_argument("--json", action="store_true", help="print the figures as JSON")
    makes.add_argument(
        "--frames",
        type=Path,
        help="save each seed's frame into this folder (makes-SEED.png) with its calibration and the sim's board "
        "(makes-SEED.json), to look at or read again",
    )
    makes.set_defaults(run=run_makes_bench)


@dataclass(frozen=True)
class MakeResult:
    """One room's frame: `refused` is the colour step's sentence when it refused the discs (nothing else read)."""

    seed: int
    make: str
    off_axis_deg: float
    discs: int
    discs_right: int = 0
    empty_right: int = 0
    sure_wrong: int = 0
    unsure: int = 0
    empty_as_disc: int = 0
    empty_covered: int = 0
    cpu_ms: float = 0.0
    refused: str = ""

    @property
    def is_fully_right(self) -> bool:
        return not self.refused and self.discs_right == self.discs and self.empty_right == ROWS * COLS - self.discs


def read_make(seed: int, discs: int, drift: bool = False, frames: Path | None = None) -> MakeResult:
    """Calibrate the seed's makes room from the sim's truth, drop `discs` discs, read one frame with that calibration;
    the frame, the calibration and the sim's board saved into `frames` when given."""
    import numpy as np

    import vision
    from calibration.failures import CalibrationFailedError
    from calibration.sim_truth import sim_board, sim_camera, sim_colours
    from sim import World, WorldConfig
    from sim.room import furnish, room_for

    room = room_for("makes", seed)
    if not drift:
        room = dataclasses.replace(room, drift=None)
    assert room.make is not None
    make = room.make.describe()
    with World(WorldConfig(arm=None)) as world:
        furnish(world, room)
        board = sim_board(world, sim_camera(world))
        try:
            colours = sim_colours(world, board, robot_player=2)
        except (ValueError, CalibrationFailedError) as refusal:
            return MakeResult(seed, make, round(room.off_axis_deg, 1), discs, refused=str(refusal))
        for index, column in enumerate(DROP_COLUMNS[:discs]):
            world.drop_disc(column, 1 + index % 2)
            world.wait_until_settled()
        truth = world.board_state()
        frame = world.render_camera()
    if frames is not None:
        save_frame(frames, seed, frame, board.corners_px, (colours.robot_bgr, colours.person_bgr), truth)
    started = time.process_time()
    reading = vision.read(frame, (ROWS, COLS), np.asarray(board.corners_px), (colours.robot_bgr, colours.person_bgr))
    cpu_ms = (time.process_time() - started) * 1000
    expected = np.select([truth == 2, truth == 1], [1, 2], 0)  # value 1 is the robot's colour (player 2)
    right = reading.grid == expected
    sure = reading.confidence >= SURE
    empty = expected == 0
    covered = reading.covered_holes
    return MakeResult(
        seed,
        make,
        round(room.off_axis_deg, 1),
        discs,
        discs_right=int((right & sure & ~empty).sum()),
        empty_right=int((right & sure & empty).sum()),
        sure_wrong=int((~right & sure).sum()),
        unsure=int((~sure).sum()),
        empty_as_disc=int((empty & (reading.grid != 0)).sum()),
        empty_covered=int((empty & covered).sum()),
        cpu_ms=round(cpu_ms, 1),
    )


def save_frame(folder: Path, seed: int, frame, corners, colours, truth) -> None:
    """The seed's frame as makes-SEED.png and what it was read with as makes-SEED.json: the corners, the colours
    (BGR, the robot's first: value 1), the sim's board (rows top first, 1 and 2 the players, the robot is 2)."""
    from calibration.store.atomic import write_atomically
    from robot.cli.photo_files import write_image_atomically

    folder.mkdir(parents=True, exist_ok=True)
    write_image_atomically(folder / f"makes-{seed}.png", frame)
    record = {
        "corners": [[float(v) for v in corner] for corner in corners],
        "colours": [[float(v) for v in colour] for colour in colours],
        "board": ["".join(str(int(v)) for v in row) for row in truth[::-1]],
    }
    write_atomically(folder / f"makes-{seed}.json", json.dumps(record))


def run_makes_bench(args: argparse.Namespace) -> int:
    """Every seed's room read once; exit status 1 when some cell was wrong at >= 0.9 confidence."""
    results = []
    if not args.json:
        print(
            f"{'seed':>4} {'discs right':>11} {'wrong>=0.9':>10} {'unsure':>6} {'empty->disc':>11} "
            f"{'empty covered':>13} {'ms':>5}  make"
        )
    for seed in args.seeds:
        result = read_make(seed, args.discs, args.drift, args.frames)
        results.append(result)
        if not args.json:
            figures = (
                f"{'colours refused':>47}"
                if result.refused
                else f"{result.discs_right:>5}/{result.discs:<5} {result.sure_wrong:>10} {result.unsure:>6} "
                f"{result.empty_as_disc:>11} {result.empty_covered:>13} {result.cpu_ms:>5.0f}"
            )
            print(f"{seed:>4} {figures}  {result.make}, {result.off_axis_deg:.0f} deg off axis", flush=True)
    read = [r for r in results if not r.refused]
    totals = {
        "rooms": len(results),
        "refused": len(results) - len(read),
        "fully_right": sum(r.is_fully_right for r in results),
        "discs": sum(r.discs for r in read),
        "discs_right": sum(r.discs_right for r in read),
        "sure_wrong": sum(r.sure_wrong for r in read),
        "unsure": sum(r.unsure for r in read),
        "empty_as_disc": sum(r.empty_as_disc for r in read),
        "empty_covered": sum(r.empty_covered for r in read),
        "median_cpu_ms": float(sorted(r.cpu_ms for r in read)[len(read) // 2]) if read else 0.0,
    }
    if args.json:
        print(json.dumps({"seeds": [dataclasses.asdict(r) for r in results], "totals": totals}))
    else:
        print(
            f"total: {totals['fully_right']}/{totals['rooms']} rooms fully right, discs right "
            f"{totals['discs_right']}/{totals['discs']}, {totals['sure_wrong']} cells wrong at >= 0.9, "
            f"{totals['unsure']} unsure, {totals['empty_as_disc']} empty holes read as discs, "
            f"{totals['empty_covered']} read covered, {totals['refused']} colour steps refused; "
            f"median CPU {totals['median_cpu_ms']:.0f} ms per frame"
        )
    return 1 if totals["sure_wrong"] else 0
