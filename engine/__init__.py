"""The game engine: positions, the exact solver, and the time-budgeted search that picks the robot's move.

`Position` loads at once; the numba parts (Solver, search) load on first use, so `import engine`
stays quick for code that only checks boards.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.position import IllegalMoveError, InvalidBoardError, InvalidMoveError, Position

_LAZY = {
    "Solver": "engine.solver",
    "SolveResult": "engine.solver",
    "search": "engine.search",
    "Limit": "engine.search",
    "SearchResult": "engine.search",
}

__all__ = ["IllegalMoveError", "InvalidBoardError", "InvalidMoveError", "Position", *_LAZY]


def __getattr__(name: str) -> Any:
    """Load the numba-backed names on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
