"""`c4robot play` (a whole game, in the simulation or on the real table) and `c4robot bench game games|rooms`.

The arguments become configs here, once (`robot.game.config`); the game is played by `robot.game.play`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import sys
from pathlib import Path

from robot.cli.common import COMMON, bounded_int, finite_float, refuse_unused
from robot.cli.terminal import BoardPrinter
from robot.cli.twin_commands import add_twin_bench
from robot.cli.view_commands import add_view_arguments, opened_view
from robot.game.config import ROOM_KINDS, SIM_ARMS, GameSettings, RealTableConfig, SimTableConfig

PLAY_HELP = "play a whole game: --sim in the simulation, or --serial PORT --camera N on the real table"
SIM_ONLY = ("gui", "arm", "opponent", "room", "board_x_mm", "board_y_mm", "board_yaw_deg")  # the simulated table's
REAL_ONLY = ("camera", "board_empty")  # options of the real table
DEFAULT_OPPONENT = "person"  # a person of middling skill: a real game, which the robot still wins


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `play` and `bench game games|rooms`."""
    play = commands.add_parser("play", parents=[COMMON], help=PLAY_HELP, description=PLAY_HELP)
    where = play.add_mutually_exclusive_group()
    where.add_argument("--sim", action="store_true", help="play in the simulated world (needs nothing else)")
    where.add_argument("--serial", metavar="PORT", help="the real arm's serial port (e.g. /dev/ttyUSB0)")
    play.add_argument("--camera", metavar="N", help="the real table's camera: index, stream URL, video file or folder")
    play.add_argument(
        "--board-empty",
        action="store_true",
        help="the board is empty at the start: the answer to the question asked when the camera cannot be sure "
        "(for scripts and --json, where no one answers)",
    )
    play.add_argument("--gui", action="store_true", help="show the simulation's PyBullet window")
    play.add_argument("--arm", choices=SIM_ARMS, help="the simulated arm (default c4arm)")
    play.add_argument(
        "--opponent",
        help="the simulated person: person (middling), person:1..5 (beginner to strong), random, engine:LEVEL, or "
        "human (you type your columns; default person)",
    )
    play.add_argument(
        "--room", choices=ROOM_KINDS, help="the simulated room's light, camera pose and backdrop (default plain)"
    )
    for axis, what in (("x", "x"), ("y", "y")):
        play.add_argument(
            f"--board-{axis}-mm",
            type=finite_float(-200, 200),
            help=f"the simulated board moved along the table's {what} (mm), as `calibrate --sim` can have it",
        )
    play.add_argument(
        "--board-yaw-deg", type=finite_float(-45, 45), help="the simulated board turned on the table (degrees)"
    )
    play.add_argument("--robot-first", action="store_true", help="the robot makes the first move")
    play.add_argument(
        "--level", type=bounded_int(1, 10), default=10, help="the robot's skill, 1 (beginner) to 10 (perfect)"
    )
    play.add_argument(
        "--time-ms", type=finite_float(1, 600_000), default=500, help="the robot's thinking budget per move"
    )
    play.add_argument("--no-ponder", action="store_true", help="do not think ahead while the person thinks")
    play.add_argument(
        "--seed", type=bounded_int(0, 2**31 - 1), help="seed for the world and the players (repeatable games)"
    )
    play.add_argument(
        "--give-up-s",
        type=finite_float(1, 86_400),
        help="stop and save when the person has not played for this long (default 180 in the simulation, 900 real)",
    )
    play.add_argument(
        "--record",
        metavar="DIR",
        type=Path,
        help="save a real-time video of the game (the webcam with the overlay, the whole table, captions) and each "
        "move's frame",
    )
    play.add_argument("--record-png", action="store_true", help="every video frame as a PNG too (needs --record)")
    play.add_argument("--config", metavar="PATH", type=Path, help="calibration file (default: the user's config dir)")
    play.add_argument("--log", metavar="PATH", type=Path, help="game log, saved after every move")
    play.add_argument("--resume", action="store_true", help="continue the game in the log after a crash")
    play.add_argument("--one-game", action="store_true", help="do not offer another game at the end")
    play.add_argument("--hints", action="store_true", help="in your turn, print what each of your columns is worth")
    play.add_argument(
        "--voice",
        action="store_true",
        help="speak the robot's lines aloud (needs espeak-ng: apt-get install espeak-ng)",
    )
    play.add_argument("--json", action="store_true", help="print a JSON summary (messages go to stderr)")
    add_view_arguments(play)
    play.set_defaults(run=run_play)

    bench = bench_targets.add_parser("game", parents=[COMMON], help="whole simulated games: speed and agreement")
    modes = bench.add_subparsers(dest="mode", required=True, metavar="MODE")
    games = modes.add_parser("games", parents=[COMMON], help="games in the studio room: speed, turns, agreement")
    games.add_argument("--games", type=bounded_int(1, 1000), default=2, help="games to play (default 2)")
    games.add_argument("--opponent", default="engine:5", help="the simulated person (default engine:5)")
    games.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=1, help="the first game's seed (default 1)")
    add_view_arguments(games)
    games.set_defaults(run=run_bench_games)
    rooms = modes.add_parser(
        "rooms",
        parents=[COMMON],
        help="games each in its own room drawn from its seed: finished, agreement, false events, each failure named",
    )
    rooms.add_argument("--games", type=bounded_int(1, 1000), default=6, help="games (rooms) to play (default 6)")
    rooms.add_argument(
        "--room",
        choices=ROOM_KINDS[1:],
        default="varied",
        help="varied (default), hard, or makes (boards and discs of many makes)",
    )
    rooms.add_argument("--opponent", default="engine:5", help="the simulated person (default engine:5)")
    rooms.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=1, help="the first room's seed (default 1)")
    rooms.add_argument("--frames", metavar="DIR", type=Path, help="save the camera's frame of every failure there")
    add_view_arguments(rooms)
    rooms.set_defaults(run=run_bench_rooms)
    add_twin_bench(modes)


def _default_log_path() -> Path:
    from calibration import default_path

    return default_path().parent / "game-log.json"


def game_settings(args: argparse.Namespace, robot_first: bool, give_up_s: float | None) -> GameSettings:
    """How the robot plays, from `play`'s arguments."""
    extra = {} if give_up_s is None else {"give_up_after_s": give_up_s}
    return GameSettings(
        robot_first=robot_first,
        time_budget_s=args.time_ms / 1000.0,
        level=args.level,
        seed=args.seed,
        ponder=not args.no_ponder,
        **extra,
    )


def sim_table_config(args: argparse.Namespace) -> SimTableConfig:
    return SimTableConfig(
        seed=args.seed,
        opponent=args.opponent or DEFAULT_OPPONENT,
        arm=args.arm or "c4arm",
        room=args.room or "plain",
        calibration=args.config,
        gui=args.gui,
        record=args.record,
        record_png=args.record_png,
        board_x_mm=args.board_x_mm or 0.0,
        board_y_mm=args.board_y_mm or 0.0,
        board_yaw_deg=args.board_yaw_deg or 0.0,
    )


def real_table_config(args: argparse.Namespace) -> RealTableConfig:
    if args.camera is None:
        raise ValueError("a real game needs the camera too: add --camera N (index, URL, video file or folder)")
    return RealTableConfig(args.serial, args.camera, args.config, args.record, args.record_png)


def run_play(args: argparse.Namespace) -> int:
    from robot.game.log import GameLog, locked

    if not args.sim and not args.serial:
        raise ValueError("say where to play: --sim for the simulation, or --serial PORT --camera N for a real arm")
    refuse_unused(args, REAL_ONLY if args.sim else SIM_ONLY, "--sim" if args.sim else "--serial")
    table = sim_table_config(args) if args.sim else real_table_config(args)
    out = sys.stderr if args.json else sys.stdout

    def tell(message: str) -> None:
        print(message, file=out, flush=True)

    log_path = args.log or _default_log_path()
    resume = resume_command(args, log_path)
    robot_first = args.robot_first
    with (
        locked(log_path),
        opened_view(args.view, args.view_host, args.view_port, tell, "Connect 4 robot: live") as server,
        _voice(args.voice, tell) as voice,
    ):
        previous = GameLog.load(log_path) if args.resume else None
        observers = (BoardPrinter(out), *((server.view,) if server is not None else ()), *((voice,) if voice else ()))
        if args.hints:
            from robot.view.verdicts import HintTeller

            observers += (HintTeller(tell),)
        while True:
            settings = game_settings(args, robot_first, args.give_up_s)
            try:
                summary = _play_one(args, table, settings, tell, log_path, previous, observers, resume)
            except KeyboardInterrupt:
                if log_path.exists():
                    tell(f"Stopped. The game is saved in {log_path}: run `{resume}` to go on.")
                raise
            if args.json:
                print(json.dumps(_with_verdicts(summary), indent=1))
            if summary["winner"] is None:
                raise GameStoppedError(f"the game stopped before its end: {summary.get('stopped', 'no reason given')}")
            if args.one_game or not _wants_another_game(args):
                return 0
            previous, robot_first = None, not summary["robot_first"]


def _play_one(args, table, settings, tell, log_path, previous, observers, resume) -> dict:
    """One game on the table `args` chose; its summary."""
    from robot.game.play import play_real_game, play_sim_game, sim_settings

    if args.sim:
        return play_sim_game(
            table, sim_settings(settings, args.give_up_s), tell, log_path, previous, observers, resume_command=resume
        )
    confirm = _always_yes if args.board_empty else None if args.json or not sys.stdin.isatty() else _ask_yes_no
    return play_real_game(table, settings, tell, log_path, previous, observers, confirm, resume)


def _with_verdicts(summary: dict) -> dict:
    """The summary with every position's column verdicts from the books (`verdicts[n]`: after n moves)."""
    from robot.view.verdicts import verdicts_by_move

    moves = [int(c) - 1 for c in summary["moves"]]
    return {**summary, "verdicts": verdicts_by_move(moves, summary["rows"], summary["cols"])}


@contextlib.contextmanager
def _voice(enabled: bool, tell):
    """With --voice, an observer that speaks the game's lines (eSpeak NG); it says so once if it cannot."""
    if not enabled:
        yield None
        return
    from robot.game.voice import Voice

    with Voice(tell) as voice:
        yield SpokenEvents(voice)


class SpokenEvents:
    """A game's observer that hands each event to the voice (which speaks the kinds a person wants to hear)."""

    def __init__(self, voice) -> None:
        self.voice = voice

    def on_state(self, snapshot: dict) -> None:
        said = snapshot.get("event")
        if said is not None:
            self.voice.say_event(str(said.kind), said.message)

    def on_frame(self, frame, reading) -> None:
        """Frames are not spoken."""


def resume_command(args: argparse.Namespace, log_path: Path) -> str:
    """The exact command that goes on with this game: where it is played, its calibration and its log."""
    where = ["--sim"] if args.sim else ["--serial", args.serial, "--camera", args.camera]
    world = (("--arm", args.arm), ("--room", args.room), ("--board-x-mm", args.board_x_mm))
    world += (("--board-y-mm", args.board_y_mm), ("--board-yaw-deg", args.board_yaw_deg), ("--config", args.config))
    for flag, value in world:
        if value is not None and (args.sim or flag == "--config"):
            where += [flag, str(value)]
    return shlex.join(["c4robot", "play", *where, "--resume", "--log", str(log_path)])


class GameStoppedError(RuntimeError):
    """A game that could not go on to its end (the reason is in the log, which is saved)."""


def _wants_another_game(args: argparse.Namespace) -> bool:
    """At a terminal, offer a new game (the other side starts); scripts and --json get exactly one game."""
    if args.json or not sys.stdin.isatty():
        return False
    return _ask_yes_no("Another game? (the other side starts; --one-game skips this question)")


def _always_yes(question: str) -> bool:
    """--board-empty: the person said beforehand that the board is empty."""
    return True


def _ask_yes_no(question: str) -> bool:
    """The person's answer at the terminal (no answer: no)."""
    try:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def run_bench_rooms(args: argparse.Namespace) -> int:
    from robot.cli.room_games import run_bench_rooms as bench_rooms

    with opened_view(args.view, args.view_host, args.view_port, print, "c4robot bench game rooms") as server:
        return bench_rooms(args.games, args.seed, args.room, args.opponent, args.frames, server and server.view)


def run_bench_games(args: argparse.Namespace) -> int:
    """Play simulated games; print games per hour and the median robot turn split into its parts."""
    import statistics
    import tempfile
    import time

    from robot.game.play import play_sim_game, sim_settings

    rows = []
    started = time.perf_counter()
    quiet = lambda message: None  # noqa: E731 - the benchmark prints only its table
    with (
        tempfile.TemporaryDirectory() as folder,
        opened_view(args.view, args.view_host, args.view_port, print, "c4robot bench game") as server,
    ):
        reader = _view_reader(server)
        for index in range(args.games):
            table = SimTableConfig(seed=args.seed + index, opponent=args.opponent)
            settings = sim_settings(GameSettings(robot_first=index % 2 == 0, seed=args.seed + index))
            game_started = time.perf_counter()
            observers = (server.view,) if server is not None else ()
            summary = play_sim_game(table, settings, quiet, Path(folder) / f"game{index}.json", observers=observers)
            rows.append((summary, time.perf_counter() - game_started))
            left_s = (time.perf_counter() - started) / (index + 1) * (args.games - index - 1)
            print(
                f"game {index + 1}/{args.games}: {summary['winner']}, {len(summary['moves'])} moves, "
                f"{rows[-1][1]:.0f} s (about {left_s / 60:.0f} min left)",
                flush=True,
            )
    wall_s = time.perf_counter() - started
    turns = [turn for summary, _ in rows for turn in summary["turns"]]
    landed = sum(turn["landed"] == turn["column"] for turn in turns)

    def median(key: str) -> float:
        return statistics.median(turn[key] for turn in turns) if turns else float("nan")

    print(f"\n{'game':>4} {'robot':>6} {'winner':>8} {'moves':>5} {'agree':>5} {'wall s':>7}")
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


def _view_reader(server):
    """With --view, a reader of the view's streams (as a browser would be), so the bench runs with the view busy."""
    if server is None:
        return None
    from robot.view.client import StreamReader

    return StreamReader(server.url)
