"""engine.play_quality: the judge behind `c4robot bench engine play`, and the games it judges."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engine.play_quality import game_moves, judge
from engine.position import Position
from engine.search import Limit, search
from engine.solver import Solver
from robot.cli import main

WON = "7422341735647741166133573473242566"  # the side to move wins in 4, with column 2 or 6 only


def test_judge_tells_a_move_that_keeps_the_win_from_one_that_throws_it_away() -> None:
    position, solver = Position.from_moves(WON), Solver(16)
    found = search(position, Limit(time=0.5), level=10)
    assert found.column in (1, 5)
    record = judge(WON, position, found, solver, best=1)
    assert (record.moves, record.column, record.kept, record.optimal) == (WON, found.column, True, True)
    thrown = judge(WON, position, dataclasses.replace(found, column=0), solver)  # column 1 loses in 2
    assert (thrown.column, thrown.kept, thrown.optimal) == (0, False, False)


def test_each_game_record_says_where_the_robot_moved() -> None:
    records = game_moves(1, Limit(time=0.05), use_book=True, think_s=0.0, ponder=False, solver=None, opponent_s=0.02)
    assert len(records) >= 4
    for record, after in zip(records, records[1:], strict=False):
        position = Position.from_moves(record.moves)
        assert position.side_to_move == 1 and position.can_play(record.column)  # the robot is first in game 0
        assert after.moves.startswith(record.moves + str(record.column + 1))
        assert len(after.moves) == len(record.moves) + 2


def test_bench_play_prints_a_row_per_source_and_no_lost_values(
    shared_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "bench",
                "engine",
                "play",
                "--sets",
                "L3_R1",
                "--lines",
                "2",
                "--games",
                "0",
                "--testsets",
                str(shared_dir / "engine" / "testsets"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    row = next(line.split() for line in out.splitlines() if line.startswith("set L3_R1"))
    assert row[2:6] == ["2", "2", "100.0", "100.0"]
    assert "value lost" not in out and "within" in out
