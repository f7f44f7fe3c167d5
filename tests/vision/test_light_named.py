"""The game names a change of light only when the light differs both from the last confirmed frame and from the empty
board's frames, the light the colours were calibrated in: light that drifted away and came back has not changed for
the person (a webcam's exposure wanders round where it was set). A red sampled in the shade makes every frame's
colours look stale, so the watcher looks for a change of light each time."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import YELLOW_BGR, Scene, random_game_grid, render_board

from robot.game.events import EventKind
from robot.game.watcher import BoardWatcher
from vision.cameras import StillCamera
from vision.degrade import DRIFTS

SHADED_RED = (60, 60, 150)


def _said_after(confirmed_in: str | None, then: str | None) -> list:
    """What the watcher names of a frame with one disc in `then`'s light (None: the calibrated light), the empty
    board seen in the calibrated light and the last confirmed frame in `confirmed_in`'s."""
    scene = Scene(noise_sigma=3.0, seed=23)
    empty = np.zeros((6, 7), np.int8)
    frame, corners = render_board(empty, scene)
    said: list = []
    lit = (lambda image: image) if confirmed_in is None else DRIFTS[confirmed_in]
    watcher = BoardWatcher(StillCamera(lit(frame)), (6, 7), corners, (SHADED_RED, YELLOW_BGR))
    watcher.notify = lambda kind, **params: said.append(kind)
    watcher.set_empty_reference([frame])
    watcher.look(5.0)
    watcher.know(empty)
    disc = render_board(random_game_grid(1, seed=23), scene)[0]
    watcher.camera.show(disc if then is None else DRIFTS[then](disc))
    for _ in range(2):
        watcher.look(5.0)
    return said


@pytest.mark.parametrize("drift", ["exposure +30%", "warm light"])
def test_light_back_where_it_was_calibrated_is_not_named(drift: str) -> None:
    assert _said_after(drift, None) == []


@pytest.mark.parametrize("drift", ["exposure +30%", "cool light"])
def test_light_away_from_both_is_named_once(drift: str) -> None:
    assert _said_after(None, drift) == [EventKind.LIGHT_CHANGED]
