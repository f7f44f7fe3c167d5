"""The local web server of the live view: the page, its state as server-sent events, the camera as MJPEG.

Why the standard library's ThreadingHTTPServer: one page, three streams and a few viewers need no
framework, nothing to install and no event loop beside the game; each viewer gets its own thread that
waits on the latest-value slots, so a slow browser only ever slows itself.

    GET /              the page (page.html, shipped in the package; no assets from the internet)
    GET /state         the latest state as JSON
    GET /events        server-sent events: the state, sent on every change (and a comment every 15 s)
    GET /stream.mjpg   the camera with the vision overlay, multipart JPEG
    GET /frame.jpg     the newest camera picture once
    POST /control/X    a replay's buttons: X is play, pause or step (404 for a live game)
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files

from robot.view import DEFAULT_HOST, DEFAULT_PORT
from robot.view.live import LiveView

log = logging.getLogger(__name__)

WAKE_S = 1.0  # how often a waiting stream checks whether the server is closing
KEEPALIVE_S = 15.0
BOUNDARY = "c4frame"
INITIAL_STATE_MARK = b"__INITIAL_STATE__"  # in page.html: replaced by the state of the moment
CONTROLS = ("play", "pause", "step")


class ViewServer:
    """Serves `view` on host:port from a background thread until `close` (also a context manager)."""

    def __init__(self, view: LiveView, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> None:
        self.view = view
        self.closing = threading.Event()
        self.page = files("robot.view").joinpath("page.html").read_bytes()
        try:
            self.httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        except OSError as error:
            raise OSError(
                f"the live view cannot listen on {host}:{port} ({error.strerror or error}): "
                f"choose another address with --view-host or port with --view-port"
            ) from None
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="view-http", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The address to type into a browser: on all interfaces, this computer's address on the LAN."""
        host, port = self.httpd.server_address[:2]
        shown = _lan_address() if host in ("0.0.0.0", "") else host
        return f"http://{shown}:{port}/"

    def close(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.view.close()

    def __enter__(self) -> ViewServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _lan_address() -> str:
    """This computer's address on its network (a UDP socket "connected" to a private address sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def _handler_for(server: ViewServer) -> type[BaseHTTPRequestHandler]:
    class ViewHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            log.debug("view %s: " + format, self.client_address[0], *args)

        def do_GET(self) -> None:  # noqa: N802 - the base class's name
            routes = {
                "/": self._page,
                "/state": self._state,
                "/events": self._events,
                "/stream.mjpg": self._stream,
                "/frame.jpg": self._frame,
            }
            route = routes.get(self.path.split("?", 1)[0])
            try:
                if route is None:
                    self._send(404, "text/plain; charset=utf-8", b"not found\n")
                else:
                    route()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the viewer closed the page

        def do_POST(self) -> None:  # noqa: N802 - the base class's name
            action = self.path.split("?", 1)[0].removeprefix("/control/")
            control = server.view.control
            try:
                if control is None or action not in CONTROLS:
                    self._send(404, "text/plain; charset=utf-8", b"no such control\n")
                else:
                    control(action)
                    self._send(200, "text/plain; charset=utf-8", b"ok\n")
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _send(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _page(self) -> None:
            state = json.dumps(server.view.states.get()[1]).replace("</", "<\\/").encode()
            self._send(200, "text/html; charset=utf-8", server.page.replace(INITIAL_STATE_MARK, state))

        def _state(self) -> None:
            self._send(200, "application/json", json.dumps(server.view.states.get()[1]).encode())

        def _frame(self) -> None:
            jpeg = server.view.camera.snapshot_jpeg()
            if jpeg is None:
                self._send(404, "text/plain; charset=utf-8", b"no camera frame yet\n")
            else:
                self._send(200, "image/jpeg", jpeg)

        def _open_stream(self, content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True

        def _events(self) -> None:
            self._open_stream("text/event-stream")
            server.view.first_viewer.set()
            version, quiet_s = 0, 0.0
            while not server.closing.is_set():
                newer, state = server.view.states.wait_newer(version, WAKE_S)
                if newer != version and state is not None:
                    version, quiet_s = newer, 0.0
                    self.wfile.write(b"data: " + json.dumps(state).encode() + b"\n\n")
                    self.wfile.flush()
                    continue
                quiet_s += WAKE_S
                if quiet_s >= KEEPALIVE_S:
                    quiet_s = 0.0
                    self.wfile.write(b": still here\n\n")
                    self.wfile.flush()

        def _stream(self) -> None:
            self._open_stream(f"multipart/x-mixed-replace; boundary={BOUNDARY}")
            camera = server.view.camera
            camera.count_watcher(+1)
            try:
                version = camera.jpegs.get()[0]  # the encoded one may be old (nobody watched): start from now
                jpeg = camera.snapshot_jpeg()
                while not server.closing.is_set():
                    if jpeg is not None:
                        head = f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n"
                        self.wfile.write(head.encode() + jpeg + b"\r\n")
                        self.wfile.flush()
                    newer, jpeg = camera.jpegs.wait_newer(version, WAKE_S)
                    if newer == version:
                        jpeg = None
                    version = newer
            finally:
                camera.count_watcher(-1)

    return ViewHandler
