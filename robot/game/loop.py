"""The game: a state machine that plays one match of Connect 4 against a person, on the real table or in the sim.

    wait for the person ─▶ think ─▶ move ─▶ verify ─┐
          ▲                                         │
          └───────────────── (game not over) ◀──────┘ ─▶ game over (winner, the winning four)

The game never plays on a board it cannot see: every move, the person's and the robot's, is taken from a
stable camera reading (`vision.Stabiliser` + `vision.detect_move`), and what people really do (two
discs, a disc taken back, the wrong colour, a hand in front of the camera, walking away) is told to the
person in a plain sentence while the game waits for the board to be right again. A robot disc that
lands in the wrong column is reported and the game goes on from what the board shows; one that never
reaches the board (the board seen surely as it was) is fetched again once. The log is
saved after every move, so a game can be resumed after a crash (`GameLog`).

The `Table` is what the game acts on besides the camera: the robot's hand, and in the simulation the
simulated person and the world's true board (to report where discs really landed).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from engine import Position
from engine.ponder import Ponderer
from engine.search import Limit, SearchResult, search, warm_up
from robot.arm import ArmResetError
from robot.arm.planner import DiscLostError
from robot.game.log import GameLog, RobotTurn
from robot.game.watcher import BoardUnseenError, BoardWatcher
from vision import BoardReading, MoveEvent, MoveKind, detect_move
from vision.moves import players_grid

log = logging.getLogger(__name__)

DROP_ATTEMPTS = 2  # discs sent for one move before the robot stops and asks the person to look


class Table(Protocol):
    """The robot's hand and, in the simulation, the simulated person and the world's true board."""

    def person_turn(self, position: Position) -> None:
        """Give the person the turn: the simulated person plays now; on the real table nothing happens."""

    def robot_drop(self, column: int) -> float:
        """Pick a disc and drop it into `column` (0-based); returns the arm's time in seconds."""

    def true_board(self) -> np.ndarray | None:
        """The board as it really is in players' values (sim only), None on the real table."""


@dataclass(frozen=True)
class GameSettings:
    """How the robot plays: who starts, the engine's budget and level, how patient it is with people."""

    robot_first: bool = False
    time_budget_s: float = 0.5
    level: int = 10
    seed: int | None = None
    stable_frames: int = 3
    look_timeout_s: float = 10.0  # a stable reading must come within this, else the view is blocked
    remind_after_s: float = 60.0  # the person has not played: say so
    give_up_after_s: float = 900.0  # the person walked away: save and stop (resume later)
    max_robot_retries: int = 1  # a robot disc that did not show up: look again this many times
    ponder: bool = True  # at level 10, solve the person's likely replies while they think


class Game:
    """One match: the state machine of the module docstring. `tell` speaks to the person."""

    def __init__(
        self,
        table: Table,
        watcher: BoardWatcher,
        settings: GameSettings,
        log_path: Path | None,
        tell: Callable[[str], None],
        game_log: GameLog | None = None,
        on_move: Callable[[int, np.ndarray, BoardReading], None] | None = None,
    ) -> None:
        """`on_move(move_number, frame, reading)` is called with the frame that confirmed each move (for `--record`)."""
        self.table = table
        self.watcher = watcher
        self.settings = settings
        self.log_path = log_path
        self.tell = tell
        rows, cols = watcher.shape
        self.log = game_log or GameLog(settings.robot_first, rows, cols)
        self.position = Position.from_moves(self.log.move_string, width=cols, height=rows)
        watcher.known_board = self.position.to_array()  # its empty holes that look unchanged stay empty
        self.rng = random.Random(settings.seed)
        self.on_move = on_move
        self.ponderer: Ponderer | None = None
        self._last_note: str | None = None
        self.observers: list[GameObserver] = []
        self._last_search: tuple[SearchResult, int] | None = None  # and the stones on the board then

    def watch(self, observer: GameObserver) -> None:
        """Show the game to `observer` (a live view, a recording): every message and state change, every camera
        frame. Several may watch the same game."""
        if not self.observers:
            tell = self.tell

            def tell_and_publish(message: str) -> None:
                tell(message)
                self._publish(message.splitlines()[0])

            def show_frame(frame: np.ndarray, reading: BoardReading) -> None:
                for each in self.observers:
                    each.on_frame(frame, reading)

            self.tell = tell_and_publish
            self.watcher.frame_observer = show_frame
        self.observers.append(observer)
        self._publish(None)

    def _publish(self, message: str | None) -> None:
        """Hand the observers a fresh snapshot of the game (plain values: they may read them on another thread)."""
        if not self.observers:
            return
        over = self.position.is_over()
        turn = "over" if over else "robot" if self.position.side_to_move == self.robot_player else "person"
        snapshot = {
            "rows": self.position.height,
            "cols": self.position.width,
            "moves": list(self.log.moves),
            "robot_first": self.settings.robot_first,
            "turn": turn,
            "winner": self.log.winner,
            "winning_cells": [list(cell) for cell in self.position.winning_cells()] if over else [],
            "search": None if self._last_search is None else _search_snapshot(*self._last_search),
            "message": message,
        }
        for observer in self.observers:
            observer.on_state(snapshot)

    @property
    def robot_player(self) -> int:
        return 1 if self.settings.robot_first else 2

    def play(self) -> GameLog:
        """Play until the game is over (or the person walked away); returns the log."""
        warm_up(self.position.width, self.position.height, self.position.connect)  # the first move keeps its budget
        if self.settings.ponder and self.settings.level == 10 and self.position.fits_64_bits:
            self.ponderer = Ponderer()
        try:
            return self._play()
        finally:
            if self.ponderer is not None:
                self.ponderer.close()
                self.ponderer = None

    def _play(self) -> GameLog:
        marks = "X" if self.robot_player == 1 else "O", "O" if self.robot_player == 1 else "X"
        headline = "The game starts." if not self.log.moves else "The game resumes."
        self.tell(self._board_text(f"{headline} I play {marks[0]}, you play {marks[1]}."))
        while not self.position.is_over():
            if self.position.side_to_move == self.robot_player:
                try:
                    self._robot_turn()
                except ArmResetError:
                    self._note(
                        "My arm restarted in the middle of my move and is stopped. The game is saved: clear the "
                        "arm's way and take away any disc of mine that fell, then run `c4robot play --resume` "
                        "and I will home the arm and play on."
                    )
                    self._save()
                    raise
            elif not self._person_turn():
                self.log.stopped = self._why_stopped()
                if self._save():
                    self.tell(
                        f"You seem to have walked away ({self.log.stopped}): the game is saved in {self.log_path}; "
                        "run `c4robot play --resume` to go on."
                    )
                else:
                    self.tell(f"You seem to have walked away ({self.log.stopped}): the game stops here, unsaved.")
                return self.log
            self._save()
        self._game_over()
        return self.log

    def _board_text(self, headline: str) -> str:
        return f"{headline}\n{self.position}"

    def _save(self) -> bool:
        """Save the log when the game has a log file; True when it was saved."""
        if self.log_path is None:
            return False
        kept = self.log.save(self.log_path)
        if kept is not None:
            self.tell(
                f"The game in {self.log_path} was not finished: it is kept as {kept} "
                f"(`c4robot play --resume --log {kept}` goes on with it)."
            )
        return True

    def _why_stopped(self) -> str:
        waited = f"no move of yours seen for {self.settings.give_up_after_s:.0f} s"
        return f"{waited}; last: {self._last_note}" if self._last_note else waited

    def _note(self, message: str) -> None:
        """Tell the person and keep it in the log; the same message again in a row is not repeated."""
        if message == self._last_note:
            return
        self._last_note = message
        self.log.events.append(message)
        self.tell(message)

    def _check_agreement(self, reading: BoardReading) -> None:
        """In the sim, the camera's board must equal the world's after every move."""
        truth = self.table.true_board()
        if truth is None:
            return
        seen = players_grid(self.position.to_array(), reading.grid)
        if not np.array_equal(seen, truth):
            self.log.board_agreement = False
            log.warning("camera board differs from the world:\n%s\nvs\n%s", seen[::-1], truth[::-1])

    def _apply(self, column: int) -> None:
        self.position = self.position.play(column)
        self.log.moves.append(column)
        self.watcher.known_board = self.position.to_array()
        if self.on_move is not None and self.watcher.last_frame is not None and self.watcher.last_reading is not None:
            self.on_move(len(self.log.moves), self.watcher.last_frame, self.watcher.last_reading)

    def _person_turn(self) -> bool:
        """Wait for the person's disc; handle what people do. Returns False when they walked away."""
        self.table.person_turn(self.position)
        started = time.monotonic()
        reminded = False
        person = 3 - self.robot_player
        while True:
            try:
                reading = self.watcher.look(self.settings.look_timeout_s)
            except BoardUnseenError as error:
                self._note(str(error))  # looked again for look_timeout_s; now ask the person
                reading = None
            if reading is not None:
                event = detect_move(self.position.to_array(), reading, person)
                if event.kind is MoveKind.MOVE and event.column is not None:
                    self._last_note = None
                    self._apply(event.column)
                    self._check_agreement(reading)
                    self.tell(self._board_text(f"You played column {event.column + 1}."))
                    return True
                if event.kind is not MoveKind.NONE:
                    self._handle_person_event(event)
            waited = time.monotonic() - started
            if waited > self.settings.give_up_after_s:
                return False
            if waited > self.settings.remind_after_s and not reminded:
                self.tell("Your turn: drop a disc when you are ready.")
                reminded = True

    def _handle_person_event(self, event: MoveEvent) -> None:
        """Tell the person what is wrong; the next readings show whether they put it right."""
        self._note(event.message)
        fix = getattr(self.table, "person_fixes", None)
        if fix is not None:
            fix(event, self.position)

    def _robot_turn(self) -> None:
        """Think, move, verify; when the disc lands elsewhere, go on from what the camera sees."""
        think = self.ponderer.search if self.ponderer is not None else search
        result = think(self.position, Limit(time=self.settings.time_budget_s), level=self.settings.level, rng=self.rng)
        engine_s = result.ms / 1000.0
        self._last_search = result, self.position.moves_played
        self.tell(f"I play column {result.column + 1}" + (" (proven)." if result.proven else "."))
        arm_s, event, vision_s = self._drop_and_see(result.column)
        landed = event.column if event.kind is MoveKind.MOVE else None
        truth = self.table.true_board()
        if truth is not None:
            landed = _new_disc_column(self.position.to_array(), truth)
        self.log.turns.append(RobotTurn(result.column, landed, vision_s, engine_s, arm_s))
        if event.kind is not MoveKind.MOVE or event.column is None:
            raise RuntimeError(
                f"my disc for column {result.column + 1} did not show up on the board "
                f"({event.message}); check the arm and the dispenser, then resume"
            )
        if event.column != result.column:
            self._note(
                f"My disc went into column {event.column + 1} instead of {result.column + 1}; "
                f"the game goes on from the board as it is."
            )
        self._apply(event.column)
        if self.ponderer is not None:
            self.ponderer.start(self.position)
        self._check_agreement(self.watcher.last_reading)
        self.tell(self._board_text(f"I played column {event.column + 1}."))

    def _drop_and_see(self, column: int) -> tuple[float, MoveEvent, float]:
        """Drop the robot's disc into `column` and wait for the camera to see it (arm time, event, vision time).

        A disc that never reached the board (slipped out of the gripper on the way, or let go as planned and
        knocked aside) is fetched again, up to `DROP_ATTEMPTS` discs in all, but only when steady readings show
        the board surely as it was: a hand in the way or an unseen board is no proof that the disc is missing.
        """
        arm_s, attempt = 0.0, 1
        while True:
            try:
                arm_s += self.table.robot_drop(column)
                lost = f"my disc for column {column + 1} did not land in the board"
            except DiscLostError as error:  # one that fell into a column is the camera's to find
                lost = str(error)
            vision_started = time.perf_counter()
            event = self._await_robot_disc()
            vision_s = time.perf_counter() - vision_started
            if event.kind is not MoveKind.NONE or attempt == DROP_ATTEMPTS:
                return arm_s, event, vision_s
            self._note(f"{lost.capitalize()} and it is not on the board: I fetch another one.")
            attempt += 1

    def _await_robot_disc(self) -> MoveEvent:
        """The robot's disc as the camera sees it, looking again when it has not arrived yet."""
        event = MoveEvent(MoveKind.NONE, None, None, "no new disc")
        looks, deadline = 0, time.monotonic() + self.settings.give_up_after_s
        while looks <= self.settings.max_robot_retries and time.monotonic() < deadline:
            try:
                reading = self.watcher.look(self.settings.look_timeout_s)
            except BoardUnseenError as error:
                event = MoveEvent(MoveKind.BOARD_NOT_FOUND, None, None, str(error))
                looks += 1
                continue
            event = detect_move(self.position.to_array(), reading, self.robot_player)
            if event.kind is MoveKind.MOVE:
                return event
            if event.kind is MoveKind.COVERED:
                self._note(event.message)  # a hand in the way is waited for, not a failed look
            elif event.kind is MoveKind.TWO_DISCS:
                self._handle_person_event(event)  # the person played again while the arm moved: they take it out
            else:
                looks += 1
        return event

    def _game_over(self) -> None:
        winner = self.position.winner()
        if winner == 0:
            self.log.winner = "draw"
            self.tell("The board is full: a draw. Well played!")
        else:
            self.log.winner = "robot" if winner == self.robot_player else "opponent"
            four = ", ".join(f"column {c + 1} row {r + 1}" for c, r in self.position.winning_cells())
            who = "I win" if self.log.winner == "robot" else "You win"
            self.tell(f"{who}! The four: {four}.")
        self._save()


class GameObserver(Protocol):
    """What watches a game (robot.view.LiveView): called on the game's thread, so each call must return at once."""

    def on_state(self, snapshot: dict) -> None:
        """The game changed: board (moves), turn, the robot's last search, winner and four, the message said."""

    def on_frame(self, frame: np.ndarray, reading: BoardReading) -> None:
        """A camera frame and what vision read in it."""


def _search_snapshot(result: SearchResult, stones: int) -> dict:
    """The robot's last choice: its column, each column's score (Pons' scale when proven), stones before it."""
    return {
        "column": result.column,
        "proven": result.proven,
        "column_scores": list(result.column_scores),
        "stones": stones,
    }


def _new_disc_column(before: np.ndarray, after: np.ndarray) -> int | None:
    """The column of the one disc in `after` that `before` does not have (None if not exactly one)."""
    new = np.argwhere((before == 0) & (after != 0))
    return int(new[0][1]) if len(new) == 1 else None


__all__ = ["BoardUnseenError", "BoardWatcher", "Game", "GameObserver", "GameLog", "GameSettings", "RobotTurn", "Table"]
