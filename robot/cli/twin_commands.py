"""`c4robot sim serve` (the digital twin: a simulated table behind a serial port and a camera stream) and the
`bench game twin` mode (`add_twin_bench`: whole games through the real path against twins, `robot.cli.twin_bench`)."""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path

from robot.cli.common import COMMON, bounded_int, finite_float

PROTOCOLS = ("joint", "uarm", "grbl", "feetech")  # robot.game.twin.PROTOCOLS, without importing pybullet
ROOMS = ("plain", "varied", "hard")
SERVE_HELP = (
    "a simulated table that looks like real hardware: its arm on a serial port, its webcam a stream; lines on stdin ask "
    "its person to wave a chessboard (chessboard), show a disc of each (discs), take them away (clear) or play (play)"
)
PARENT_POLL_S = 0.5
PR_SET_PDEATHSIG = 1


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `sim serve`."""
    sim = commands.add_parser("sim", parents=[COMMON], help="the digital twin of a table, for the real commands")
    actions = sim.add_subparsers(dest="action", required=True, metavar="ACTION")
    serve = actions.add_parser("serve", parents=[COMMON], help=SERVE_HELP, description=SERVE_HELP)
    add_twin_arguments(serve)
    serve.add_argument(
        "--game-log",
        metavar="PATH",
        type=Path,
        help="the game's log (play --log): report after every move it saves whether its moves are the twin's",
    )
    serve.add_argument(
        "--folder", metavar="DIR", type=Path, help="where to write truth-setup.toml (default: a temp dir)"
    )
    serve.set_defaults(run=run_serve)


def add_twin_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a twin, shared by `sim serve` and the twin bench."""
    parser.add_argument(
        "--protocol", default="joint", help="the arm's controller: joint (default), uarm, grbl, feetech"
    )
    parser.add_argument("--arm", help="c4arm or so101 (default: so101 on a feetech bus, c4arm otherwise)")
    parser.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0, help="the world's and the person's seed")
    parser.add_argument("--room", default="plain", help="plain (default), varied or hard: light, webcam pose, backdrop")
    parser.add_argument(
        "--faults", default="", help="comma-separated: dropped@N, garbled@N, late@S, reset@N, back@N, gone@N, stall@N:S"
    )
    parser.add_argument("--opponent", default="random", help="the simulated person: random (default) or engine:LEVEL")
    parser.add_argument("--robot-first", action="store_true", help="the person waits for the robot's first disc")
    parser.add_argument("--fps", type=finite_float(0.5, 30), default=10.0, help="the webcam's frames a second (10)")
    parser.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        help="with --protocol feetech: a setup whose [arm] is your SO-100/SO-101 (calibrate arm --from-lerobot); "
        "the twin's servo bus is that arm, its ids, offsets and limits",
    )


def twin_options(args: argparse.Namespace):
    import calibration
    from robot.game.twin import TwinOptions

    faults = tuple(f for f in args.faults.split(",") if f.strip()) if args.faults else ()
    if args.faults and not faults:
        raise ValueError(f"--faults {args.faults!r} names no fault: give KIND@N, or leave it out")
    return TwinOptions(
        protocol=args.protocol,
        arm=args.arm,
        seed=args.seed,
        room=args.room,
        faults=faults,
        opponent=args.opponent,
        robot_first=args.robot_first,
        fps=args.fps,
        servo_settings=calibration.load(args.config).arm if args.config else None,
    )


def run_serve(args: argparse.Namespace) -> int:
    """Serve the twin until Ctrl-C, SIGTERM or the parent's end; one JSON line on start, one per move after."""
    from robot.game.twin import Twin

    options = twin_options(args)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    parent = os.getppid()
    _end_with_parent()
    lock = threading.Lock()

    def report(line: dict) -> None:
        with lock, contextlib.suppress(OSError, ValueError):  # a reader that went away stops nothing
            print(json.dumps(line), flush=True)

    folder = args.folder or Path(tempfile.mkdtemp(prefix="c4twin-"))
    try:
        with Twin(options, folder, report, args.game_log) as twin:
            report(twin.info)
            threading.Thread(target=_take_requests, args=(twin, report), name="twin-requests", daemon=True).start()
            with contextlib.suppress(KeyboardInterrupt):
                while not stop.wait(PARENT_POLL_S) and os.getppid() == parent:
                    pass
    finally:
        if args.folder is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


def _take_requests(twin, report) -> None:
    """Lines on stdin ask the twin's person to do something (`chessboard`, `discs`, `clear`, `play`)."""
    for line in sys.stdin:
        try:
            twin.ask(line.strip())
        except ValueError as error:
            report({"error": str(error)})


def _end_with_parent() -> None:
    """Ask Linux to send SIGTERM when the parent dies (the getppid poll covers the rest)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def add_twin_bench(game_modes: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add `twin` to `bench game`'s modes: N games through the real commands against twins."""
    from robot.cli.twin_bench import run_twin_bench

    bench = game_modes.add_parser(
        "twin", parents=[COMMON], help="whole games through the real path (serial port, camera stream) against twins"
    )
    bench.add_argument("--games", type=bounded_int(1, 1000), default=2, help="games to play (default 2)")
    bench.add_argument("--protocol", default="joint", help="joint (default), uarm, grbl or feetech")
    bench.add_argument("--room", default="plain", help="plain (default), varied or hard")
    bench.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=1, help="the first game's seed")
    bench.add_argument("--opponent", default="random", help="the twin's person (default random)")
    bench.add_argument("--time-ms", type=finite_float(1, 600_000), default=300, help="the robot's budget per move")
    bench.add_argument(
        "--truth-setup",
        action="store_true",
        help="play on the twin's own calibration file instead of calibrating each table through the commands",
    )
    bench.add_argument("--json", action="store_true", help="print a JSON summary")
    bench.set_defaults(run=run_twin_bench)
    return bench
