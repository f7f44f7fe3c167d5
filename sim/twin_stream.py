"""The twin's webcam as a network camera: an MJPEG stream on 127.0.0.1, as an IP webcam or mjpg-streamer serves one.

`FrameFeed` takes the newest rendered frame (from the thread that owns the world) and the HTTP threads send it,
JPEG-encoded, at the camera's frame rate whether or not anyone reads fast: a slow reader gets what a real stream
gives it (the frames its socket buffered). `stall(seconds)` stops the frames for a while with the connection kept
open, as a webcam on a saturated Wi-Fi or a USB hub that hiccups does.

    GET /stream.mjpg   multipart/x-mixed-replace JPEG frames (what `--camera http://...` opens)
    GET /frame.jpg     the newest frame once
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np

BOUNDARY = "c4twinframe"
JPEG_QUALITY = 90
WAKE_S = 0.5
SEND_BUFFER_BYTES = 32 * 1024  # a frame or so: a slow reader gets recent frames, the older ones dropped


class FrameFeed:
    """The newest frame as JPEG, with a version number that waiting streams watch."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._jpeg: bytes | None = None
        self._version = 0
        self._stalled_until = 0.0

    def put(self, frame: np.ndarray) -> None:
        ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            raise RuntimeError("OpenCV could not encode the twin's camera frame as JPEG")
        with self._condition:
            self._jpeg, self._version = encoded.tobytes(), self._version + 1
            self._condition.notify_all()

    def repeat(self) -> None:
        """Send the newest frame again (the scene has not changed: no need to render it anew)."""
        with self._condition:
            self._version += 1
            self._condition.notify_all()

    def stall(self, seconds: float) -> None:
        """Send no frame for `seconds` (the connection stays open)."""
        self._stalled_until = time.monotonic() + seconds

    def wait_newer(self, version: int, timeout_s: float) -> tuple[int, bytes | None]:
        """(version, jpeg) of a frame newer than `version`, or (version, None) after `timeout_s` or while stalled."""
        stalled_s = self._stalled_until - time.monotonic()
        if stalled_s > 0:
            time.sleep(min(stalled_s, timeout_s))
            return version, None
        with self._condition:
            self._condition.wait_for(lambda: self._version != version, timeout_s)
            if self._version == version:
                return version, None
            return self._version, self._jpeg


class StreamServer:
    """Serves a `FrameFeed` on 127.0.0.1 (a free port unless one is given) from background threads."""

    def __init__(self, feed: FrameFeed, port: int = 0) -> None:
        self.feed = feed
        self.closing = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="twin-camera", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/stream.mjpg"

    def close(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def _handler_for(server: StreamServer) -> type[BaseHTTPRequestHandler]:
    class StreamHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            """Quiet: the twin's stdout carries its JSON lines only."""

        def do_GET(self) -> None:  # noqa: N802 - the base class's name
            path = self.path.split("?", 1)[0]
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                if path == "/stream.mjpg":
                    self._stream()
                elif path == "/frame.jpg":
                    self._frame()
                else:
                    self._send(404, "text/plain", b"not found\n")

        def _send(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _frame(self) -> None:
            _, jpeg = server.feed.wait_newer(-1, 5.0)
            if jpeg is None:
                self._send(503, "text/plain", b"no frame yet\n")
            else:
                self._send(200, "image/jpeg", jpeg)

        def _stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
            version = 0
            while not server.closing.is_set():
                version, jpeg = server.feed.wait_newer(version, WAKE_S)
                if jpeg is not None and _can_send(self.connection):
                    head = f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n"
                    self.wfile.write(head.encode() + jpeg + b"\r\n")
                    self.wfile.flush()

    return StreamHandler


def _can_send(connection: socket.socket) -> bool:
    """Whether the reader has taken what was sent: a frame it has not read yet makes the camera drop this one."""
    _, writable, _ = select.select([], [connection], [], 0.0)
    return bool(writable)
