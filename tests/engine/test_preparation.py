"""The engine's kernels are compiled once, ahead, with a line that says so; later runs say nothing."""

from pathlib import Path

from engine.kernel_cache import sources_fingerprint
from engine.preparation import ENTRY_KERNELS, READY_NAME, kernels_ready, prepare_engine


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "engine"
    (package / "__pycache__").mkdir(parents=True)
    (package / "solver.py").write_text("def solve(): pass\n")
    return package


def _cache_kernels(package: Path) -> None:
    for name in ENTRY_KERNELS:
        (package / "__pycache__" / f"{name}-80.py311.nbi").write_bytes(b"index")


def test_a_fresh_package_is_prepared_aloud_once(tmp_path: Path) -> None:
    package = _package(tmp_path)
    said: list[str] = []
    assert not kernels_ready(package)
    seconds = prepare_engine(said.append, package)
    assert seconds is not None and seconds >= 0
    assert (
        said[0].startswith("preparing the engine, once: compiling")
        and said[1] == f"preparing the engine, once: {seconds:.0f} s"
    )
    assert (package / "__pycache__" / READY_NAME).read_text() == sources_fingerprint(package)
    _cache_kernels(package)  # what numba leaves in a package it compiled for
    said.clear()
    assert prepare_engine(said.append, package) is None
    assert said == []


def test_an_edit_or_a_missing_kernel_prepares_again(tmp_path: Path) -> None:
    package = _package(tmp_path)
    prepare_engine(lambda _: None, package)
    _cache_kernels(package)
    assert kernels_ready(package)
    (package / "solver.py").write_text("def solve(): return 1\n")
    assert not kernels_ready(package)
    prepare_engine(lambda _: None, package)
    assert kernels_ready(package)
    next((package / "__pycache__").glob("solver.solve_batch-*.nbi")).unlink()
    assert not kernels_ready(package)


def test_the_real_package_is_ready_after_its_preparation() -> None:
    """The kernel names the readiness check looks for are the ones numba really caches."""
    prepare_engine(lambda _: None)
    assert kernels_ready()
