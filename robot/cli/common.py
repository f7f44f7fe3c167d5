"""What every subcommand module of `c4robot` shares: the common flags and the table helpers.

Subcommands live one module per area; `robot.cli.main` lists them explicitly.

Each module exposes `register(commands, bench_targets)`: it adds its subcommands to `commands` and its
benchmark targets to `bench_targets` (both argparse sub-parser actions), and sets `run=` on each
parser to a function `run(args) -> int` that returns the exit status.
Every parser is made with `parents=[COMMON]` so `-v` and `--debug` work after the subcommand too.
"""

import argparse
import math

COMMON = argparse.ArgumentParser(add_help=False)
# SUPPRESS keeps a sub-parser from resetting a flag given before the subcommand.
COMMON.add_argument(
    "-v", "--verbose", action="count", default=argparse.SUPPRESS, help="more log output (-vv for debug)"
)
COMMON.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show a traceback on errors")


def quantile(sorted_values: list[float], share: float) -> float:
    """The smallest value at or above `share` of the values (nearest rank)."""
    return sorted_values[max(0, math.ceil(share * len(sorted_values)) - 1)]
