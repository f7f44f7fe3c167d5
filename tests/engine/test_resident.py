"""The resident engine answers `move` over its socket as the search would, within the caller's budget,
refuses what the search refuses, and stands aside for a live resident or replaces a dead one's socket."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.position import Position
from engine.resident import MAX_SOCKET_PATH_BYTES, ask_resident, loading, serve, socket_path, start_resident


def _request(moves: str, known_at: float | None = None, seed: int | None = None) -> dict:
    return {
        "moves": moves,
        "width": 7,
        "height": 6,
        "level": 10,
        "style": "neutral",
        "seed": seed,
        "time_ms": 500.0,
        "known_at": time.monotonic() if known_at is None else known_at,
    }


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60  # the resident loads its kernels first
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.fixture
def resident(tmp_path: Path) -> Iterator[Path]:
    """A resident serving on a socket of its own for this test, quitting 1 s after its last question."""
    path = tmp_path / "c4" / "engine.sock"
    thread = threading.Thread(target=serve, args=(path, 1.0), daemon=True)
    thread.start()
    _wait_for(path)
    yield path
    thread.join(10)
    assert not thread.is_alive() and not path.exists()  # gone after its idle time, socket removed


def test_the_resident_answers_within_the_budget_counted_from_the_caller(resident: Path) -> None:
    moves = "4352"  # off the books: the search's own answer
    known_at = time.monotonic() - 0.2  # the caller knew the position 0.2 s before asking
    answer = ask_resident(_request(moves, known_at), resident)
    assert answer is not None and Position.from_moves(moves).can_play(answer.column)
    assert 200 <= answer.ms <= (time.monotonic() - known_at) * 1000
    again = ask_resident(_request("4", seed=1), resident)  # one resident, many questions
    assert again is not None and again.column == 3 and again.proven  # the opening book's move


def test_the_resident_refuses_what_the_search_refuses(resident: Path) -> None:
    with pytest.raises(ValueError, match="game is over"):
        ask_resident(_request("1212121"), resident)


def test_no_resident_is_no_answer_and_a_dead_ones_socket_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "c4" / "engine-fedcba9876543210.sock"
    assert ask_resident(_request("4"), path) is None  # nothing there: the caller searches itself
    path.parent.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # a resident that died: its socket file stays, nobody listens
    dead.close()
    assert ask_resident(_request("4"), path) is None
    older = path.parent / "engine-0123456789abcdef.sock"  # a dead resident of an engine since edited
    path.rename(older)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()
    serve(path, idle_s=0.01)  # takes the dead one's place, then quits for want of questions
    assert not path.exists() and not older.exists()


def test_a_second_resident_stands_aside(resident: Path) -> None:
    started = time.monotonic()
    serve(resident, idle_s=60)  # a live resident has the socket: returns at once
    assert time.monotonic() - started < 5
    assert ask_resident(_request("4"), resident) is not None


def test_a_folder_others_may_enter_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / "c4"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    serve(folder / "engine.sock", idle_s=60)  # returns at once, listens nowhere
    assert not (folder / "engine.sock").exists()
    assert ask_resident(_request("4"), folder / "engine.sock") is None


def test_a_resident_started_in_the_background_answers_and_leaves_no_socket_when_killed(tmp_path: Path) -> None:
    path = tmp_path / "c4" / "engine-fedcba9876543210.sock"
    process = start_resident(path)
    assert process is not None
    try:
        _wait_for(path)
        answer = ask_resident(_request("4"), path)
        assert answer is not None and answer.column == 3
    finally:
        process.terminate()
        process.wait(30)
    assert not path.exists()


def test_a_resident_is_started_once_while_it_loads(tmp_path: Path) -> None:
    """Calls during a load (book answers, or callers waiting for it) start no second one."""
    path = tmp_path / "c4" / "engine-fedcba9876543210.sock"
    process = start_resident(path)
    assert process is not None
    try:
        assert loading(path) and start_resident(path) is None
        _wait_for(path)
        deadline = time.monotonic() + 10
        while loading(path) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not loading(path)  # listening: its marker is gone
        assert ask_resident(_request("4"), path) is not None
    finally:
        process.terminate()
        process.wait(30)
    assert not loading(path)


def test_the_move_client_loads_neither_numpy_nor_numba() -> None:
    """A warm `c4robot move` is the CLI plus a question to the resident: loading numpy (~70 ms) or numba
    (~190 ms) in the client would take it past the 0.3 s a warm move may take."""
    import subprocess
    import sys

    probe = (
        "import sys; from robot.cli.main import build_parser; build_parser();"
        "from robot.cli.player_commands import run_move; from engine import resident, search;"
        "from engine.position import Position; Position.from_moves('4453').play(2);"
        "print(sorted(m for m in ('numpy', 'numba', 'cv2') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_a_runtime_folder_too_deep_for_a_socket_gives_way_to_a_shorter_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A Unix socket's path holds about 100 bytes: a deeper one made every resident die unseen at its bind
    (pytest-xdist's tmp_path is that deep), and every move then loaded the engine itself."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/1000")
    assert socket_path().parent == Path(f"/run/user/1000/c4robot-{os.getuid()}")
    deep = tmp_path / ("d" * 100)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    path = socket_path()
    assert len(os.fsencode(path)) <= MAX_SOCKET_PATH_BYTES and not path.is_relative_to(deep)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as too_deep:
        deep.mkdir()
        with pytest.raises(OSError, match="too long"):
            too_deep.bind(str(deep / path.relative_to(path.parent.parent)))
