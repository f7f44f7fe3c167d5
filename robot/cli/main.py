"""The `c4robot` program: parses the command line, sets up logging, maps errors to one line and an exit status.

Library code raises exceptions that also inherit a built-in (ValueError for bad input, OSError and its
ConnectionError/TimeoutError/FileNotFoundError for devices and files, RuntimeError for a failed
procedure); here they become one sentence on stderr and a non-zero exit (a traceback only with --debug).
"""

from __future__ import annotations

import argparse
import logging
import sys

from robot.cli import (
    arm_commands,
    calibration_commands,
    engine_commands,
    game_commands,
    player_commands,
    vision_commands,
)
from robot.cli.common import COMMON

COMMAND_MODULES = (engine_commands, player_commands, vision_commands, arm_commands, calibration_commands, game_commands)

EXIT_BAD_INPUT = 2
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree; each area's module adds its own subcommands and benchmarks."""
    parser = argparse.ArgumentParser(
        prog="c4robot",
        parents=[COMMON],
        description="A robot arm that plays Connect 4: solve, analyse, read boards, calibrate and play.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bench = commands.add_parser("bench", parents=[COMMON], help="benchmarks, figures printed as a table")
    bench_targets = bench.add_subparsers(dest="target", required=True, metavar="TARGET")
    for module in COMMAND_MODULES:
        module.register(commands, bench_targets)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    args = build_parser().parse_args(argv)
    debug = getattr(args, "debug", False)
    level = logging.WARNING - 10 * min(getattr(args, "verbose", 0), 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("c4robot: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (ValueError, LookupError) as error:
        if debug:
            raise
        print(f"c4robot: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OSError, RuntimeError) as error:
        if debug:
            raise
        print(f"c4robot: {error}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
