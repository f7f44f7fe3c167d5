"""The engine's cached numba kernels are dropped when any engine source changes, and only then."""

from pathlib import Path

from engine.kernel_cache import drop_stale_kernels


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "engine"
    (package / "__pycache__").mkdir(parents=True)
    (package / "alphabeta.py").write_text("def search(): pass\n")
    (package / "evaluation.py").write_text("WEIGHT = 1\n")
    return package


def _cache_kernel(package: Path) -> Path:
    kernel = package / "__pycache__" / "alphabeta._search-77.py311.nbi"
    kernel.write_bytes(b"kernel")
    return kernel


def test_kernels_cached_before_any_fingerprint_are_dropped(tmp_path):
    package = _package(tmp_path)
    kernel = _cache_kernel(package)
    assert drop_stale_kernels(package)
    assert not kernel.exists()


def test_kernels_stay_while_the_sources_are_unchanged(tmp_path):
    package = _package(tmp_path)
    drop_stale_kernels(package)
    kernel = _cache_kernel(package)
    assert not drop_stale_kernels(package)
    assert kernel.exists()


def test_an_edit_of_a_file_the_kernel_only_imports_drops_the_kernel(tmp_path):
    package = _package(tmp_path)
    drop_stale_kernels(package)
    kernel = _cache_kernel(package)
    (package / "evaluation.py").write_text("WEIGHT = 22\n")
    assert drop_stale_kernels(package)
    assert not kernel.exists()
    assert (package / "__pycache__" / "engine-sources.fingerprint").exists()
