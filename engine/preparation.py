"""Every engine kernel compiled once, ahead, with a line that says so.

numba compiles a kernel on its first call and caches it; on a fresh install (or after an edit of the
engine, engine/kernel_cache.py) that first call takes 10-20 s on 2 cores, and the heuristic search,
the single solve and the batch solve each compile their own. Unannounced, that reads as a hang, and
inside a move it eats the budget. So the commands call `prepare_engine` first: when the kernels are
not known to be cached it says "preparing the engine, once: ...", compiles them all, says how long it
took and leaves a mark beside the cache (the sources' fingerprint), so later runs skip all this.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from engine.kernel_cache import PACKAGE_DIR, sources_fingerprint

READY_NAME = "engine-kernels.ready"  # in the package's __pycache__, beside numba's kernels
# The kernels whose cache files must be there (one per compiled entry point): absent, they compile again.
ENTRY_KERNELS = ("alphabeta._search", "solver.solve_bits", "solver.solve_batch")
EXPECTED_S = 15  # about what compiling every kernel takes on 2 idle cores, for the first line

logger = logging.getLogger(__name__)


def kernels_ready(package_dir: Path = PACKAGE_DIR) -> bool:
    """True when the kernels were compiled from the engine's current sources and their cache is there."""
    cache_dir = package_dir / "__pycache__"
    try:
        marked = (cache_dir / READY_NAME).read_text() == sources_fingerprint(package_dir)
    except OSError:
        return False
    return marked and all(any(cache_dir.glob(f"{name}-*.nbi")) for name in ENTRY_KERNELS)


def prepare_engine(say: Callable[[str], None], package_dir: Path = PACKAGE_DIR) -> float | None:
    """Compile every kernel unless `kernels_ready`, telling `say` before and after; the seconds it took,
    or None when there was nothing to do.

    Where the package's cache folder is read-only (numba then caches elsewhere) no mark can be left:
    the kernels are still loaded here, and the line comes again on the next run.
    """
    if kernels_ready(package_dir):
        return None
    say(
        f"preparing the engine, once: compiling its kernels (about {EXPECTED_S} s on an idle PC, longer on a small"
        " or busy computer)..."
    )
    started = time.perf_counter()
    compile_every_kernel()
    seconds = time.perf_counter() - started
    try:
        (package_dir / "__pycache__" / READY_NAME).write_text(sources_fingerprint(package_dir))
    except OSError as error:
        logger.debug("engine kernels compiled but not marked ready: %s", error)
    say(f"preparing the engine, once: {seconds:.0f} s")
    return seconds


def compile_every_kernel() -> None:
    """Call each entry kernel once (compiling it, or loading it from numba's cache)."""
    from engine.position import Position
    from engine.search import warm_up
    from engine.solver import Solver

    warm_up()  # the heuristic search and the single solve
    Solver(1).solve_many([Position.from_moves("4453")], weak=True, cold=True)  # the batch solve
