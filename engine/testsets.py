"""The six public test sets of the standard 7x6 game (`moves score` per line), as in ../shared/engine/testsets."""

from __future__ import annotations

from pathlib import Path

DEFAULT_TESTSETS = Path(__file__).resolve().parents[1].parent / "shared" / "engine" / "testsets"
SET_NAMES = ("L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "L1_R3")


def read_test_set(folder: Path, name: str, lines: int) -> list[tuple[str, int]]:
    """The first `lines` (moves, score) pairs of one public test set."""
    path = folder / f"Test_{name}"
    if not path.is_file():
        raise FileNotFoundError(f"test set {path} not found: give the folder of Test_* files with --testsets DIR")
    rows = [row.split() for row in path.read_text().splitlines() if row.strip()][:lines]
    return [(moves, int(score)) for moves, score in rows]
