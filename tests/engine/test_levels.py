"""engine.levels: the ladder only climbs (deeper, fewer blunders), and level 1 really makes a beginner's mistakes."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.levels import LEVELS, MAX_LEVEL, MIN_LEVEL, level_settings
from engine.position import Position
from engine.search import Limit, search

UNCAPPED = 10**6  # stands for max_depth None (as deep as time allows) when comparing depths


def depth_cap(level: int) -> int:
    cap = LEVELS[level].max_depth
    return UNCAPPED if cap is None else cap


@pytest.mark.parametrize("level", range(MIN_LEVEL + 1, MAX_LEVEL + 1))
def test_each_level_is_at_least_as_strong_as_the_one_below_in_every_setting(level: int) -> None:
    upper, lower = LEVELS[level], LEVELS[level - 1]
    assert depth_cap(level) >= depth_cap(level - 1)
    assert upper.blunder_rate <= lower.blunder_rate
    assert upper.noise <= lower.noise and upper.margin <= lower.margin
    assert replace(upper, number=lower.number) != lower, f"level {level} plays exactly like level {level - 1}"


def test_the_top_levels_are_the_full_search_and_the_perfect_player() -> None:
    for level in (9, 10):
        settings = level_settings(level)
        assert settings.max_depth is None and settings.blunder_rate == 0 and settings.noise == 0
    assert [level for level in LEVELS if LEVELS[level].exact] == [10]


def test_level_1_misses_a_win_now_and_then_where_level_8_never_does() -> None:
    position = Position.from_moves("223344")  # the first player wins in column 1 or 5 (1-based)
    taken = {
        level: sum(
            position.is_winning_move(
                search(position, Limit(time=None, depth=4), level=level, rng=random.Random(seed)).column
            )
            for seed in range(40)
        )
        for level in (1, 8)
    }
    assert 20 <= taken[1] < 40  # mostly sensible, but real mistakes
    assert taken[8] == 40


def test_level_1_misses_a_block_now_and_then() -> None:
    position = Position.from_moves("12121")  # the second player must stop three in column 1 (1-based)
    blocks = sum(
        search(position, Limit(time=None, depth=4), level=1, rng=random.Random(seed)).column == 0 for seed in range(40)
    )
    assert 20 <= blocks < 40
