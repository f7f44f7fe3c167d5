"""engine.value_check: the positions `bench engine keeps-value` checks, its judge and its verdicts."""

from __future__ import annotations

import json
from pathlib import Path

from engine.position import Position
from engine.solver import Solver
from engine.value_check import (
    HARD_MIN_PLIES,
    HARD_NODES,
    RANDOM_MIN_PLIES,
    Judge,
    Verdict,
    check_moves,
    describe_miss,
    hard_positions,
    positions_to_check,
    summary,
)

ROWS = [("44444", 3), ("4444", -2), ("1234567123456", 1)]  # (moves, a made-up score: only its sign is read)


def test_positions_are_the_short_rows_then_seeded_random_ones() -> None:
    chosen = positions_to_check(ROWS, randoms=20, max_plies=12, seed=3)
    assert chosen[:2] == [("44444", 1), ("4444", -1)]  # the 13-ply row is left out
    randoms = chosen[2:]
    assert len(randoms) == 20 and all(value is None for _, value in randoms)
    assert all(RANDOM_MIN_PLIES <= len(moves) <= 12 for moves, _ in randoms)
    assert all(not Position.from_moves(moves).is_over() for moves, _ in randoms)
    assert positions_to_check(ROWS, randoms=20, max_plies=12, seed=3) == chosen
    assert positions_to_check(ROWS, randoms=20, max_plies=12, seed=4) != chosen


def test_hard_positions_are_too_big_for_a_cold_solve_in_the_budget_and_judged() -> None:
    judge = Judge(table_mb=16)
    found = hard_positions(1, max_plies=12, seed=1, judge=judge)
    tried = dict(judge.big)
    assert hard_positions(1, max_plies=12, seed=1, judge=judge) == found and judge.big == tried  # none solved again
    assert sum(tried.values()) == 1 and tried[found[0][0]]
    cold = Solver(16)
    for moves, value in found:
        assert HARD_MIN_PLIES <= len(moves) <= 12 and judge.known[moves] == value
        assert cold.solve(Position.from_moves(moves), weak=True, node_limit=HARD_NODES) is None


def test_the_judge_solves_once_and_remembers_in_its_file(shared_dir: Path, tmp_path: Path) -> None:
    rows = [row.split() for row in (shared_dir / "engine" / "testsets" / "Test_L1_R1").read_text().splitlines()[:5]]
    path = tmp_path / "judged.json"
    judge = Judge(path, table_mb=4)
    for moves, score in rows:
        assert judge.outcome(moves) == (int(score) > 0) - (int(score) < 0), moves
    judge.save()
    again = Judge(path, table_mb=4)
    assert again.known == judge.known and len(again.known) == 5
    path.write_text(json.dumps(judge.known))  # the first format: outcomes only
    assert Judge(path, table_mb=4).known == judge.known
    finished = "1212121"  # the first player has four in column 1: the side to move has lost
    assert again.outcome(finished) == -1


def test_a_checked_move_keeps_the_value_of_a_won_position() -> None:
    won = "7422341735647741166133573473242566"  # the side to move wins in 4, with column 2 or 6 only
    judge = Judge(table_mb=4)
    seen = []
    verdicts = check_moves([(won, None)], judge, budget_s=0.5, on_verdict=seen.append)
    assert verdicts == seen and len(verdicts) == 1
    verdict = verdicts[0]
    assert (verdict.moves, verdict.value, verdict.after, verdict.kept) == (won, 1, 1, True)
    assert verdict.column in (1, 5)


def test_the_report_names_each_miss_and_counts_them() -> None:
    kept = Verdict("4", 0, 3, 0, 12.0, True)
    lost = Verdict("75431677", 1, 4, 0, 447.0, False)
    assert kept.kept and not lost.kept
    assert describe_miss(lost) == "value lost after 75431677: column 5 turns a win into a draw (447 ms)"
    assert summary([kept, lost]) == (
        "2 moves, 1 lost the value; 1 proven; median 229.5 ms, p95 447.0 ms, slowest 447.0 ms"
    )  # p95 by nearest rank: never below the median
