"""engine.cluster_solves: the early book built on a Dask cluster (two local workers, a small board) is every position's outcome, survives a worker that dies, resumes, and is checked before it is written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from engine.book import Book, load_book, read_work, write_work
from engine.early_book import build_early_book, positions_by_ply
from engine.position import Position
from engine.solver import Solver

SMALL = {"width": 5, "height": 4}  # 542 positions at 5 plies: nine tasks, each solved in milliseconds
DEPTH = 5


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as local:
        yield local


@pytest.fixture(scope="module")
def outcomes() -> dict[str, int]:
    """Every position's outcome by a direct weak solve, what the book must say of it."""
    solver = Solver(16)
    return {
        moves: solver.solve(Position.from_moves(moves, **SMALL), weak=True).score
        for layer in positions_by_ply(DEPTH, **SMALL)
        for moves in layer.values()
    }


def right(book: Book, outcomes: dict[str, int]) -> bool:
    """The book says every position's outcome, and holds nothing else."""
    positions = [Position.from_moves(moves, **SMALL) for moves in outcomes]
    held = sum(book.move(position) is not None for position in positions)
    says = [book.score(position) for position in positions]
    return book.depth == DEPTH and says == list(outcomes.values()) and held == len(book)


def test_a_cluster_builds_the_book_one_machine_builds(
    cluster: LocalCluster, outcomes: dict[str, int], tmp_path
) -> None:
    built = build_early_book(
        DEPTH, tmp_path / "work.npz", tmp_path / "early.npz", scheduler=cluster.scheduler_address, **SMALL
    )
    assert right(built, outcomes) and load_book(tmp_path / "early.npz").keys.tolist() == built.keys.tolist()
    assert len(read_work(tmp_path / "work.npz", **SMALL)) == len(positions_by_ply(DEPTH, **SMALL)[DEPTH])


def test_a_worker_that_dies_mid_build_loses_nothing(outcomes: dict[str, int], tmp_path: Path) -> None:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as doomed:
        with Client(doomed) as client:
            victim = next(iter(doomed.workers.values()))
            killed: list[str] = []

            def kill_one_worker(done: int, total: int, rate: float) -> None:
                if not killed:
                    killed.append(victim.address)
                    doomed.sync(victim.close)

            built = build_early_book(
                DEPTH,
                tmp_path / "work.npz",
                tmp_path / "early.npz",
                on_progress=kill_one_worker,
                scheduler=client,
                **SMALL,
            )
            assert killed and len(client.scheduler_info()["workers"]) == 1
    assert right(built, outcomes)


def test_a_stopped_cluster_build_resumes_from_its_work_file(
    cluster: LocalCluster, outcomes: dict[str, int], tmp_path: Path
) -> None:
    class Stopped(Exception):
        pass

    def stop_after_a_few(done: int, total: int, rate: float) -> None:
        if done == 100:
            raise Stopped

    with pytest.raises(Stopped):
        build_early_book(
            DEPTH,
            tmp_path / "work.npz",
            tmp_path / "early.npz",
            on_progress=stop_after_a_few,
            scheduler=cluster.scheduler_address,
            **SMALL,
        )
    assert len(read_work(tmp_path / "work.npz", **SMALL)) == 100  # written as the build stopped
    resumed: list[int] = []
    built = build_early_book(
        DEPTH,
        tmp_path / "work.npz",
        tmp_path / "early.npz",
        on_progress=lambda done, total, rate: resumed.append(done),
        scheduler=cluster.scheduler_address,
        **SMALL,
    )
    assert resumed[0] == 101 and right(built, outcomes)


def test_wrong_solves_are_caught_against_the_parent_plies_and_no_book_is_written(
    cluster: LocalCluster, outcomes: dict[str, int], tmp_path: Path
) -> None:
    build_early_book(
        DEPTH - 1, tmp_path / "shallow-work.npz", tmp_path / "early.npz", scheduler=cluster.scheduler_address, **SMALL
    )
    saved = (tmp_path / "early.npz").read_bytes()
    deepest = positions_by_ply(DEPTH, **SMALL)[DEPTH]
    done = dict.fromkeys(deepest, (1, 0))  # a worker that calls every position won
    write_work(tmp_path / "work.npz", done, **SMALL)
    with pytest.raises(ValueError, match="disagree with"):
        build_early_book(
            DEPTH, tmp_path / "work.npz", tmp_path / "early.npz", scheduler=cluster.scheduler_address, **SMALL
        )
    assert (tmp_path / "early.npz").read_bytes() == saved
    with pytest.raises(ValueError, match="disagree with"):  # no previous book: the sample of direct solves
        build_early_book(
            DEPTH, tmp_path / "work.npz", tmp_path / "none.npz", scheduler=cluster.scheduler_address, **SMALL
        )
    assert not (tmp_path / "none.npz").exists()
