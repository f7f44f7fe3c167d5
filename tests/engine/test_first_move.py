"""engine.resident.answer_move: a cold `c4robot move` keeps the value past the books by waiting for the
engine, says how long it waited, and still answers at once where the books or the rule decide."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.position import Position
from engine.quick_answer import quick_answer, rule_keeps_value
from engine.resident import answer_move
from engine.solver import Solver

ROOT = Path(__file__).resolve().parents[2]
DRAWN_ONE_WAY = "52372553542"  # 11 plies, past the books: only column 3 keeps the draw, the rule plays 4
WON_ONE_WAY = "57371621743"  # only column 5 keeps the win, the rule plays 4

COLD_MOVE = """
import json, sys, time
from engine.resident import answer_move

known_at = time.monotonic()
answer = answer_move({"moves": sys.argv[1], "width": 7, "height": 6, "level": 10, "style": "neutral",
                      "seed": None, "time_ms": 500.0, "known_at": known_at})
print(json.dumps({"column": answer.result.column, "depth": answer.result.depth, "ms": answer.result.ms,
                  "waited_ms": answer.waited_ms, "by": answer.answered_by, "total_s": time.monotonic() - known_at,
                  "numba": "numba" in sys.modules}))
"""


def _cold_move(moves: str, **env: str) -> dict:
    """`answer_move` in a fresh process: no kernel loaded, as the first `c4robot move` of a session."""
    run = subprocess.run(
        [sys.executable, "-c", COLD_MOVE, moves],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


def _keeps_value(moves: str, column: int) -> bool:
    position = Position.from_moves(moves)
    solver = Solver(16)
    root = solver.solve(position, weak=True).score
    child = position.play(column)
    return child.is_over() or -solver.solve(child, weak=True).score >= root


@pytest.mark.parametrize("moves", [DRAWN_ONE_WAY, WON_ONE_WAY])
def test_the_positions_need_the_engine(moves: str) -> None:
    """What makes the tests below able to fail: the rule alone would lose the value here."""
    position = Position.from_moves(moves)
    assert not rule_keeps_value(position)
    assert not _keeps_value(moves, quick_answer(position, time.perf_counter()).column)


def test_a_cold_move_past_the_books_loads_the_engine_and_keeps_the_value() -> None:
    answer = _cold_move(DRAWN_ONE_WAY, C4ROBOT_RESIDENT="0")
    assert answer["by"] == "this process" and answer["numba"]
    assert answer["waited_ms"] > 0 and answer["ms"] <= 500 * 1.1  # the budget begins once the engine is loaded
    assert answer["total_s"] * 1000 >= answer["waited_ms"] + answer["ms"] - 1
    assert _keeps_value(DRAWN_ONE_WAY, answer["column"])


def test_a_position_the_books_know_is_answered_at_once_without_the_engine() -> None:
    answer = _cold_move("4", C4ROBOT_RESIDENT="0")
    assert answer == {**answer, "by": "book", "waited_ms": 0.0, "numba": False, "column": 3}
    assert answer["total_s"] < 1.5  # numpy and the books only (the engine alone takes longer to load)


def test_the_rule_answers_at_once_where_it_keeps_the_value() -> None:
    moves = "42364767345"  # past the books; every move but the block of column 5 loses at once
    assert rule_keeps_value(Position.from_moves(moves))
    request = {"moves": moves, "width": 7, "height": 6, "level": 10, "style": "neutral", "seed": None}
    answer = answer_move({**request, "time_ms": 500.0, "known_at": time.monotonic()})
    assert (answer.answered_by, answer.waited_ms, answer.result.column) == ("rule", 0.0, 4)
    assert _keeps_value(moves, answer.result.column)


def _serving_pid(path: Path) -> int:
    """The pid of the process listening on the Unix socket `path` (Linux's SO_PEERCRED)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.connect(str(path))
        credentials = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", credentials)[0]


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    """A private runtime folder short enough for a Unix socket's path (pytest-xdist's tmp_path is not)."""
    with tempfile.TemporaryDirectory(prefix="c4-") as folder:
        yield Path(folder)


@pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="finds the resident to stop it by SO_PEERCRED (Linux)")
def test_a_cold_move_waits_for_a_new_resident_and_the_next_call_asks_it(runtime_dir: Path) -> None:
    env = {"C4ROBOT_RESIDENT": "1", "XDG_RUNTIME_DIR": str(runtime_dir)}
    # The kernels cached first, as on any later run: a test beside this one may have compiled them under another
    # clock, and a call that compiles answers itself (a resident would take as long).
    prepare = "from engine.preparation import prepare_engine; prepare_engine(print)"
    subprocess.run([sys.executable, "-c", prepare], env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, check=True)
    first = _cold_move(WON_ONE_WAY, **env)
    sockets = list(runtime_dir.glob("c4robot-*/engine-*.sock"))
    try:
        assert first["by"] == "resident" and first["waited_ms"] > 0 and not first["numba"]
        assert _keeps_value(WON_ONE_WAY, first["column"])
        second = _cold_move(DRAWN_ONE_WAY, **env)
        assert second["by"] == "resident" and second["waited_ms"] == 0.0 and not second["numba"]
        assert _keeps_value(DRAWN_ONE_WAY, second["column"])
    finally:
        for path in sockets:
            os.kill(_serving_pid(path), signal.SIGTERM)
