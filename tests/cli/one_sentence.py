"""What every failure of `c4robot` must look like, and how the CLI tests run it: in-process or as a program.

A failure is one line on stderr starting "c4robot: ", a non-zero exit, no traceback, no "this is a bug"
(the catch-all's mark), within a bound that tells a hang from slowness; files that existed are unchanged.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from robot.cli.main import BUG_MARK, main

ROOT = Path(__file__).resolve().parents[2]
HANG_BOUND_S = 60  # a bad input is refused in seconds; this only tells a hang (or a crawl) from that


class Hang(AssertionError):
    """The command did not end within HANG_BOUND_S."""


@contextlib.contextmanager
def hang_bound(seconds: float = HANG_BOUND_S) -> Iterator[None]:
    def alarm(*_: object) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_in_process(argv: list[str], stdin_text: str = "") -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `c4robot argv` run by robot.cli.main in this process."""
    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin_text)
    try:
        with hang_bound(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    finally:
        sys.stdin = saved_stdin
    return status, out.getvalue(), err.getvalue()


def run_program(argv: list[str], stdin_text: str = "", timeout_s: float = HANG_BOUND_S) -> subprocess.CompletedProcess:
    """`c4robot argv` as a separate program (what a person runs), with a bound that catches a hang."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-c", "import sys; from robot.cli import main; sys.exit(main())", *argv],
        input=stdin_text,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        cwd=ROOT,
        env=env,
    )


def assert_one_sentence(status: int, err: str, what: object = "") -> None:
    """A failure as the project promises it: non-zero, one line, no traceback, not the catch-all's 'bug'."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert status != 0, f"{what}: exit 0 for a bad input"
    assert "Traceback" not in err, f"{what}: a traceback\n{err}"
    assert len(lines) == 1, f"{what}: {len(lines)} lines on stderr:\n{err[:2000]}"
    assert lines[0].startswith("c4robot"), f"{what}: {lines[0]!r}"
    assert BUG_MARK not in err, f"{what}: an unforeseen exception: {lines[0]}"


def snapshot(folder: Path) -> dict[Path, bytes]:
    """Every file under `folder` and its bytes (lock files aside: they are made, never changed)."""
    return {path: path.read_bytes() for path in folder.rglob("*") if path.is_file() and not path.name.endswith(".lock")}


def assert_unchanged(before: dict[Path, bytes], folder: Path) -> None:
    after = snapshot(folder)
    for path, content in before.items():
        assert path in after, f"{path} was removed"
        assert after[path] == content, f"{path} was changed"
