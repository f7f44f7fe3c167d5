"""What a search is asked (Limit) and what it answers (SearchResult), shared by every layer of the search."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """Bounds of one search; None means unbounded (at least one should be set for a real game)."""

    time: float | None = 0.5  # seconds
    depth: int | None = None  # plies of the heuristic search
    nodes: int | None = None  # positions visited by the heuristic search

    def __post_init__(self) -> None:
        if self.time is not None and self.time <= 0:
            raise ValueError(f"time limit {self.time} s is not positive: give a budget above 0")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"depth limit {self.depth} is below 1: give at least one ply")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"node limit {self.nodes} is below 1: give at least one node")


@dataclass(frozen=True)
class SearchResult:
    """The chosen move and what the search knows about it.

    column: 0-based; score: side to move's view (Pons' scale when proven, else evaluation points);
    proven: the score is exact; depth: plies searched (0 for a book move or a blunder); pv: the
    expected line from this move on; column_scores: per column in the same units as `score`
    (None: full column or not searched); cpu_share: this process's CPU time over the search's wall
    time (below 1: a busy machine gave the search only that share of a core; above 1: the exact solver's
    threads ran on more than one core; None for a search too short to tell); threads: how many threads the
    exact solver's searches run on (engine/search_state.py's solver_threads).
    """

    column: int
    score: int
    proven: bool
    depth: int
    nodes: int
    ms: float
    pv: tuple[int, ...]
    column_scores: tuple[int | None, ...]
    cpu_share: float | None = None
    threads: int = 1


MIN_SHARE_WALL_S = 0.01  # a search shorter than this is too short for its CPU share to mean anything


def ms_since(started: float) -> float:
    """Milliseconds since `started` (a time.perf_counter() reading)."""
    return (time.perf_counter() - started) * 1000.0
