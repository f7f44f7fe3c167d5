"""Does the robot's move keep the game's value? The check behind `c4robot bench engine keeps-value`.

Every line of up to `max_plies` plies of the public test sets (their scores are exact) and seeded random
positions of 8 to `max_plies` plies get the move `c4robot move` would play (level 10, its budget, no
seed, the solver's table cleared first: a cold engine, the hard case); a full weak solve of the child
the move makes says whether the win (or draw) was kept. The judge's solves are the slow part, so they
can be kept in a file (moves -> outcome) and later runs only solve what they have not seen.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.match import random_opening
from engine.position import Position
from engine.scores import outcome
from engine.search import Limit, search
from engine.search_state import solver
from engine.solver import Solver

RANDOM_MIN_PLIES = 8  # below this the early book answers every position
HARD_MIN_PLIES = 10  # the early book answers up to 9 plies
HARD_NODES = 2_000_000  # a cold weak solve past this many nodes does not fit the solver's share of 500 ms


@dataclass(frozen=True)
class Verdict:
    """One move: the position (1-based moves), its outcome for the side to move, the 0-based column
    played, the outcome after it (mover's view), the answer's time and whether the search proved it."""

    moves: str
    value: int
    column: int
    after: int
    ms: float
    proven: bool
    cpu_share: float | None = None  # the search's CPU time over its wall time (None: not measured)

    @property
    def kept(self) -> bool:
        return self.after == self.value


class Judge:
    """Outcomes (1 win, 0 draw, -1 loss for the side to move) by full weak solves, remembered in `path`
    when one is given (the facts never change), with which positions a cold solve in the budget cannot
    decide (`too_big`: finding the hard ones takes thousands of node-limited solves)."""

    def __init__(self, path: Path | None = None, table_mb: float = 128.0) -> None:
        self.path = path
        saved = json.loads(path.read_text()) if path is not None and path.is_file() else {}
        flat = "outcomes" not in saved  # a file of the first format: outcomes only
        self.known: dict[str, int] = saved if flat else saved["outcomes"]
        self.big: dict[str, bool] = {} if flat else saved["too_big"]
        self.solver = Solver(table_mb)

    def outcome(self, moves: str) -> int:
        """The side to move's outcome after `moves` (a finished game: 0 drawn, -1 lost: the mover won)."""
        if moves not in self.known:
            position = Position.from_moves(moves)
            if position.is_over():
                self.known[moves] = 0 if position.is_draw() else -1
            else:
                self.known[moves] = self.solver.solve(position, weak=True).score
        return self.known[moves]

    def too_big(self, moves: str) -> bool:
        """True when a cold weak solve of `moves` needs more than HARD_NODES nodes."""
        if moves not in self.big:
            self.solver.clear()
            self.big[moves] = self.solver.solve(Position.from_moves(moves), weak=True, node_limit=HARD_NODES) is None
        return self.big[moves]

    def save(self) -> None:
        if self.path is not None:
            self.path.write_text(json.dumps({"outcomes": self.known, "too_big": self.big}, sort_keys=True))


def positions_to_check(
    rows: list[tuple[str, int]], randoms: int, max_plies: int, seed: int
) -> list[tuple[str, int | None]]:
    """(moves, outcome or None when unknown) of every test-set row of up to `max_plies` plies whose
    game is still on, then `randoms` random positions of RANDOM_MIN_PLIES to `max_plies` plies."""
    chosen: list[tuple[str, int | None]] = [(moves, outcome(score)) for moves, score in rows if len(moves) <= max_plies]
    rng = random.Random(seed)
    for _ in range(randoms):
        chosen.append((random_opening(rng.randint(RANDOM_MIN_PLIES, max_plies), rng), None))
    return chosen


def hard_positions(count: int, max_plies: int, seed: int, judge: Judge) -> list[tuple[str, int]]:
    """(moves, outcome) of `count` seeded random positions of HARD_MIN_PLIES to `max_plies` plies whose
    cold weak solve needs more than HARD_NODES nodes: those a move cannot solve in its budget, where the
    heuristics and the loss check decide (a few percent of random positions, so a bigger sample of the
    misses than the test sets give)."""
    rng = random.Random(seed)
    found: list[tuple[str, int]] = []
    while len(found) < count:
        moves = random_opening(rng.randint(HARD_MIN_PLIES, max_plies), rng)
        if judge.too_big(moves):
            found.append((moves, judge.outcome(moves)))
    return found


def check_moves(
    positions: list[tuple[str, int | None]],
    judge: Judge,
    budget_s: float = 0.5,
    on_verdict: Callable[[Verdict], None] | None = None,
) -> list[Verdict]:
    """The level-10 move in each position within `budget_s`, judged (see the module docstring)."""
    verdicts = []
    for moves, value in positions:
        position = Position.from_moves(moves)
        solver().clear()
        result = search(position, Limit(time=budget_s), level=10)
        if value is None:
            value = judge.outcome(moves)
        if position.is_winning_move(result.column):
            after = 1
        else:
            after = -judge.outcome(moves + str(result.column + 1))
        verdict = Verdict(moves, value, result.column, after, result.ms, result.proven, result.cpu_share)
        verdicts.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)
    return verdicts


OUTCOME_NAMES = {1: "win", 0: "draw", -1: "loss"}


def describe_miss(verdict: Verdict) -> str:
    return (
        f"value lost after {verdict.moves}: column {verdict.column + 1} turns a {OUTCOME_NAMES[verdict.value]} "
        f"into a {OUTCOME_NAMES[verdict.after]} ({verdict.ms:.0f} ms)"
    )


def summary(verdicts: list[Verdict]) -> str:
    """How many moves lost the value, how many were proven, and their times."""
    times = sorted(verdict.ms for verdict in verdicts)
    shares = [v.cpu_share for v in verdicts if v.cpu_share is not None]
    share = f"; median CPU share {statistics.median(shares):.2f}" if shares else ""
    return (
        f"{len(verdicts)} moves, {sum(not v.kept for v in verdicts)} lost the value; "
        f"{sum(v.proven for v in verdicts)} proven; median {statistics.median(times):.1f} ms, "
        f"p95 {times[max(0, math.ceil(0.95 * len(times)) - 1)]:.1f} ms, slowest {times[-1]:.1f} ms"  # nearest rank
        f"{share}"
    )
