"""Shared test fixtures: where ../shared is, and a clear skip where it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# `c4robot move` leaves a resident engine behind for the next call (engine.resident): not from tests.
os.environ["C4ROBOT_RESIDENT"] = "0"

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ../shared folder beside the checkout; tests that need it skip with the reason when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"../shared not found at {SHARED}: the test sets and real photos live there")
    return SHARED


@pytest.fixture(scope="session", autouse=True)
def engine_prepared() -> None:
    """The engine's kernels compiled before any test: on a fresh install a command's first run says "preparing
    the engine, once" on stderr, which the one-sentence checks of bad input would count as lines."""
    from engine.preparation import prepare_engine

    prepare_engine(lambda _line: None)
