"""Skill levels 1..10: how deep the player reads, how often it blunders, how it breaks ties.

Level 1 plays like a beginner: a shallow look, a noisy judgement and a random move now and then (it can
miss a win or a block). Each level up reads deeper and errs less; level 9 is the full heuristic search
under the time budget, level 10 adds the opening book and the exact solver and plays perfectly whenever
the solver finishes. Each level is tuned to beat the one below clearly in engine-vs-engine matches
(`c4robot match B A --games 400 --openings 2 --time-ms 100 --seed 1`); the figures are in
docs/BENCHMARKS.md.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_LEVEL, MAX_LEVEL = 1, 10


@dataclass(frozen=True)
class Level:
    """What a level may do; the time budget itself comes from the caller's Limit."""

    number: int
    max_depth: int | None  # plies of heuristic search; None = as deep as time allows
    blunder_rate: float  # share of moves played at random
    noise: int  # amplitude of the evaluation noise (evaluation points)
    margin: int  # moves within this many points of the best count as equally good
    exact: bool  # may use the opening book and the exact solver


LEVELS = {
    1: Level(1, 1, 0.35, 40, 25, False),
    2: Level(2, 2, 0.25, 30, 15, False),
    3: Level(3, 2, 0.12, 20, 10, False),
    4: Level(4, 3, 0.06, 15, 8, False),
    5: Level(5, 4, 0.03, 10, 5, False),
    6: Level(6, 5, 0.02, 6, 3, False),
    7: Level(7, 7, 0.01, 5, 3, False),
    8: Level(8, 9, 0.0, 2, 1, False),
    9: Level(9, None, 0.0, 0, 0, False),
    10: Level(10, None, 0.0, 0, 0, True),
}


def level_settings(level: int) -> Level:
    """The settings of a level 1..10; raises ValueError for any other number."""
    if level not in LEVELS:
        raise ValueError(f"level {level} does not exist: choose {MIN_LEVEL} (beginner) to {MAX_LEVEL} (perfect)")
    return LEVELS[level]
