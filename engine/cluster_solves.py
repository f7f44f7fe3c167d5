"""The early book's solves on a Dask distributed cluster: `c4robot book early --scheduler ADDRESS`.

One machine's cores solve an 11th ply in about 12 hours; a cluster of several machines shares the same
jobs. The builder (engine.early_book) stays the only writer of the work file: each task solves a chunk of
sibling positions on a worker and returns them, the builder merges every part into its work file as it
arrives. A worker that dies takes nothing with it: the scheduler gives its tasks to the others, a task
that kept killing workers is sent once more, and a build whose client or scheduler stops resumes from
the work file like a local one. Dask is imported only here, only when a scheduler is given.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from engine.book import WORKER_TABLE_MB

if TYPE_CHECKING:
    from engine.solver import Solver

Job = tuple[str, int, int]  # moves, width, height
Solved = tuple[str, int, int]  # moves, outcome, column

CHUNK = 64  # positions per task: a task's overhead on the scheduler is about a millisecond
SMALL_BOARD_TABLE_MB = 16.0  # a board smaller than 7x6 solves in milliseconds: the big table's setup would dominate
_LOCAL = threading.local()  # a worker may run several tasks at once in threads: one solver each


class ClusterError(RuntimeError):
    """The cluster could not finish the solves (no dask installed, or a task that kills every worker)."""


def _thread_solver(width: int, height: int) -> Solver:
    """This thread's solver, made on its first task; its table then serves every later one."""
    from engine.solver import Solver

    if getattr(_LOCAL, "solver", None) is None:
        _LOCAL.solver = Solver(WORKER_TABLE_MB if width * height >= 42 else SMALL_BOARD_TABLE_MB)
    return _LOCAL.solver


def solve_many(solve: Callable[[Solver, Job], Solved], jobs: list[Job]) -> list[Solved]:
    """`solve(solver, job)` of each job on a worker, with this thread's solver."""
    solver = _thread_solver(*jobs[0][1:])
    return [solve(solver, job) for job in jobs]


def solves_on_cluster(
    solve: Callable[[Solver, Job], Solved], jobs: list[Job], scheduler: Any, chunk: int = CHUNK
) -> Iterator[Solved]:
    """`solve(solver, job)` of each job as the cluster at `scheduler` (an address such as tcp://host:8786,
    or a distributed Client) finishes it, in the order they finish; `solve` must be importable by name."""
    try:
        from distributed import Client, as_completed
        from distributed.scheduler import KilledWorker
    except ImportError as error:
        raise ClusterError(
            "a cluster build needs Dask distributed: pip install 'dask[distributed]' on this machine and the workers"
        ) from error
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        chunks = [jobs[start : start + chunk] for start in range(0, len(jobs), chunk)]
        futures = client.map(solve_many, [solve] * len(chunks), chunks, pure=False)
        sent_again: set[int] = set()
        part_of = {future.key: index for index, future in enumerate(futures)}
        pending = as_completed(futures)
        for future in pending:
            index = part_of[future.key]
            try:
                part = future.result()
            except KilledWorker as error:
                if index in sent_again:
                    raise ClusterError(
                        f"the solves of {chunks[index][0][0]!r} and its {len(chunks[index]) - 1} neighbours "
                        "killed a worker twice (out of memory?): the work file keeps what is done"
                    ) from error
                sent_again.add(index)
                retry = client.submit(solve_many, solve, chunks[index], pure=False)
                part_of[retry.key] = index
                pending.add(retry)
                continue
            yield from part
    finally:
        if client is not scheduler:
            client.close()
