"""`c4robot play` (a whole game, in the simulation or on the real table) and `c4robot bench game` (its --rooms in
`robot.cli.room_games`)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from robot.cli.common import COMMON, bounded_int, finite_float, quoted
from robot.cli.view_commands import add_view_arguments, opened_view

ROOM_KINDS = ("plain", "varied", "hard")  # sim.room.ROOM_KINDS, without importing pybullet to parse arguments
PLAY_HELP = "play a whole game: --sim in the simulation, or --serial PORT --camera N on the real table"


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `play` and the `game` benchmark."""
    play = commands.add_parser("play", parents=[COMMON], help=PLAY_HELP, description=PLAY_HELP)
    play.add_argument("--sim", action="store_true", help="play in the simulated world (needs nothing else)")
    play.add_argument("--gui", action="store_true", help="with --sim: show the PyBullet window")
    play.add_argument("--arm", default="c4arm", help="with --sim: the simulated arm, c4arm (default) or so101")
    play.add_argument("--serial", metavar="PORT", help="the real arm's serial port (e.g. /dev/ttyUSB0)")
    play.add_argument("--camera", metavar="N", help="camera index, stream URL, video file or image folder")
    play.add_argument("--opponent", default="random", help="with --sim: human, random or engine:LEVEL (default random)")
    play.add_argument("--robot-first", action="store_true", help="the robot makes the first move")
    play.add_argument(
        "--level", type=bounded_int(1, 10), default=10, help="the robot's skill, 1 (beginner) to 10 (perfect)"
    )
    play.add_argument(
        "--time-ms", type=finite_float(1, 600_000), default=500, help="the robot's thinking budget per move"
    )
    play.add_argument("--no-ponder", action="store_true", help="do not think ahead while the person thinks")
    play.add_argument(
        "--seed",
        type=bounded_int(0, 2**31 - 1),
        default=None,
        help="seed for the world and the players (repeatable games)",
    )
    play.add_argument(
        "--record",
        metavar="DIR",
        type=Path,
        help="save a real-time video of the game (game.mp4: the webcam with the overlay, the whole table, captions) "
        "and each move's frame",
    )
    play.add_argument("--record-png", action="store_true", help="with --record: every video frame as a PNG too")
    play.add_argument(
        "--room",
        choices=ROOM_KINDS,
        default="plain",
        help="with --sim: the room's light, camera pose and backdrop, drawn from --seed (default plain: the studio)",
    )
    play.add_argument("--config", metavar="PATH", type=Path, help="calibration file (default: the user's config dir)")
    play.add_argument("--log", metavar="PATH", type=Path, help="game log, saved after every move")
    play.add_argument("--resume", action="store_true", help="continue the game in the log after a crash")
    play.add_argument("--json", action="store_true", help="print a JSON summary (messages go to stderr)")
    add_view_arguments(play)
    play.set_defaults(run=run_play)

    bench = bench_targets.add_parser("game", parents=[COMMON], help="whole simulated games: speed and agreement")
    bench.add_argument("--games", type=bounded_int(1, 1000), default=2, help="games to play (default 2)")
    bench.add_argument("--opponent", default="engine:5", help="the simulated person (default engine:5)")
    bench.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=1)
    bench.add_argument(
        "--rooms",
        metavar="N",
        type=bounded_int(1, 1000),
        help="play N games, each in its own room drawn from its seed (light, camera pose, backdrop), and report "
        "games finished, board agreement, false events and robot turns, naming the room of every failure",
    )
    bench.add_argument("--room", choices=ROOM_KINDS, default="varied", help="with --rooms: varied (default) or hard")
    bench.add_argument(
        "--frames",
        metavar="DIR",
        type=Path,
        help="with --rooms: save the camera's frame of every failure there (what was said, the disagreement)",
    )
    add_view_arguments(bench)
    bench.set_defaults(run=run_bench_game)


def _default_log_path() -> Path:
    from calibration import default_path

    return default_path().parent / "game-log.json"


def run_play(args: argparse.Namespace) -> int:
    if not args.sim and not args.serial:
        raise ValueError("say where to play: --sim for the simulation, or --serial PORT --camera N for a real arm")
    if args.sim and args.serial:
        raise ValueError("--sim and --serial exclude each other: choose the simulation or the real arm")
    if args.record_png and args.record is None:
        raise ValueError("--record-png saves the video's frames: give the folder with --record DIR too")
    if args.arm not in ("c4arm", "so101"):
        raise ValueError(f"there is no simulated arm {quoted(args.arm)}: choose c4arm or so101")
    out = sys.stderr if args.json else sys.stdout

    def tell(message: str) -> None:
        print(message, file=out, flush=True)

    from robot.game.log import locked

    log_path = args.log or _default_log_path()
    with locked(log_path), opened_view(args, tell, "Connect 4 robot: live") as server:
        while True:
            play_game = play_sim_game if args.sim else play_real_game
            summary = play_game(args, tell, log_path, view=server and server.view)
            if args.json:
                print(json.dumps(summary, indent=1))
            if summary["winner"] is None:
                raise GameStoppedError(f"the game stopped before its end: {summary.get('stopped', 'no reason given')}")
            if not _wants_another_game(args):
                return 0
            args = argparse.Namespace(**{**vars(args), "resume": False, "robot_first": not summary["robot_first"]})


class GameStoppedError(RuntimeError):
    """A game that could not go on to its end (the reason is in the log, which is saved)."""


def _wants_another_game(args: argparse.Namespace) -> bool:
    """At a terminal, offer a new game (the other side starts); scripts and --json get exactly one game."""
    if args.json or not sys.stdin.isatty():
        return False
    return _ask_yes_no("Another game?")


def _ask_yes_no(question: str) -> bool:
    """The person's answer at the terminal (no answer: no)."""
    try:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _settings(args: argparse.Namespace, robot_first: bool):
    from robot.game.loop import GameSettings

    return GameSettings(
        robot_first=robot_first,
        time_budget_s=args.time_ms / 1000.0,
        level=args.level,
        seed=args.seed,
        ponder=not getattr(args, "no_ponder", False),
    )


def _previous_log(args: argparse.Namespace, log_path: Path):
    from robot.game.log import GameLog

    return GameLog.load(log_path) if args.resume else None


def play_sim_game(
    args: argparse.Namespace, tell, log_path: Path, mischief: dict[int, str] | None = None, view=None
) -> dict:
    """A whole game in a fresh simulated world, shown on `view` (a robot.view.LiveView) if given; its summary."""
    from robot.game.sim_table import SimGame

    previous = _previous_log(args, log_path)
    robot_first = previous.robot_first if previous else args.robot_first
    with SimGame(
        seed=args.seed,
        gui=args.gui,
        opponent=args.opponent,
        robot_first=robot_first,
        tell=tell,
        mischief=mischief,
        record=args.record,
        config_path=args.config,
        arm=getattr(args, "arm", "c4arm"),
        room=getattr(args, "room", "plain"),
        record_png=getattr(args, "record_png", False),
    ) as game_setup:
        # A simulated person acts at once: a board that shows no move for three minutes (wall clock, generous
        # for a loaded 2-core machine) will not change any more.
        give_up_s = getattr(args, "give_up_s", 180.0)
        settings = dataclasses.replace(_settings(args, robot_first), remind_after_s=20.0, give_up_after_s=give_up_s)
        game = game_setup.game(settings, log_path, previous)
        if view is not None:
            game.watch(view)
        return game.play().summary()


def play_real_game(args: argparse.Namespace, tell, log_path: Path, view=None) -> dict:
    """A whole game on the real table: arm on `--serial`, camera `--camera`, calibration from `--config`."""
    from robot.game.real_table import RealGame

    if args.camera is None:
        raise ValueError("a real game needs the camera too: add --camera N (index, URL, video file or folder)")
    previous = _previous_log(args, log_path)
    robot_first = previous.robot_first if previous else args.robot_first
    with RealGame(
        port=args.serial,
        camera=args.camera,
        config_path=args.config,
        tell=tell,
        record=args.record,
        record_png=getattr(args, "record_png", False),
        confirm=None if args.json or not sys.stdin.isatty() else _ask_yes_no,
    ) as game_setup:
        game = game_setup.game(_settings(args, robot_first), log_path, previous)
        if view is not None:
            game.watch(view)
        return game.play().summary()


def _view_reader(server):
    """With --view, a reader of the view's streams (as a browser would be), so the bench runs with the view busy."""
    if server is None:
        return None
    from robot.view.client import StreamReader

    return StreamReader(server.url)


def bench_game_args(seed: int, opponent: str, robot_first: bool, **more) -> argparse.Namespace:
    """What `play --sim` would be given for one benchmark game: perfect play, half a second per move."""
    return argparse.Namespace(
        seed=seed,
        gui=False,
        opponent=opponent,
        robot_first=robot_first,
        level=10,
        time_ms=500,
        record=None,
        config=None,
        resume=False,
        **more,
    )


def run_bench_game(args: argparse.Namespace) -> int:
    """Play simulated games; print games per hour and the median robot turn split into its parts."""
    import statistics
    import tempfile
    import time

    if args.rooms is not None:
        from robot.cli.room_games import run_bench_rooms

        return run_bench_rooms(args, bench_game_args)
    if args.games < 1:
        raise ValueError(f"--games {args.games} must be at least 1")
    rows = []
    started = time.perf_counter()
    quiet = lambda message: None  # noqa: E731 - the benchmark prints only its table
    with tempfile.TemporaryDirectory() as folder, opened_view(args, print, "c4robot bench game") as server:
        reader = _view_reader(server)
        for index in range(args.games):
            game_args = bench_game_args(args.seed + index, args.opponent, robot_first=index % 2 == 0)
            game_started = time.perf_counter()
            summary = play_sim_game(game_args, quiet, Path(folder) / f"game{index}.json", view=server and server.view)
            rows.append((summary, time.perf_counter() - game_started))
    wall_s = time.perf_counter() - started
    turns = [turn for summary, _ in rows for turn in summary["turns"]]
    landed = sum(turn["landed"] == turn["column"] for turn in turns)

    def median(key: str) -> float:
        return statistics.median(turn[key] for turn in turns) if turns else float("nan")

    print(f"{'game':>4} {'robot':>6} {'winner':>8} {'moves':>5} {'agree':>5} {'wall s':>7}")
    for index, (summary, game_s) in enumerate(rows, 1):
        first = "first" if summary["robot_first"] else "second"
        print(
            f"{index:>4} {first:>6} {summary['winner']:>8} {len(summary['moves']):>5} "
            f"{str(summary['board_agreement']).lower():>5} {game_s:>7.1f}"
        )
    print()
    print(f"games per hour (wall clock, headless): {3600 * len(rows) / wall_s:.1f}")
    print(
        f"median robot turn: vision {median('vision_s'):.3f} s, engine {median('engine_s'):.3f} s, "
        f"arm {median('arm_s'):.2f} s (simulated arm time)"
    )
    robot_s = statistics.median(turn["vision_s"] + turn["engine_s"] for turn in turns) if turns else float("nan")
    watched = f"with the live view open ({reader.bytes_read / 1e6:.1f} MB streamed)" if reader else "without a view"
    print(f"median robot turn, vision + engine (wall clock): {robot_s:.3f} s, {watched}")
    print(f"robot drops landed in the chosen column: {landed}/{len(turns)}")
    print(f"board agreement in every game: {all(summary['board_agreement'] for summary, _ in rows)}")
    return 0
