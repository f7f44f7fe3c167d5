"""Games through the real path against digital twins, run as a person runs them: `c4robot sim serve` in one process,
`c4robot play --serial PORT --camera URL --config FILE` in another, at a terminal (a pseudo-terminal whose questions
this module answers as the person would), and `bench game twin` built on both.

`TwinProcess` starts a twin and reads its JSON lines (the truth after every move, and whether the game's log agrees);
it always ends the twin, whatever happens. `play_at_terminal` runs `play` and answers its yes-or-no questions.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

C4ROBOT = (sys.executable, "-c", "import sys; from robot.cli import main; sys.exit(main())")
START_TIMEOUT_S = 90.0
GAME_TIMEOUT_S = 900.0
STOP_TIMEOUT_S = 30.0  # from Ctrl-C to the end of `play` (its log saved, the arm stopped)
STALE_READ_S = 0.03  # a read faster than this came out of a buffer, not from the camera (10 frames a second)
STALE_READS = 4
COVERED_WORDS = ("in front of", "cover", "hand")  # an event about something before the board (the hand may linger)


class TwinProcess:
    """`c4robot sim serve ARGS` in its own process; `info` is its first line, `lines` every line after it."""

    def __init__(self, serve_args: list[str], folder: Path) -> None:
        self.stderr_path = folder / "twin-stderr.txt"
        self._stderr = self.stderr_path.open("w")
        self.process = subprocess.Popen(
            [*C4ROBOT, "sim", "serve", *serve_args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self.lines: list[dict] = []
        self._arrived = threading.Condition()
        threading.Thread(target=self._read, name="twin-lines", daemon=True).start()
        try:
            self.info = self.wait_for(lambda line: "port" in line, START_TIMEOUT_S)
        except BaseException:
            self.close()
            raise

    def _read(self) -> None:
        for text in self.process.stdout:
            with contextlib.suppress(ValueError), self._arrived:
                self.lines.append(json.loads(text))
                self._arrived.notify_all()
        with self._arrived:
            self._arrived.notify_all()

    def wait_for(self, test: Callable[[dict], bool], timeout_s: float) -> dict:
        """The first line that passes `test`; RuntimeError when the twin ended or `timeout_s` passed first."""
        deadline = time.monotonic() + timeout_s
        with self._arrived:
            while True:
                found = next((line for line in self.lines if test(line)), None)
                if found is not None:
                    return found
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the twin ended or said nothing in time: {self.last_words()}")
                self._arrived.wait(0.5)

    def last_words(self) -> str:
        text = self.stderr_path.read_text(errors="replace").strip() if self.stderr_path.exists() else ""
        return text.splitlines()[-1] if text else f"exit status {self.process.poll()}"

    def ask(self, request: str, timeout_s: float = 30.0) -> None:
        """Ask the twin's person for a chore (`chessboard`, `discs`, `clear`, `play`) and wait until it is done."""
        done = len([line for line in self.lines if line.get("done") == request])
        self.process.stdin.write(request + "\n")
        self.process.stdin.flush()
        self.wait_for(lambda line: line.get("done") == request and self._count_done(request) > done, timeout_s)

    def _count_done(self, request: str) -> int:
        return len([line for line in self.lines if line.get("done") == request])

    @property
    def moves(self) -> list[dict]:
        return [line for line in self.lines if "move" in line]

    @property
    def agreements(self) -> list[bool]:
        return [line["agrees"] for line in self.lines if "agrees" in line]

    def close(self) -> None:
        """End the twin: SIGTERM, then SIGKILL if it has not stopped within 10 s."""
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._stderr.close()

    def __enter__(self) -> TwinProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def stream_gives_newest_frame(folder: Path, pause_s: float = 4.0) -> bool:
    """Whether `--camera URL` (vision.cameras.open_camera) gives frames of now after the reader paused (as the game
    does while its arm moves), not the ones its socket buffered meanwhile: buffered frames come several at once."""
    from vision.cameras import open_camera

    with TwinProcess(["--protocol", "joint", "--folder", str(folder)], folder) as twin:
        with open_camera(twin.info["camera"]) as camera:
            camera.read()
            time.sleep(pause_s)
            at_once = 0
            for _ in range(STALE_READS):
                started = time.monotonic()
                camera.read()
                at_once += time.monotonic() - started < STALE_READ_S
    return at_once < STALE_READS - 1


def answer_as_person(question: str) -> str:
    """What the person at the twin's table answers: the board is empty at the start; one game is enough."""
    return "y" if "empty" in question else "n"


@dataclass
class Terminal:
    """What `play` said at its terminal, and its exit status."""

    status: int | None = None
    transcript: str = ""
    questions: list[str] = field(default_factory=list)


def play_at_terminal(
    play_args: list[str],
    timeout_s: float = GAME_TIMEOUT_S,
    stop_when: Callable[[], bool] | None = None,
    answer: Callable[[str], str] = answer_as_person,
) -> Terminal:
    """Run `c4robot play ARGS` with a terminal for its input, answering each `[y/N]` question; Ctrl-C (SIGINT) once
    `stop_when()` is true or at `timeout_s`."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [*C4ROBOT, "play", *play_args], stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    os.close(follower)
    terminal = Terminal()
    deadline = time.monotonic() + timeout_s
    try:
        while process.poll() is None:
            if time.monotonic() > deadline or (stop_when is not None and stop_when()):
                process.send_signal(signal.SIGINT)
                break
            readable, _, _ = select.select([process.stdout], [], [], 0.2)
            if readable:
                terminal.transcript += os.read(process.stdout.fileno(), 65536).decode(errors="replace")
                if terminal.transcript.rstrip().endswith("[y/N]"):
                    question = terminal.transcript.rstrip().splitlines()[-1]
                    terminal.questions.append(question)
                    terminal.transcript += "\n"
                    os.write(leader, (answer(question) + "\n").encode())
        stopping_by = time.monotonic() + STOP_TIMEOUT_S
        while process.poll() is None and time.monotonic() < stopping_by:  # drained: a full pipe would block its exit
            if select.select([process.stdout], [], [], 0.2)[0]:
                terminal.transcript += os.read(process.stdout.fileno(), 65536).decode(errors="replace")
        terminal.status = process.wait(1.0)
        terminal.transcript += process.stdout.read().decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        os.close(leader)
    return terminal


@dataclass
class TwinGame:
    """One bench game: what the game logged, what the twin saw, and the verdicts."""

    seed: int
    robot_first: bool
    summary: dict = field(default_factory=dict)
    twin_moves: str = ""
    agreements: list[bool] = field(default_factory=list)
    failure: str | None = None
    wall_s: float = 0.0
    calibration_s: float | None = None  # None: played on the twin's truth setup

    @property
    def finished(self) -> bool:
        return bool(self.summary.get("winner"))

    @property
    def agrees(self) -> bool:
        """The game's moves were the twin's after every move it saved, and at the end."""
        return bool(self.agreements) and all(self.agreements) and self.summary.get("moves") == self.twin_moves

    @property
    def false_events(self) -> list[str]:
        """Events said when no one misbehaved (the twin's person never does), but for a hand that lingers."""
        said = [e["message"] if isinstance(e, dict) else str(e) for e in self.summary.get("events", [])]
        return [e for e in said if not any(w in e.lower() for w in COVERED_WORDS)]


def play_twin_game(
    protocol: str,
    room: str,
    seed: int,
    robot_first: bool,
    opponent: str,
    time_ms: float,
    folder: Path,
    calibrate: bool = True,
) -> TwinGame:
    """One whole game through the real path against a fresh twin: the table calibrated through the real commands
    first (`calibrate`), else played on the twin's truth setup."""
    from robot.cli.twin_calibration import calibrate_table
    from robot.game.log import GameLog

    game = TwinGame(seed, robot_first)
    log_path = folder / f"game-{seed}.json"
    serve = ["--protocol", protocol, "--room", room, "--seed", str(seed), "--opponent", opponent]
    serve += ["--game-log", str(log_path), "--folder", str(folder)] + (["--robot-first"] if robot_first else [])
    started = time.monotonic()
    try:
        with TwinProcess(serve, folder) as twin:
            info = twin.info
            setup = info["truth_setup"]
            if calibrate:
                setup = calibrate_table(twin, folder / f"setup-{seed}.toml")
                game.calibration_s = time.monotonic() - started
            play = ["--serial", info["port"], "--camera", info["camera"], "--config", str(setup)]
            play += ["--log", str(log_path), "--time-ms", str(time_ms), "--seed", str(seed)]
            terminal = play_at_terminal(play + (["--robot-first"] if robot_first else []))
            time.sleep(1.0)  # the twin's last look at the game's log
            game.twin_moves = "".join(str(line["column"]) for line in twin.moves)
            game.agreements = twin.agreements
        if log_path.exists():
            game.summary = GameLog.load(log_path).summary()
        if terminal.status != 0:
            lines = [line for line in terminal.transcript.splitlines() if line.startswith("c4robot:")]
            game.failure = lines[-1] if lines else f"play ended with status {terminal.status}"
    except (OSError, RuntimeError, ValueError) as error:  # a calibration step too (CalibrationStepError)
        game.failure = str(error)
    game.wall_s = time.monotonic() - started
    return game


def run_twin_bench(args: argparse.Namespace) -> int:
    """Play the games, print the table (or the JSON summary); exit status 1 unless all finished in agreement."""
    from robot.game.twin import TwinOptions

    TwinOptions(protocol=args.protocol, room=args.room, opponent=args.opponent)  # a bad one in one sentence
    games = []
    with tempfile.TemporaryDirectory(prefix="c4twin-bench-") as folder:
        for index in range(args.games):
            game = play_twin_game(
                args.protocol,
                args.room,
                args.seed + index,
                index % 2 == 0,
                args.opponent,
                args.time_ms,
                Path(folder),
                calibrate=not args.truth_setup,
            )
            games.append(game)
            if not args.json:
                _print_game(index + 1, game)
    turns = [turn for game in games for turn in game.summary.get("turns", [])]
    result = {
        "games": len(games),
        "finished": sum(game.finished for game in games),
        "agreement": sum(game.agrees for game in games),
        "false_events": sum(len(game.false_events) for game in games),
        "robot_turns": len(turns),
        "median_arm_s": round(statistics.median(t["arm_s"] for t in turns), 2) if turns else None,
        "median_vision_s": round(statistics.median(t["vision_s"] for t in turns), 3) if turns else None,
        "calibrated": not args.truth_setup,
        "median_calibration_s": _median([game.calibration_s for game in games if game.calibration_s is not None]),
        "failures": [game.failure for game in games if game.failure],
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(
            f"\n{args.protocol} protocol, {args.room} room: {result['finished']}/{len(games)} finished, "
            f"{result['agreement']}/{len(games)} in agreement, {result['false_events']} false events; "
            f"median robot turn: arm {result['median_arm_s']} s, vision {result['median_vision_s']} s; "
            + (
                f"calibrated through the commands, median {result['median_calibration_s']} s"
                if result["calibrated"]
                else "played on the twin's truth setup"
            )
        )
    return 0 if result["finished"] == result["agreement"] == len(games) and not result["false_events"] else 1


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _print_game(number: int, game: TwinGame) -> None:
    first = "first" if game.robot_first else "second"
    winner = game.summary.get("winner") or "-"
    print(
        f"game {number} (seed {game.seed}, robot {first}): {winner}, {len(game.summary.get('moves', ''))} moves, "
        f"agree {'yes' if game.agrees else 'no'}, false events {len(game.false_events)}, {game.wall_s:.0f} s"
        + ("" if game.calibration_s is None else f" ({game.calibration_s:.0f} s calibrating)")
        + (f"; {game.failure}" if game.failure else ""),
        flush=True,
    )
