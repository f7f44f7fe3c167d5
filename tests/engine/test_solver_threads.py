"""The exact solver on several threads sharing one table: the same exact scores as one thread, whichever
thread answers, and the helpers stop and end."""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from engine import Position, Solver
from engine.search_state import MAX_SOLVER_THREADS, THREADS_VARIABLE, solver_threads
from engine.solver import _NO_LIMIT, _Helper, _Job, solve_bits, workspace

HELPER_PREFIX = "c4robot-solver-helper"


def rows_of(shared_dir: Path, name: str, lines: int) -> list[tuple[str, int]]:
    path = shared_dir / "engine" / "testsets" / f"Test_{name}"
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()][:lines]
    return [(moves, int(score)) for moves, score in rows]


def helper_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith(HELPER_PREFIX)]


@pytest.mark.parametrize("threads", [2, 3])
def test_threaded_solves_match_the_test_sets(shared_dir: Path, threads: int) -> None:
    solver = Solver(table_size_mb=16, threads=threads)
    for moves, expected in rows_of(shared_dir, "L2_R2", 12) + rows_of(shared_dir, "L1_R2", 3):
        position = Position.from_moves(moves)
        strong = solver.solve(position)
        assert strong.score == expected, moves
        assert solver.solve(position, weak=True).score == (expected > 0) - (expected < 0), moves
        if strong.column is not None:  # the move it names is perfect, whichever thread named it
            after = position.play(strong.column)
            assert (-solver.solve(after).score if not after.is_over() else 0) == expected, moves


def test_every_first_root_move_gives_the_same_score(shared_dir: Path) -> None:
    """A helper's search, started at another root move, proves the same score, and its column keeps it."""
    entries = np.zeros(2**16, dtype=np.uint64)
    unsigned, signed = workspace(7, 6)
    for moves, expected in rows_of(shared_dir, "L2_R1", 10):
        position = Position.from_moves(moves)
        current, mask = position.bitboards
        for first in range(7):
            entries[:] = 0
            score, _, aborted, column = solve_bits(
                np.uint64(current), np.uint64(mask), position.moves_played, 7, 6, 4, False, -_NO_LIMIT, _NO_LIMIT,
                _NO_LIMIT, np.zeros(2, dtype=np.int64), entries, np.uint64(1), np.zeros(0, dtype=np.uint64),
                np.uint64(0), unsigned, signed, first,
            )  # fmt: skip
            assert not aborted and score == expected, (moves, first)
            if column >= 0 and not position.is_winning_move(column):
                assert -Solver(4).solve(position.play(column)).score == expected, (moves, first)


def test_a_helper_alone_answers_a_job_and_stops_the_others(shared_dir: Path) -> None:
    """The main thread may be the slow one: a helper's finished search is the job's answer."""
    moves, expected = rows_of(shared_dir, "L1_R1", 1)[0]
    position = Position.from_moves(moves)
    current, mask = position.bitboards
    table = Solver(16).table
    stop = np.zeros(2, dtype=np.int64)
    question = (
        np.uint64(current), np.uint64(mask), position.moves_played, 7, 6, 4, False, -_NO_LIMIT, _NO_LIMIT,
        _NO_LIMIT, stop, table.entries, np.uint64(table.generation),
    )  # fmt: skip
    job = _Job(question, stop)
    helper = _Helper(2)
    try:
        helper.give(job)
        waited = time.perf_counter() + 60
        while stop[0] == 0 and time.perf_counter() < waited:
            time.sleep(0.01)
        assert stop[0] == 1 and job.answer is not None and job.answer[0] == expected
    finally:
        helper.retired = True
        helper.give(None)


def test_racing_solves_of_different_roots_share_one_table(shared_dir: Path) -> None:
    """Four threads solve different positions at once in one table (stores and probes racing, no lock):
    every score is still the test set's."""
    rows = rows_of(shared_dir, "L2_R2", 40)
    shared = Solver(16).table
    wrong: list[str] = []

    def solve_every_fourth(start: int) -> None:
        solver = Solver(1)
        solver.table = shared
        for moves, expected in rows[start::4] + rows[start::4]:  # the second round reads the others' entries
            if solver.solve(Position.from_moves(moves)).score != expected:
                wrong.append(moves)

    threads = [threading.Thread(target=solve_every_fourth, args=(start,)) for start in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_a_deadline_stops_every_thread_and_the_solver_goes_on(shared_dir: Path) -> None:
    solver = Solver(table_size_mb=16, threads=2)
    assert solver.solve(Position.from_moves(""), deadline=time.perf_counter() + 0.05) is None
    moves, expected = rows_of(shared_dir, "L2_R1", 1)[0]
    assert solver.solve(Position.from_moves(moves)).score == expected
    # A node-limited solve stays on one thread: it gives up exactly where one thread does.
    assert solver.solve(Position.from_moves("4453"), node_limit=5_000) is None
    assert Solver(16, threads=1).solve(Position.from_moves("4453"), node_limit=5_000) is None


def test_a_collected_solvers_helpers_end(shared_dir: Path) -> None:
    before = set(helper_threads())  # other tests' retired helpers may still be ending
    solver = Solver(table_size_mb=1, threads=3)
    solver.solve(Position.from_moves(rows_of(shared_dir, "L2_R1", 1)[0][0]), weak=True)
    started = set(helper_threads()) - before
    assert len(started) == 2
    del solver
    gc.collect()
    for thread in started:
        thread.join(10)
    assert not any(thread.is_alive() for thread in started)
    with pytest.raises(ValueError, match="give 1 or more"):
        Solver(1, threads=0)


def test_solver_threads_are_one_unless_the_variable_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    assert solver_threads() == 1
    monkeypatch.setenv(THREADS_VARIABLE, "3")
    assert solver_threads() == 3
    monkeypatch.setenv(THREADS_VARIABLE, "cores")
    assert 1 <= solver_threads() <= MAX_SOLVER_THREADS
    monkeypatch.setenv(THREADS_VARIABLE, "many")
    with pytest.raises(ValueError, match="C4ROBOT_SOLVER_THREADS='many'"):
        solver_threads()


def test_a_move_says_how_many_threads_its_solves_use() -> None:
    from engine.search import Limit, search
    from engine.search_state import solver

    result = search(Position.from_moves("4453214"), Limit(time=0.3), use_book=False)
    assert result.threads == solver().threads == solver_threads()
