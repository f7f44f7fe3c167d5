"""This thread's search machinery, kept between moves: the heuristic searcher per board size and the
exact solver, whose tables persist so that each move profits from the previous ones, and the solver's
measured speed, which says whether a solve is worth starting in the time left."""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the numba-backed modules load on the first search, so `import engine` stays quick
    from engine.alphabeta import AlphaBeta
    from engine.position import Position
    from engine.solver import Solver, SolveResult

# Not the L2-sized default: a move's later solves (its children, the loss check) reuse the root's entries,
# and a small table loses them, and with them positions' values.
SOLVER_TABLE_MB = 64.0
MIN_SOLVER_NODES = 20_000  # below this a solver call is not worth its overhead
SOLVER_LOAD_S = 1.0  # loading the solver's kernel in a fresh process, with margin: never inside a move
FIRST_SOLVER_NODES_PER_S = 3_000_000  # a cautious guess until this process has measured its own speed
MAX_SOLVER_THREADS = 4  # `cores` takes at most this many (a Raspberry Pi's); more have not been measured
THREADS_VARIABLE = "C4ROBOT_SOLVER_THREADS"

_local = threading.local()


def searcher(position: Position) -> AlphaBeta:
    """This thread's heuristic search state for the position's board size."""
    from engine.alphabeta import AlphaBeta

    searchers = getattr(_local, "searchers", None)
    if searchers is None:
        searchers = _local.searchers = {}
    shape = (position.width, position.height, position.connect)
    if shape not in searchers:
        searchers[shape] = AlphaBeta(*shape)
    return searchers[shape]


def solver() -> Solver:
    """This thread's exact solver, its kernel loaded (a one-node solve): the time left, looked at after
    this call, is not eaten by the load."""
    from engine.position import Position
    from engine.solver import Solver

    found = getattr(_local, "solver", None)
    if found is None:
        found = Solver(SOLVER_TABLE_MB, solver_threads())
        found.solve(Position.from_moves("11"), node_limit=1)
        _local.solver = found
        _local.solver_nodes_per_s = FIRST_SOLVER_NODES_PER_S
    return found


def solver_threads() -> int:
    """Threads a move's exact solves run on: 1 unless C4ROBOT_SOLVER_THREADS says N, or `cores` (the cores this
    process may use, os.sched_getaffinity, at most MAX_SOLVER_THREADS).

    One by default: where the move's CPU is a fixed share (a busy process in another session under Linux's
    autogroup, a cgroup's quota) the helpers' extra nodes and their restart of a resumed proof cost more
    than they add; they pay only where a core would otherwise stay idle (engine.solver.Solver).
    """
    chosen = os.environ.get(THREADS_VARIABLE, "").strip().lower()
    if not chosen:
        return 1
    if chosen == "cores":
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        return max(1, min(MAX_SOLVER_THREADS, cores))
    if not chosen.isdigit() or not 1 <= int(chosen) <= 64:
        raise ValueError(f"{THREADS_VARIABLE}={chosen!r}: give a number of threads from 1 to 64, or cores")
    return int(chosen)


def solver_loaded() -> bool:
    """True once this thread's solver exists (its kernel loaded)."""
    return getattr(_local, "solver", None) is not None


def solver_nodes_per_s() -> float:
    """This thread's solver speed as measured so far (a cautious guess before any measure)."""
    return getattr(_local, "solver_nodes_per_s", FIRST_SOLVER_NODES_PER_S)


def nodes_until(deadline: float) -> int:
    """Solver nodes that fit before `deadline` (a time.perf_counter() reading), at the measured speed."""
    return int(solver_nodes_per_s() * (deadline - time.perf_counter()))


def timed_solve(
    position: Position,
    deadline: float | None,
    weak: bool = False,
    window: tuple[int, int] | None = None,
    node_limit: int | None = None,
) -> SolveResult | None:
    """Solve before `deadline` (a time.perf_counter() reading, None for none) and within `node_limit`
    nodes (None: no limit); None if it did not finish, or if the time left is not worth a solve. Learns
    this thread's solver speed, which only says whether a solve is worth starting. `window`: as
    Solver.solve's.

    The kernel reads the deadline on the clock itself, so no node limit is derived from the time: a
    speed measured on other positions would stop solves that could finish in time.
    The time left is looked at again once the solver is loaded, so that loading it comes out of the budget."""

    def worth_starting() -> bool:
        possible = nodes_until(deadline) if deadline is not None else 1 << 62
        return min(possible, node_limit if node_limit is not None else possible) >= MIN_SOLVER_NODES

    if not worth_starting():
        return None
    if not solver_loaded() and deadline is not None and deadline - time.perf_counter() < SOLVER_LOAD_S:
        return None  # loading it would take the budget (a fresh process: the game and the resident load it ahead)
    exact = solver()
    if not worth_starting():
        return None
    started = time.perf_counter()
    result = exact.solve(position, weak=weak, node_limit=node_limit, deadline=deadline, window=window)
    elapsed_s = time.perf_counter() - started
    if result is not None and result.nodes > MIN_SOLVER_NODES and elapsed_s > 0:
        _local.solver_nodes_per_s = 0.6 * _local.solver_nodes_per_s + 0.4 * result.nodes / elapsed_s
    return result
