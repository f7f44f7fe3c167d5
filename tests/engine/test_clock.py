"""engine.clock: the kernels' clock on every CPU: its choice, its calibration against the wall clock for a
counter of tens of MHz, and whole searches and solves that keep their deadlines under each source."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import clock

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("machine", "llvm_major", "expected"),
    [
        ("x86_64", 14, True),
        ("AMD64", 22, True),
        ("aarch64", 15, False),  # PMCCNTR_EL0 (traps) or a constant 0
        ("aarch64", 20, True),  # CNTVCT_EL0
        ("arm64", 22, True),
        ("armv7l", 22, False),
        ("riscv64", 22, False),
        ("ppc64le", 22, False),
    ],
)
def test_the_counter_is_used_only_where_user_programs_may_read_it(
    machine: str, llvm_major: int, expected: bool
) -> None:
    assert clock.counter_expected_to_work(machine, llvm_major) is expected


def test_an_unknown_source_is_refused_in_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(clock.CLOCK_ENV, "sundial")
    with pytest.raises(ValueError, match="C4ROBOT_CLOCK='sundial' is no clock source: give one of"):
        clock.choose_source()
    monkeypatch.setenv(clock.CLOCK_ENV, " Portable ")
    assert clock.choose_source() == "portable"


@pytest.mark.parametrize("mhz", [19.2, 24.0, 54.0])
def test_calibration_measures_a_counter_of_tens_of_mhz(mhz: float) -> None:
    """A fake counter at an ARM board's generic-timer rate, read against the real wall clock."""
    offset = 123_456_789

    def read() -> int:
        return offset + int(time.perf_counter_ns() * mhz / 1000)

    period = clock.calibrate(read, span_s=0.02)
    assert period == pytest.approx(1 / (mhz * 1e6), rel=2e-3)


def test_calibration_retakes_a_reading_the_scheduler_interrupted() -> None:
    """Virtual time: the first reading of the counter is preempted for 10 ms between its wall-clock
    brackets; taken as it is, it would skew the period by a fifth."""
    now = [0.0]
    preempted = [True]

    def wall() -> float:
        now[0] += 1e-6
        return now[0]

    def read() -> int:
        if preempted[0]:
            preempted[0] = False
            now[0] += 0.01
        return int(now[0] * 20e6)  # 20 MHz

    period = clock.calibrate(read, wall, span_s=0.05)
    assert period == pytest.approx(50e-9, rel=1e-3)


def test_calibration_waits_for_a_counter_slower_than_its_span() -> None:
    now = [0.0]

    def wall() -> float:
        now[0] += 1e-5
        return now[0]

    period = clock.calibrate(lambda: int(now[0] * 10), wall, span_s=0.05)  # 10 Hz
    assert period == pytest.approx(0.1, rel=0.05)


ENGINE_UNDER_A_CLOCK = """
import json, time
from engine import Position, Solver, clock
from engine.search import Limit, search, warm_up

warm_up()
solver = Solver()
hard = Position.from_moves("4")  # minutes of solving: only the deadline stops it
started = time.perf_counter()
stopped = solver.solve(hard, weak=True, deadline=started + 0.15)
solve_s = time.perf_counter() - started
lines = ["2252576253462244111563365343671351441", "7422341735647741166133573473242566"]
results = solver.solve_many([Position.from_moves(moves) for moves in lines])
started = time.perf_counter()
answer = search(Position.from_moves("2314"), Limit(time=0.2))  # past the books
print(json.dumps({
    "source": clock.SOURCE, "period": clock.seconds_per_tick(), "stopped": stopped is None, "solve_s": solve_s,
    "scores": [r.score for r in results], "elapsed": [r.elapsed_s for r in results],
    "search_s": time.perf_counter() - started, "column": answer.column,
}))
"""


@pytest.mark.parametrize(("source", "period"), [("portable", 1e-9), ("slow", clock.SLOW_TICK_NS * 1e-9)])
def test_searches_and_solves_keep_their_deadlines_under_a_forced_clock(source: str, period: float) -> None:
    """In a fresh process (the clock is bound once a process, before the kernels load)."""
    env = {**os.environ, clock.CLOCK_ENV: source, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", ENGINE_UNDER_A_CLOCK], env=env, capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.splitlines()[-1])
    assert report["source"] == source
    assert report["period"] == pytest.approx(period, rel=1e-3)
    # Stopped neither early nor late: a period wrong by even 5x misses these bounds, which leave room for the
    # calibration's own error (a slow counter's deadline came 15 us early once) and for a machine so busy that the
    # process waits its turn for a core.
    assert report["stopped"] and 0.15 * 0.99 <= report["solve_s"] < 0.15 + 0.5
    assert report["scores"] == [-1, 1]
    assert all(0 < seconds < 0.1 for seconds in report["elapsed"])
    assert report["search_s"] < 0.2 + 0.5 and 0 <= report["column"] < 7
