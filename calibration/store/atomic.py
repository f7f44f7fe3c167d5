"""Files written atomically: a temp file beside the target, fsync, then a rename over it."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path


def write_atomically(file: Path, text: str) -> None:
    """Write `text` to `file` so that a crash mid-write leaves the previous file intact (temp file, fsync, rename)."""
    file.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temp_name = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".tmp", dir=file.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp_name, file)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def stale_temps(file: Path) -> list[Path]:
    """The temp files write_atomically left beside `file` when a process died mid-write."""
    return sorted(file.parent.glob(f".{glob_escape(file.name)}.*.tmp")) if file.parent.is_dir() else []


def remove_stale_temps(file: Path, older_than_s: float) -> int:
    """Remove the temp files of writes to `file` that died more than `older_than_s` ago; returns how many."""
    removed = 0
    now = time.time()
    for temp in stale_temps(file):
        try:
            if now - temp.stat().st_mtime >= older_than_s:
                temp.unlink()
                removed += 1
        except FileNotFoundError:
            continue  # another process finished or removed it
    return removed


def glob_escape(name: str) -> str:
    """`name` with glob's special characters taken literally."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)
