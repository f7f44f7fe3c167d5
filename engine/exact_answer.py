"""The exact solver's part of a move choice: a perfect (or value-keeping) move when the solver finishes
in its share of the budget, and the check that the heuristics' move is not proven to lose."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping

from engine.position import Position, centre_first
from engine.scores import outcome
from engine.search_state import nodes_until, searcher, timed_solve
from engine.search_types import Limit, SearchResult, ms_since

SOLVER_SHARE = 0.3  # share of the budget for the exact solver (weak, then strong), before the loss check
# The search stops this long before the deadline: the answer still has to be built, and on a busy machine
# the process waits its turn for a core before it can reply.
TIMER_MARGIN_S = 0.05
ORDERING_DEPTH, ORDERING_NODES = 6, 30_000  # the shallow search that orders the exact solver's children
FORCING_PROBE_NODES = 300_000  # the loss check's quick question to a move that makes a threat: does it lose?
# The loss check's sweeps for a quick win (quick_win): the first node cap, which then doubles; the share of the
# nodes left that the sweep before any proof may spend, on the heuristics' first few moves; the share the
# sweep once a move is proven not to lose may spend, on every move not proven to lose.
WIN_SWEEP_FIRST_NODES = 20_000
FIRST_SWEEP_SHARE, FIRST_SWEEP_MOVES = 0.15, 2
KEPT_SWEEP_SHARE = 0.5


def exact_answer(
    position: Position, limit: Limit, rng: random.Random | None, started: float, known: Mapping[int, int], weak: bool
) -> SearchResult | None:
    """A perfect move from the exact solver, or None if it did not finish in its share of the budget.

    Strong (`weak` False): the quickest win or the slowest loss, score on Pons' scale, proven.
    Weak: a move that keeps a won or drawn game's value, score -1/0/1 and proven False (its outcome
    is proven, its length is not); a lost root gives None: the strong solve may still find the slowest
    loss, else the heuristics pick the trickiest move.
    The root's score first, then the children, likely best first, until one matches it (each asked only
    that, in one null-window probe: a child that does not keep the score is left without one); with an
    rng, the other children too (time allowing) so that equally perfect moves take turns. The move
    the root's solve proved needs no solve of its own, and a won root without rng plays it at once.
    Scores in `known` (exact ones; in weak mode outcomes too) are taken as they are.
    """
    spent_nodes = 0
    deadline = started + SOLVER_SHARE * limit.time if limit.time is not None else None

    def nodes_left() -> int | None:
        """What is left of the node limit (None: no limit); the deadline bounds the time."""
        return limit.nodes - spent_nodes if limit.nodes is not None else None

    def as_solved(score: int) -> int:
        return outcome(score) if weak else score

    root_score = known.get(position.key())
    proved_column = None  # the perfect move the root's solve names, if it names one
    if root_score is None:
        root = timed_solve(position, deadline, weak, node_limit=nodes_left())
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
                # Only "does it keep the root's score?": the child scores -root_score or more, so one
                # probe (-root_score, -root_score + 1) tells; a score above it is a bound, not kept.
                window = (-root_score, 1 - root_score)
                solved = timed_solve(child, deadline, weak, window, nodes_left())
                if solved is None:
                    continue  # a hard child: the next one may still prove the root's score
                spent_nodes += solved.nodes
                child_score = solved.score
                exact = child_score == -root_score or (weak and child_score == 1)
                if not exact:
                    continue
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
        column, root_score, not weak, cells - played, spent_nodes, ms_since(started), (column,), tuple(scores)
    )


def likely_best_first(position: Position, rng: random.Random | None = None) -> list[int]:
    """Legal columns, best first by a shallow heuristic search (ties shuffled by `rng`): the child
    that matches the root's exact score is then usually the first one solved."""
    from engine.evaluation import make_weights

    heuristic = searcher(position)
    weights = make_weights()
    heuristic.use_weights(weights)
    heuristic.set_board(position.to_array())
    heuristic.reset_nodes()
    remaining = position.width * position.height - position.moves_played
    order = centre_first(position.width)
    if rng is not None:
        rng.shuffle(order)
    iteration = heuristic.iterate(min(ORDERING_DEPTH, remaining), weights, order, 0, ORDERING_NODES)
    if iteration is not None:
        order.sort(key=lambda col: -int(iteration.column_scores[col]))
    return [col for col in order if position.can_play(col)]


def unless_proven_lost(position: Position, answer: SearchResult, limit: Limit, started: float) -> SearchResult:
    """The heuristics' move, unless the weak solver proves in what is left of the budget that it loses:
    then a move that makes a threat and is quickly proven not to lose (forcing_first), else the
    heuristically next best move, checked the same way, that is not proven to lose. Once a move is proven
    not to lose, the time left looks for a win: first a sweep of the moves not proven to lose for a quick
    win (quick_win), then half of what is left the root's own "is it won?" probe, resumed where the root's
    solve stopped (the table keeps what it finished), then the moves one by one from the kept one on
    (_likely_win). Before any of that, a short sweep of the heuristics' first two moves plays a quick win.

    Why: where the whole position is too hard to solve in the budget, one move's loss often is not,
    and the heuristics' near-equal scores in early positions can hide a lost move behind a drawn one,
    or a drawn move before a won one. The root's probe, cut short, is often most of the way to its win;
    where its order of moves is a poor one, the moves' own proofs may still find one. A win that takes a
    few tens of thousands of nodes to prove can hide behind one long proof in either order; the sweeps,
    which ask every move a little at a time, find it.
    """
    scores = answer.column_scores
    others = sorted(
        (col for col in position.legal_moves() if col != answer.column and scores[col] is not None),
        key=lambda col: -scores[col],
    )
    candidates = [answer.column] + others
    deadline = started + limit.time - TIMER_MARGIN_S
    won = quick_win(position, candidates[:FIRST_SWEEP_MOVES], deadline, FIRST_SWEEP_SHARE)
    if won is not None and won == answer.column:
        return answer
    if won is not None:
        return SearchResult(won, scores[won], False, answer.depth, answer.nodes, ms_since(started), (won,), scores)
    index = 0
    while index < len(candidates):
        col = candidates[index]
        child = position.play(col)
        if position.is_winning_move(col) or child.is_draw():
            break
        solved = timed_solve(child, deadline, weak=True, window=(0, 1))
        if solved is None:
            break  # out of time: the best move not proven to lose
        if index == 0 and solved.score > 0:  # the heuristics' move loses: their order of the rest is in doubt too
            candidates = [col] + forcing_first(position, candidates[1:], deadline)
        if solved.score <= 0:
            won = quick_win(position, candidates[index:], deadline, KEPT_SWEEP_SHARE)
            if won is not None:
                col = won
                break
            halfway = time.perf_counter() + (deadline - time.perf_counter()) / 2
            root = timed_solve(position, halfway, weak=True, window=(0, 1))
            if root is None or (root.score >= 1 and root.column is None):
                col = _likely_win(position, candidates[index:], deadline)
            elif root.score >= 1:
                col = root.column
            break  # (else the game is not won: the move not proven to lose keeps the draw)
        index += 1
    else:
        return answer  # every move loses: the heuristics' pick is as good as any
    if col == answer.column:
        return answer
    return SearchResult(col, scores[col], False, answer.depth, answer.nodes, ms_since(started), (col,), scores)


def forcing_first(position: Position, candidates: list[int], deadline: float) -> list[int]:
    """`candidates` (legal moves in the order to try them) with the first move that makes a new threat (an
    empty cell where one more of the mover's stones completes a line) and is proven not to lose put first,
    and the threats proven to lose left out. Each threat is asked, in the
    candidates' order, with at most FORCING_PROBE_NODES nodes, before `deadline`.

    Why: a threat forces the opponent's answers, so the proof that it does not lose is often short where
    the heuristics' next choices take longer than a fifth of a core leaves (a drawn position whose one
    drawing move they rank last; a won one where they rank a drawing move before a winning threat); the
    node cap keeps a threat whose proof is long from taking the time their order needs."""
    if any(position.is_winning_move(col) for col in candidates):
        return candidates  # the loss check plays it
    current, mask = position.bitboards
    threats_before = position.geometry.winning_cells(current, mask)
    kept = list(candidates)
    for col in candidates:
        child = position.play(col)
        child_current, child_mask = child.bitboards
        threats_after = child.geometry.winning_cells(child_current ^ child_mask, child_mask)
        if child.is_over() or not threats_after & ~threats_before:
            continue
        solved = timed_solve(child, deadline, weak=True, window=(0, 1), node_limit=FORCING_PROBE_NODES)
        if solved is None:
            continue
        if solved.score <= 0:
            return [col] + [other for other in kept if other != col]
        kept.remove(col)
    return kept


def quick_win(position: Position, columns: list[int], deadline: float, share: float) -> int | None:
    """The first of `columns` proven to win, where each is asked "does it win?" with a node cap that starts
    at WIN_SWEEP_FIRST_NODES and doubles every round, while the next round fits in `share` of the nodes
    left before `deadline`; a move proven not to win leaves the sweep. None if no win was proven.

    Why: a move's proof resumes from the table where the previous round's stopped, so the sweep finds a
    win whose proof is short, wherever the order ranks it, for a few times its cost; asked one by one, the
    moves before it (a draw, say, whose "not a win" takes millions of nodes) take the whole budget."""
    for col in columns:
        if position.is_winning_move(col):
            return col
    open_columns = [col for col in columns if not position.play(col).is_draw()]
    allotment = share * nodes_until(deadline)
    spent, cap, step = 0, WIN_SWEEP_FIRST_NODES, WIN_SWEEP_FIRST_NODES
    while open_columns and spent + step * len(open_columns) <= allotment:
        for col in list(open_columns):
            solved = timed_solve(position.play(col), deadline, weak=True, window=(-1, 0), node_limit=cap)
            if solved is None:
                spent += cap
                continue
            spent += solved.nodes
            if solved.score < 0:
                return col
            open_columns.remove(col)
        step, cap = cap, 2 * cap
    return None


def _likely_win(position: Position, columns: list[int], deadline: float) -> int:
    """The first of `columns` the weak solver proves to win before `deadline`, the first of them (proven
    not to lose) else. Unless that one is proven only to draw: then the move whose proof of a win was cut
    short, once proven not to lose, since it draws at least and may win.

    Why: a heuristically best move that only draws, where the moves after it are too hard to prove won in
    the time left, would otherwise give away a won game's value for certain."""
    kept, kept_draws = columns[0], False
    for col in columns:
        if position.is_winning_move(col):
            return col
        child = position.play(col)
        if col != kept:
            if child.is_draw():
                continue
            solved = timed_solve(child, deadline, weak=True, window=(0, 1))
            if solved is None:
                break
            if solved.score > 0:
                continue  # it loses
        solved = timed_solve(child, deadline, weak=True, window=(-1, 0))
        if solved is None:
            return col if kept_draws else kept
        if solved.score < 0:
            return col
        kept_draws = kept_draws or col == kept
    return kept
