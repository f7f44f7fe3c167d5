"""A reference solver binary run on the same positions as ours, for `c4robot bench engine versus PATH`.

The reference is Pons' C++ `c4solver` (engine/reference/build_pons.sh builds it): it reads move strings on
stdin and prints `moves score` per line, or `moves score nodes microseconds` when built with the timing
main of that script (its table cleared before each position, untimed, as our bench does). With timings
printed, they are taken as they are; without, each line is sent alone and its round trip timed, minus the
round trip of a position won at once (the pipe's cost, not the search's): a noisier figure, said so in
the result. The binary runs in an empty temporary folder, so it finds no opening book of its own.
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

WON_AT_ONCE = "112233"  # the side to move wins at once: the solver answers without a search
BASELINE_ROUNDS = 30
TIMEOUT_S = 3600.0


class ReferenceSolverError(RuntimeError):
    """The reference binary could not be run, or answered something other than a score per position."""


@dataclass(frozen=True)
class ReferenceRun:
    """Per position: the reference's score and its time in seconds; `timed_by` says how it was timed."""

    scores: list[int]
    seconds: list[float]
    timed_by: str  # "its own clock" or "round trips"


def run_reference(binary: Path, lines: list[str], weak: bool) -> ReferenceRun:
    """Solve `lines` (move strings) with the reference `binary` (`-w`: weak). Raises ReferenceSolverError."""
    if not binary.is_file():
        raise ReferenceSolverError(f"reference solver {binary} not found: build it with engine/reference/build_pons.sh")
    command = [str(binary.resolve())] + (["-w"] if weak else [])
    with tempfile.TemporaryDirectory() as folder:
        fields = _batch(command, lines, folder)
        if all(len(row) >= 4 for row in fields):
            return ReferenceRun(
                [int(row[1]) for row in fields], [float(row[3]) / 1e6 for row in fields], "its own clock"
            )
        return _round_trips(command, lines, folder)


def _batch(command: list[str], lines: list[str], folder: str) -> list[list[str]]:
    """Every line at once; the output's fields per line, checked against the input."""
    try:
        done = subprocess.run(
            command,
            input="".join(f"{line}\n" for line in lines),
            capture_output=True,
            text=True,
            cwd=folder,
            timeout=TIMEOUT_S,
            check=False,
        )
    except OSError as error:
        raise ReferenceSolverError(f"reference solver {command[0]} does not run: {error}") from error
    except subprocess.TimeoutExpired as error:
        raise ReferenceSolverError(f"reference solver {command[0]} took over {TIMEOUT_S:.0f} s") from error
    rows = [row.split() for row in done.stdout.splitlines() if row.strip()]
    if (
        done.returncode != 0
        or len(rows) != len(lines)
        or any(
            len(row) < 2 or row[0] != line or not row[1].lstrip("-").isdigit()
            for row, line in zip(rows, lines, strict=False)
        )
    ):
        said = (done.stderr.strip().splitlines() or ["nothing on stderr"])[-1]
        raise ReferenceSolverError(
            f"reference solver {command[0]} answered {len(rows)} of {len(lines)} positions with 'moves score' "
            f"lines (exit status {done.returncode}; it said: {said})"
        )
    return rows


def _round_trips(command: list[str], lines: list[str], folder: str) -> ReferenceRun:
    """One line at a time, each timed from writing it to reading its answer, minus the pipe's own cost."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        cwd=folder,
    )
    try:

        def ask(line: str) -> tuple[int, float]:
            started = time.perf_counter()
            process.stdin.write(f"{line}\n")
            process.stdin.flush()
            answer = process.stdout.readline().split()
            elapsed = time.perf_counter() - started
            if len(answer) < 2 or answer[0] != line:
                raise ReferenceSolverError(f"reference solver {command[0]} answered {answer!r} to {line!r}")
            return int(answer[1]), elapsed

        baseline = statistics.median(ask(WON_AT_ONCE)[1] for _ in range(BASELINE_ROUNDS))
        answers = [ask(line) for line in lines]
    finally:
        process.kill()
        process.wait()
    return ReferenceRun([score for score, _ in answers], [max(0.0, s - baseline) for _, s in answers], "round trips")
