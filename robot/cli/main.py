"""The `c4robot` program: parses the command line, sets up logging, maps every failure to one line and an exit status.

Library code raises exceptions that also inherit a built-in (ValueError for bad input, OSError and its
ConnectionError/TimeoutError/FileNotFoundError for devices and files, RuntimeError for a failed
procedure); here they become one sentence on stderr and a non-zero exit (a traceback only with --debug).
The mapping is total: a bad argument, Ctrl-C, the end of the input (Ctrl-D), an OpenCV error and even
an unforeseen exception end in one line; the last says it is a bug, which the CLI's fuzz test looks for.
"""

from __future__ import annotations

import os

# Before anything imports OpenCV: its own warnings (a camera index that does not exist, a codec probed)
# would come before the one sentence that says what went wrong.
os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
os.environ.setdefault("OPENCV_VIDEOIO_DEBUG", "0")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import logging  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from typing import NoReturn  # noqa: E402

from robot.cli import (  # noqa: E402
    arm_commands,
    calibration_commands,
    engine_commands,
    game_commands,
    player_commands,
    twin_commands,
    view_commands,
    vision_commands,
)
from robot.cli.common import COMMON  # noqa: E402

COMMAND_MODULES = (
    engine_commands,
    player_commands,
    vision_commands,
    arm_commands,
    calibration_commands,
    game_commands,
    view_commands,
    twin_commands,
)

EXIT_BAD_INPUT = 2
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130
MESSAGE_LIMIT = 400  # characters: an error quoting a pasted page stays a line
BUG_MARK = "this is a bug in c4robot"
SIMULATING_COMMANDS = ("play", "calibrate", "bench", "sim")  # they may load pybullet


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one sentence naming the command's --help, not the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"c4robot: {_one_line(message)} (see `{self.prog} --help`)\n")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> object:
        # argparse drops a "--" given as an option's value (`--table-mb=--`) and hands the type an empty list.
        if action.nargs is None and action.option_strings and arg_strings == ["--"]:
            self.error(f"argument {action.option_strings[-1]}: '--' is not a value")
        return super()._get_values(action, arg_strings)


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree; each area's module adds its own subcommands and benchmarks."""
    parser = OneLineParser(
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


def command_parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """(command path, parser) of `parser` and every sub-parser below it, aliases once (for the CLI's tests)."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sub in sorted(action.choices.items()):
                if id(sub) not in seen:
                    seen.add(id(sub))
                    yield from command_parsers(sub, (*path, name))


def _one_line(message: object) -> str:
    """The message on one line, cut to MESSAGE_LIMIT characters."""
    text = " ".join(str(message).split())
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def _say(message: object) -> None:
    print(f"c4robot: {_one_line(message)}", file=sys.stderr, flush=True)


class TerminatedError(KeyboardInterrupt):
    """SIGTERM (a service stopped, `kill`): handled as Ctrl-C is, so a game's log is saved and the arm stopped."""


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While a command runs in the main thread, SIGTERM raises TerminatedError there (by default it ends Python at
    once: no log saved, no arm stopped); the previous handler is put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(*_: object) -> NoReturn:
        raise TerminatedError

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_request:  # --help, or a bad argument already said in one line
        return int(exit_request.code or 0) if not isinstance(exit_request.code, str) else EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _say("interrupted")
        return EXIT_INTERRUPTED
    debug = vars(args).get("debug", False)
    if args.command in SIMULATING_COMMANDS:
        _import_quietly("pybullet")
    level = logging.WARNING - 10 * min(vars(args).get("verbose", 0), 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        with _terminate_as_interrupt():
            return int(args.run(args) or 0)
    except TerminatedError:
        _say("stopped (SIGTERM)")
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        _say("interrupted (Ctrl-C)")
        return EXIT_INTERRUPTED
    except EOFError:
        if debug:
            raise
        _say("the input ended (Ctrl-D) while an answer was awaited: stopped")
        return EXIT_INTERRUPTED
    except (ValueError, LookupError) as error:
        if debug:
            raise
        _say(error)
        return EXIT_BAD_INPUT
    except (OSError, RuntimeError) as error:
        if debug:
            raise
        _say(_os_error_text(error))
        return EXIT_FAILURE
    except MemoryError:
        if debug:
            raise
        _say("out of memory: give smaller sizes or counts")
        return EXIT_FAILURE
    except Exception as error:  # noqa: BLE001 - the one place every failure becomes a sentence
        if debug:
            raise
        if type(error).__name__ == "error" and type(error).__module__.startswith("cv2"):
            _say(f"OpenCV could not do it: {str(error).strip().splitlines()[-1] if str(error).strip() else error}")
            return EXIT_FAILURE
        _say(f"{type(error).__name__}: {error} ({BUG_MARK}; --debug shows where)")
        return EXIT_FAILURE


def _import_quietly(module: str) -> None:
    """Import a module whose C code prints a banner on stderr (pybullet's build time) with stderr closed."""
    if module in sys.modules:
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            with contextlib.suppress(ImportError):  # the command that needs it says so itself
                __import__(module)
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _os_error_text(error: BaseException) -> str:
    """An OSError raised by Python itself ("[Errno 13] Permission denied: 'x'") as a sentence naming the file."""
    if isinstance(error, OSError) and error.strerror and error.filename is not None:
        return f"{error.filename}: {error.strerror.lower()}"
    return str(error) or type(error).__name__


if __name__ == "__main__":
    sys.exit(main())
