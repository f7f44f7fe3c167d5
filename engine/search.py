"""The player's move choice under a time budget: `search(position, Limit(time=0.5), level=10)`.

Anytime: a legal move is ready from the first milliseconds, and every completed depth of the
iterative deepening replaces it. The layers, from perfect to heuristic:
  1. the opening book (engine/book.py; both books loaded once by engine/package_books.py), for the
     first moves of a 7x6 game; off the robot's lines, the early book's (engine/early_book.py)
     value-keeping move stands in for the weak solve below;
  2. the exact solver (engine.solver, asked by engine/exact_answer.py) until a deadline at a share of
     the budget (level 10 only): first the weak solver (win/draw/loss, faster), whose move keeps the
     value, then, in what is left of the share, the strong one, whose move is perfect: the quickest win
     or the slowest loss. Weak first because keeping the value is what counts. The share is under a
     third: past it the loss check's proofs keep the value more often than more solver time would;
  3. the heuristic alpha-beta of engine/alphabeta.py, whose win/loss scores are proofs too, and
     whose evaluation knows threats, their rows and zugzwang (engine/evaluation.py). It plays any
     board size (9x7, 8x8) under the same budget;
  A fresh process whose heuristic kernel is not loaded yet, with a budget too short to load it, answers
  by rule instead (engine/quick_answer.py) once the books have not;
  4. a check of the heuristics' move by the weak solver (level 10, boards the solver takes): a move proven
     to lose gives way to a move that makes a threat and is quickly proven not to lose, else to the next
     best one not proven to lose, and the time left then looks for a proven win, first in sweeps that ask
     every move a little at a time (engine/exact_answer.py's unless_proven_lost and quick_win). Within the proofs' reach (7x6 past the
     early book) the heuristics only order the moves, one ply deep, and the check has all the time left;
     elsewhere it has the budget's last 30%.
Lower levels (engine/levels.py) cap the depth, add evaluation noise and random blunders.
Scores are from the side to move's view: Pons' scale when proven, -1/0/1 from the weak solver,
evaluation points otherwise.
"""

from __future__ import annotations

import random
import time
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from engine.exact_answer import TIMER_MARGIN_S, exact_answer, unless_proven_lost
from engine.levels import level_settings
from engine.package_books import book_answer, early_book, opening_book
from engine.position import Position, centre_first
from engine.quick_answer import KERNEL_LOAD_S, kernels_loaded, quick_answer
from engine.scores import INFINITY, is_exact_at, is_proven, pons_score
from engine.search_state import searcher, solver, solver_loaded
from engine.search_types import MIN_SHARE_WALL_S, Limit, SearchResult, ms_since

if TYPE_CHECKING:  # the numba-backed modules load on the first search, so `import engine` stays quick
    import numpy as np

    from engine.alphabeta import Iteration

__all__ = ["Limit", "SearchResult", "search", "warm_up"]

NEXT_DEPTH_GROWTH = 2.5  # a depth takes about this many times the previous one: start it only if it fits
LOSS_CHECK_SHARE = 0.3  # share kept after the heuristics, to prove that their move does not lose
PROOF_REACH_EMPTY = 32  # up to this many empty cells the loss check's proofs often finish (7x6 past the early book)
ORDERING_DEPTH = 1  # there the heuristics search this deep, only to order the moves for the loss check


def warm_up(width: int = 7, height: int = 6, connect: int = 4) -> None:
    """Load (or compile, on the very first run) the numba kernels, so the first real move keeps its budget.

    Loading the cached kernels takes a few hundred ms; a game loop calls this once at start-up. Call it
    in the thread that searches: a thread without it leaves the exact solver out of budgets under
    SOLVER_LOAD_S (engine/search_state.py) rather than load it inside a move.
    """
    from engine.evaluation import make_weights

    position = Position.from_moves("1", width, height, connect)
    heuristic = searcher(position)
    heuristic.set_board(position.to_array())
    heuristic.iterate(1, make_weights(), centre_first(width), 0, 1 << 62)
    if position.fits_64_bits:
        solver().clear()  # loads the solver's kernel and touches the table's memory now


def search(
    position: Position,
    limit: Limit = Limit(),
    level: int = 10,
    rng: random.Random | None = None,
    style: str = "neutral",
    use_book: bool = True,
    known: Mapping[int, int] | None = None,
    known_outcomes: Mapping[int, int] | None = None,
    started: float | None = None,
) -> SearchResult:
    """The move to play in `position` within `limit`, at skill `level` (1..10) and `style`.

    `rng` seeds the variety among equally good moves (and the mistakes of low levels); without one
    the choice is deterministic at levels 9 and 10. `known` maps `Position.key()` to exact scores
    found beforehand (by engine.ponder), `known_outcomes` to outcomes (1 win, 0 draw, -1 loss): the
    exact solver skips those positions. `started` (a time.perf_counter() reading, default now) is the
    moment the position became known: the budget counts from then, so the time spent reading the board
    or loading the engine comes out of it.
    Raises ValueError for a finished game, an unknown level or style.
    """
    started = time.perf_counter() if started is None else started
    wall, cpu = time.perf_counter(), time.process_time()
    answer = _choose(position, limit, level, rng, style, use_book, known or {}, known_outcomes or {}, started)
    wall = time.perf_counter() - wall
    share = (time.process_time() - cpu) / wall if wall >= MIN_SHARE_WALL_S else None
    threads = solver().threads if solver_loaded() else 1
    # ms again: a layer's answer may come after later ones ran
    return replace(answer, ms=ms_since(started), cpu_share=share, threads=threads)


def _choose(
    position: Position,
    limit: Limit,
    level: int,
    rng: random.Random | None,
    style: str,
    use_book: bool,
    known: Mapping[int, int],
    known_outcomes: Mapping[int, int],
    started: float,
) -> SearchResult:
    """search()'s answer, through the layers of the module's docstring."""
    if position.is_over():
        raise ValueError("the game is over: there is no move to search")
    settings = level_settings(level)
    legal = position.legal_moves()
    if settings.blunder_rate > 0 or settings.noise > 0:
        rng = rng or random.Random()
    if settings.blunder_rate > 0 and rng.random() < settings.blunder_rate:
        column = rng.choice(legal)
        return SearchResult(
            column, 0, False, 0, 0, ms_since(started), (column,), tuple(None for _ in range(position.width))
        )
    if settings.exact and use_book:
        booked = book_answer(position, opening_book(), started)
        if booked is not None:
            return booked
    solvable = (
        settings.exact
        and position.fits_64_bits
        and (limit.depth is None or limit.depth >= position.width * position.height - position.moves_played)
    )
    if solvable:
        kept = book_answer(position, early_book(), started) if use_book else None
        kept = kept or exact_answer(position, limit, rng, started, ChainMap(known, known_outcomes), weak=True)
        optimal = exact_answer(position, limit, rng, started, known, weak=False)
        if optimal is not None or kept is not None:
            return optimal or kept
    if limit.time is not None and not kernels_loaded() and started + limit.time - time.perf_counter() < KERNEL_LOAD_S:
        return quick_answer(position, started)  # a fresh process: loading the kernels would take the budget
    from engine.evaluation import make_weights

    salt = rng.getrandbits(31) if settings.noise > 0 else 0
    weights = make_weights(style, NOISE=settings.noise, SALT=salt)
    max_depth = min(d for d in (limit.depth, settings.max_depth, position.width * position.height) if d is not None)
    if not solvable or limit.time is None:
        return _deepen(position, limit, weights, max_depth, settings.margin, rng, started)
    if position.width * position.height - position.moves_played <= PROOF_REACH_EMPTY:
        # Within the proofs' reach the heuristics only order the moves: the loss check's proofs keep the value
        # more often with their time than deeper heuristics do. One ply: every move gets an exact evaluation to
        # be ordered by, where a deeper alpha-beta leaves all but its best move with a bound.
        max_depth = min(max_depth, ORDERING_DEPTH)
        heuristic_limit = limit
    else:
        heuristic_limit = Limit(time=(1 - LOSS_CHECK_SHARE) * limit.time, depth=limit.depth, nodes=limit.nodes)
    answer = _deepen(position, heuristic_limit, weights, max_depth, settings.margin, rng, started)
    return answer if answer.proven else unless_proven_lost(position, answer, limit, started)


def _deepen(
    position: Position,
    limit: Limit,
    weights: np.ndarray,
    max_depth: int,
    margin: int,
    rng: random.Random | None,
    started: float,
) -> SearchResult:
    """Iterative deepening of the heuristic search until proven, at max depth, or out of budget."""
    heuristic = searcher(position)
    heuristic.use_weights(weights)
    heuristic.set_board(position.to_array())
    heuristic.reset_nodes()
    remaining_cells = position.width * position.height - position.moves_played
    node_limit = limit.nodes if limit.nodes is not None else 1 << 62
    order = centre_first(position.width)
    best: Iteration | None = None
    heuristic.stop[0] = 0
    if limit.time is not None:  # the kernel reads this deadline on its own clock (engine/clock.py)
        from engine.clock import deadline_ticks  # numba's module: loaded here, not by `import engine`

        heuristic.stop[1] = deadline_ticks(started + limit.time - TIMER_MARGIN_S)
    try:
        for depth in range(1, max_depth + 1):
            iteration_started = time.perf_counter()
            iteration = heuristic.iterate(depth, weights, order, margin, node_limit)
            if iteration is None:
                break
            best = iteration
            order = sorted(order, key=lambda col: -int(iteration.column_scores[col]))
            if is_exact_at(iteration.score, depth) or depth >= remaining_cells:
                break
            now = time.perf_counter()
            if limit.time is not None and now + NEXT_DEPTH_GROWTH * (now - iteration_started) > started + limit.time:
                break  # the next depth would not finish: answer now
    finally:
        heuristic.stop[1] = 0  # no deadline left behind for the searcher's next user
    if best is None:
        return _first_legal_answer(position, heuristic.nodes, started)
    return _answer(position, best, margin, rng, heuristic.nodes, remaining_cells, started)


def _first_legal_answer(position: Position, nodes: int, started: float) -> SearchResult:
    """Not even depth 1 finished (a tiny budget): the centre-most legal move, unproven."""
    column = next(col for col in centre_first(position.width) if position.can_play(col))
    return SearchResult(
        column, 0, False, 0, nodes, ms_since(started), (column,), tuple(None for _ in range(position.width))
    )


def _answer(
    position: Position,
    iteration: Iteration,
    margin: int,
    rng: random.Random | None,
    nodes: int,
    remaining_cells: int,
    started: float,
) -> SearchResult:
    """Turn the deepest completed iteration into a result; pick among the equally good moves."""
    cells, played = position.width * position.height, position.moves_played
    scores = iteration.column_scores
    best_value = int(scores.max())
    if is_proven(best_value):
        margin = 0  # never trade a quicker win (or a slower loss) for variety
    candidates = [
        col
        for col in iteration.pv[:1] + centre_first(position.width)
        if scores[col] > -INFINITY and iteration.exact[col] and scores[col] >= best_value - margin
    ]
    candidates = list(dict.fromkeys(candidates))
    column = rng.choice(candidates) if rng is not None and len(candidates) > 1 else candidates[0]
    exact_draw = iteration.depth >= remaining_cells

    def convert(value: int) -> int:
        return pons_score(value, cells, played) if is_proven(value) else value

    column_scores = tuple(
        None if scores[col] <= -INFINITY else convert(int(scores[col])) for col in range(position.width)
    )
    value = int(scores[column])
    proven = is_exact_at(value, iteration.depth) or exact_draw
    pv = tuple(iteration.pv) if iteration.pv and iteration.pv[0] == column else (column,)
    return SearchResult(column, convert(value), proven, iteration.depth, nodes, ms_since(started), pv, column_scores)
