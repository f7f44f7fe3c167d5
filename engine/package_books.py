"""The package's books, loaded once per process: the opening book (perfect moves and exact scores on the
robot's lines) and the early book (value-keeping moves and outcomes of every early position), and the
search's answer from either."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from engine.scores import column_scores, outcome
from engine.search_types import SearchResult, ms_since

if TYPE_CHECKING:
    from engine.book import Book
    from engine.position import Position

logger = logging.getLogger(__name__)
_book_lock = threading.Lock()
_loaded_books: dict[str, Book | None] = {}  # file name -> the Book, or None when the package has none


def opening_book() -> Book | None:
    """The package's opening book, loaded once; None if not built."""
    from engine.book import BOOK_PATH

    return _load_once(BOOK_PATH)


def early_book() -> Book | None:
    """The package's early book, loaded once; None if not built."""
    from engine.early_book import EARLY_BOOK_PATH

    return _load_once(EARLY_BOOK_PATH)


def book_score(position: Position, weak: bool = False) -> int | None:
    """What the package's books know of `position`: the opening book's exact score (its sign when `weak`),
    else, when `weak`, the early book's outcome; else the best of its children's when the books know
    every child (the person-to-move positions on the robot's lines); None when they do not."""
    known = _own_book_score(position, weak)
    if known is not None:
        return known
    scores = column_scores(position, lambda child: _own_book_score(child, weak), weak)
    return None if scores is None else max(score for score in scores if score is not None)


def _own_book_score(position: Position, weak: bool) -> int | None:
    books = (opening_book(), early_book()) if weak else (opening_book(),)
    for book in books:
        score = book.score(position) if book is not None else None
        if score is not None:
            return outcome(score) if weak else score
    return None


def book_answer(position: Position, book: Book | None, started: float) -> SearchResult | None:
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
        ms_since(started),
        (found.column,),
        scores,
    )


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
