"""Misbehaving fake arm controllers on a pseudo-terminal, written from the protocols' specs alone.

They test the serial drivers the way a person's table does: a board that resets when a servo stalls,
a cable that is tugged, a USB hub that answers late. Unlike `sim.virtual_firmware` (the project's
own firmware moving the PyBullet arm) these know nothing of the world or of the host's code: each is
a small state machine for one protocol, with one `Fault` injected at the `at`-th command that
changes the arm (a move, the gripper, home), counted from 1 over the device's whole life.

Every command that changes the arm is logged in `executed` when it runs ("STOP" for a stop, and
"RESET" where the device restarted), so a test can check that nothing ran twice and nothing was
skipped. Queries are not logged: asking twice changes nothing.

Faults: "dropped" (the reply never comes), "garbled" (its bytes flipped), "late" (the output stalls
`late_s`), "reset" (the board restarts with the port left open), "reboot" (it restarts and its port
vanishes, back after `back_s` like a USB device; opening the port resets the board, as an Arduino's
DTR line does, so it misses the host's first bytes and then greets as a started board), "early_banner"
(a reboot whose start line is sent as soon as the port is back, before the host has reopened it: the
opening flushes it away), "gone" (the port vanishes for good), "back" (the port vanishes and comes
back after `back_s`, the board untouched), "refused" (an error or alarm instead of running the
command), "silent" (never a word). Servo buses add "servo_restart" (one servo, the gripper, restarts)
and "limits_changed" (a servo's position limits changed behind the host's back).
"""

from __future__ import annotations

import contextlib
import os
import select
import tempfile
import threading
import time
import tty
from dataclasses import dataclass
from pathlib import Path

FAULTS = (
    "dropped",
    "garbled",
    "late",
    "reset",
    "reboot",
    "early_banner",
    "gone",
    "back",
    "refused",
    "silent",
    "servo_restart",
    "limits_changed",
)
TICK_S = 0.002


@dataclass(frozen=True)
class Fault:
    """`kind` (one of FAULTS) strikes at the `at`-th command that changes the arm."""

    kind: str
    at: int = 1

    def __post_init__(self) -> None:
        if self.kind not in FAULTS:
            raise ValueError(f"fault {self.kind!r}: use one of {', '.join(FAULTS)}")


class FakeDevice:
    """A device thread behind a pty; `port` is a stable path (a symlink), absent while the port is gone."""

    banner = b""  # what the board says when it has started

    def __init__(self, fault: Fault | None = None, late_s: float = 3.0, back_s: float = 0.5, speed: float = 10.0):
        self.fault = fault
        self.late_s = late_s
        self.back_s = back_s
        self.speed = speed  # motion runs this many times faster than real time
        self.executed: list[str] = []
        self.changes = 0  # commands that change the arm, received so far
        self.boots = 1
        self._directory = Path(tempfile.mkdtemp(prefix="c4fake-"))
        self.port = str(self._directory / "ttyFAKE")
        self._master: int | None = None
        self._slave: int | None = None
        self._input = b""
        self._output: list[bytes] = []
        self._hold_until = 0.0
        self._back_at: float | None = None
        self._greet_on_return = False
        self._greet_at_return = False
        self._booting = False
        self._running = False
        self._thread: threading.Thread | None = None
        self.power_up()

    # -- what each protocol defines ----------------------------------------------------------

    def power_up(self) -> None:
        """Forget everything a restart forgets."""

    def receive(self) -> None:
        """Take whole commands out of `self._input` and act on them."""

    def tick(self, dt_s: float) -> None:
        """Let motion go on for `dt_s` seconds."""

    # -- fault handling, for the protocols ---------------------------------------------------

    def strikes(self) -> str | None:
        """Count a command that changes the arm; the fault's kind if it strikes now."""
        self.changes += 1
        if self.fault is not None and self.fault.at == self.changes:
            return self.fault.kind
        return None

    def reply(self, data: bytes, fault: str | None = None) -> None:
        """Queue `data` for the host, spoiled by `fault` where it applies to a reply."""
        if fault == "dropped" or (self.fault is not None and self.fault.kind == "silent"):
            return
        if fault == "garbled":
            data = bytes(b ^ 0x2A if b not in b"\r\n" else b for b in data)
        if fault == "late":
            self._hold_until = time.monotonic() + self.late_s
        self._output.append(data)
        if fault in ("reset", "reboot", "early_banner", "gone", "back"):
            self.after_reply(fault)

    def after_reply(self, fault: str) -> None:
        """What happens to the board right after it ran the command the fault struck."""
        self._output.clear()  # the reply is lost with the board or the cable
        if fault in ("reset", "reboot", "early_banner"):
            self.executed.append("RESET")
            self.boots += 1
            self.power_up()
        if fault == "reset" and self.banner:
            self._output.append(self.banner)
        if fault in ("reboot", "early_banner", "gone", "back"):
            self._close_pty()
            self._back_at = None if fault == "gone" else time.monotonic() + self.back_s
            self._greet_on_return = fault == "reboot"
            self._greet_at_return = fault == "early_banner"

    # -- lifetime --------------------------------------------------------------------------

    def start(self) -> FakeDevice:
        self._open_pty()
        self._running = True
        self._thread = threading.Thread(target=self._run, name=f"fake-{type(self).__name__}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        self._close_pty()
        with contextlib.suppress(OSError):
            self._directory.rmdir()

    def __enter__(self) -> FakeDevice:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _open_pty(self) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        link = self._directory / "ttyFAKE.new"
        link.unlink(missing_ok=True)
        link.symlink_to(os.ttyname(self._slave))
        os.replace(link, self.port)
        self._input = b""

    def _close_pty(self) -> None:
        Path(self.port).unlink(missing_ok=True)
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None

    def _run(self) -> None:
        last = time.monotonic()
        while self._running:
            if self._master is None:
                time.sleep(TICK_S)
                if self._back_at is not None and time.monotonic() >= self._back_at:
                    self._back_at = None
                    self._open_pty()
                    self._booting = self._greet_on_return
                    if self._greet_at_return and self.banner:
                        self._output.append(self.banner)
            else:
                readable, _, _ = select.select([self._master], [], [], TICK_S)
                if readable:
                    with contextlib.suppress(OSError):
                        self._input += os.read(self._master, 4096)
                    if self._booting and self._input:  # a board reset by the port's opening misses the first bytes
                        self._booting, self._input = False, b""
                        self._output.append(self.banner)
                self.receive()
                self._flush()
            now = time.monotonic()
            self.tick((now - last) * self.speed)
            last = now

    def _flush(self) -> None:
        if time.monotonic() < self._hold_until:
            return
        while self._output and self._master is not None:
            try:
                os.write(self._master, self._output.pop(0))
            except OSError:
                return

    def take_line(self) -> bytes | None:
        """The next whole line of input (without its end), or None."""
        newline = self._input.find(b"\n")
        if newline < 0:
            return None
        line, self._input = self._input[:newline], self._input[newline + 1 :]
        return line.strip(b"\r ")


class Motion:
    """A queue of timed moves towards target values (joint angles or tool millimetres)."""

    def __init__(self, position: list[float]) -> None:
        self.position = list(position)
        self.queue: list[tuple[list[float], float]] = []
        self._start: list[float] | None = None
        self._elapsed = 0.0

    @property
    def busy(self) -> bool:
        return bool(self.queue)

    def add(self, target: list[float], duration_s: float) -> None:
        self.queue.append((list(target), max(duration_s, 0.0)))

    def halt(self) -> None:
        self.queue.clear()
        self._start = None

    def tick(self, dt_s: float) -> None:
        while self.queue and dt_s > 0:
            target, duration_s = self.queue[0]
            if self._start is None:
                self._start, self._elapsed = list(self.position), 0.0
            used = min(dt_s, duration_s - self._elapsed)
            self._elapsed += used
            dt_s -= used
            fraction = 1.0 if duration_s <= 0 else min(1.0, self._elapsed / duration_s)
            self.position = [a + fraction * (b - a) for a, b in zip(self._start, target, strict=True)]
            if fraction >= 1.0:
                self.queue.pop(0)
                self._start = None
