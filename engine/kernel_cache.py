"""Keep numba's cached engine kernels true to the engine's source.

numba (`cache=True`) checks only the file that defines a cached function: a kernel that inlines
`engine.evaluation.evaluate` into `engine/alphabeta.py` is loaded from its cache after an edit of
evaluation.py alone, and the edit is silently ignored. So the package remembers a fingerprint of all
its source files beside the cache and, when any file changed since, drops the cached kernels: the
next use compiles them afresh (about 10 s). Only a developer's edit triggers this; an installed
package's cache is rebuilt by numba on upgrade anyway, because every file is rewritten.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
FINGERPRINT_NAME = "engine-sources.fingerprint"  # kept in the package's __pycache__, beside the kernels
KERNEL_SUFFIXES = (".nbi", ".nbc")

logger = logging.getLogger(__name__)


def sources_fingerprint(package_dir: Path = PACKAGE_DIR) -> str:
    """A digest of every source file's name, size and modification time (cheap: no file is read)."""
    digest = hashlib.sha256()
    for source in sorted(package_dir.glob("*.py")):
        stat = source.stat()
        digest.update(f"{source.name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def drop_stale_kernels(package_dir: Path = PACKAGE_DIR) -> bool:
    """Delete the cached kernels if any source file changed since they were cached; True if it did.

    Silent where the cache folder is not writable (numba then caches elsewhere, see above).
    """
    cache_dir = package_dir / "__pycache__"
    fingerprint_file = cache_dir / FINGERPRINT_NAME
    fingerprint = sources_fingerprint(package_dir)
    try:
        if fingerprint_file.read_text() == fingerprint:
            return False
    except OSError:
        pass  # no fingerprint yet: whatever is cached may predate it
    try:
        cache_dir.mkdir(exist_ok=True)
        stale = [path for path in cache_dir.iterdir() if path.suffix in KERNEL_SUFFIXES]
        for path in stale:
            path.unlink(missing_ok=True)
        fingerprint_file.write_text(fingerprint)  # a torn write only costs one more recompile: no temp file
    except OSError as error:
        logger.debug("engine kernel cache left as it is: %s", error)
        return False
    if stale:
        logger.info("engine source changed: %d cached kernel files dropped, they compile again", len(stale))
    return bool(stale)
