"""Drop trials: how reliably a disc released over a column lands in the right cell, and how fast the world runs.

Each drop releases a disc at a column's slot entry with a small random offset, lean and turn (like an
arm or a hand that is a few millimetres off), waits until it rests and checks where it is: in the
intended cell, in another cell, stuck on the way (in the board but in no cell, or never at rest),
or out of the board. Columns are chosen at random among those not full; a full board is emptied.
`c4robot bench arm --drops N` prints these figures.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from sim.config import WorldConfig
from sim.world import World

MAX_OFFSET_X_M = 0.004
MAX_OFFSET_Y_M = 0.002
MAX_TILT_RAD = math.radians(5.0)
MAX_YAW_RAD = math.radians(3.0)
SETTLE_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class DropTrialStats:
    """Outcome counts and speed of a run of drops; `realtime_factor` is simulated seconds per wall second."""

    drops: int
    landed_right: int
    wrong_cell: int
    stuck: int
    out: int
    sim_s: float
    wall_s: float

    @property
    def success_rate(self) -> float:
        return self.landed_right / self.drops if self.drops else 1.0

    @property
    def drops_per_s(self) -> float:
        return self.drops / self.wall_s if self.wall_s > 0 else math.inf

    @property
    def realtime_factor(self) -> float:
        return self.sim_s / self.wall_s if self.wall_s > 0 else math.inf


def run_drop_trials(n: int, seed: int, config: WorldConfig | None = None) -> DropTrialStats:
    """Drop `n` discs into a fresh world (without an arm unless `config` has one) and count the outcomes."""
    if n < 0:
        raise ValueError(f"number of drops {n}: must not be negative")
    config = config or WorldConfig(arm=None)
    rng = np.random.default_rng(seed)
    counts = {"landed_right": 0, "wrong_cell": 0, "stuck": 0, "out": 0}
    wall_start_s = time.perf_counter()
    with World(config, seed=seed) as world:
        geometry = world.config.board
        heights = [0] * geometry.columns
        for drop in range(n):
            open_columns = [c for c in range(geometry.columns) if heights[c] < geometry.rows]
            if not open_columns:
                world.clear_board()
                heights = [0] * geometry.columns
                open_columns = list(range(geometry.columns))
            column = int(rng.choice(open_columns))
            offset = (
                float(rng.uniform(-MAX_OFFSET_X_M, MAX_OFFSET_X_M)),
                float(rng.uniform(-MAX_OFFSET_Y_M, MAX_OFFSET_Y_M)),
            )
            body = world.drop_disc(
                column,
                1 + drop % 2,
                offset,
                float(rng.uniform(-MAX_TILT_RAD, MAX_TILT_RAD)),
                float(rng.uniform(-MAX_YAW_RAD, MAX_YAW_RAD)),
            )
            has_settled = world.wait_until_settled(SETTLE_TIMEOUT_S)
            cell = world.disc_cell(body)
            if has_settled and cell == (heights[column], column):
                counts["landed_right"] += 1
                heights[column] += 1
                continue
            if not world.is_disc_on_board(body):
                counts["out"] += 1
            elif has_settled and cell is not None:
                counts["wrong_cell"] += 1
            else:
                counts["stuck"] += 1
            world.remove_disc(body)  # keep the next drops meaningful
        sim_s = world.time_s
    return DropTrialStats(drops=n, sim_s=sim_s, wall_s=time.perf_counter() - wall_start_s, **counts)
