"""engine.ponder: the background worker solves the replies' positions, and search() uses what it found."""

from __future__ import annotations

import time

from engine.ponder import Ponderer, ponder_targets, solving_rounds
from engine.position import Position
from engine.search import Limit, search
from engine.solver import Solver

LATE_GAME = "5554224333234511764415115"  # 25 stones, from the public test set L2_R1: quick to solve


def test_targets_are_the_replies_and_the_robots_answers() -> None:
    position = Position.from_moves(LATE_GAME)
    targets = ponder_targets(position)
    keys = {target.key() for target in targets}
    for reply in position.legal_moves():
        after_reply = position.play(reply)
        if after_reply.is_over():
            continue
        assert after_reply.key() in keys
        for answer in after_reply.legal_moves():
            after_answer = after_reply.play(answer)
            if not after_reply.is_winning_move(answer) and not after_answer.is_over():
                assert after_answer.key() in keys
    assert all(target.moves_played in (position.moves_played + 1, position.moves_played + 2) for target in targets)


def test_rounds_try_every_target_weakly_then_strongly_at_each_growing_limit() -> None:
    targets = ponder_targets(Position.from_moves(LATE_GAME))[:3]
    rounds = solving_rounds(targets)
    first = [next(rounds) for _ in range(12)]
    assert [target for target, _, _ in first] == targets * 4
    assert [weak for _, _, weak in first] == [True] * 3 + [False] * 3 + [True] * 3 + [False] * 3
    assert first[0][1] == first[5][1] < first[6][1]


def test_search_trusts_known_scores() -> None:
    position = Position.from_moves(LATE_GAME + "3")
    solver = Solver()
    known = {position.key(): solver.solve(position).score}
    for col in position.legal_moves():
        child = position.play(col)
        if not child.is_over():
            known[child.key()] = solver.solve(child).score
    result = search(position, Limit(time=None, nodes=1), level=10, use_book=False, known=known)
    assert result.proven and result.nodes == 0
    assert result.score == known[position.key()]
    assert result.column_scores[result.column] == result.score


def test_search_keeps_the_value_with_known_outcomes_alone() -> None:
    position = Position.from_moves(LATE_GAME + "3")
    solver = Solver()
    outcomes = {position.key(): solver.solve(position, weak=True).score}
    for col in position.legal_moves():
        child = position.play(col)
        if not child.is_over():
            outcomes[child.key()] = solver.solve(child, weak=True).score
    result = search(position, Limit(time=None, nodes=1), level=10, use_book=False, known_outcomes=outcomes)
    assert result.nodes == 0 and not result.proven  # an outcome proves the value, not the exact score
    assert result.score == outcomes[position.key()] >= 0
    assert result.column_scores[result.column] == result.score


def test_ponderer_finds_exact_scores_for_the_actual_reply() -> None:
    position = Position.from_moves(LATE_GAME)
    targets = ponder_targets(position)
    with Ponderer(table_size_mb=16) as ponderer:
        ponderer.start(position)
        deadline = time.monotonic() + 90.0  # the worker loads its kernels first; generous for a busy machine
        while ponderer.collect() < len(targets) and time.monotonic() < deadline:
            time.sleep(0.2)
        solver = Solver()
        for target in targets:
            assert ponderer.known[target.key()] == solver.solve(target).score
        outcomes = {target.key(): solver.solve(target, weak=True).score for target in targets}
        weakly_solved = [key for key in ponderer.outcomes if key in outcomes]
        assert weakly_solved  # the targets were solved weakly first
        assert all(ponderer.outcomes[key] == outcomes[key] for key in weakly_solved)
        result = ponderer.search(targets[0], Limit(time=None, nodes=1), level=10, use_book=False)
    assert result.proven and result.nodes == 0


def test_worker_waits_after_a_stop_with_work_left() -> None:
    with Ponderer(table_size_mb=16) as ponderer:
        ponderer.start(Position.from_moves("44"))  # far too hard to finish before the stop
        time.sleep(0.5)
        ponderer.stop()
        time.sleep(4.0)  # the worker loads, ponders, stops, then idles past its parent check
        assert ponderer.is_alive()
