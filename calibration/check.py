"""Re-verifying a calibration: every section present, the board where it was, and (sim) every drop landing right.

A check never says "ok" of a value it could not measure: a corner drift that is not a finite number is
a problem, not a pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from calibration.board import corner_error_px, register_board
from calibration.store import Setup

CORNER_DRIFT_LIMIT_PX = 4.0
SECTIONS = ("camera", "board", "colours", "pick", "drops", "arm")


def missing_sections(setup: Setup) -> list[str]:
    """A problem sentence for each section the play needs and the file lacks or `play` would refuse (the
    file's reader has checked the others; the `[arm]` table is read here as `play` reads it). No colours is no
    problem: the game's first moves teach them (`calibrate colours --from-moves`)."""
    from robot.arm import ArmConfig

    problems = [f"no {name} calibration" for name in ("camera", "board", "pick") if getattr(setup, name) is None]
    problems += [] if setup.drops else ["no drops calibration"]
    try:
        ArmConfig.from_dict(dict(setup.arm))
    except ValueError as error:
        problems.append(f"[arm] cannot be used: {error}")
    return problems


def present_sections(setup: Setup) -> list[str]:
    return [name for name in SECTIONS if getattr(setup, name)]


def board_drift(setup: Setup, frame: np.ndarray) -> tuple[float, list[str]]:
    """How far the board's corners moved since calibration (px), and the problem when too far or not measurable."""
    assert setup.board is not None
    seen = register_board(frame, setup.board, camera=setup.camera)
    drift_px = corner_error_px(seen, setup.board)
    if not math.isfinite(drift_px):
        return drift_px, ["the board's corners could not be measured: run `c4robot calibrate board`"]
    if drift_px > CORNER_DRIFT_LIMIT_PX:
        return drift_px, [f"the board moved {drift_px:.1f} px: run `c4robot calibrate board` and `calibrate drops`"]
    return drift_px, []


def check_sim_drops(world: Any, setup: Setup, say: Callable[[str], None] = print) -> list[str]:
    """Test-drop into every column with the simulated arm; the problem names the columns missed."""
    from calibration.sim_steps import sim_drop_tester

    assert setup.board is not None
    tester = sim_drop_tester(world, setup, setup.board)
    missed = []
    for column, pose in enumerate(setup.drops):
        landed = tester(column, pose)
        say(f"  test drop into column {column + 1}: {'not seen' if landed is None else f'column {landed + 1}'}")
        if landed != column:
            missed.append(column + 1)
    world.clear_board()
    return [f"test drops into columns {missed} missed: run `c4robot calibrate drops`"] if missed else []
