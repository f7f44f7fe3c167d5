"""How far a reading can be trusted: each cell against its label, sorted into right, honestly unsure and
wrong at full confidence, and the reliability curve (wrong cells by confidence bin).

Why: a cell read wrong at >= 0.9 confidence is what loses a game (the robot plays on a board that is not
there), while a cell reported unsure (confidence below 0.9, or covered by something in front of the board)
makes the game look again or ask. `c4robot bench vision degrade` sums these over photos and image changes.
Labels are letter rows top row first ('.' empty); the reader's colour letters are matched to the label's by
the renaming that gets the most cells right (the reader need only tell the two colours apart).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from vision.degrade import HANDS, Degraded, apply_change
from vision.looks import SURE
from vision.reading import BoardReading, read

CONFIDENCE_BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
HIDDEN = 0.5  # a hole a hand hides at least this much of cannot be read through it


def letter_rows(grid: np.ndarray, colour_names: tuple[str, str]) -> list[str]:
    """Grid rows top to bottom as strings: '.' empty, a colour letter per disc (the labels' format)."""
    return ["".join("." if value == 0 else colour_names[value - 1] for value in row) for row in grid[::-1]]


def cells_matching(read_rows: list[str], truth_rows: list[str]) -> np.ndarray:
    """(rows, cols) bool, top row first: cells equal to the label under the best renaming of the read colours."""
    seen, wanted = np.array([list(row) for row in read_rows]), np.array([list(row) for row in truth_rows])
    if seen.shape != wanted.shape:
        raise ValueError(
            f"a reading of {seen.shape[0]}x{seen.shape[1]} cannot be checked against a label of {wanted.shape[0]}x{wanted.shape[1]}"
        )
    read_letters = sorted(set(seen.ravel()) - {"."})
    label_letters = sorted(set(wanted.ravel()) - {"."})
    padding = [f"#{i}" for i in range(len(read_letters))]
    best = seen == wanted
    for target in itertools.permutations(label_letters + padding, len(read_letters)):
        rename = dict(zip(read_letters, target, strict=True), **{".": "."})
        matching = np.vectorize(rename.__getitem__, otypes=[object])(seen) == wanted
        if matching.sum() > best.sum():
            best = matching
    return best.astype(bool)


@dataclass(frozen=True)
class CellScore:
    """One reading of one photo against its label; every array (rows, cols), top row first.

    right: the value equals the label. confidence: the reader's. covered: the reader says something in front
    hides the hole. hidden: share of the hole a synthetic hand hides (None: no hand). is_found: a board was found.
    problem_says_covered: a problem sentence says something covers the board.
    """

    right: np.ndarray
    confidence: np.ndarray
    covered: np.ndarray
    hidden: np.ndarray | None = None
    is_found: bool = True
    problem_says_covered: bool = False

    @property
    def unsure(self) -> np.ndarray:
        """Cells the reader honestly does not vouch for: below SURE, or covered."""
        return (self.confidence < SURE) | self.covered

    @property
    def sure_wrong(self) -> np.ndarray:
        """Cells wrong at >= SURE confidence and not covered: the failure that must not happen."""
        return ~self.right & ~self.unsure

    @property
    def is_fully_right(self) -> bool:
        return bool(self.right.all())

    @property
    def is_honest(self) -> bool:
        """Every wrong cell is reported unsure."""
        return not self.sure_wrong.any()

    @property
    def has_hand(self) -> bool:
        """A hand hides at least one hole (HIDDEN of it or more): the reader must name it."""
        return self.hidden is not None and bool((self.hidden >= HIDDEN).any())

    @property
    def is_hand_named(self) -> bool:
        """The reader said something is in front: covered holes where the hand is, or a problem saying so."""
        if not self.has_hand:
            return False
        return bool((self.covered & (self.hidden > 0)).any()) or self.problem_says_covered

    @property
    def falsely_covered(self) -> int:
        """Holes reported covered though nothing hides them (no hand, or under 5% of the hole behind one)."""
        hidden = np.zeros(self.covered.shape) if self.hidden is None else self.hidden
        return int((self.covered & (hidden < 0.05)).sum())

    @property
    def visible_unsure(self) -> int:
        """Unsure holes nothing hides (as falsely_covered): a hand must not make the rest of the board unreadable."""
        hidden = np.zeros(self.covered.shape) if self.hidden is None else self.hidden
        return int((self.unsure & (hidden < 0.05)).sum())

    @property
    def hidden_read_as_seen(self) -> int:
        """Holes mostly hidden by the hand yet read at >= SURE and not covered (right or wrong by luck)."""
        if self.hidden is None:
            return 0
        return int(((self.hidden >= HIDDEN) & ~self.unsure).sum())


def score_cells(
    read_rows: list[str],
    truth_rows: list[str],
    confidence_top_first: np.ndarray,
    covered_top_first: np.ndarray | None = None,
    hidden_top_first: np.ndarray | None = None,
    is_found: bool = True,
    problems: Iterable[str] = (),
) -> CellScore:
    """A reading (letter rows, confidence and covered, all top row first) scored against its label."""
    right = cells_matching(read_rows, truth_rows)
    covered = np.zeros(right.shape, bool) if covered_top_first is None else np.array(covered_top_first, bool)
    return CellScore(
        right=right,
        confidence=np.array(confidence_top_first, np.float64),
        covered=covered,
        hidden=None if hidden_top_first is None else np.array(hidden_top_first, np.float64),
        is_found=is_found,
        problem_says_covered=any("cover" in problem.lower() for problem in problems),
    )


def score_reading(reading: BoardReading, truth_rows: list[str], hidden: np.ndarray | None = None) -> CellScore:
    """A reading scored against its label; hidden: (rows, cols) share of each hole a hand hides, row 0 at the
    BOTTOM like the grid. Covered holes are read from `reading.covered` where the reader has it."""
    covered = getattr(reading, "covered", None)
    return score_cells(
        letter_rows(reading.grid, reading.colour_names),
        truth_rows,
        np.asarray(reading.confidence)[::-1],
        None if covered is None else np.asarray(covered)[::-1],
        None if hidden is None else np.asarray(hidden)[::-1],
        reading.is_board_found,
        reading.problems,
    )


@dataclass(frozen=True)
class LabelledPhoto:
    """A photo (BGR), its label rows (top row first) and the centres of its tl, tr, br, bl holes (None: not known)."""

    name: str
    image: np.ndarray
    truth_rows: list[str]
    corners: np.ndarray | None


@dataclass(frozen=True)
class Trial:
    """One photo under one change, read with the corners given ("corners") or found ("auto")."""

    photo: str
    change: str
    mode: str
    score: CellScore
    elapsed_ms: float
    problems: list[str] = field(default_factory=list)
    hand: str = ""

    def summary(self) -> dict:
        """The trial's figures as plain JSON values."""
        score = self.score
        return {
            "photo": self.photo,
            "change": self.change,
            "mode": self.mode,
            "is_found": score.is_found,
            "right": int(score.right.sum()),
            "unsure": int(score.unsure.sum()),
            "sure_wrong": int(score.sure_wrong.sum()),
            "falsely_covered": score.falsely_covered,
            "visible_unsure": score.visible_unsure,
            "hand": self.hand or None,
            "is_hand_named": score.is_hand_named if score.has_hand else None,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "problems": self.problems,
        }


MODES = ("auto", "corners")


def run_trials(
    photos: Iterable[LabelledPhoto],
    changes: Iterable[str],
    modes: Iterable[str] = MODES,
    seed: int = 0,
    on_degraded: Callable[[LabelledPhoto, str, Degraded], None] | None = None,
) -> Iterator[Trial]:
    """Every photo under every change (vision.degrade, seeded by `seed` and the photo's name), read in each
    mode and scored; change by change, so a caller can report each change as it ends. A photo without corners
    is read only automatically and takes no hand. on_degraded sees each changed photo (to save it)."""
    photos, modes = list(photos), list(modes)
    if any(mode not in MODES for mode in modes):
        raise ValueError(f"reading modes {modes} are not all known: choose from {', '.join(MODES)}")
    for change in changes:
        for photo in photos:
            shape = (len(photo.truth_rows), len(photo.truth_rows[0]))
            readable = [mode for mode in modes if photo.corners is not None or mode == "auto"]
            if not readable or (photo.corners is None and change in HANDS):
                continue
            degraded = apply_change(change, photo.image, photo.corners, shape, seed, photo.name)
            if on_degraded is not None:
                on_degraded(photo, change, degraded)
            for mode in readable:
                started = time.perf_counter()
                reading = read(degraded.image, shape=shape, corners=degraded.corners if mode == "corners" else None)
                elapsed_ms = (time.perf_counter() - started) * 1000
                yield Trial(
                    photo.name,
                    change,
                    mode,
                    score_reading(reading, photo.truth_rows, degraded.hidden),
                    elapsed_ms,
                    list(reading.problems),
                    "" if degraded.hand is None else str(degraded.hand),
                )


@dataclass(frozen=True)
class Tally:
    """Sums over the photos of one image change."""

    photos: int
    fully_right: int
    honest: int  # photos whose every wrong cell is reported unsure (fully right ones included)
    cells: int
    right: int
    unsure: int
    sure_wrong: int
    hands: int  # photos where a hand hides at least one hole
    hands_named: int
    hidden_read_as_seen: int
    visible_unsure: int
    falsely_covered: int

    def row(self, change: str, mode: str, median_ms: float) -> str:
        """The bench's table row (columns of TALLY_HEADER)."""
        hands = f"{self.hands_named}/{self.hands}" if self.hands else "-"
        hidden, visible = (str(self.hidden_read_as_seen), str(self.visible_unsure)) if self.hands else ("-", "-")
        cells = f"{self.right}/{self.cells} {100 * self.right / max(self.cells, 1):5.1f}%"
        return (
            f"{change:<16} {mode:<7} {f'{self.fully_right}/{self.photos}':>12} {f'{self.honest}/{self.photos}':>7} "
            f"{cells:>17} {self.unsure:>7} {self.sure_wrong:>9} {hands:>10} {hidden:>11} {visible:>14} "
            f"{self.falsely_covered:>11} {median_ms:>5.0f}"
        )


TALLY_HEADER = (
    f"{'change':<16} {'mode':<7} {'photos right':>12} {'honest':>7} {'cells right':>17} {'unsure':>7} "
    f"{'wrong@0.9':>9} {'hand named':>10} {'hidden seen':>11} {'unsure visible':>14} {'false cover':>11} {'ms':>5}"
)


def tally(scores: list[CellScore]) -> Tally:
    """The sums the bench prints for one change."""
    return Tally(
        photos=len(scores),
        fully_right=sum(score.is_fully_right for score in scores),
        honest=sum(score.is_honest for score in scores),
        cells=sum(score.right.size for score in scores),
        right=sum(int(score.right.sum()) for score in scores),
        unsure=sum(int(score.unsure.sum()) for score in scores),
        sure_wrong=sum(int(score.sure_wrong.sum()) for score in scores),
        hands=sum(score.has_hand for score in scores),
        hands_named=sum(score.is_hand_named for score in scores),
        hidden_read_as_seen=sum(score.hidden_read_as_seen for score in scores),
        visible_unsure=sum(score.visible_unsure for score in scores),
        falsely_covered=sum(score.falsely_covered for score in scores),
    )


@dataclass(frozen=True)
class ConfidenceBin:
    """Cells whose confidence lies in [low, high) (the last bin includes 1.0), not covered, and how many are wrong."""

    low: float
    high: float
    cells: int
    wrong: int


def reliability_curve(scores: list[CellScore]) -> tuple[list[ConfidenceBin], ConfidenceBin]:
    """Wrong cells by confidence bin over every score, and the covered cells as a bin of their own
    (confidence does not apply to them: they are reported unreadable)."""
    if scores:
        confidence = np.concatenate([score.confidence.ravel() for score in scores])
        wrong = np.concatenate([~score.right.ravel() for score in scores])
        covered = np.concatenate([score.covered.ravel() for score in scores])
    else:
        confidence, wrong, covered = np.zeros(0), np.zeros(0, bool), np.zeros(0, bool)
    bins = []
    for low, high in itertools.pairwise(CONFIDENCE_BINS):
        inside = ~covered & (confidence >= low) & ((confidence < high) | (high == CONFIDENCE_BINS[-1]))
        bins.append(ConfidenceBin(low, high, int(inside.sum()), int((inside & wrong).sum())))
    return bins, ConfidenceBin(0.0, 1.0, int(covered.sum()), int((covered & wrong).sum()))
