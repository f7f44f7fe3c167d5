"""`c4robot` run in other processes as a person runs it: `c4robot sim serve` (the digital twin) and `c4robot play` at
a terminal (a pseudo-terminal whose yes-or-no questions are answered as the person would).

`TwinProcess` starts a twin and reads its JSON lines (the truth after every move, and whether the game's log agrees);
it always ends the twin, whatever happens. `play_at_terminal` runs `play` and answers its questions; Ctrl-C ends it.
The twin bench (robot.cli.twin_bench), the twin's calibration (robot.cli.twin_calibration) and the tests use both.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Ctrl-C reaches the command even when this process was started with SIGINT ignored (a background job).
C4ROBOT = (
    sys.executable,
    "-c",
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); from robot.cli import main; "
    "sys.exit(main())",
)
START_TIMEOUT_S = 90.0
GAME_TIMEOUT_S = 900.0
STOP_TIMEOUT_S = 30.0  # from Ctrl-C to the end of `play` (its log saved, the arm stopped)
STALE_READ_S = 0.03  # a read faster than this came out of a buffer, not from the camera (10 frames a second)
STALE_READS = 4


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


@contextlib.contextmanager
def at_terminal(command: list[str]) -> Iterator[tuple[subprocess.Popen, int]]:
    """`command` run with a pseudo-terminal for its input (its leader's descriptor is given with the process) and a
    pipe for its output, as a person's terminal would show it; killed if still running at the end."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    os.close(follower)
    try:
        yield process, leader
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        os.close(leader)


def output_now(process: subprocess.Popen, wait_s: float) -> str:
    """What the process has written, waiting `wait_s` at most for something; "" if nothing came."""
    if select.select([process.stdout], [], [], wait_s)[0]:
        return os.read(process.stdout.fileno(), 65536).decode(errors="replace")
    return ""


def play_at_terminal(
    play_args: list[str],
    timeout_s: float = GAME_TIMEOUT_S,
    stop_when: Callable[[], bool] | None = None,
    answer: Callable[[str], str] = answer_as_person,
) -> Terminal:
    """Run `c4robot play ARGS` with a terminal for its input, answering each `[y/N]` question; Ctrl-C (SIGINT) once
    `stop_when()` is true or at `timeout_s`."""
    terminal = Terminal()
    deadline = time.monotonic() + timeout_s
    with at_terminal([*C4ROBOT, "play", *play_args]) as (process, leader):
        while process.poll() is None:
            if time.monotonic() > deadline or (stop_when is not None and stop_when()):
                process.send_signal(signal.SIGINT)
                break
            said = output_now(process, 0.2)
            terminal.transcript += said
            if said and terminal.transcript.rstrip().endswith("[y/N]"):  # answered once, as it was asked
                question = terminal.transcript.rstrip().splitlines()[-1]
                terminal.questions.append(question)
                terminal.transcript += "\n"
                os.write(leader, (answer(question) + "\n").encode())
        stopping_by = time.monotonic() + STOP_TIMEOUT_S
        while process.poll() is None and time.monotonic() < stopping_by:  # drained: a full pipe would block its exit
            terminal.transcript += output_now(process, 0.2)
        terminal.status = process.wait(1.0)
        terminal.transcript += process.stdout.read().decode(errors="replace")
    return terminal
