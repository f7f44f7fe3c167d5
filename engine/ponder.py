"""Pondering: while the person thinks, a background process solves the positions the robot may face next.

After the robot's move the game loop calls `Ponderer.start(position)` (the person to move). A worker
process then solves exactly, likely replies first, each position the person's reply can lead to and
every answer the robot could give there, so that when the person has moved `Ponderer.search(...)`
finds the root and children scores already known and plays a perfect move at once.

Each position is solved weakly (win/draw/loss) before strongly: the outcome is what keeps the game's
value, and it costs a third to a half of the exact score; on a hard position the person's think time
often buys the one and not the other. A solve also names its proving move, so the worker sends the
score of the child that move makes too: the robot then needs no solve of its own to find a move
that keeps the value (weak) or is perfect (strong).

Why a process and not a thread: the exact solver's numba kernel holds the GIL while it runs (only
the heuristic search's kernels are compiled with nogil), so a solving thread would stall the game
loop. The worker has its own solver and table; it sends back (Position.key(), score) pairs, exact
or weak, which stay true whatever happens in the game, so they are kept for the whole game.

Solving is done in rounds of growing node limits (quick positions first, hard ones as time allows),
capped per call so that a `stop()` takes effect within about a second; the solver's table keeps the
work of an interrupted call for the next round.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import queue
import random
import signal
from collections.abc import Iterator

import numpy as np

from engine.position import Position
from engine.search import Limit, SearchResult, search

log = logging.getLogger(__name__)

PARENT_CHECK_S = 1.0  # an idle worker checks this often that the game process still runs
ROUND_NODE_LIMITS = (100_000, 400_000, 1_600_000, 6_400_000)  # the last one repeats until stopped


class Ponderer:
    """A background solver for the person's thinking time; a context manager (close() ends the worker).

    Typical loop: `start(position)` right after the robot's move, then, once the person has moved,
    `search(position, limit, level, rng)` in place of `engine.search` (it stops pondering first).
    Boards too big for the exact solver are not pondered (start() does nothing for them).
    """

    def __init__(self, table_size_mb: float = 64.0) -> None:
        context = multiprocessing.get_context("spawn")
        self._commands = context.Queue()
        self._results = context.Queue()
        self._worker = context.Process(
            target=_ponder_worker,
            args=(self._commands, self._results, table_size_mb),
            name="c4robot-ponder",
            daemon=True,
        )
        self._worker.start()
        self.known: dict[int, int] = {}  # Position.key() -> exact score, side to move's view
        self.outcomes: dict[int, int] = {}  # Position.key() -> 1 win, 0 draw, -1 loss (weak solves)

    def start(self, position: Position) -> None:
        """Ponder `position` (the person to move) until stop(), search() or the next start()."""
        if position.is_over() or not position.fits_64_bits:
            self.stop()
            return
        self._commands.put(("ponder", position.to_array(), position.connect))

    def stop(self) -> None:
        """Stop pondering (the worker finishes its current call, at most about a second) and collect its scores."""
        self._commands.put(("stop",))
        self.collect()

    def collect(self) -> int:
        """Take the scores the worker has sent so far; returns how many exact scores are known."""
        while True:
            try:
                weak, key, score = self._results.get_nowait()
            except queue.Empty:
                return len(self.known)
            (self.outcomes if weak else self.known)[key] = score

    def search(
        self,
        position: Position,
        limit: Limit = Limit(),
        level: int = 10,
        rng: random.Random | None = None,
        style: str = "neutral",
        use_book: bool = True,
    ) -> SearchResult:
        """engine.search with the scores found while pondering; same arguments, same errors."""
        self.stop()
        return search(position, limit, level, rng, style, use_book, known=self.known, known_outcomes=self.outcomes)

    def is_alive(self) -> bool:
        """True while the worker process runs (it ends on close(), or if it failed)."""
        return self._worker.is_alive()

    def close(self) -> None:
        """End the worker process."""
        if self._worker.is_alive():
            self._commands.put(("quit",))
            self._worker.join(timeout=2.0)
            if self._worker.is_alive():
                self._worker.terminate()
                self._worker.join(timeout=1.0)
        self._commands.close()
        self._results.close()

    def __enter__(self) -> Ponderer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def ponder_targets(position: Position) -> list[Position]:
    """Positions worth solving while the person thinks in `position`, most useful first.

    For each person's reply (likely best first): the position it makes, then each answer of the
    robot there (likely best first). Finished games and immediate wins need no solving.
    """
    from engine.exact_answer import likely_best_first

    targets: list[Position] = []
    for reply in likely_best_first(position):
        after_reply = position.play(reply)
        if after_reply.is_over():
            continue
        targets.append(after_reply)
        for answer in likely_best_first(after_reply):
            if after_reply.is_winning_move(answer):
                continue
            after_answer = after_reply.play(answer)
            if not after_answer.is_over():
                targets.append(after_answer)
    return targets


def solving_rounds(targets: list[Position]) -> Iterator[tuple[Position, int, bool]]:
    """(position, node limit, weak) in the order the worker tries them: at each growing limit, every
    target weakly, then every target strongly."""
    for limit in itertools.chain(ROUND_NODE_LIMITS, itertools.repeat(ROUND_NODE_LIMITS[-1])):
        for weak in (True, False):
            for target in targets:
                yield target, limit, weak


def _ponder_worker(commands: multiprocessing.Queue, results: multiprocessing.Queue, table_size_mb: float) -> None:
    """The worker process: solve the targets of the latest `ponder` command, send (weak, key, score) back."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle, even during these imports
    from engine.search import warm_up
    from engine.solver import Solver

    parent = multiprocessing.parent_process()
    warm_up()
    solver = Solver(table_size_mb)
    sent: dict[bool, set[int]] = {True: set(), False: set()}  # weak -> keys sent: the parent keeps them all
    targets: list[Position] = []
    work: Iterator[tuple[Position, int, bool]] | None = None
    while True:
        try:
            command = commands.get(timeout=PARENT_CHECK_S) if work is None else commands.get_nowait()
        except queue.Empty:
            command = None
            if not parent.is_alive():
                return  # the game ended without close(): do not outlive it
        if command is not None:
            if command[0] == "quit":
                return
            work = None
            if command[0] == "ponder":
                position = Position.from_array(np.asarray(command[1]), connect=command[2])
                targets = ponder_targets(position)
                log.debug("pondering %d positions", len(targets))
                work = solving_rounds(targets) if targets else None
            continue
        if work is None:
            continue
        if all(target.key() in sent[False] for target in targets):
            work = None  # everything solved: wait for the next command
            continue
        target, node_limit, weak = next(work)
        if _was_sent(sent, weak, target.key()):
            continue
        result = solver.solve(target, weak=weak, node_limit=node_limit)
        if result is not None:
            _send(results, sent, weak, target, result.score)
            if result.column is not None and not target.is_winning_move(result.column):
                child = target.play(result.column)
                if not child.is_over():
                    _send(results, sent, weak, child, -result.score)


def _send(
    results: multiprocessing.Queue, sent: dict[bool, set[int]], weak: bool, position: Position, score: int
) -> None:
    """Send a score unless it was sent before."""
    key = position.key()
    if not _was_sent(sent, weak, key):
        sent[weak].add(key)
        results.put((weak, key, score))


def _was_sent(sent: dict[bool, set[int]], weak: bool, key: int) -> bool:
    """True if the score asked for, or an exact one (which makes the outcome needless), was sent already."""
    return key in sent[weak] or key in sent[False]
