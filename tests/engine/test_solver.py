"""engine.Solver against an independent brute-force minimax on small boards, and against the public test sets."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from brute_force import brute_force_scorer

from engine import Position, Solver

SETS = ("L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "L1_R3")


def all_unfinished_games(width: int, height: int, connect: int, limit: int, rng: random.Random) -> list[str]:
    """Move strings of distinct unfinished positions: every one for tiny boards, else a random sample."""
    seen: dict[int, str] = {}
    frontier = [("", Position.empty(width, height, connect))]
    while frontier:
        moves, position = frontier.pop()
        if position.is_over() or position.key() in seen:
            continue
        seen[position.key()] = moves
        for col in position.legal_moves():
            frontier.append((moves + str(col + 1), position.play(col)))
    games = list(seen.values())
    rng.shuffle(games)
    return games[:limit]


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(table_size_mb=4)


@pytest.mark.parametrize("size, limit", [((4, 4, 3), 400), ((5, 4, 3), 300), ((4, 5, 3), 200), ((5, 5, 4), 100)])
def test_solver_matches_brute_force(solver: Solver, size: tuple[int, int, int], limit: int) -> None:
    rng = random.Random(sum(size))
    brute = brute_force_scorer(*size)
    games = all_unfinished_games(*size, limit=limit, rng=rng) if size[0] * size[1] <= 16 else None
    if games is None:
        games = []
        while len(games) < limit:
            position, moves = Position.empty(*size), ""
            for _ in range(rng.randrange(size[0] * size[1] // 2, size[0] * size[1])):
                playable = [c for c in position.legal_moves() if not position.play(c).is_over()]
                if not playable:
                    break
                col = rng.choice(playable)
                position, moves = position.play(col), moves + str(col + 1)
            games.append(moves)
    for moves in games:
        position = Position.from_moves(moves, *size)
        expected = brute(moves)
        strong = solver.solve(position)
        assert strong.score == expected, moves
        weak = solver.solve(position, weak=True)
        assert weak.score == (expected > 0) - (expected < 0), moves
        # A column the solver names is perfect: exactly the score in strong mode, the same outcome in weak.
        # A won or drawn game that is not decided at once always gets one.
        decided_at_once = (
            any(position.is_winning_move(col) for col in position.legal_moves())
            or position.moves_played >= size[0] * size[1] - 2
        )
        for result, same in (
            (strong, lambda value, expected=expected: value == expected),
            (weak, lambda value, weak=weak: (value > 0) - (value < 0) == weak.score),
        ):
            if result.column is not None:
                child = position.play(result.column)
                assert same(0 if child.is_draw() else -brute(moves + str(result.column + 1))), moves
            else:
                assert expected < 0 or decided_at_once, moves


def test_a_window_clamps_the_score_to_the_brute_force_one(solver: Solver) -> None:
    """With a window (low, high) the score is the true one clamped into it, in both modes, for windows
    around, below, above and at the true score (the one-probe questions (s, s + 1) among them)."""
    size = (5, 4, 3)
    brute = brute_force_scorer(*size)
    for moves in all_unfinished_games(*size, limit=150, rng=random.Random(7)):
        position = Position.from_moves(moves, *size)
        expected = brute(moves)
        outcome = (expected > 0) - (expected < 0)
        for low, high in ((expected, expected + 1), (expected - 1, expected), (-20, expected - 2), (expected + 2, 20)):
            solver.clear()
            assert solver.solve(position, window=(low, high)).score == min(high, max(low, expected)), (moves, low)
        for low in (-1, 0, 1):
            solver.clear()
            clamped = solver.solve(position, weak=True, window=(low, low + 1)).score
            assert clamped == min(low + 1, max(low, outcome)), (moves, low)
    with pytest.raises(ValueError, match="empty"):
        solver.solve(Position.from_moves("44"), window=(1, 0))


def test_weak_mode_and_table_reuse_agree(solver: Solver) -> None:
    position = Position.from_moves("3642756176227637211322")
    strong = solver.solve(position)
    again = solver.solve(position)
    assert again.score == strong.score and again.nodes <= strong.nodes
    solver.clear()
    assert solver.solve(position, weak=True).score == (strong.score > 0) - (strong.score < 0)


def test_node_limit_gives_up_and_the_solver_still_works(solver: Solver) -> None:
    solver.clear()
    assert solver.solve(Position.from_moves("44"), node_limit=1000) is None
    assert solver.solve(Position.from_moves("2252576253462244111563365343671351441")).score == -1


def test_a_deadline_stops_a_search_that_no_node_limit_bounds(solver: Solver) -> None:
    """The empty board takes minutes: 50 ms from now it gives up (the kernel polls the timer's flag),
    whatever the machine's load; the next solve is not stopped by the old deadline."""
    solver.clear()
    started = time.perf_counter()
    assert solver.solve(Position.from_moves(""), deadline=started + 0.05) is None
    assert time.perf_counter() - started < 10  # stopped, not solved: that would take minutes
    assert solver.solve(Position.from_moves("2252576253462244111563365343671351441")).score == -1


def test_analyze_scores_every_column(solver: Solver) -> None:
    position = Position.from_moves("2252576253462244111563365343671351441")
    scores = solver.analyze(position)
    assert len(scores) == 7
    assert max(s for s in scores if s is not None) == -1
    for col, score in enumerate(scores):
        if score is None:
            assert not position.can_play(col)
        else:
            assert score == -solver.solve(position.play(col)).score
    assert scores[0] is None and scores[1] is None  # columns 1 and 2 are full there


def test_mirror_has_the_same_score(solver: Solver) -> None:
    position = Position.from_moves("44455554221")
    assert solver.solve(position).score == solver.solve(position.mirror()).score


def test_refuses_finished_games_and_big_boards(solver: Solver) -> None:
    with pytest.raises(ValueError, match="over"):
        solver.solve(Position.from_moves("1212121"))
    with pytest.raises(ValueError, match="9x7"):
        solver.solve(Position.empty(9, 7))
    with pytest.raises(ValueError, match="not positive"):
        Solver(table_size_mb=0)


def read_set(shared_dir: Path, name: str) -> list[tuple[str, int]]:
    lines = (shared_dir / "engine" / "testsets" / f"Test_{name}").read_text().split("\n")
    return [(moves, int(score)) for moves, score in (line.split() for line in lines if line.strip())]


@pytest.mark.parametrize(
    "name, sample", [("L3_R1", 60), ("L2_R1", 60), ("L2_R2", 25), ("L1_R1", 25), ("L1_R2", 6), ("L1_R3", 1)]
)
def test_sample_of_each_test_set(shared_dir: Path, name: str, sample: int) -> None:
    solver = Solver(table_size_mb=16)
    for moves, expected in read_set(shared_dir, name)[:sample]:
        position = Position.from_moves(moves)
        strong = solver.solve(position)
        assert strong.score == expected, moves
        assert solver.solve(position, weak=True).score == (expected > 0) - (expected < 0), moves
        if strong.column is not None:  # the move it names is perfect
            after = position.play(strong.column)
            assert (-solver.solve(after).score if not after.is_over() else 0) == expected, moves
        else:
            assert (
                expected < 0
                or position.moves_played >= 40
                or any(position.is_winning_move(col) for col in position.legal_moves())
            ), moves


@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_whole_test_set(shared_dir: Path, name: str) -> None:
    solver = Solver()
    for moves, expected in read_set(shared_dir, name):
        assert solver.solve(Position.from_moves(moves)).score == expected, moves


def test_default_table_fits_the_cache_and_grows_for_bigger_keys() -> None:
    """The default table is the L2 cache's size (7x6 keys fit a 128 KB one); a 7x7 board's 56-bit keys
    make it grow to 16 MB instead of refusing, and its score is the one a big table finds."""
    from engine.transposition import cache_sized_mb, mb_for_key_bits

    solver = Solver()
    assert 0.125 <= solver.table.size_mb == cache_sized_mb() <= 64
    assert mb_for_key_bits(49) == 0.125 and mb_for_key_bits(56) == 16
    position = Position.from_moves("25523546615174352275665622", width=7, height=7)
    score = solver.solve(position, weak=True).score
    assert solver.table.max_key_bits() >= 56
    assert score == Solver(table_size_mb=64).solve(position, weak=True).score
    with pytest.raises(ValueError, match="give table_size_mb of 16 or more"):
        Solver(table_size_mb=1).solve(position)
