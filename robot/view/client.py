"""A viewer without a browser: reads the view's event and camera streams as fast as they come, so
`c4robot bench game --view` measures the robot with the view busy (frames encoded, states sent)."""

from __future__ import annotations

import threading
import urllib.request


class StreamReader:
    """Reads `url`'s /events and /stream.mjpg on two daemon threads until `close`; counts the bytes read."""

    def __init__(self, url: str) -> None:
        self.bytes_read = 0
        self._stopping = threading.Event()
        self._threads = [
            threading.Thread(target=self._read, args=(url + path,), daemon=True, name=f"view-reader{path}")
            for path in ("events", "stream.mjpg")
        ]
        for thread in self._threads:
            thread.start()

    def _read(self, url: str) -> None:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                while not self._stopping.is_set():
                    chunk = response.read1(65536)
                    if not chunk:
                        return
                    self.bytes_read += len(chunk)
        except OSError:
            return  # the server closed: the bench is over

    def close(self) -> None:
        self._stopping.set()
