"""The engine's tests search as a game does: with the kernels loaded first (engine.search.warm_up), not
with the rule-based first answer of a fresh process (engine.quick_answer)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def kernels_loaded_once() -> None:
    from engine.search import warm_up

    warm_up()
