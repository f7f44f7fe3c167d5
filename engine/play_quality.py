"""How well and how fast the player plays: the measurements behind `c4robot bench engine play`.

Two sources of positions: the public test sets (exact scores known) and games the robot (level 10)
plays against opponents of mixed strength, where the opponent "thinks" a simulated time after each
robot move, during which the robot may ponder (engine/ponder.py). Every robot move is judged by the
exact solver: it keeps the game-theoretic value (win stays win, draw stays draw, loss is a loss
anyway) and/or is exactly optimal (the best score). Positions the judge cannot solve within its
node limit are counted as unjudged, not guessed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.match import make_player, random_opening
from engine.position import Position
from engine.scores import outcome
from engine.search import Limit, SearchResult, search
from engine.solver import Solver

JUDGE_NODE_LIMIT = 30_000_000  # per child position; beyond this the move stays unjudged
OPPONENTS = ("seed", "5", "7", "9")  # mixed strength, as people are


@dataclass(frozen=True)
class MoveRecord:
    """One robot move: where (1-based moves before it) and which column, its time, whether the search
    proved it, and the judge's verdict (None: unjudged)."""

    moves: str
    column: int  # 0-based
    ms: float
    proven: bool
    kept: bool | None
    optimal: bool | None


def move_value(position: Position, column: int, solver: Solver) -> int | None:
    """The exact score (mover's view) of playing `column`, or None when the judge's limit is hit."""
    cells = position.width * position.height
    if position.is_winning_move(column):
        return (cells + 1 - position.moves_played) // 2
    child = position.play(column)
    if child.is_draw():
        return 0
    solved = solver.solve(child, node_limit=JUDGE_NODE_LIMIT)
    return None if solved is None else -solved.score


def unjudged(moves: str, result: SearchResult) -> MoveRecord:
    """The record of a move made after `moves` that no judge has looked at."""
    return MoveRecord(moves, result.column, result.ms, result.proven, None, None)


def judge(moves: str, position: Position, result: SearchResult, solver: Solver, best: int | None = None) -> MoveRecord:
    """Judge one move made after `moves`; `best` is the position's exact score when known (test sets),
    else it is solved."""
    value = move_value(position, result.column, solver)
    if best is None:
        solved = solver.solve(position, node_limit=JUDGE_NODE_LIMIT)
        best = None if solved is None else solved.score
    if value is None or best is None:
        return unjudged(moves, result)
    kept = outcome(value) == outcome(best)
    return MoveRecord(moves, result.column, result.ms, result.proven, kept, value == best)


def test_set_moves(rows: list[tuple[str, int]], limit: Limit, use_book: bool, solver: Solver) -> list[MoveRecord]:
    """The robot's move in each test-set position (moves, exact score), judged."""
    records = []
    for moves, best in rows:
        position = Position.from_moves(moves)
        result = search(position, limit, level=10, use_book=use_book)
        records.append(judge(moves, position, result, solver, best))
    return records


def game_moves(
    games: int,
    limit: Limit,
    use_book: bool,
    think_s: float,
    ponder: bool,
    solver: Solver | None,
    seed: int = 0,
    on_move: Callable[[MoveRecord], None] | None = None,
    opening_plies: int = 2,
    opponent_s: float = 0.2,
    width: int = 7,
    height: int = 6,
) -> list[MoveRecord]:
    """Every robot move of `games` games against mixed opponents (each searching `opponent_s` a move),
    from random openings of `opening_plies` plies (0: from the empty board, on the book's lines) on a
    `width` x `height` board; judged by `solver`, or not at all when it is None.

    The robot plays first in even games and second in odd ones. After each robot move the opponent
    takes `think_s` seconds (its own search included) while the robot ponders, if `ponder`.
    """
    from engine.ponder import Ponderer

    rng = random.Random(seed)
    records: list[MoveRecord] = []
    ponderer = Ponderer() if ponder else None
    try:
        for game in range(games):
            opponent = make_player(OPPONENTS[game % len(OPPONENTS)], Limit(time=opponent_s))
            robot_side = 1 if game % 2 == 0 else 2
            moves = random_opening(opening_plies, rng, width, height)
            position = Position.from_moves(moves, width, height)
            game_rng = random.Random(rng.getrandbits(32))
            while not position.is_over():
                if position.side_to_move == robot_side:
                    if ponderer is not None:
                        result = ponderer.search(position, limit, level=10, use_book=use_book)
                    else:
                        result = search(position, limit, level=10, use_book=use_book)
                    record = judge(moves, position, result, solver) if solver is not None else unjudged(moves, result)
                    records.append(record)
                    if on_move is not None:
                        on_move(record)
                    position = position.play(result.column)
                    moves += str(result.column + 1)
                    continue
                thinking_started = time.perf_counter()
                if ponderer is not None:
                    ponderer.start(position)
                column = opponent.choose(position, game_rng)
                if ponderer is not None:  # without pondering the robot idles: no need to wait
                    time.sleep(max(0.0, think_s - (time.perf_counter() - thinking_started)))
                position = position.play(column)
                moves += str(column + 1)
    finally:
        if ponderer is not None:
            ponderer.close()
    return records
