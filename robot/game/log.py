"""The game log: the record of one game, saved atomically after every move so `--resume` can continue it.

The log is a person's game: it is locked while a game runs (a second `c4robot play` on it is refused),
every value is checked when read (a hand-edited or damaged log is named, never half-believed), and an
unfinished game is never overwritten by a new one: it is kept under another name first.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.store import remove_stale_temps, write_atomically
from engine import Position
from robot.game.events import GameEvent
from vision.moves import players_grid

LOG_VERSION = 2  # 2: events are objects (kind, columns, cells, message, time); 1: sentences, still read
READ_VERSIONS = (1, 2)
MAX_SIDE = 9  # the move string is one digit per move
WINNERS = (None, "robot", "opponent", "draw")


class GameLogBusyError(OSError):
    """Another `c4robot play` holds the game log."""


@dataclass
class RobotTurn:
    """One robot turn's figures; columns 0-based here, 1-based in the JSON summary."""

    column: int
    landed: int | None
    vision_s: float
    engine_s: float
    arm_s: float


@dataclass
class GameLog:
    """The record of a game, saved atomically after every move so `--resume` can continue it.

    `moves` are 0-based columns in play order; the file stores them as a 1-based move string.
    `stopped` says why a game ended before its end (None while it runs or once it is over). `unconfirmed` is the
    column the arm let the robot's disc go over while the camera has not yet seen it land: a game stopped then (the
    camera failed) counts it on `--resume` if the board shows it, and plays that turn again if not.
    """

    robot_first: bool
    rows: int
    cols: int
    moves: list[int] = field(default_factory=list)
    turns: list[RobotTurn] = field(default_factory=list)
    events: list[GameEvent] = field(default_factory=list)  # the notices, in the order said
    board_agreement: bool = True
    winner: str | None = None
    stopped: str | None = None
    unconfirmed: int | None = None
    continues_file: bool = field(default=False, repr=False, compare=False)  # read from the file it saves to

    @property
    def move_string(self) -> str:
        return "".join(str(column + 1) for column in self.moves)

    @property
    def is_finished(self) -> bool:
        return self.winner is not None

    def summary(self) -> dict:
        """The `--json` summary of DESIGN.md: 1-based columns, the winner, per robot turn figures."""
        return {
            "rows": self.rows,
            "cols": self.cols,
            "moves": self.move_string,
            "winner": self.winner,
            "robot_first": self.robot_first,
            "turns": [
                {
                    "column": turn.column + 1,
                    "landed": None if turn.landed is None else turn.landed + 1,
                    "vision_s": round(turn.vision_s, 4),
                    "engine_s": round(turn.engine_s, 4),
                    "arm_s": round(turn.arm_s, 3),
                }
                for turn in self.turns
            ],
            "board_agreement": self.board_agreement,
            "events": [event.to_json() for event in self.events],
            **({"stopped": self.stopped} if self.stopped else {}),
            **({"unconfirmed": self.unconfirmed + 1} if self.unconfirmed is not None else {}),
        }

    def take_board(self, seen_grid: np.ndarray) -> None:
        """Check the board the camera reads as a resumed game starts against the moves (`seen_grid`: 0 empty, 1 and
        2 the two colours). What may have happened while the game stood still counts when the board shows it: the
        robot's disc let go but unconfirmed (in whatever column it went), then a person's disc in their turn. A
        drop the board does not show is forgotten (the robot plays that turn again). RuntimeError for any other
        board."""
        position = Position.from_moves(self.move_string, width=self.cols, height=self.rows)
        seen = players_grid(position.to_array(), seen_grid)
        unconfirmed, self.unconfirmed = self.unconfirmed, None
        robot = 1 if self.robot_first else 2
        for robots in [[]] + ([[column] for column in position.legal_moves()] if unconfirmed is not None else []):
            after = position.play(robots[0]) if robots else position
            persons = [[]] if after.side_to_move == robot else [[], *([c] for c in after.legal_moves())]
            for person in persons:
                if np.array_equal(seen, (after.play(person[0]) if person else after).to_array()):
                    self.moves += robots + person
                    return
        raise RuntimeError(
            "the board the camera sees is not the one in the game log: set it up as logged, or start a new game "
            "without --resume"
        )

    def save(self, path: Path) -> Path | None:
        """Write the log atomically: a crash mid-write leaves the previous log intact.

        A new game's first save keeps an unfinished game it finds at `path` under another name first (that
        name is returned, None otherwise): a game is never overwritten by another, and a game that cannot
        start leaves the log as it was.
        """
        kept = None if self.continues_file else keep_unfinished(path)
        self.continues_file = True
        document = {"version": LOG_VERSION, **self.summary()}
        write_atomically(path, json.dumps(document, indent=1))
        return kept

    @classmethod
    def load(cls, path: Path) -> GameLog:
        """Read a saved log. Raises FileNotFoundError when there is none, ValueError naming the key when it is damaged."""
        if not path.exists():
            raise FileNotFoundError(f"no game log at {path}: there is no game to resume")
        try:
            return cls.from_document(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, UnicodeDecodeError, RecursionError) as error:
            reason = " ".join(str(error).split())[:200]
            raise ValueError(f"the game log {path} is damaged ({reason}): delete it to start a new game") from None

    @classmethod
    def from_document(cls, document: Any) -> GameLog:
        """A log from its parsed JSON; ValueError naming the first key whose value is missing or wrong."""
        if not isinstance(document, dict):
            raise ValueError(f"it holds a JSON {type(document).__name__}, not an object")
        if document.get("version") not in READ_VERSIONS:
            raise ValueError(
                f"version {_shown(document.get('version'))} is not one this c4robot reads "
                f"({', '.join(map(str, READ_VERSIONS))}): a newer c4robot wrote it"
            )
        rows, cols = _whole(document, "rows", 4, MAX_SIDE), _whole(document, "cols", 4, MAX_SIDE)
        moves = _typed(document, "moves", str)
        if len(moves) > rows * cols or not all("1" <= c <= str(cols) for c in moves):
            raise ValueError(f"moves {_shown(moves)} is not a move string of a {cols}-column board")
        columns = [int(c) - 1 for c in moves]
        if any(columns.count(column) > rows for column in set(columns)):
            raise ValueError(f"moves {_shown(moves)} put more than {rows} discs in a column")
        turns = _typed(document, "turns", list)
        events = [GameEvent.from_json(event) for event in _typed(document, "events", list)]
        if document["version"] == 1 and any(event.kind != "said" for event in events):
            raise ValueError("events of a version 1 log must be sentences")
        winner = document.get("winner", "missing")
        if winner not in WINNERS:
            raise ValueError(f"winner {_shown(winner)} is none of robot, opponent, draw or null")
        stopped = document.get("stopped")
        if stopped is not None and not isinstance(stopped, str):
            raise ValueError(f"stopped {_shown(stopped)} is not a sentence")
        robot_first = _typed(document, "robot_first", bool)
        unconfirmed = document.get("unconfirmed")
        if unconfirmed is not None:
            robots_turn = len(columns) % 2 == (0 if robot_first else 1)
            if isinstance(unconfirmed, bool) or unconfirmed not in range(1, cols + 1) or not robots_turn:
                raise ValueError(f"unconfirmed {_shown(unconfirmed)} is not a column of a robot's turn")
            if columns.count(unconfirmed - 1) == rows:
                raise ValueError(f"unconfirmed {_shown(unconfirmed)} is a full column")
        return cls(
            robot_first=robot_first,
            rows=rows,
            cols=cols,
            moves=columns,
            turns=[_turn(turn, index, cols) for index, turn in enumerate(turns)],
            events=list(events),
            board_agreement=_typed(document, "board_agreement", bool),
            winner=winner,
            stopped=stopped,
            unconfirmed=None if unconfirmed is None else unconfirmed - 1,
            continues_file=True,
        )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _typed(document: dict, key: str, kind: type) -> Any:
    value = document.get(key)
    if key not in document:
        raise ValueError(f"{key} is missing")
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ValueError(f"{key} is {_shown(value)}, not a {'true/false' if kind is bool else kind.__name__}")
    return value


def _whole(document: dict, key: str, low: int, high: int) -> int:
    value = _typed(document, key, int)
    if not low <= value <= high:
        raise ValueError(f"{key} is {value}: give {low} to {high}")
    return value


def _turn(turn: Any, index: int, cols: int) -> RobotTurn:
    where = f"turns[{index}]"
    if not isinstance(turn, dict):
        raise ValueError(f"{where} is {_shown(turn)}, not an object")
    column = _whole(turn, "column", 1, cols)
    landed = None if turn.get("landed", 0) is None else _whole(turn, "landed", 1, cols)
    times = []
    for key in ("vision_s", "engine_s", "arm_s"):
        value = turn.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{where}.{key} is {_shown(value)}, not a finite number of seconds")
        times.append(float(value))
    return RobotTurn(column - 1, None if landed is None else landed - 1, *times)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the game log for one `c4robot play`; GameLogBusyError (an OSError) when another play holds it.

    The lock is an advisory `flock` on a file beside the log, released by the system when the process
    ends however it ends. Under the lock, temp files of writes that died are removed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.with_name(f".{path.name}.lock")
    descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GameLogBusyError(
                f"the game log {path} is in use by another `c4robot play`: let that game end, or give --log OTHER"
            ) from None
        remove_stale_temps(path, 0.0)
        yield
    finally:
        os.close(descriptor)


def keep_unfinished(path: Path) -> Path | None:
    """Move an unfinished (or unreadable) game in `path` aside so a new game does not overwrite it; its new name.

    None when there is no log, or the game in it is over (then the new game may replace it).
    """
    if not path.exists():
        return None
    try:
        if GameLog.load(path).is_finished:
            return None
        kind = "unfinished"
    except ValueError:
        kind = "damaged"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"{path.stem}.{kind}-{stamp}{path.suffix}")
    counter = 1
    while kept.exists():
        counter += 1
        kept = path.with_name(f"{path.stem}.{kind}-{stamp}-{counter}{path.suffix}")
    os.replace(path, kept)
    return kept
