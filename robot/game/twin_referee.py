"""What happens at the twin's table between the robot's moves: the webcam films, the person plays, the truth is told.

`TwinReferee` is called after every physics step on the thread that owns the world (the device's: the virtual
firmware's or the servo bus's), so nothing else touches PyBullet. At the camera's frame rate it renders a frame
into the stream; every `CHECK_S` it looks at the board: a disc that has come to rest is a move (the twin's truth,
reported), and when the robot's disc has landed (or, when the person starts, once the host has had time to set up)
the simulated person plays the column their policy picks, with their hand, after a person's pause.
It also reads the game's log when given one: after every move the game saved, it reports whether the game's
moves are the twin's.
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from engine import Position
from robot.game.log import GameLog
from robot.game.opponents import Opponent

if TYPE_CHECKING:
    from sim.person import Person

log = logging.getLogger(__name__)

CHECK_S = 0.1  # simulated seconds between looks at the board
STILL_REFRESH_S = 2.0  # a still table is rendered anew this often all the same (the room's noise)
LOG_CHECK_S = 0.5  # wall seconds between reads of the game's log
HOME_TOLERANCE_M = 0.02
ARM_AWAY_S = 1.0  # the arm at home this long before the person reaches in
REQUESTS = ("chessboard", "discs", "clear", "play")
CHESSBOARD_POSES = 120  # a person keeps finding new poses: a view the step turns down is not shown again soon
# A person moves the board to more than nine places: `calibrate camera` keeps a view only where the corners moved a
# tenth of the picture's diagonal from every view it kept, and ten views need ten such places.
CHESSBOARD_PLACES = 4
CHESSBOARD_HOLD_S = 0.5  # wall seconds the person holds the chessboard still in each pose
PERSON_DISCS, ROBOT_DISCS = 1, 2  # the world's players (red, yellow), as in `play --sim`


@dataclass
class TwinTruth:
    """The moves as they really happened (0-based columns), who made them and the game's agreement so far."""

    moves: list[int] = field(default_factory=list)
    players: list[int] = field(default_factory=list)  # world players of each move
    game_moves_seen: int = 0
    agreed: bool = True
    winner: str | None = None
    strays: int = 0  # discs that ended off the board

    @property
    def move_string(self) -> str:
        return "".join(str(c + 1) for c in self.moves)


@dataclass
class _Chessboard:
    """The printed chessboard the person waves: its bodies (held in the world), its poses, how many were shown."""

    held: AbstractContextManager
    bodies: tuple[int, int]
    poses: list[np.ndarray]
    shown: int = 0
    moved_at: float = 0.0


class TwinReferee:
    """The world's step listener: films, notices moves, plays the person's turns, compares with the game's log."""

    def __init__(
        self,
        world,
        person: Person,
        opponent: Opponent,
        put_frame: Callable[[np.ndarray], None],
        repeat_frame: Callable[[], None],
        report: Callable[[dict], None],
        host_seen: Callable[[], bool],
        robot_first: bool = False,
        fps: float = 10.0,
        first_move_after_s: float = 6.0,
        game_log: Path | None = None,
        on_move: Callable[[int], None] | None = None,
        home_m: np.ndarray | None = None,
    ) -> None:
        self.world = world
        self.person = person
        self.opponent = opponent
        self.put_frame = put_frame
        self.repeat_frame = repeat_frame
        self.report = report
        self.host_seen = host_seen
        self.robot_first = robot_first
        self.frame_s = 1.0 / fps
        self.first_move_after_s = first_move_after_s
        self.game_log = game_log
        self.on_move = on_move
        self.home_m = None if home_m is None else np.asarray(home_m, float)  # the tool at the arm's home
        self._home_since: float | None = None
        self.truth = TwinTruth()
        rows, cols = world.config.board.rows, world.config.board.columns
        self.position = Position.from_moves("", width=cols, height=rows)
        self._board = world.board_state()
        self._inside = False
        self._next_frame_at = 0.0
        self._scene: tuple | None = None
        self._rendered_at = 0.0
        self._next_check_s = 0.0
        self._host_seen_at: float | None = None
        self._log_checked_at = 0.0
        self.requests: queue.Queue[str] = queue.Queue()  # what the test asks the person to do (calibration)
        self.playing = True
        self._chessboard: _Chessboard | None = None
        self._log_stamp: float | None = None

    def __call__(self, time_s: float) -> None:
        if self._inside:  # the person's pause steps the world from inside this call
            return
        self._inside = True
        try:
            while not self.requests.empty():
                self._do(self.requests.get())
            if self._chessboard is not None:
                self._wave_chessboard()
            if time.monotonic() >= self._next_frame_at:
                self._film()
            if time_s >= self._next_check_s:
                self._next_check_s = time_s + CHECK_S
                self._check(time_s)
        except Exception:  # noqa: BLE001 - the device's thread must go on; the twin says what went wrong
            log.exception("the twin's referee failed")
        finally:
            self._inside = False

    def _film(self) -> None:
        """The next frame of the stream, at the frame rate of the wall clock (the device's replies must not wait on
        a catching-up film): rendered anew when anything moved, else the last one again (a still table); a render
        takes at most half the thread's time, as a slow webcam drops its rate."""
        started = time.monotonic()
        board_pose = self._chessboard.shown if self._chessboard is not None else -1
        scene = (
            tuple(np.round(self.world.arm_joints(), 4)),
            len(self.world.disc_ids()),
            self.person.is_busy,
            board_pose,
        )
        if scene == self._scene and self.world.is_settled() and started - self._rendered_at < STILL_REFRESH_S:
            self.repeat_frame()
            self._next_frame_at = started + self.frame_s
            return
        self.put_frame(self.world.render_camera())
        ended = time.monotonic()
        self._scene, self._rendered_at = scene, ended
        self._next_frame_at = max(started + self.frame_s, ended + (ended - started))

    # -- the board ---------------------------------------------------------------------------

    def _check(self, time_s: float) -> None:
        if not self.playing:
            return
        if self._host_seen_at is None and self.host_seen():
            self._host_seen_at = time_s
        if self.world.held_disc is None and self.world.is_settled():
            self._note_new_discs()
        self._compare_with_game_log()
        if self.truth.winner is None and self._persons_turn(time_s):
            column = self.opponent.choose(self.position)
            self.person.drop(column, PERSON_DISCS)

    def _note_new_discs(self) -> None:
        board = self.world.board_state()
        new = np.argwhere((self._board == 0) & (board != 0))
        for row, column in sorted(new.tolist()):
            player = int(board[row, column])
            self.truth.moves.append(int(column))
            self.truth.players.append(player)
            if self.position.can_play(int(column)):
                self.position = self.position.play(int(column))
            by = "robot" if player == ROBOT_DISCS else "person"
            self.report({"move": len(self.truth.moves), "column": int(column) + 1, "by": by})
            if self.on_move is not None:
                self.on_move(len(self.truth.moves))
        self._board = board
        if new.size and self.position.is_over():
            winner = self.position.winner()
            robot_player = 1 if self.robot_first else 2
            self.truth.winner = "draw" if winner == 0 else "robot" if winner == robot_player else "person"
            self.report({"over": self.truth.winner, "moves": self.truth.move_string})

    def _persons_turn(self, time_s: float) -> bool:
        if self.person.is_busy or self.world.held_disc is not None or not self.world.is_settled():
            return False
        if not self._arm_away(time_s):
            return False
        players = self.truth.players
        robot, person = players.count(ROBOT_DISCS), players.count(PERSON_DISCS)
        if person >= robot + (0 if self.robot_first else 1):
            return False
        if players or self.robot_first:
            return True
        return self._host_seen_at is not None and time_s - self._host_seen_at >= self.first_move_after_s

    def _arm_away(self, time_s: float) -> bool:
        """The arm has been back at its home (out of the board's way) for a moment: a person waits for it."""
        if self.home_m is None or np.linalg.norm(self.world.tool_pose()[0] - self.home_m) > HOME_TOLERANCE_M:
            self._home_since = None
            return self.home_m is None
        if self._home_since is None:
            self._home_since = time_s
        return time_s - self._home_since >= ARM_AWAY_S

    # -- the person's part of calibration -----------------------------------------------------

    def _do(self, request: str) -> None:
        """`chessboard`: wave a printed chessboard before the webcam; `discs`: a robot's disc in the first column and
        a person's in the last; `clear`: take both away and empty the board; `play`: the game (the default)."""
        self.put_chessboard_away()
        self.playing = request == "play"
        if request == "chessboard":
            self._hold_chessboard()
        elif request == "discs":
            last = self.world.config.board.columns - 1
            self.world.drop_disc(0, ROBOT_DISCS)
            self.world.drop_disc(last, PERSON_DISCS)
            self.world.wait_until_settled()
        elif request in ("clear", "play"):
            self.world.clear_board()
            self.world.wait_until_settled()
            self._board = self.world.board_state()
        self.report({"done": request})

    def _hold_chessboard(self) -> None:
        from calibration.sim_chessboard import (
            SIM_CHESSBOARD,
            camera_to_world,
            chessboard_in_world,
            chessboard_poses_in_camera,
        )

        world = self.world
        camera_matrix = np.asarray(world.camera_intrinsics(), float)
        size = (world.camera.width_px, world.camera.height_px)
        poses = chessboard_poses_in_camera(
            CHESSBOARD_POSES, SIM_CHESSBOARD, camera_matrix, size, world.seed, CHESSBOARD_PLACES
        )
        held = chessboard_in_world(world)
        self._chessboard = _Chessboard(held, held.__enter__(), [camera_to_world(world) @ pose for pose in poses])

    def _wave_chessboard(self) -> None:
        """Hold each pose a while (a person keeps still for the webcam), then the next, round and round."""
        import pybullet

        board = self._chessboard
        now = time.monotonic()
        if now - board.moved_at < CHESSBOARD_HOLD_S:
            return
        pose = board.poses[board.shown % len(board.poses)]
        rotation_vector = cv2.Rodrigues(pose[:3, :3])[0].ravel()
        angle = float(np.linalg.norm(rotation_vector))
        axis = rotation_vector / angle if angle > 0 else np.array([0.0, 0.0, 1.0])
        orientation = pybullet.getQuaternionFromAxisAngle(axis.tolist(), angle)
        for body in board.bodies:
            pybullet.resetBasePositionAndOrientation(
                body, pose[:3, 3].tolist(), orientation, physicsClientId=self.world.client
            )
        board.shown += 1
        board.moved_at = now

    def put_chessboard_away(self) -> None:
        if self._chessboard is not None:
            self._chessboard.held.__exit__(None, None, None)
            self._chessboard = None

    # -- the game's log ----------------------------------------------------------------------

    def _compare_with_game_log(self) -> None:
        """After every move the game saved, whether its moves so far are the twin's."""
        now = time.monotonic()
        if self.game_log is None or now - self._log_checked_at < LOG_CHECK_S:
            return
        self._log_checked_at = now
        try:
            stamp = self.game_log.stat().st_mtime
            if stamp == self._log_stamp:
                return
            moves = GameLog.load(self.game_log).moves
        except (OSError, ValueError):
            return  # not written yet, or being replaced
        self._log_stamp = stamp
        if len(moves) <= self.truth.game_moves_seen:
            return
        self.truth.game_moves_seen = len(moves)
        agrees = list(moves) == self.truth.moves[: len(moves)]
        self.truth.agreed &= agrees
        self.report({"game_moves": "".join(str(c + 1) for c in moves), "agrees": agrees})
