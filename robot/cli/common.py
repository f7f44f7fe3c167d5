"""What every subcommand module of `c4robot` shares: the common flags and the table helpers.

Subcommands live one module per area; `robot.cli.main` lists them explicitly.

Each module exposes `register(commands, bench_targets)`: it adds its subcommands to `commands` and its
benchmark targets to `bench_targets` (both argparse sub-parser actions), and sets `run=` on each
parser to a function `run(args) -> int` that returns the exit status.
Every parser is made with `parents=[COMMON]` so `-v` and `--debug` work after the subcommand too.
"""

import argparse
import math
from collections.abc import Callable

COMMON = argparse.ArgumentParser(add_help=False)
# SUPPRESS keeps a sub-parser from resetting a flag given before the subcommand.
COMMON.add_argument(
    "-v", "--verbose", action="count", default=argparse.SUPPRESS, help="more log output (-vv for debug)"
)
COMMON.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show a traceback on errors")


def quantile(sorted_values: list[float], share: float) -> float:
    """The smallest value at or above `share` of the values (nearest rank)."""
    return sorted_values[max(0, math.ceil(share * len(sorted_values)) - 1)]


def quoted(text: str, limit: int = 40) -> str:
    """`text` quoted for an error message, cut to `limit` characters so a pasted page stays one short line."""
    shown = text if len(text) <= limit else f"{text[: limit - 3]}..."
    return repr(shown) if len(text) <= limit else f"{repr(shown)} ({len(text)} characters)"


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number within [low, high], else a sentence (argparse puts the flag before it)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range: give {low} to {high}")
        return value

    return parse


def finite_float(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a finite number within [low, high] (no nan, no inf), else a sentence."""

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number") from None
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(
                f"{quoted(text)} is out of range: give a finite number from {low:g} to {high:g}"
            )
        return value

    return parse


def refuse_unused(args: argparse.Namespace, names: tuple[str, ...], mode: str) -> None:
    """ValueError naming the first option in `names` that was given although it does nothing with `mode`
    (options that may be refused have the default None, or False for a switch)."""
    for name in names:
        if vars(args)[name] not in (None, False):
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} does nothing with {mode}: leave it out")
