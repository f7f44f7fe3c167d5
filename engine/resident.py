"""The engine kept loaded between `c4robot move` calls: a process that answers searches on a Unix socket.

Why: a fresh process spends longer loading numba and the kernels before its first search than the
whole 500 ms budget. So a `move` (`answer_move`) asks the resident (`ask_resident`: a connect and a JSON
line each way), which takes little more than Python's own start. Without one it answers at once only
where the books or a rule that keeps the value decide (engine/quick_answer.py); elsewhere it starts a
resident (`start_resident`, one at a time: a marker names the one loading) and waits for it, and its
search's budget begins when the engine is ready: the answer says how long it waited. The resident answers one search at a time, each within the budget
counted from when its caller knew the position (time.monotonic() is the same clock in every process),
keeps its solver's table between questions as a game does, and quits after IDLE_S without one. Its
socket's name carries the engine sources' fingerprint: an edited engine is never asked, a new resident
starts for it. C4ROBOT_RESIDENT=0 turns it off (each call then loads the engine itself, where needed).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.kernel_cache import sources_fingerprint
from engine.search_types import SearchResult

if TYPE_CHECKING:
    from engine.position import Position

IDLE_S = 600.0  # a resident quits after this long without a question
CONNECT_TIMEOUT_S = 0.05  # a live resident accepts at once: longer means none is there
ANSWER_SLACK_S = 5.0  # beyond the budget, before a caller gives up on a resident's answer
MAX_REQUEST_BYTES = 4096
RESIDENT_WAIT_S = 120.0  # a resident still loading after this long (a swamped machine) is given up on
POLL_S = 0.02  # how often a caller waiting for a new resident looks whether it listens yet
MAX_SOCKET_PATH_BYTES = 103  # a Unix socket's path: 108 bytes on Linux, 104 on macOS, with the closing NUL


@dataclass(frozen=True)
class MoveAnswer:
    """A `move`'s answer: the search's result, the milliseconds the call waited for the engine to load
    before the search's budget began (0 when it was loaded or not needed), and who answered: "resident",
    "book", "rule" (engine/quick_answer.py, where it keeps the value) or "this process"."""

    result: SearchResult
    waited_ms: float
    answered_by: str


def enabled() -> bool:
    """False when C4ROBOT_RESIDENT=0 (tests, or a user who wants no process left behind)."""
    return os.environ.get("C4ROBOT_RESIDENT", "1") != "0"


def socket_path() -> Path:
    """This user's socket for the engine's current sources, in a folder only this user may enter: under
    XDG_RUNTIME_DIR, else the temporary folder, else /tmp, the first whose path a Unix socket can take."""
    name = Path(f"c4robot-{os.getuid()}") / f"engine-{sources_fingerprint()[:16]}.sock"
    bases = [os.environ.get("XDG_RUNTIME_DIR"), tempfile.gettempdir(), "/tmp"]
    paths = [Path(base) / name for base in bases if base]
    return next((path for path in paths if len(os.fsencode(path)) <= MAX_SOCKET_PATH_BYTES), paths[-1])


def _private(folder: Path) -> bool:
    """True when `folder` is this user's and nobody else's (not a folder someone else made in /tmp)."""
    try:
        status = folder.stat()
    except OSError:
        return False
    return status.st_uid == os.getuid() and status.st_mode & 0o077 == 0


def ask_resident(request: dict, path: Path | None = None) -> SearchResult | None:
    """The resident's answer to `request` (see `answer`), or None when no resident answers in time.

    Raises ValueError with the resident's sentence when it refuses the request (a finished game, ...).
    """
    path = path or socket_path()
    if not _private(path.parent):
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        try:
            connection.settimeout(CONNECT_TIMEOUT_S)
            connection.connect(str(path))
            connection.settimeout(request["time_ms"] / 1000.0 + ANSWER_SLACK_S)
            connection.sendall(json.dumps(request).encode() + b"\n")
            reply = json.loads(_read_line(connection) or "null")
        except (OSError, ValueError):
            return None
    if not isinstance(reply, dict):
        return None
    if "error" in reply:
        raise ValueError(reply["error"])
    return SearchResult(**{**reply, "pv": tuple(reply["pv"]), "column_scores": tuple(reply["column_scores"])})


def start_resident(path: Path | None = None) -> subprocess.Popen | None:
    """Start a resident in the background, detached from this process and its terminal; None if it cannot,
    or if one is loading already (`loading`): calls during a load do not each start another."""
    path = path or socket_path()
    if loading(path):
        return None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(path.parent):
            return None
        process = subprocess.Popen(
            [sys.executable, "-m", "engine.resident", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
        _loading_marker(path).write_text(str(process.pid))
    except OSError:
        return None
    return process


def loading(path: Path) -> bool:
    """True while a resident started for `path` loads the engine (its marker names a live process)."""
    try:
        pid = int(_loading_marker(path).read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True


def _loading_marker(path: Path) -> Path:
    """The file that names the resident loading for `path`; it removes it once it listens, or gives up."""
    return path.with_name(path.name + ".loading")


def answer_move(request: dict, say: Callable[[str], None] = lambda _line: None) -> MoveAnswer:
    """The move a `c4robot move` call gives for `request` (as `answer` takes it): the resident's; else at
    once where the books or the rule keep the value; else the engine's, once it is loaded (a resident
    started and waited for, or this process when residents are off or none comes up). `say` hears the
    line about a first run's compiling (engine.preparation).

    Raises ValueError for a bad request or a finished game."""
    from engine.levels import level_settings
    from engine.position import Position

    position = Position.from_moves(request["moves"], request["width"], request["height"])
    started = time.perf_counter() - max(0.0, time.monotonic() - request["known_at"])
    if position.is_over():
        raise ValueError("the game is over: there is no move to search")
    if enabled():
        result = ask_resident(request)
        if result is not None:
            return MoveAnswer(result, 0.0, "resident")
    at_once = _answer_without_engine(position, level_settings(request["level"]).exact, started)
    if at_once is not None:
        if enabled():
            start_resident()  # loaded by the next call that needs it
        return at_once
    from engine.preparation import prepare_engine

    if prepare_engine(say) is None and enabled():  # cached kernels: a resident loads as fast as this process
        waited = _ask_new_resident(request)
        if waited is not None:
            return MoveAnswer(waited[0], (waited[1] - started) * 1000, "resident")
    return _answer_here(request, position, started)


def _answer_without_engine(position: Position, exact: bool, started: float) -> MoveAnswer | None:
    """The books' move, or the rule's where it keeps the value (level 10 only); None where neither decides."""
    from engine.package_books import book_answer, early_book, opening_book
    from engine.quick_answer import quick_answer, rule_keeps_value

    if not exact:
        return None
    for book in (opening_book(), early_book()):
        booked = book_answer(position, book, started)
        if booked is not None:
            return MoveAnswer(booked, 0.0, "book")
    return MoveAnswer(quick_answer(position, started), 0.0, "rule") if rule_keeps_value(position) else None


def _ask_new_resident(request: dict) -> tuple[SearchResult, float] | None:
    """Start a resident, wait until it listens and ask it, the budget counted from then: its answer and
    when (a time.perf_counter() reading) the budget began; None if it died or did not come up in time."""
    path = socket_path()
    process = start_resident(path)  # None: one is loading already (or none can start)
    give_up = time.monotonic() + RESIDENT_WAIT_S
    while time.monotonic() < give_up:
        if path.exists():
            asked_at = time.perf_counter()
            result = ask_resident({**request, "known_at": time.monotonic()}, path)
            if result is not None:
                return result, asked_at
        elif not loading(path) and (process is None or process.poll() is not None):
            return None  # none is loading: it died before listening, or none could start
        time.sleep(POLL_S)
    return None


def _answer_here(request: dict, position: Position, started: float) -> MoveAnswer:
    """Load the engine in this process, then search with the whole budget (a resident is left for later)."""
    from engine.search import Limit, search, warm_up

    warm_up(position.width, position.height)
    ready = time.perf_counter()
    rng = random.Random(request["seed"]) if request["seed"] is not None else None
    limit = Limit(time=request["time_ms"] / 1000.0)
    result = search(position, limit, level=request["level"], rng=rng, style=request["style"], started=ready)
    if enabled():
        start_resident()
    return MoveAnswer(result, (ready - started) * 1000, "this process")


def answer(request: dict) -> SearchResult:
    """The search a `move` asks for: `moves`, `width`, `height`, `level`, `style`, `seed` (or None),
    `time_ms`, and `known_at`, the caller's time.monotonic() when it knew the position."""
    from engine.position import Position
    from engine.search import Limit, search

    position = Position.from_moves(request["moves"], request["width"], request["height"])
    started = time.perf_counter() - max(0.0, time.monotonic() - request["known_at"])
    rng = random.Random(request["seed"]) if request["seed"] is not None else None
    limit = Limit(time=request["time_ms"] / 1000.0)
    return search(position, limit, level=request["level"], rng=rng, style=request["style"], started=started)


def serve(path: Path, idle_s: float = IDLE_S) -> None:
    """Answer on `path` until `idle_s` pass without a question; return at once if another resident has it."""
    from engine.search import warm_up

    try:
        if _alive(path):
            return
        warm_up()  # before listening: a caller that finds the socket gets its answer without the load
        listener = _listen(path)
    finally:
        marker = _loading_marker(path)
        with contextlib.suppress(OSError, ValueError):
            if int(marker.read_text()) == os.getpid():  # not another resident's, loading still
                marker.unlink()
    if listener is None:
        return
    try:
        listener.settimeout(idle_s)
        while True:
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                return
            with connection:
                _answer_one(connection)
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            path.unlink()


def _listen(path: Path) -> socket.socket | None:
    """A socket listening on `path`, or None when a live resident listens there already.
    A socket file left by a resident that died is replaced."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _private(path.parent):
        return None
    for old in path.parent.glob("engine-*.sock"):  # those of residents killed, or of an engine since edited
        if old != path and not _alive(old):
            old.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(path))
    except OSError:
        if _alive(path):
            listener.close()
            return None
        path.unlink(missing_ok=True)  # a dead one's socket: take its place
        listener.bind(str(path))
    listener.listen(8)
    return listener


def _alive(path: Path) -> bool:
    """True when a resident listens on `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def _answer_one(connection: socket.socket) -> None:
    """Read one request line, write one reply line; a bad request gets {"error": sentence}."""
    connection.settimeout(1.0)
    try:
        request = json.loads(_read_line(connection) or "null")
        result = answer(request)
        reply = {name: getattr(result, name) for name in SearchResult.__dataclass_fields__}
    except (ValueError, LookupError, TypeError) as error:
        reply = {"error": str(error)}
    with contextlib.suppress(OSError):
        connection.sendall(json.dumps(reply).encode() + b"\n")


def _read_line(connection: socket.socket) -> str:
    """Bytes up to the first newline (at most MAX_REQUEST_BYTES for a request, any length for a reply)."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = connection.recv(MAX_REQUEST_BYTES)
        if not chunk:
            break
        data += chunk
    return data.decode()


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill` too removes the socket (serve's finally)
    serve(Path(sys.argv[1]))
