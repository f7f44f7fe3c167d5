"""The live view's command line: `--view`, `--view-host`, `--view-port` for `play` and `bench game`, and
`c4robot view --log GAMELOG`, which replays a finished game in the browser."""

from __future__ import annotations

import argparse
import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from robot.cli.common import COMMON, bounded_int, finite_float

VIEW_HELP = "replay a saved game in the browser: the live view's page, one move per step"


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `view`."""
    view = commands.add_parser("view", parents=[COMMON], help=VIEW_HELP, description=VIEW_HELP)
    view.add_argument("--log", metavar="GAMELOG", type=Path, required=True, help="the game log to replay")
    view.add_argument("--step-s", type=finite_float(0.05, 60), default=1.5, help="seconds per move (default 1.5)")
    add_view_arguments(view, with_switch=False)
    view.set_defaults(run=run_view)


def add_view_arguments(parser: argparse.ArgumentParser, with_switch: bool = True) -> None:
    """`--view` (when `with_switch`), `--view-host` and `--view-port` on `parser`."""
    from robot.view import DEFAULT_HOST, DEFAULT_PORT

    if with_switch:
        parser.add_argument("--view", action="store_true", help="show the game live in a browser (prints the URL)")
    parser.add_argument(
        "--view-host",
        default=DEFAULT_HOST,
        help=f"address the view listens on (default {DEFAULT_HOST}: this computer only; 0.0.0.0 shares it on the LAN)",
    )
    parser.add_argument(
        "--view-port", type=bounded_int(0, 65535), default=DEFAULT_PORT, help=f"its port (default {DEFAULT_PORT})"
    )


@contextlib.contextmanager
def opened_view(enabled: bool, host: str, port: int, tell: Callable[[str], None], title: str) -> Iterator:
    """The ViewServer (its LiveView is `.view`) at host:port while the block runs; None when not `enabled`."""
    if not enabled:
        yield None
        return
    from robot.view import LiveView, ViewServer

    with ViewServer(LiveView(title), host, port) as server:
        tell(f"The live view is at {server.url} (open it in a browser).")
        yield server


def run_view(args: argparse.Namespace) -> int:
    """Serve the replay until Ctrl-C: it starts when a page opens; the page holds the game's end after the last move."""
    from robot.game.log import GameLog
    from robot.view.replay import ReplayPlayer

    if not args.log.is_file():
        raise FileNotFoundError(f"no game log at {args.log}: give the file `c4robot play --log PATH` saved")
    game_log = GameLog.load(args.log)
    stop = threading.Event()
    with opened_view(
        True, args.view_host, args.view_port, lambda message: print(message, flush=True), f"Replay of {args.log.name}"
    ) as server:
        player = ReplayPlayer(game_log, server.view, args.step_s)
        print(
            f"Replaying {len(game_log.moves)} moves, one every {args.step_s:g} s, from when the page opens "
            f"(play, pause and step on the page); Ctrl-C to stop.",
            flush=True,
        )
        try:
            player.run(stop)
        finally:
            stop.set()
    return 0
