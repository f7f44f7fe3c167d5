"""A progress line for a step that takes seconds: what it is doing and how long it has taken, so no wait is silent.

At a terminal the line is rewritten in place every second; elsewhere (a log, a pipe) a line is printed when the
step says something new (at most every 2 s) or every 5 s, so a script's output stays short. A thread ticks the seconds, so
a step that cannot report its progress (a simulation running) is still seen to be alive.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

TICK_S = 1.0
CHANGED_LINE_S = 2.0  # off a terminal, a line at most this often when the step says something new
QUIET_LINE_S = 5.0  # and an unchanged line again after this long
WIDTH = 100
CLEAR_LINE = "\033[K"  # ANSI: erase to the end of the line


class ProgressLine:
    """`with ProgressLine("calibrate camera") as progress: progress.say("view 3 of 15")`."""

    def __init__(self, label: str, stream: TextIO | None = None, tick_s: float = TICK_S) -> None:
        self.label = label
        self.stream = sys.stdout if stream is None else stream
        self.in_place = bool(getattr(self.stream, "isatty", lambda: False)())
        self.tick_s = tick_s
        self._text = "starting"
        self._started = time.monotonic()
        self._printed: tuple[str, float] | None = None  # the text last printed and when
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="progress-line", daemon=True)

    def say(self, text: str) -> None:
        """What the step is doing now."""
        with self._lock:
            self._text = text
            self._show()

    def __enter__(self) -> ProgressLine:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopping.set()
        self._thread.join(timeout=2.0)
        if self.in_place and self._printed is not None:
            self.stream.write("\r" + CLEAR_LINE)  # the step's own result lines follow
            self.stream.flush()

    def _tick(self) -> None:
        while not self._stopping.wait(self.tick_s):
            with self._lock:
                self._show()

    def _show(self) -> None:
        elapsed_s = time.monotonic() - self._started
        line = f"{self.label}: {self._text} ({elapsed_s:.0f} s)"[:WIDTH]
        if self.in_place:
            self.stream.write("\r" + line + CLEAR_LINE)
        elif self._printed is None or elapsed_s - self._printed[1] >= (
            CHANGED_LINE_S if self._printed[0] != self._text else QUIET_LINE_S
        ):
            self.stream.write(line + "\n")
        else:
            return
        self.stream.flush()
        self._printed = (self._text, elapsed_s)
