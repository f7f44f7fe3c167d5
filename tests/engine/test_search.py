"""engine.search: always a legal move inside the limit, wins taken, losses blocked, proofs that agree with the solver."""

from __future__ import annotations

import random
import threading
import time

import pytest

from engine.exact_answer import forcing_first, quick_win, unless_proven_lost
from engine.position import Position
from engine.search import Limit, SearchResult, search
from engine.search_state import solver
from engine.solver import Solver


def random_positions(count: int, seed: int, width: int = 7, height: int = 6) -> list[Position]:
    """Positions from random games, at random lengths, none finished."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = Position.empty(width, height)
        for _ in range(rng.randrange(0, width * height - 4)):
            moves = [col for col in position.legal_moves() if not position.is_winning_move(col)]
            if not moves:
                break
            position = position.play(rng.choice(moves))
        if not position.is_over():
            found.append(position)
    return found


@pytest.mark.parametrize("level", [1, 5, 9, 10])
def test_moves_are_legal_and_inside_node_and_depth_limits(level: int) -> None:
    for position in random_positions(12, seed=level):
        result = search(position, Limit(time=None, depth=6, nodes=40_000), level=level, rng=random.Random(3))
        assert position.can_play(result.column)
        assert result.depth <= 6
        assert result.nodes <= 40_000 + 1024  # the kernel polls its limit every 1024 nodes
        assert len(result.column_scores) == position.width


@pytest.mark.parametrize("level", [9, 10])
def test_takes_an_immediate_win(level: int) -> None:
    # first player has three on the bottom row (columns 2-4) and wins in 1 or 5
    position = Position.from_moves("2233445"[:6])
    result = search(position, Limit(time=None, depth=4), level=level)
    assert position.is_winning_move(result.column)
    assert result.proven and result.score == (42 + 1 - 6) // 2


@pytest.mark.parametrize("level", [9, 10])
def test_blocks_an_immediate_loss(level: int) -> None:
    # the second player to move must stop three in column 1 (1-based)
    position = Position.from_moves("12121")
    result = search(position, Limit(time=None, depth=4), level=level)
    assert result.column == 0


def test_proven_scores_match_the_solver(shared_dir) -> None:
    lines = (shared_dir / "engine" / "testsets" / "Test_L2_R1").read_text().split("\n")[:12]
    solver = Solver(16)
    for line in lines:
        moves, expected = line.split()
        position = Position.from_moves(moves)
        result = search(position, Limit(time=None, nodes=3_000_000), level=10)
        assert result.proven
        assert result.score == int(expected)
        child = position.play(result.column)
        kept = (
            (42 + 1 - position.moves_played) // 2
            if child.winner()
            else (0 if child.is_draw() else -solver.solve(child).score)
        )
        assert kept == int(expected), f"{moves}: played {result.column + 1}, worth {kept}"


def test_heuristic_wins_are_proofs(shared_dir) -> None:
    solver = Solver(16)
    lines = (shared_dir / "engine" / "testsets" / "Test_L3_R1").read_text().split("\n")[:20]
    for line in lines:
        moves, expected = line.split()
        result = search(Position.from_moves(moves), Limit(time=None, depth=12), level=9)
        if result.proven:
            assert result.score == int(expected), moves
    assert solver  # the solver stays the reference above


@pytest.mark.parametrize("size", [(9, 7), (8, 8)])
def test_bigger_boards_play_with_the_heuristic_search(size: tuple[int, int]) -> None:
    position = Position.from_moves("5152", *size)
    result = search(position, Limit(time=None, depth=5), level=10)
    assert position.can_play(result.column)
    assert result.depth == 5 and not result.proven


def test_equal_moves_vary_with_the_rng() -> None:
    position = Position.empty()
    columns = {
        search(position, Limit(time=None, depth=2), level=3, rng=random.Random(seed)).column for seed in range(12)
    }
    assert len(columns) > 1


def test_finished_game_and_bad_level_are_value_errors() -> None:
    with pytest.raises(ValueError, match="game is over"):
        search(Position.from_moves("1212121"), Limit(time=None, depth=2))
    with pytest.raises(ValueError, match="level 11"):
        search(Position.empty(), Limit(time=None, depth=2), level=11)
    with pytest.raises(ValueError, match="time limit"):
        Limit(time=0)


def test_a_heuristic_move_proven_to_lose_is_replaced_by_the_next_best() -> None:
    """From Test_L1_R3: the heuristics once picked column 3 here, which loses; the weak solver proves
    that in a few thousand nodes, while the whole position takes millions."""
    position = Position.from_moves("36651613517")
    solver = Solver(16)
    assert solver.solve(position.play(2), weak=True).score == 1  # column 3 hands the opponent a win
    scores = (-20, -15, -5, -30, -10, -12, -25)  # column 3 first, then column 5
    answer = SearchResult(2, -5, False, 8, 1000, 0.0, (2, 3), scores)
    checked = unless_proven_lost(position, answer, Limit(time=0.5), time.perf_counter())
    assert checked.column == 4 and checked.score == -10 and not checked.proven


def test_a_heuristic_move_that_only_draws_gives_way_to_a_proven_win() -> None:
    """From Test_L1_R3: a won position where the heuristics' move (column 3) only draws; column 5,
    their second choice, wins, which the weak solver proves in a few hundred thousand nodes (the root's
    own probe for a win, asked first, may name another winning column)."""
    position = Position.from_moves("72312275551")
    solver = Solver(16)
    assert (
        solver.solve(position.play(2), weak=True).score == 0 and solver.solve(position.play(4), weak=True).score == -1
    )
    scores = (7, 6, 14, -30, 13, 5, -20)
    answer = SearchResult(2, 14, False, 10, 1000, 0.0, (2,), scores)
    checked = unless_proven_lost(position, answer, Limit(time=3.0), time.perf_counter()).column
    assert checked != 2 and solver.solve(position.play(checked), weak=True).score == -1


def test_a_heuristic_move_that_only_draws_gives_way_to_the_roots_proven_win() -> None:
    """A won position whose heuristically best move (column 6) only draws, and whose win proofs one move
    at a time take about 16 M nodes in this order (about a second here). The root's own probe for a win,
    which the root's solve leaves in the table when cut short (here finished beforehand, so that the test
    does not hang on the machine's speed), names a winning column once column 6 is proven not to lose."""
    position = Position.from_moves("52511551752")
    table = solver()
    table.clear()
    assert table.solve(position, weak=True, window=(0, 1)).score == 1
    assert table.solve(position.play(5), weak=True, window=(0, 1)).score <= 0  # column 6 does not lose
    scores = (-15, -9, -8, -16, -7, 20, -12)  # column 6 first, then the moves whose win proofs take longest
    answer = SearchResult(5, 20, False, 1, 7, 0.0, (5,), scores)
    checked = unless_proven_lost(position, answer, Limit(time=0.5), time.perf_counter())
    assert checked.column != 5 and Solver(16).solve(position.play(checked.column), weak=True).score == -1


def test_a_kept_move_proven_to_draw_gives_way_to_one_not_lost_whose_win_is_open() -> None:
    """A drawn position from the hard random ones: column 4 draws, column 6 does not lose, and neither the
    root's win probe nor column 6's fits a 0.2 s budget (about 7 M nodes each). With column 4's value and
    column 6's "does not lose" in the table beforehand (as a previous move's solves leave them), column 4
    is proven to draw at once, so column 6, which may still win, is played."""
    position = Position.from_moves("64277132154")
    table = solver()
    table.clear()
    assert table.solve(position.play(3), weak=True).score == 0
    assert table.solve(position.play(5), weak=True, window=(0, 1)).score <= 0
    scores = (-20, -15, -9, 20, -8, 10, -12)  # column 4 first, then column 6
    answer = SearchResult(3, 20, False, 1, 7, 0.0, (3,), scores)
    assert unless_proven_lost(position, answer, Limit(time=0.2), time.perf_counter()).column == 5


def test_within_the_proofs_reach_the_heuristics_only_order_the_moves_for_the_loss_check() -> None:
    """Past the early book (11 plies, a won position the solver proves in about 9,000 nodes): with the root's
    solve kept from finishing by the node limit, the heuristics search one ply and the loss check's proofs
    find the win; nearer the start (use_book off) the heuristics deepen as before."""
    position = Position.from_moves("22523567532")
    limit = Limit(time=5.0, nodes=1000)  # the exact solver is not worth starting under 20,000 nodes
    answer = search(position, limit, level=10)
    assert answer.depth == 1
    assert -Solver(16).solve(position.play(answer.column), weak=True).score == 1
    opening = search(Position.from_moves("4444"), Limit(time=1.0, nodes=1000), level=10, use_book=False)
    assert opening.depth > 1


def test_a_threat_proven_not_to_lose_comes_before_the_heuristics_order() -> None:
    """From the keeps-value positions: a drawn position whose one drawing move (column 5, the only one that
    makes a threat) the one-ply heuristics rank last; the other six lose, each proof 160,000-600,000 nodes,
    more than a fifth of a core leaves for all of them. Column 5's own proof takes about 100,000 nodes."""
    position = Position.from_moves("563451117444")
    solver().clear()
    heuristic_order = [2, 3, 6, 1, 0, 5, 4]
    ordered = forcing_first(position, heuristic_order, time.perf_counter() + 60.0)
    assert ordered[0] == 4 and sorted(ordered) == sorted(heuristic_order)
    assert Solver(16).solve(position.play(4), weak=True).score == 0
    quiet = Position.from_moves("44561362221")  # no move makes a new threat: the order stands
    assert forcing_first(quiet, [3, 0, 1, 2, 4, 5, 6], time.perf_counter() + 60.0) == [3, 0, 1, 2, 4, 5, 6]


def test_the_sweep_finds_a_quick_win_behind_long_proofs() -> None:
    """From the hard random positions: only column 6 wins, and its proof takes about 40,000 nodes, but the
    solver reaches it after moves whose "not a win" takes millions of nodes (its root probe about 13 M).
    Asked a little at a time, every move in turn, column 6 is proven to win first."""
    position = Position.from_moves("577711167162")
    assert Solver(16).solve(position, weak=True, window=(0, 1), node_limit=2_000_000) is None
    solver().clear()
    assert quick_win(position, position.legal_moves(), time.perf_counter() + 60.0, share=1.0) == 5
    assert Solver(16).solve(position.play(5), weak=True).score == -1


def test_the_sweep_ends_without_a_win_where_no_move_wins() -> None:
    """A drawn position (only column 1 keeps the draw): every move is proven not to win, so the sweep ends
    without one; a share too small for one round asks nothing."""
    position = Position.from_moves("117235351357")
    solver().clear()
    assert quick_win(position, position.legal_moves(), time.perf_counter() + 60.0, share=1.0) is None
    assert quick_win(position, position.legal_moves(), time.perf_counter() + 60.0, share=1e-9) is None


def test_a_heuristic_move_not_proven_to_lose_stands() -> None:
    position = Position.from_moves("5554224333234511764415115")  # from L2_R1: quick to solve
    solver = Solver(16)
    column = next(
        col
        for col in position.legal_moves()
        if not position.play(col).is_over() and solver.solve(position.play(col), weak=True).score <= 0
    )
    answer = SearchResult(column, 0, False, 8, 1000, 0.0, (column,), tuple(0 for _ in range(position.width)))
    assert unless_proven_lost(position, answer, Limit(time=0.5), time.perf_counter()) is answer


def test_the_budget_counts_from_when_the_position_was_known() -> None:
    """A position known 0.4 s before the search starts (a slow board reading) leaves 0.1 s of a 0.5 s
    budget: the early book's move off the robot's lines comes without a solve, and the answer's time
    counts from then."""
    position = Position.from_moves("4343")  # off the opening book, in the early book
    known_at = time.perf_counter() - 0.4
    result = search(position, Limit(time=0.5), started=known_at)
    assert result.nodes == 0 and position.can_play(result.column)
    assert 400 <= result.ms <= (time.perf_counter() - known_at) * 1000


def test_the_time_of_an_answer_is_all_the_time_it_took() -> None:
    """The early book's move is kept while the strong solver tries for a perfect one; when that fails
    the kept move is the answer, and its time includes the failed try."""
    position = Position.from_moves("4343")
    started = time.perf_counter()
    result = search(position, Limit(time=0.5))
    took_ms = (time.perf_counter() - started) * 1000
    assert result.nodes == 0 and took_ms - 5 <= result.ms <= took_ms


def test_a_fresh_thread_does_not_load_the_solver_inside_a_move() -> None:
    """Loading the solver's kernel takes most of a 500 ms budget in a fresh process: there the early
    book's move is the answer, and the solver is left for warm_up (the game, the resident engine)."""
    from engine.search_state import solver_loaded

    found: list = []

    def fresh() -> None:
        found.append(search(Position.from_moves("4343"), Limit(time=0.5)))
        found.append(solver_loaded())

    thread = threading.Thread(target=fresh)
    thread.start()
    thread.join()
    answer, loaded = found
    assert answer.nodes == 0 and Position.from_moves("4343").can_play(answer.column) and not loaded


def test_a_timed_solve_runs_to_its_deadline_whatever_speed_was_measured_before() -> None:
    """The solver's speed measured on other positions is only a guess for this one: the deadline, read
    by the kernel, is what stops a solve, not a node limit reckoned from that guess."""
    from engine import search_state

    found: list = []

    def in_fresh_thread() -> None:
        search_state.solver()
        search_state._local.solver_nodes_per_s = 50_000  # as if measured on a slow, overhead-bound solve
        deadline = time.perf_counter() + 20.0  # 1 M nodes at that guess; this solve needs about 2.3 M
        found.append(search_state.timed_solve(Position.from_moves("72312275551"), deadline, weak=True))

    thread = threading.Thread(target=in_fresh_thread)
    thread.start()
    thread.join()
    assert found[0] is not None and found[0].score == 1 and found[0].nodes > 1_000_000


def test_a_search_reports_the_cpu_share_it_got() -> None:
    """Alone the search has its core (up to what other work takes); pinned to one CPU beside a busy process
    it gets about half of it. A book answer is too quick to tell."""
    import os
    import subprocess
    import sys

    assert search(Position.from_moves("4"), Limit(time=0.2)).cpu_share is None
    alone = search(Position.from_moves("", width=7, height=7), Limit(time=0.2)).cpu_share  # no book, no proof
    assert alone is not None and 0 < alone <= 1.1
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("pinning two processes to one CPU needs Linux's sched_setaffinity")
    cpu = min(os.sched_getaffinity(0))
    busy = subprocess.Popen([sys.executable, "-c", f"import os; os.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass"])
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {cpu})
        time.sleep(0.2)  # the busy process is pinned and running
        shared = search(Position.from_moves("57371621743"), Limit(time=0.5)).cpu_share
    finally:
        os.sched_setaffinity(0, before)
        busy.kill()
        busy.wait()
    assert shared is not None and shared < 0.8
