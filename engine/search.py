"""The player's move choice under a time budget: `search(position, Limit(time=0.5), level=10)`.

Anytime: a legal move is ready from the first milliseconds, and every completed depth of the
iterative deepening replaces it. The layers, from perfect to heuristic:
  1. the opening book (engine/book.py), for the first moves of a 7x6 game; off the robot's lines,
     the early book's value-keeping move stands in for the weak solve below;
  2. the exact solver (engine.solver) with a node limit taken from a share of the budget (level 10
     only): first the weak solver (win/draw/loss, 2-3x faster), whose move keeps the value, then,
     in what is left of the share, the strong one, whose move is perfect: the quickest win or the
     slowest loss. Weak first because keeping the value is what counts: on hard early positions
     (Test_L1_R3) the weak solve finishes in 30% of them, after a strong attempt in only 21%;
  3. the heuristic alpha-beta of engine/alphabeta.py, whose win/loss scores are proofs too, and
     whose evaluation knows threats, their rows and zugzwang (engine/evaluation.py). It plays any
     board size (9x7, 8x8) under the same budget;
  4. a check of the heuristics' move by the weak solver in the budget's last 30% (level 10, boards the
     solver takes): a move proven to lose gives way to the next best one not proven to lose.
Lower levels (engine/levels.py) cap the depth, add evaluation noise and random blunders.
Scores are from the side to move's view: Pons' scale when proven, -1/0/1 from the weak solver,
evaluation points otherwise.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.levels import level_settings
from engine.position import Position, centre_first
from engine.scores import INFINITY, is_exact_at, is_proven, outcome, pons_score

if TYPE_CHECKING:  # the numba-backed modules load on the first search, so `import engine` stays quick
    import numpy as np

    from engine.alphabeta import AlphaBeta, Iteration
    from engine.book import Book
    from engine.solver import Solver

TIMER_MARGIN_S = 0.025  # the kernel stops this long before the deadline: the answer still has to be built
NEXT_DEPTH_GROWTH = 2.5  # a depth takes about this many times the previous one: start it only if it fits
SOLVER_SHARE = 0.45  # share of the budget for the exact solver (weak, then strong), before the heuristics
LOSS_CHECK_SHARE = 0.3  # share kept after the heuristics, to prove that their move does not lose
SOLVER_TABLE_MB = 64.0
MIN_SOLVER_NODES = 20_000  # below this a solver call is not worth its overhead
ORDERING_DEPTH, ORDERING_NODES = 6, 30_000  # the shallow search that orders the exact solver's children
FIRST_SOLVER_NODES_PER_S = 3_000_000  # a cautious guess until this process has measured its own speed


@dataclass(frozen=True)
class Limit:
    """Bounds of one search; None means unbounded (at least one should be set for a real game)."""

    time: float | None = 0.5  # seconds
    depth: int | None = None  # plies of the heuristic search
    nodes: int | None = None  # positions visited by the heuristic search

    def __post_init__(self) -> None:
        if self.time is not None and self.time <= 0:
            raise ValueError(f"time limit {self.time} s is not positive: give a budget above 0")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"depth limit {self.depth} is below 1: give at least one ply")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"node limit {self.nodes} is below 1: give at least one node")


@dataclass(frozen=True)
class SearchResult:
    """The chosen move and what the search knows about it.

    column: 0-based; score: side to move's view (Pons' scale when proven, else evaluation points);
    proven: the score is exact; depth: plies searched (0 for a book move or a blunder); pv: the
    expected line from this move on; column_scores: per column in the same units as `score`
    (None: full column or not searched).
    """

    column: int
    score: int
    proven: bool
    depth: int
    nodes: int
    ms: float
    pv: tuple[int, ...]
    column_scores: tuple[int | None, ...]


_local = threading.local()
logger = logging.getLogger(__name__)


def _searcher(position: Position) -> AlphaBeta:
    """This thread's heuristic search state for the position's board size (tables persist between moves)."""
    from engine.alphabeta import AlphaBeta

    searchers = getattr(_local, "searchers", None)
    if searchers is None:
        searchers = _local.searchers = {}
    shape = (position.width, position.height, position.connect)
    if shape not in searchers:
        searchers[shape] = AlphaBeta(*shape)
    return searchers[shape]


def _solver() -> Solver:
    """This thread's exact solver; its table persists, so each move profits from the previous ones."""
    from engine.solver import Solver

    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = Solver(SOLVER_TABLE_MB)
        _local.solver_nodes_per_s = FIRST_SOLVER_NODES_PER_S
    return solver


def warm_up(width: int = 7, height: int = 6, connect: int = 4) -> None:
    """Load (or compile, on the very first run) the numba kernels, so the first real move keeps its budget.

    Loading the cached kernels takes a few hundred ms; a game loop calls this once at start-up.
    """
    from engine.evaluation import make_weights

    position = Position.from_moves("1", width, height, connect)
    searcher = _searcher(position)
    searcher.set_board(position.to_array())
    searcher.iterate(1, make_weights(), centre_first(width), 0, 1 << 62)
    if position.fits_64_bits:
        _solver().clear()  # touches the table's memory now rather than during the first move
        _solver().solve(position.play(0).play(0), node_limit=1)


def search(
    position: Position,
    limit: Limit = Limit(),
    level: int = 10,
    rng: random.Random | None = None,
    style: str = "neutral",
    use_book: bool = True,
    known: Mapping[int, int] | None = None,
    known_outcomes: Mapping[int, int] | None = None,
) -> SearchResult:
    """The move to play in `position` within `limit`, at skill `level` (1..10) and `style`.

    `rng` seeds the variety among equally good moves (and the mistakes of low levels); without one
    the choice is deterministic at levels 9 and 10. `known` maps `Position.key()` to exact scores
    found beforehand (by engine.ponder), `known_outcomes` to outcomes (1 win, 0 draw, -1 loss): the
    exact solver skips those positions.
    Raises ValueError for a finished game, an unknown level or style.
    """
    started = time.perf_counter()
    if position.is_over():
        raise ValueError("the game is over: there is no move to search")
    settings = level_settings(level)
    legal = position.legal_moves()
    if settings.blunder_rate > 0 or settings.noise > 0:
        rng = rng or random.Random()
    if settings.blunder_rate > 0 and rng.random() < settings.blunder_rate:
        column = rng.choice(legal)
        return SearchResult(
            column, 0, False, 0, 0, _ms_since(started), (column,), tuple(None for _ in range(position.width))
        )
    if settings.exact and use_book:
        booked = _book_answer(position, opening_book(), started)
        if booked is not None:
            return booked
    solvable = (
        settings.exact
        and position.fits_64_bits
        and (limit.depth is None or limit.depth >= position.width * position.height - position.moves_played)
    )
    if solvable:
        kept = _book_answer(position, early_book(), started) if use_book else None
        kept = kept or _exact_answer(
            position, limit, rng, started, ChainMap(known or {}, known_outcomes or {}), weak=True
        )
        optimal = _exact_answer(position, limit, rng, started, known or {}, weak=False)
        if optimal is not None or kept is not None:
            return optimal or kept
    from engine.evaluation import make_weights

    salt = rng.getrandbits(31) if settings.noise > 0 else 0
    weights = make_weights(style, NOISE=settings.noise, SALT=salt)
    max_depth = min(d for d in (limit.depth, settings.max_depth, position.width * position.height) if d is not None)
    if not solvable or limit.time is None:
        return _deepen(position, limit, weights, max_depth, settings.margin, rng, started)
    heuristic_limit = Limit(time=(1 - LOSS_CHECK_SHARE) * limit.time, depth=limit.depth, nodes=limit.nodes)
    answer = _deepen(position, heuristic_limit, weights, max_depth, settings.margin, rng, started)
    return answer if answer.proven else _unless_proven_lost(position, answer, limit, started)


def _book_answer(position: Position, book: Book | None, started: float) -> SearchResult | None:
    """The book's move, or None when the book does not cover the position: perfect (proven) from the
    opening book, value-keeping (score -1/0/1, like the weak solver's) from the early book."""
    found = book.move(position) if book is not None else None
    if found is None:
        return None
    scores = tuple(found.score if col == found.column else None for col in range(position.width))
    cells = position.width * position.height
    return SearchResult(
        found.column,
        found.score,
        not book.weak,
        cells - position.moves_played,
        0,
        _ms_since(started),
        (found.column,),
        scores,
    )


_book_lock = threading.Lock()
_loaded_books: dict[str, Book | None] = {}  # file name -> the Book, or None when the package has none


def opening_book() -> Book | None:
    """The package's opening book (perfect moves on the robot's lines), loaded once; None if not built."""
    from engine.book import BOOK_PATH

    return _load_once(BOOK_PATH)


def early_book() -> Book | None:
    """The package's early book (value-keeping moves of every early position), loaded once; None if not built."""
    from engine.book import EARLY_BOOK_PATH

    return _load_once(EARLY_BOOK_PATH)


def book_score(position: Position, weak: bool = False) -> int | None:
    """What the package's books know of `position`: the opening book's exact score (its sign when `weak`),
    else, when `weak`, the early book's outcome; None when neither covers it."""
    books = (opening_book(), early_book()) if weak else (opening_book(),)
    for book in books:
        score = book.score(position) if book is not None else None
        if score is not None:
            return outcome(score) if weak else score
    return None


def _load_once(path: Path) -> Book | None:
    from engine.book import load_book

    with _book_lock:
        if path.name not in _loaded_books:
            try:
                _loaded_books[path.name] = load_book(path)
            except FileNotFoundError as error:
                logger.info("%s", error)
                _loaded_books[path.name] = None
        return _loaded_books[path.name]


def _exact_answer(
    position: Position, limit: Limit, rng: random.Random | None, started: float, known: Mapping[int, int], weak: bool
) -> SearchResult | None:
    """A perfect move from the exact solver, or None if it did not finish in its share of the budget.

    Strong (`weak` False): the quickest win or the slowest loss, score on Pons' scale, proven.
    Weak: a move that keeps a won or drawn game's value, score -1/0/1 and proven False (its outcome
    is proven, its length is not); a lost root gives None: the strong solve may still find the slowest
    loss, else the heuristics pick the trickiest move.
    The root's score first, then the children, likely best first, until one matches it; with an
    rng, the other children too (time allowing) so that equally perfect moves take turns. The move
    the root's solve proved needs no solve of its own, and a won root without rng plays it at once.
    Scores in `known` (exact ones; in weak mode outcomes too) are taken as they are.
    """
    solver = _solver()
    spent_nodes = 0

    def node_budget() -> int:
        """Nodes the solver may still use: what is left of its share of the time and of the node limit."""
        allowed = limit.nodes - spent_nodes if limit.nodes is not None else 1 << 62
        if limit.time is not None:
            left_s = SOLVER_SHARE * limit.time - (time.perf_counter() - started)
            allowed = min(allowed, int(_local.solver_nodes_per_s * left_s))
        return allowed

    def as_solved(score: int) -> int:
        return outcome(score) if weak else score

    root_score = known.get(position.key())
    proved_column = None  # the perfect move the root's solve names, if it names one
    if root_score is None:
        root = _timed_solve(solver, position, node_budget(), weak)
        if root is None:
            return None
        spent_nodes, root_score, proved_column = root.nodes, root.score, root.column
    root_score = as_solved(root_score)
    if weak and root_score < 0:
        return None
    cells, played = position.width * position.height, position.moves_played
    scores: list[int | None] = [None] * position.width
    perfect: list[int] = []
    order = likely_best_first(position, rng)
    if proved_column is not None and rng is None and root_score > 0:  # any win will do: take the proved one
        order = [proved_column] + [col for col in order if col != proved_column]
    for col in order:
        if position.is_winning_move(col):
            score = as_solved((cells + 1 - played) // 2)
        elif col == proved_column:
            score = root_score
        else:
            child = position.play(col)
            child_score = 0 if child.is_draw() else known.get(child.key())
            if child_score is None:
                solved = _timed_solve(solver, child, node_budget(), weak)
                if solved is None:
                    continue  # a hard child: the next one may still prove the root's score
                spent_nodes += solved.nodes
                child_score = solved.score
            score = -as_solved(child_score)
        scores[col] = score
        if score == root_score:
            perfect.append(col)
            if rng is None:
                break
    if not perfect:
        return None
    # Variety among equal wins; a drawn or lost game instead keeps the heuristically best of its perfect
    # moves (`perfect` is in that order), the one most likely to lure the opponent into a mistake.
    column = rng.choice(perfect) if rng is not None and root_score > 0 else perfect[0]
    return SearchResult(
        column, root_score, not weak, cells - played, spent_nodes, _ms_since(started), (column,), tuple(scores)
    )


def likely_best_first(position: Position, rng: random.Random | None = None) -> list[int]:
    """Legal columns, best first by a shallow heuristic search (ties shuffled by `rng`): the child
    that matches the root's exact score is then usually the first one solved."""
    from engine.evaluation import make_weights

    searcher = _searcher(position)
    weights = make_weights()
    searcher.use_weights(weights)
    searcher.set_board(position.to_array())
    searcher.reset_nodes()
    remaining = position.width * position.height - position.moves_played
    order = centre_first(position.width)
    if rng is not None:
        rng.shuffle(order)
    iteration = searcher.iterate(min(ORDERING_DEPTH, remaining), weights, order, 0, ORDERING_NODES)
    if iteration is not None:
        order.sort(key=lambda col: -int(iteration.column_scores[col]))
    return [col for col in order if position.can_play(col)]


def _unless_proven_lost(position: Position, answer: SearchResult, limit: Limit, started: float) -> SearchResult:
    """The heuristics' move, unless the weak solver proves in what is left of the budget that it loses:
    then the heuristically next best move, checked the same way, that is not proven to lose.

    Why: where the whole position is too hard to solve in the budget, one move's loss often is not,
    and the heuristics' near-equal scores in early positions can hide a lost move behind a drawn one.
    """
    solver = _solver()
    scores = answer.column_scores
    others = sorted(
        (col for col in position.legal_moves() if col != answer.column and scores[col] is not None),
        key=lambda col: -scores[col],
    )
    deadline = started + limit.time - TIMER_MARGIN_S
    for col in [answer.column] + others:
        child = position.play(col)
        if position.is_winning_move(col) or child.is_draw():
            break
        nodes_left = int(_local.solver_nodes_per_s * (deadline - time.perf_counter()))
        solved = _timed_solve(solver, child, nodes_left, weak=True)
        if solved is None or solved.score <= 0:
            break  # not proven to lose (or out of time): the best move left
    else:
        return answer  # every move loses: the heuristics' pick is as good as any
    if col == answer.column:
        return answer
    return SearchResult(col, scores[col], False, answer.depth, answer.nodes, _ms_since(started), (col,), scores)


def _timed_solve(solver: Solver, position: Position, node_budget: int, weak: bool = False):
    """Solve within `node_budget` nodes (None if not enough) and learn this process's solver speed."""
    if node_budget < MIN_SOLVER_NODES:
        return None
    started = time.perf_counter()
    result = solver.solve(position, weak=weak, node_limit=node_budget)
    elapsed_s = time.perf_counter() - started
    nodes = node_budget if result is None else result.nodes
    if nodes > MIN_SOLVER_NODES and elapsed_s > 0:
        _local.solver_nodes_per_s = 0.6 * _local.solver_nodes_per_s + 0.4 * nodes / elapsed_s
    return result


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
    searcher = _searcher(position)
    searcher.use_weights(weights)
    searcher.set_board(position.to_array())
    searcher.reset_nodes()
    remaining_cells = position.width * position.height - position.moves_played
    node_limit = limit.nodes if limit.nodes is not None else 1 << 62
    order = centre_first(position.width)
    best: Iteration | None = None
    timer = None
    searcher.stop[0] = 0
    if limit.time is not None:
        delay_s = max(0.0, started + limit.time - TIMER_MARGIN_S - time.perf_counter())
        timer = threading.Timer(delay_s, searcher.stop.__setitem__, (0, 1))
        timer.daemon = True
        timer.start()
    try:
        for depth in range(1, max_depth + 1):
            iteration_started = time.perf_counter()
            iteration = searcher.iterate(depth, weights, order, margin, node_limit)
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
        if timer is not None:
            timer.cancel()
    if best is None:
        return _first_legal_answer(position, searcher.nodes, started)
    return _answer(position, best, margin, rng, searcher.nodes, remaining_cells, started)


def _first_legal_answer(position: Position, nodes: int, started: float) -> SearchResult:
    """Not even depth 1 finished (a tiny budget): the centre-most legal move, unproven."""
    column = next(col for col in centre_first(position.width) if position.can_play(col))
    return SearchResult(
        column, 0, False, 0, nodes, _ms_since(started), (column,), tuple(None for _ in range(position.width))
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
    return SearchResult(column, convert(value), proven, iteration.depth, nodes, _ms_since(started), pv, column_scores)


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
