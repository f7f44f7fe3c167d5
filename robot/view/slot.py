"""A latest-value slot: the writer replaces the value and never waits for readers; readers wait for a newer one.

Why not a queue: a slow or stalled browser must never back the game up. The game's thread only swaps a
reference under a lock held for a few instructions; each reader sees the newest value and skips the rest.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

T = TypeVar("T")


class LatestSlot(Generic[T]):
    """Holds the newest value and a version number that grows with every `put`."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._value: T | None = None
        self._version = 0

    def put(self, value: T) -> None:
        """Replace the value (never blocks on readers) and wake the waiting ones."""
        with self._changed:
            self._value = value
            self._version += 1
            self._changed.notify_all()

    def get(self) -> tuple[int, T | None]:
        """The current version and value (version 0 and None before the first put)."""
        with self._changed:
            return self._version, self._value

    def wait_newer(self, version: int, timeout_s: float) -> tuple[int, T | None]:
        """The first value newer than `version`, or the current one after `timeout_s`."""
        with self._changed:
            self._changed.wait_for(lambda: self._version > version, timeout=timeout_s)
            return self._version, self._value
