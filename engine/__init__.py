"""The game engine: positions, the exact solver, and the time-budgeted search that picks the robot's move.

Importing the package first drops cached kernels that an edit made stale (engine/kernel_cache.py).
`Position` and the search's names load at once (the search's numba kernels compile or load on the
first search, `warm_up()` does it ahead); the solver module loads on first use. `search` is imported
eagerly because a lazily set attribute would be shadowed by the submodule `engine.search` once
anything imports that.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.kernel_cache import drop_stale_kernels

drop_stale_kernels()  # before any kernel loads: numba alone would miss an edit of a file a kernel inlines

from engine.position import IllegalMoveError, InvalidBoardError, InvalidMoveError, Position  # noqa: E402
from engine.search import Limit, SearchResult, search, warm_up  # noqa: E402

_LAZY = {"Solver": "engine.solver", "SolveResult": "engine.solver"}

__all__ = [
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidMoveError",
    "Limit",
    "Position",
    "SearchResult",
    "search",
    "warm_up",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    """Load the numba-backed names on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
