"""What happens in a game, as data: one `GameEvent` type (kind, columns, cells, message, time).

The game sends every event to its observers (the log, the recorder, the live view, the benches); they count
kinds and columns. The sentence is only how an event is shown to a person: nothing reads it back, so a message
can be reworded freely (`MESSAGES` is the one place the game's own sentences live; a test rewords them all).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from vision import BoardReading, MoveEvent, MoveKind
from vision.moves import players_grid


class EventKind(enum.StrEnum):
    """Every kind of thing the game says; the value is the name stored in logs and JSON."""

    GAME_STARTED = "game_started"
    GAME_RESUMED = "game_resumed"
    PERSON_TURN = "person_turn"
    REMINDER = "reminder"
    PERSON_MOVED = "person_moved"
    ROBOT_CHOICE = "robot_choice"
    ROBOT_MOVED = "robot_moved"
    DISC_ELSEWHERE = "disc_elsewhere"
    DISC_FETCHED_AGAIN = "disc_fetched_again"
    ARM_RESTARTED = "arm_restarted"
    COVERED = "covered"
    TWO_DISCS = "two_discs"
    EARLY_REPLY = "early_reply"
    DISC_REMOVED = "disc_removed"
    WRONG_COLOUR = "wrong_colour"
    FLOATING_DISC = "floating_disc"
    BOARD_NOT_FOUND = "board_not_found"
    BOARD_UNSEEN = "board_unseen"
    BOARD_COVERED = "board_covered"
    BOARD_MOVED = "board_moved"
    BOARD_DISAGREES = "board_disagrees"
    LIGHT_CHANGED = "light_changed"
    COLOURS_TOO_CLOSE = "colours_too_close"
    SERVO_HOT = "servo_hot"
    WALKED_AWAY = "walked_away"
    LOG_KEPT_ASIDE = "log_kept_aside"
    GAME_OVER = "game_over"
    SAID = "said"  # a sentence of a log written before events were data: its kind is unknown


# The game's own sentences, one per kind: `{detail}` is a sentence another part gave (vision, the watcher).
MESSAGES: dict[EventKind, str] = {
    EventKind.GAME_STARTED: "The game starts. I play {robot_mark}, {person} {person_mark}.",
    EventKind.GAME_RESUMED: "The game resumes. I play {robot_mark}, {person} {person_mark}.",
    EventKind.PERSON_TURN: "Your turn: drop one of your discs into a column.",
    EventKind.REMINDER: "Your turn: drop a disc when you are ready.",
    EventKind.PERSON_MOVED: "{person} played column {column}.",
    EventKind.ROBOT_CHOICE: "I play column {column}{proven}.",
    EventKind.ROBOT_MOVED: "I played column {column}.",
    EventKind.DISC_ELSEWHERE: (
        "My disc went into column {landed} instead of {chosen}; the game goes on from the board as it is."
    ),
    EventKind.DISC_FETCHED_AGAIN: "{detail} and it is not on the board: I fetch another one.",
    EventKind.ARM_RESTARTED: (
        "My arm restarted in the middle of my move and is stopped. The game is saved: clear the arm's way and take "
        "away any disc of mine that fell, then run `{resume}` and I will home the arm and play on."
    ),
    EventKind.COVERED: "{detail}",
    EventKind.TWO_DISCS: "{detail}",
    EventKind.EARLY_REPLY: "You played column {reply} before I saw my disc in column {column}: I count it as your reply.",
    EventKind.DISC_REMOVED: "{detail}",
    EventKind.WRONG_COLOUR: "{detail}",
    EventKind.FLOATING_DISC: "{detail}",
    EventKind.BOARD_NOT_FOUND: "{detail}",
    EventKind.BOARD_UNSEEN: "{detail}",
    EventKind.BOARD_COVERED: "{detail}",
    EventKind.BOARD_MOVED: (
        "The board has moved since calibration (about {shift_px:.0f} px in the camera's picture): put it back, or "
        "run `c4robot calibrate board{calibrate_options}`."
    ),
    EventKind.BOARD_DISAGREES: "The camera's board differs from the world's in {count} cell(s).",
    EventKind.LIGHT_CHANGED: "The light changed: looking again.",
    EventKind.COLOURS_TOO_CLOSE: "{detail}",
    EventKind.SERVO_HOT: "{detail}. The game is saved and paused: once the arm has cooled, run `{resume}`.",
    EventKind.WALKED_AWAY: "You seem to have walked away ({why}): {outcome}",
    EventKind.LOG_KEPT_ASIDE: (
        "The game in {path} was not finished: it is kept as {kept} (`c4robot play --resume --log {kept}` goes on "
        "with it)."
    ),
    EventKind.GAME_OVER: "{outcome}",
    EventKind.SAID: "{detail}",
}

# Kinds that show the board after their sentence when told at a terminal.
SHOWS_BOARD = frozenset({EventKind.GAME_STARTED, EventKind.GAME_RESUMED, EventKind.PERSON_MOVED, EventKind.ROBOT_MOVED})
# Kinds that are the game's ordinary course; every other kind is a notice, kept in the game log.
ROUTINE = frozenset(
    {
        EventKind.GAME_STARTED,
        EventKind.GAME_RESUMED,
        EventKind.PERSON_TURN,
        EventKind.REMINDER,
        EventKind.PERSON_MOVED,
        EventKind.ROBOT_CHOICE,
        EventKind.ROBOT_MOVED,
        EventKind.WALKED_AWAY,
        EventKind.LOG_KEPT_ASIDE,
        EventKind.GAME_OVER,
        EventKind.BOARD_DISAGREES,
    }
)
# A vision event becomes the game event of the same name.
FROM_MOVE_KIND = {
    MoveKind.COVERED: EventKind.COVERED,
    MoveKind.TWO_DISCS: EventKind.TWO_DISCS,
    MoveKind.DISC_REMOVED: EventKind.DISC_REMOVED,
    MoveKind.WRONG_COLOUR: EventKind.WRONG_COLOUR,
    MoveKind.FLOATING_DISC: EventKind.FLOATING_DISC,
    MoveKind.BOARD_NOT_FOUND: EventKind.BOARD_NOT_FOUND,
}

Cell = tuple[int, int]


@dataclass(frozen=True)
class GameEvent:
    """One thing that happened: its kind, the columns and cells (row, column) it is about, 0-based with row 0 at
    the bottom, the sentence that shows it, and when (seconds since the game began)."""

    kind: EventKind
    message: str
    columns: tuple[int, ...] = ()
    cells: tuple[Cell, ...] = ()
    at_s: float = 0.0

    def same_as(self, other: GameEvent) -> bool:
        """The same notice again (its time aside): said once, not repeated."""
        return (self.kind, self.columns, self.cells, self.message) == (
            other.kind,
            other.columns,
            other.cells,
            other.message,
        )

    @property
    def is_notice(self) -> bool:
        """Something out of the game's ordinary course (kept in the log, counted by the benches)."""
        return self.kind not in ROUTINE

    def to_json(self) -> dict[str, Any]:
        """The event for a log or `--json`: columns and cells 1-based."""
        return {
            "kind": str(self.kind),
            "columns": [column + 1 for column in self.columns],
            "cells": [[row + 1, column + 1] for row, column in self.cells],
            "message": self.message,
            "at_s": round(self.at_s, 3),
        }

    @classmethod
    def from_json(cls, document: Any) -> GameEvent:
        """An event from a log; ValueError naming what is wrong. A plain sentence (a log of version 1) is SAID."""
        if isinstance(document, str):
            return cls(EventKind.SAID, document)
        if not isinstance(document, dict):
            raise ValueError(f"an event is a JSON {type(document).__name__}, not an object")
        try:
            kind = EventKind(document.get("kind"))
        except ValueError:
            raise ValueError(f"an event has the unknown kind {str(document.get('kind'))[:40]!r}") from None
        message, at_s = document.get("message"), document.get("at_s", 0.0)
        columns, cells = document.get("columns", []), document.get("cells", [])
        if not isinstance(message, str) or not isinstance(at_s, int | float) or isinstance(at_s, bool):
            raise ValueError(f"the {kind} event's message or time is not a sentence and a number")
        if not (isinstance(columns, list) and all(_is_index(c) for c in columns)):
            raise ValueError(f"the {kind} event's columns are not 1-based column numbers")
        if not (
            isinstance(cells, list)
            and all(isinstance(c, list) and len(c) == 2 and all(map(_is_index, c)) for c in cells)
        ):
            raise ValueError(f"the {kind} event's cells are not [row, column] pairs of 1-based numbers")
        return cls(kind, message, tuple(c - 1 for c in columns), tuple((r - 1, c - 1) for r, c in cells), float(at_s))


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 99


def event(kind: EventKind, at_s: float, columns=(), cells=(), **params: Any) -> GameEvent:
    """The event of `kind` with its sentence from `MESSAGES` (`params` fill it in)."""
    message = MESSAGES[kind].format(**params)
    return GameEvent(kind, message, tuple(int(c) for c in columns), tuple((int(r), int(c)) for r, c in cells), at_s)


def move_subject(
    move: MoveEvent, before: np.ndarray, reading: BoardReading | None
) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The columns and cells (row, column) a vision event is about: the columns something covers, the new discs,
    the disc that went or is wrong."""
    if move.kind is MoveKind.COVERED and reading is not None and reading.covered is not None:
        return tuple(int(c) for c in np.flatnonzero(reading.covered.any(axis=0))), ()
    if move.kind is MoveKind.TWO_DISCS and reading is not None:
        new = np.argwhere((before == 0) & (players_grid(before, reading.grid) != 0))
        cells = tuple((int(r), int(c)) for r, c in new)
        return tuple(sorted({c for _, c in cells})), cells
    if move.column is not None and move.row is not None:
        return (move.column,), ((move.row, move.column),)
    return (), ()


class GameObserver(Protocol):
    """What watches a game (robot.view.LiveView): called on the game's thread, so each call must return at once."""

    def on_state(self, snapshot: dict) -> None:
        """The game changed: board (moves), turn, the robot's last search, winner and four, the message said."""

    def on_frame(self, frame: np.ndarray, reading: BoardReading) -> None:
        """A camera frame and what vision read in it."""
