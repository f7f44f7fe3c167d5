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
saved after every move, so a game can be resumed after a crash, or after the pause a hot servo makes (`GameLog`).
Longer than 400 lines because every state shares the one match's position, log and watcher.

The `Table` is what the game acts on besides the camera: the robot's hand, and in the simulation the
simulated person and the world's true board (to report where discs really landed).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np

from engine import Position
from engine.ponder import Ponderer
from engine.search import Limit, SearchResult, search, warm_up
from robot.arm import ArmResetError
from robot.arm.drivers.feetech_link import ServoHotError
from robot.arm.planner import DiscLostError
from robot.game.config import GameSettings
from robot.game.events import FROM_MOVE_KIND, EventKind, GameEvent, GameObserver, event, move_subject
from robot.game.log import GameLog, RobotTurn
from robot.game.watcher import BoardUnseenError, BoardWatcher
from vision import BoardReading, MoveEvent, MoveKind, detect_move
from vision.moves import move_before_reply, players_grid

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


class Game:
    """One match: the state machine of the module docstring. `tell` speaks to the person; every event also goes to
    the observers (`watch`) as data."""

    def __init__(
        self,
        table: Table,
        watcher: BoardWatcher,
        settings: GameSettings,
        log_path: Path | None,
        tell: Callable[[str], None],
        game_log: GameLog | None = None,
        on_move: Callable[[int, np.ndarray, BoardReading], None] | None = None,
        resume_command: str | None = None,
    ) -> None:
        """`on_move(move_number, frame, reading)` is called with the frame that confirmed each move (for `--record`);
        `resume_command` is the exact command that goes on with this game (told when the game stops early)."""
        self.table = table
        self.watcher = watcher
        self.settings = settings
        self.log_path = log_path
        self.tell = tell
        rows, cols = watcher.shape
        self.log = game_log or GameLog(settings.robot_first, rows, cols)
        self.position = Position.from_moves(self.log.move_string, width=cols, height=rows)
        self.rng = random.Random(settings.seed)
        self.on_move = on_move
        self.resume_command = resume_command or "c4robot play --resume" + (f" --log {log_path}" if log_path else "")
        self.ponderer: Ponderer | None = None
        self._last_notice: GameEvent | None = None
        self._reply_counted = False  # the person's disc, seen with the robot's, awaits their turn's look
        self.observers: list[GameObserver] = []
        self._last_search: tuple[SearchResult, int] | None = None  # and the stones on the board then
        self._started = time.monotonic()
        watcher.notify = self._notice  # what the light and the colours do, as notices
        watcher.know(self.position.to_array())  # its empty holes that look unchanged stay empty

    def watch(self, observer: GameObserver) -> None:
        """Show the game to `observer` (a live view, a recording): every event and state change, every camera
        frame. Several may watch the same game."""
        if not self.observers:

            def show_frame(frame: np.ndarray, reading: BoardReading) -> None:
                for each in self.observers:
                    each.on_frame(frame, reading)

            self.watcher.frame_observer = show_frame
        self.observers.append(observer)
        self._publish(None)

    def _publish(self, said: GameEvent | None) -> None:
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
            "person": "the simulated person" if self._person_is_simulated else "you",
            "turn": turn,
            "winner": self.log.winner,
            "winning_cells": [list(cell) for cell in self.position.winning_cells()] if over else [],
            "search": None if self._last_search is None else _search_snapshot(*self._last_search),
            "message": None if said is None else said.message,
            "event": said,
        }
        for observer in self.observers:
            observer.on_state(snapshot)

    def _say(self, kind: EventKind, columns=(), cells=(), **params: object) -> GameEvent:
        """Make the event, tell the person, show it to the observers (a terminal's shows the board after it)."""
        said = event(kind, time.monotonic() - self._started, columns, cells, **params)
        self.tell(said.message)
        self._publish(said)
        return said

    def _notice(self, kind: EventKind, columns=(), cells=(), **params: object) -> None:
        """Say something out of the ordinary and keep it in the log; the same notice again in a row is not repeated."""
        said = event(kind, time.monotonic() - self._started, columns, cells, **params)
        if self._last_notice is not None and self._last_notice.same_as(said):
            return
        self._last_notice = said
        self.log.events.append(said)
        self.tell(said.message)
        self._publish(said)

    @property
    def _person_is_simulated(self) -> bool:
        """The simulated person is spoken of in the third person; a real one (or one typing) is "you"."""
        return getattr(self.table, "person_is_simulated", False)

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
        marks = ("X", "O") if self.robot_player == 1 else ("O", "X")
        opening = EventKind.GAME_RESUMED if self.log.moves else EventKind.GAME_STARTED
        self._save()  # an unfinished game in the log's place is kept aside, and said, before this one starts
        self._check_board_position(self.watcher.camera.read())
        person = "the simulated person plays" if self._person_is_simulated else "you play"
        self._say(opening, robot_mark=marks[0], person=person, person_mark=marks[1])
        while not self.position.is_over():
            if self.position.side_to_move == self.robot_player:
                try:
                    self._robot_turn()
                except ArmResetError:
                    self._notice(EventKind.ARM_RESTARTED, resume=self.resume_command)
                    self._save()
                    raise
                except ServoHotError as error:  # a pause, not a crash: the game goes on once the servo has cooled
                    self.log.stopped = str(error)
                    self._notice(EventKind.SERVO_HOT, detail=str(error).capitalize(), resume=self.resume_command)
                    self._save()
                    return self.log
            elif not self._person_turn():
                self.log.stopped = self._why_stopped()
                if self._save():
                    outcome = f"the game is saved in {self.log_path}; run `{self.resume_command}` to go on."
                else:
                    outcome = "the game stops here, unsaved."
                self._say(EventKind.WALKED_AWAY, why=self.log.stopped, outcome=outcome)
                return self.log
            self._save()
        self._game_over()
        return self.log

    def _save(self) -> bool:
        """Save the log when the game has a log file; True when it was saved."""
        if self.log_path is None:
            return False
        kept = self.log.save(self.log_path)
        if kept is not None:
            self._say(EventKind.LOG_KEPT_ASIDE, path=self.log_path, kept=kept)
        return True

    def _why_stopped(self) -> str:
        waited = f"no move of yours seen for {self.settings.give_up_after_s:.0f} s"
        return f"{waited}; last: {self._last_notice.message}" if self._last_notice else waited

    def _check_agreement(self, reading: BoardReading) -> None:
        """In the sim, the camera's board must equal the world's after every move."""
        truth = self.table.true_board()
        if truth is None:
            return
        seen = players_grid(self.position.to_array(), reading.grid)
        if not np.array_equal(seen, truth):
            self.log.board_agreement = False
            differ = [(int(r), int(c)) for r, c in np.argwhere(seen != truth)]
            log.warning("camera board differs from the world:\n%s\nvs\n%s", seen[::-1], truth[::-1])
            said = event(EventKind.BOARD_DISAGREES, time.monotonic() - self._started, (), differ, count=len(differ))
            self._publish(said)  # for the observers only: the person cannot act on it

    def _apply(self, column: int) -> None:
        self.position = self.position.play(column)
        self.log.moves.append(column)
        self.watcher.know(self.position.to_array())  # the frame that showed it teaches the colours
        if self.on_move is not None and self.watcher.last_frame is not None and self.watcher.last_reading is not None:
            self.on_move(len(self.log.moves), self.watcher.last_frame, self.watcher.last_reading)

    def _person_turn(self) -> bool:
        """Wait for the person's disc; handle what people do. Returns False when they walked away."""
        if self._reply_counted:  # already down: the person is neither asked nor prompted again
            self._reply_counted = False
            counted = getattr(self.table, "reply_counted", None)
            if counted is not None:
                counted()
        else:
            self.table.person_turn(self.position)
            if getattr(self.table, "prompts_person", False):
                self._say(EventKind.PERSON_TURN)
        self.watcher.person = 3 - self.robot_player  # their disc may be read from its hole's change
        try:
            return self._await_person_disc()
        finally:
            self.watcher.person = None

    def _await_person_disc(self) -> bool:
        """The person's disc as the camera sees it, handling what people do; False when they walked away."""
        started = self.watcher.clock()
        reminded = False
        person = 3 - self.robot_player
        while True:
            try:
                reading = self.watcher.look(self.settings.look_timeout_s)
            except BoardUnseenError as error:
                self._notice_unseen(error)  # looked again for look_timeout_s; now ask the person
                reading = None
            if reading is not None:
                move = detect_move(self.position.to_array(), reading, person)
                if move.kind is MoveKind.MOVE and move.column is not None:
                    self._last_notice = None
                    self._apply(move.column)
                    self._check_agreement(reading)
                    person = "The simulated person" if self._person_is_simulated else "You"
                    self._say(EventKind.PERSON_MOVED, (move.column,), person=person, column=move.column + 1)
                    return True
                if move.kind is not MoveKind.NONE:
                    self._handle_person_event(move, reading)
            waited = self.watcher.clock() - started
            if waited > self.settings.give_up_after_s:
                return False
            if waited > self.settings.remind_after_s and not reminded:
                self._say(EventKind.REMINDER)
                self._check_board_position(None)  # a nudged board can look like a hand that stays
                reminded = True

    def _handle_person_event(self, move: MoveEvent, reading: BoardReading) -> None:
        """Tell the person what is wrong; the next readings show whether they put it right."""
        self._notice_move(move, reading)
        fix = getattr(self.table, "person_fixes", None)
        if fix is not None:
            fix(move, self.position)

    def _notice_unseen(self, error: BoardUnseenError) -> None:
        """No steady view of the board: something in front of all of it (every column), or another reason."""
        if error.covers_board:
            self._notice(EventKind.BOARD_COVERED, range(self.position.width), detail=str(error))
        elif error.board_moved_px is not None:
            self._notice_board_moved(error.board_moved_px)
        else:
            self._notice(EventKind.BOARD_UNSEEN, detail=str(error))

    def _check_board_position(self, frame: np.ndarray | None) -> None:
        """Name a board that is not where calibration found it (in `frame`, default the last one looked at)."""
        shift_px = self.watcher.board_moved_px(frame)
        if shift_px is not None:
            self._notice_board_moved(shift_px)

    def _notice_board_moved(self, shift_px: float) -> None:
        options = " --sim" if self.table.true_board() is not None else ""
        self._notice(EventKind.BOARD_MOVED, shift_px=shift_px, calibrate_options=options)

    def _notice_move(self, move: MoveEvent, reading: BoardReading | None) -> None:
        """A vision event as a notice, with the columns and cells it is about."""
        columns, cells = move_subject(move, self.position.to_array(), reading)
        self._notice(FROM_MOVE_KIND[move.kind], columns, cells, detail=move.message)

    def _robot_turn(self) -> None:
        """Think, move, verify; when the disc lands elsewhere, go on from what the camera sees."""
        think = self.ponderer.search if self.ponderer is not None else search
        result = think(self.position, Limit(time=self.settings.time_budget_s), level=self.settings.level, rng=self.rng)
        engine_s = result.ms / 1000.0
        self._last_search = result, self.position.moves_played
        proven = " (proven)" if result.proven else ""
        self._say(EventKind.ROBOT_CHOICE, (result.column,), column=result.column + 1, proven=proven)
        arm_s, move, vision_s = self._drop_and_see(result.column)
        landed = move.column if move.kind is MoveKind.MOVE else None
        truth = self.table.true_board()
        if truth is not None:
            landed = _new_disc_column(self.position.to_array(), truth)
        self.log.turns.append(RobotTurn(result.column, landed, vision_s, engine_s, arm_s))
        if move.kind is MoveKind.MOVE:
            self.log.unconfirmed = None
        if move.kind is not MoveKind.MOVE or move.column is None:
            self._save()
            raise RuntimeError(
                f"my disc for column {result.column + 1} did not show up on the board "
                f"({move.message}); check the arm and the dispenser, then run `{self.resume_command}`"
            )
        if move.column != result.column:
            self._notice(
                EventKind.DISC_ELSEWHERE,
                (move.column, result.column),
                landed=move.column + 1,
                chosen=result.column + 1,
            )
        self._apply(move.column)
        if self.ponderer is not None:
            self.ponderer.start(self.position)
        self._check_agreement(self.watcher.last_reading)
        self._say(EventKind.ROBOT_MOVED, (move.column,), column=move.column + 1)

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
                self.log.unconfirmed = column  # let go over the board: kept if the camera fails before it sees it
                self._save()
            except DiscLostError as error:  # one that fell into a column is the camera's to find
                lost = str(error)
            vision_started = time.perf_counter()
            self.watcher.expected = column, self.robot_player
            try:
                move = self._await_robot_disc()
            finally:
                self.watcher.expected = None
            vision_s = time.perf_counter() - vision_started
            if move.kind is not MoveKind.NONE or attempt == DROP_ATTEMPTS:
                return arm_s, move, vision_s
            self._notice(EventKind.DISC_FETCHED_AGAIN, (column,), detail=lost.capitalize())
            attempt += 1

    def _await_robot_disc(self) -> MoveEvent:
        """The robot's disc as the camera sees it, looking again when it has not arrived yet."""
        move = MoveEvent(MoveKind.NONE, None, None, "no new disc")
        looks, deadline = 0, self.watcher.clock() + self.settings.give_up_after_s
        while looks <= self.settings.max_robot_retries and self.watcher.clock() < deadline:
            try:
                reading = self.watcher.look(self.settings.look_timeout_s)
            except BoardUnseenError as error:
                move = MoveEvent(MoveKind.BOARD_NOT_FOUND, None, None, str(error))
                looks += 1
                continue
            move = detect_move(self.position.to_array(), reading, self.robot_player)
            if move.kind is MoveKind.MOVE:
                return move
            if move.kind is MoveKind.COVERED:
                self._notice_move(move, reading)  # a hand in the way is waited for, not a failed look
            elif move.kind is MoveKind.TWO_DISCS:
                early = move_before_reply(self.position.to_array(), reading, self.robot_player)
                if early is not None:  # the person answered before the camera saw my disc: their turn finds theirs
                    mine, reply = early
                    self._notice(EventKind.EARLY_REPLY, (reply,), reply=reply + 1, column=mine.column + 1)
                    self._reply_counted = True
                    return mine
                self._handle_person_event(move, reading)  # the person played again while the arm moved
            else:
                looks += 1
        return move

    def _game_over(self) -> None:
        winner = self.position.winner()
        four = tuple((r, c) for c, r in self.position.winning_cells())
        if winner == 0:
            self.log.winner = "draw"
            outcome = "The board is full: a draw. Well played!"
        else:
            self.log.winner = "robot" if winner == self.robot_player else "opponent"
            where = ", ".join(f"column {c + 1} row {r + 1}" for r, c in four)
            person_wins = "The simulated person wins" if self._person_is_simulated else "You win"
            outcome = f"{'I win' if self.log.winner == 'robot' else person_wins}! The four: {where}."
        self._say(EventKind.GAME_OVER, sorted({c for _, c in four}), four, outcome=outcome)
        self._save()


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


__all__ = ["BoardUnseenError", "BoardWatcher", "Game", "GameEvent", "GameObserver", "GameLog", "GameSettings"]
