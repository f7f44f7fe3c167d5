"""engine.quick_answer: the rule-based move of a process whose kernels are not loaded yet."""

from __future__ import annotations

import random
import subprocess
import sys
import time

import pytest

from engine.match import random_opening
from engine.position import Position
from engine.quick_answer import kernels_loaded, quick_answer


def test_wins_at_once_when_it_can() -> None:
    answer = quick_answer(Position.from_moves("445566"), time.perf_counter())  # 4-5-6 in row 1, 3 or 7 wins
    assert answer.column in (2, 6) and answer.proven and answer.score == (42 + 1 - 6) // 2


def test_blocks_the_opponents_win() -> None:
    answer = quick_answer(Position.from_moves("1213"), time.perf_counter())  # column 1 holds three of player 1's
    assert answer.column == 0 and not answer.proven


def test_never_hands_the_opponent_a_win_when_another_move_does_not() -> None:
    rng = random.Random(5)
    checked = 0
    for _ in range(300):
        moves = random_opening(rng.randint(6, 20), rng)
        position = Position.from_moves(moves)
        column = quick_answer(position, time.perf_counter()).column
        after = position.play(column)

        def hands_a_win(child: Position) -> bool:
            return any(child.is_winning_move(col) for col in child.legal_moves())

        if hands_a_win(after):
            assert all(hands_a_win(position.play(col)) for col in position.legal_moves()), moves
        checked += 1
    assert checked == 300


def test_refuses_a_finished_game() -> None:
    with pytest.raises(ValueError, match="over"):
        quick_answer(Position.from_moves("1212121"), time.perf_counter())


def test_a_fresh_process_answers_by_rule_and_a_prepared_one_searches() -> None:
    assert kernels_loaded()  # tests/engine/conftest.py loaded them in this process
    code = (
        "from engine.position import Position\n"
        "from engine.quick_answer import kernels_loaded\n"
        "from engine.search import Limit, search\n"
        "answer = search(Position.from_moves('4453'), Limit(time=0.5))\n"
        "print(answer.depth, answer.proven, kernels_loaded())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "False", "False"]
