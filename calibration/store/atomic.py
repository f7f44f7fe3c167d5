"""Files written atomically: a temp file beside the target, fsync, then a rename over it."""

from __future__ import annotations

import os
import tempfile
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
