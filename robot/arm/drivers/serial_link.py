"""A serial port that sends and receives lines before deadlines, with clear errors and reopening.

Every blocking call takes a `Deadline` (one monotonic clock helper for the whole driver, as pyserial
does internally), so a silent arm costs a bounded time. Ports are opened with
`serial.serial_for_url`, so a device path, a pty or a pyserial URL (`loop://`, `socket://...`) all
work, and exclusively, so a second program on the same port is reported as busy instead of
stealing replies. Link failures become `PortLostError` (a ConnectionError) naming the port.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import time

import serial

try:
    from termios import error as TermiosError
except ImportError:  # not a POSIX system
    TermiosError = OSError

log = logging.getLogger(__name__)

# What a port raises when the device goes away: pyserial's own error, the OS's, and termios' (tcdrain).
LINK_ERRORS = (OSError, serial.SerialException, TermiosError)

MAX_LINE_BYTES = 512
READ_SLICE_S = 0.05


class PortLostError(ConnectionError):
    """The port went away while in use (cable pulled, device reset, pty closed)."""


class Deadline:
    """A point in monotonic time; `remaining_s` counts down to it and never goes negative."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.end_s = time.monotonic() + timeout_s

    def remaining_s(self) -> float:
        return max(0.0, self.end_s - time.monotonic())

    @property
    def is_expired(self) -> bool:
        return time.monotonic() >= self.end_s


def open_port(port: str, baud_rate: int) -> serial.Serial:
    """Open `port` exclusively; FileNotFoundError when absent, ConnectionError when busy or unusable."""
    if not port:
        raise ValueError("no serial port given: pass --serial PORT or set `port` in the [arm] settings")
    try:
        return serial.serial_for_url(port, baudrate=baud_rate, timeout=READ_SLICE_S, write_timeout=1.0, exclusive=True)
    except serial.SerialException as error:
        cause = error.args[0] if error.args and isinstance(error.args[0], int) else getattr(error, "errno", None)
        text = str(error)
        if cause == errno.ENOENT or "No such file" in text or "could not open port" in text and "[Errno 2]" in text:
            raise FileNotFoundError(
                f"serial port {port} not found: check the cable and the port name (ls /dev/tty*)"
            ) from None
        if cause in (errno.EBUSY, errno.EAGAIN) or "lock" in text.lower() or "busy" in text.lower():
            raise ConnectionError(f"serial port {port} is busy: close the other program that has it open") from None
        if cause == errno.EACCES or "Permission denied" in text:
            raise ConnectionError(
                f"no permission to open serial port {port}: add yourself to the 'dialout' group"
            ) from None
        raise ConnectionError(f"cannot open serial port {port}: {text}") from None
    except ValueError as error:
        raise ValueError(f"serial settings for {port}: {error}") from None


class LineLink:
    """Line-oriented access to one serial port, reopenable after it was lost."""

    def __init__(self, port: str, baud_rate: int) -> None:
        self.port_name = port
        self.baud_rate = baud_rate
        self._port: serial.Serial | None = None
        self._buffer = b""
        self.garbage_lines = 0

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def open(self) -> None:
        if self._port is None:
            self._port = open_port(self.port_name, self.baud_rate)
            self._buffer = b""

    def close(self) -> None:
        if self._port is not None:
            with contextlib.suppress(LINK_ERRORS):
                self._port.close()
            self._port = None
            self._buffer = b""

    def reopen(self, attempts: int, first_wait_s: float = 0.2) -> None:
        """Close and open again, waiting longer between tries; PortLostError when it stays away."""
        self.close()
        wait_s = first_wait_s
        for attempt in range(1, attempts + 1):
            time.sleep(wait_s)
            try:
                self.open()
                log.info("serial port %s reopened on try %d", self.port_name, attempt)
                return
            except (FileNotFoundError, ConnectionError) as error:
                log.info("serial port %s: reopen try %d failed: %s", self.port_name, attempt, error)
            wait_s *= 2
        raise PortLostError(
            f"serial port {self.port_name} went away and did not come back after {attempts} tries: "
            "check the cable and the arm's power, then connect again"
        )

    def _require_port(self) -> serial.Serial:
        if self._port is None:
            raise PortLostError(f"serial port {self.port_name} is not open: connect first")
        return self._port

    def discard_input(self) -> None:
        port = self._require_port()
        try:
            port.reset_input_buffer()
        except LINK_ERRORS as error:
            raise PortLostError(f"serial port {self.port_name} failed: {error}") from None
        self._buffer = b""

    def write(self, data: bytes) -> None:
        port = self._require_port()
        try:
            port.write(data)
            port.flush()
        except LINK_ERRORS as error:
            self.close()
            raise PortLostError(f"serial port {self.port_name} failed while writing: {error}") from None

    def read_bytes(self, deadline: Deadline) -> bytes:
        """Whatever arrives before the deadline (for binary protocols), b"" when nothing does."""
        port = self._require_port()
        data, self._buffer = self._buffer, b""
        while not data and deadline.remaining_s() > 0:
            try:
                port.timeout = min(deadline.remaining_s(), READ_SLICE_S)
                data = port.read(max(1, port.in_waiting))
            except LINK_ERRORS as error:
                self.close()
                raise PortLostError(f"serial port {self.port_name} failed while reading: {error}") from None
        return data

    def read_line(self, deadline: Deadline) -> bytes | None:
        """The next complete line (without its end), or None when the deadline passes first."""
        port = self._require_port()
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line, self._buffer = self._buffer[:newline], self._buffer[newline + 1 :]
                return line.rstrip(b"\r")
            if len(self._buffer) > MAX_LINE_BYTES:
                self.garbage_lines += 1
                self._buffer = b""
            remaining = deadline.remaining_s()
            if remaining <= 0:
                return None
            try:
                port.timeout = min(remaining, READ_SLICE_S)
                chunk = port.read(max(1, port.in_waiting))
            except LINK_ERRORS as error:
                self.close()
                raise PortLostError(f"serial port {self.port_name} failed while reading: {error}") from None
            self._buffer += chunk
