"""A game on the real table: the arm on a serial port, a camera, and the setup's calibration file.

Nothing here guesses: the calibration must have the board (corners), every column's drop pose and the dispenser's
pick pose, or the game refuses to start and names the step to run; disc colours it has not (`calibrate colours
--from-moves`) are taught by the game's first moves (robot.game.watcher).
A new game learns how the empty board looks in the room (robot.game.watcher): from its first steady reading when
that is sure the board is empty, else once the person confirms it is (`confirm`; without one, or after a no, the
game reads every frame on its own). A resumed game has no empty board to learn from and reads every frame on its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np

import calibration
from calibration.arm_drops import tool_pose
from engine import Position
from robot.arm import Arm, ArmConfig
from robot.arm.drivers import serial_arm
from robot.arm.kinematics import KinematicChain
from robot.arm.planner import Planner, Workcell, play_column
from robot.game.arm_readings import ArmPose, ReportingArm
from robot.game.config import RealTableConfig
from robot.game.log import GameLog
from robot.game.loop import BoardWatcher, Game, GameSettings
from robot.game.recorder import Recorder
from robot.game.watcher import EMPTY_REFERENCE_FRAMES, BoardUnseenError
from sim.config import DEFAULT_ARM_URDF
from vision.cameras import Camera, open_camera
from vision.reliability import SURE

ASK_EMPTY = (
    "I cannot tell for sure that the board is empty in this light. Is it empty, with nothing in front of it? "
    "If you say yes, I remember how it looks now."
)


class RealTable:
    """`robot.game.Table` on the real table: the person plays by hand, the arm drops the robot's discs."""

    prompts_person = True  # the game says "your turn": a real person is not told by anything else

    def __init__(self, arm: Arm, planner: Planner) -> None:
        self.arm = arm
        self.planner = planner

    def person_turn(self, position: Position) -> None:
        """The person plays by hand; the game prompts them."""

    def robot_drop(self, column: int) -> float:
        return play_column(self.arm, self.planner, column).arm_s

    def true_board(self) -> None:
        return None


def arm_from_setup(setup: calibration.Setup, port: str | None) -> tuple[ArmConfig, KinematicChain, Workcell]:
    """The arm's configuration, kinematics and workcell from a calibration (`port` overrides the file's).

    Raises CalibrationError (a ValueError) when the drops or the pick pose were never taught.
    """
    if len(setup.drops) < 2 or setup.pick is None:
        raise calibration.CalibrationError(
            "the calibration has no drop poses or no dispenser pose: run `c4robot calibrate drops --serial PORT` first"
        )
    config = ArmConfig.from_dict(dict(setup.arm)) if setup.arm else ArmConfig()
    if port:
        config = dataclasses.replace(config, serial=dataclasses.replace(config.serial, port=port))
    chain = KinematicChain.from_urdf(config.urdf_path or DEFAULT_ARM_URDF, config.tool_link)
    disc_radius_m = setup.board.row_pitch_m / 2 if setup.board else 0.0159  # discs rest on each other
    workcell = Workcell.from_drop_poses(tool_pose(setup.pick), tuple(tool_pose(d) for d in setup.drops), disc_radius_m)
    return config, chain, workcell


def learn_empty_board(watcher: BoardWatcher, timeout_s: float, confirm: Callable[[str], bool] | None) -> bool:
    """Give `watcher` the empty board's look; True when it has it. From the first steady reading's frame when that
    is sure every hole is empty; else, unless it shows a disc for sure, from the camera's next frames once the person
    says it is empty (`confirm`, asked once)."""
    try:
        seen = watcher.look(timeout_s)
    except BoardUnseenError:
        seen = None
    if seen is not None and not seen.grid.any() and float(seen.confidence.min()) >= SURE:
        watcher.set_empty_reference([watcher.last_frame])
        return True
    if seen is not None and (seen.grid != 0).any() and float(seen.confidence[seen.grid != 0].min()) >= SURE:
        return False  # discs on the board: the game tells the person what it sees
    if confirm is None or not confirm(ASK_EMPTY):
        return False
    watcher.set_empty_reference([watcher.camera.read() for _ in range(EMPTY_REFERENCE_FRAMES)])
    return True


class _EndingCamera:
    """A camera whose end (an image folder or a video file that has no more frames) is one clear sentence."""

    def __init__(self, camera: Camera, name: str) -> None:
        self.camera = camera
        self.name = name

    def read(self) -> np.ndarray:
        try:
            return self.camera.read()
        except EOFError:
            raise ConnectionError(
                f"camera {self.name} has no more frames: the game so far is saved; give a live camera "
                "(--camera 0) and run `c4robot play --resume`"
            ) from None

    def close(self) -> None:
        self.camera.close()


class RealGame:
    """Connects the arm and the camera from the calibration; a context manager that lets go of both.

    `confirm(question)` asks the person a yes-or-no question (None: no one can answer, as in a script). `camera`
    replaces the config's camera text with a frame source already open (tests, the digital twin).
    """

    def __init__(
        self,
        config: RealTableConfig,
        tell: Callable[[str], None],
        confirm: Callable[[str], bool] | None = None,
        camera: Camera | None = None,
    ) -> None:
        self.setup = calibration.load(config.calibration)
        self.confirm = confirm
        if self.setup.board is None:  # without colours (`calibrate colours --from-moves`) the first moves teach them
            raise calibration.CalibrationError("the calibration has no board: run `c4robot calibrate board` first")
        arm_config, chain, workcell = arm_from_setup(self.setup, config.port)
        self.tell = tell
        self.recorder: Recorder | None = None
        self.arm: Arm | None = None
        self.camera = _EndingCamera(camera or open_camera(config.camera, self.setup.camera_settings), config.camera)
        for refusal in getattr(self.camera.camera, "refusals", ()):  # a webcam that would not hold its settings
            tell(refusal[0].upper() + refusal[1:] + ".")
        try:
            self.arm = serial_arm(arm_config, chain)
            self.arm.connect()
            self.arm.home()
            planner = Planner(chain, workcell, arm_config, seed_q=self.arm.joint_state())
        except BaseException:
            self.close()
            raise
        self.table = RealTable(self.arm, planner)
        self.recorder = Recorder(config.record, png_frames=config.record_png) if config.record else None

    def game(
        self,
        settings: GameSettings,
        log_path: Path | None,
        previous: GameLog | None,
        resume_command: str | None = None,
    ) -> Game:
        """A game on this table; a resumed game must see on the board what its log says (`GameLog.take_board`)."""
        board, colours = self.setup.board, self.setup.colours
        references = None if colours is None else (colours.robot_bgr, colours.person_bgr)
        watcher = BoardWatcher(
            self.camera,
            (board.rows, board.cols),
            np.asarray(board.corners_px),
            references if settings.robot_first or references is None else references[::-1],
            settings.stable_frames,
        )
        if previous is not None:
            previous.take_board(watcher.look(settings.look_timeout_s).grid)
        else:
            learn_empty_board(watcher, settings.look_timeout_s, self.confirm)
        on_move = self.recorder.save_move if self.recorder else None
        game = Game(self.table, watcher, settings, log_path, self.tell, previous, on_move, resume_command)
        if self.recorder is not None:
            game.watch(self.recorder)
        return game

    def show_arm_to(self, on_pose: Callable[[ArmPose], None]) -> None:
        """From now on, tell `on_pose` where the arm stands after each thing it does (a live view draws it)."""
        planner = self.table.planner
        self.table.arm = ReportingArm(self.table.arm, planner.chain, planner.workcell, on_pose)
        self.table.arm.report()

    def park(self, servo_hot: bool = False) -> None:
        """At a game's end or pause: the arm home, and its servos' torque off where the driver can (they rest,
        unheated). After a hot servo's pause the arm is not moved (it would heat more, and the driver refuses)."""
        if self.arm is None:
            return
        if not servo_hot:
            self.arm.home()
        release_torque = getattr(self.arm, "set_torque", None)
        if release_torque is not None:
            release_torque(False)

    def close(self) -> None:
        """Let go of whatever was opened (also when opening the arm failed half-way)."""
        if self.arm is not None:
            self.arm.close()
        self.camera.close()
        if self.recorder is not None:
            self.recorder.close()

    def __enter__(self) -> RealGame:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
