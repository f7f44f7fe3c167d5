"""A game in the simulation: the simulated table (the robot's arm, the simulated person, the true board of
a `sim.World`) and `SimGame`, which builds world, arm, planner, camera and calibration for `c4robot play --sim`.

The world names players by disc colour (1 red, 2 yellow); the game names them by who moved first
(1 first, 2 second). The robot always plays `ROBOT_DISCS` (yellow) discs; this module maps between
the two namings so the game loop sees only players' values.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np

import calibration
from calibration.sim_truth import SIM_ROBOT_DISCS, SIM_ROBOT_LETTER
from engine import Position
from robot.arm.planner import Planner, play_column
from robot.game.config import SimTableConfig
from robot.game.log import GameLog
from robot.game.loop import BoardWatcher, Game, GameSettings
from robot.game.opponents import Opponent, TypedOpponent, parse_opponent
from robot.game.recorder import Recorder
from robot.game.sim_servo_arm import SimServoArm, is_servo_bus
from robot.game.watcher import EMPTY_REFERENCE_FRAMES
from sim.person import Habits, Linger, Person
from vision import MoveEvent, MoveKind

log = logging.getLogger(__name__)

ROBOT_DISCS = SIM_ROBOT_DISCS  # the world's player number of the robot's discs (yellow)
PERSON_DISCS = 1  # the simulated person's (red)
# Simulated time between the frames the game reads: grabbing a frame and reading the board take about a tenth
# of a second on a small computer, and the table does not stop meanwhile.
CAMERA_FRAME_S = 0.1


class SimTable:
    """`robot.game.Table` over a sim world; the simulated person's moves come from `opponent`.

    `mischief` maps a person-turn index (0 = the person's first turn) to something people really do
    on that turn: "two_discs", "wrong_colour", "take_back" or "again_in_robot_turn" (a second disc while the
    arm plays the robot's answer); the simulated person then
    puts it right when the game tells them what is wrong (`person_fixes`). Every disc the person plays is
    brought by their hand (`sim.person.Person`: the plain room's quick one unless `person` is given), whose visit
    goes on while the game looks; `lingers` maps a person-turn index to where and how long that turn's hand
    lingers in front of the board (else the person's habits draw it).
    """

    def __init__(
        self,
        world,
        arm,
        planner: Planner,
        opponent: Opponent,
        robot_first: bool,
        mischief: dict[int, str] | None = None,
        person: Person | None = None,
        lingers: dict[int, Linger] | None = None,
    ) -> None:
        self.world = world
        self.arm = arm
        self.planner = planner
        self.opponent = opponent
        self.person_is_simulated = not isinstance(opponent, TypedOpponent)  # one who types is a real person
        self.robot_first = robot_first
        self.mischief = dict(mischief or {})
        self.person = person or Person(
            world, Habits.for_room("plain", world.seed), np.random.default_rng([world.seed, 41])
        )
        self.lingers = dict(lingers or {})
        self.person_turns = 0
        self._extra_discs: list[int] = []
        self._taken: tuple[tuple[int, int], int] | None = None
        self._again_in_robot_turn = False
        world.set_dispenser_player(ROBOT_DISCS)

    def world_player(self, player: int) -> int:
        """World disc colour of a game player (1 first, 2 second)."""
        robot_player = 1 if self.robot_first else 2
        return ROBOT_DISCS if player == robot_player else PERSON_DISCS

    def true_board(self) -> np.ndarray:
        world = self.world.board_state()
        first = self.world_player(1)
        return np.where(world == 0, 0, np.where(world == first, 1, 2)).astype(np.int8)

    def robot_drop(self, column: int) -> float:
        if self._again_in_robot_turn:  # the person's hand comes in while the arm moves
            self._again_in_robot_turn = False
            top = self.world.board_state()[-1]
            other = next(c for c in range(len(top)) if c != column and top[c] == 0)
            self._extra_discs.append(self.person.drop(other, PERSON_DISCS, draw_linger=False).disc)
        return play_column(self.arm, self.planner, column).arm_s

    def person_turn(self, position: Position) -> None:
        column = self.opponent.choose(position)
        trick = self.mischief.pop(self.person_turns, None)
        linger = self.lingers.pop(self.person_turns, None)
        self.person_turns += 1
        if trick is None:
            self.person.drop(column, PERSON_DISCS, linger)
        elif trick == "two_discs":
            self.person.drop(column, PERSON_DISCS, linger)
            other = next(c for c in position.legal_moves() if c != column)
            self._extra_discs.append(self.person.drop(other, PERSON_DISCS).disc)
        elif trick == "wrong_colour":
            self._extra_discs.append(self.person.drop(column, ROBOT_DISCS, linger).disc)
        elif trick == "take_back":
            self._take_back_last_disc()
        elif trick == "again_in_robot_turn":
            self.person.drop(column, PERSON_DISCS, linger)
            self._again_in_robot_turn = True
        else:
            raise ValueError(
                f"unknown mischief {trick!r}: use two_discs, wrong_colour, take_back or again_in_robot_turn"
            )
        log.info("simulated person: column %d%s", column + 1, f" ({trick})" if trick else "")

    def _take_back_last_disc(self) -> None:
        """Lift the last disc played that a hand can reach (the top of its column) off the board, remembering
        where it was and whose it is."""
        board = self.world.board_state()
        for body in reversed(self.world.disc_ids()):
            cell = self.world.disc_cell(body)
            if cell is not None and (cell[0] + 1 == board.shape[0] or board[cell[0] + 1, cell[1]] == 0):
                self._taken = (cell, self.world.disc_player(body))
                self.world.remove_disc(body)
                return
        raise RuntimeError("there is no disc on the board to take back")

    def reply_counted(self) -> None:
        """The game counted the disc the person dropped while the arm moved as their reply: it stays."""
        self._extra_discs.clear()

    def person_fixes(self, event: MoveEvent, position: Position) -> None:
        """The simulated person hears what is wrong and puts it right, then plays properly."""
        if event.kind in (MoveKind.TWO_DISCS, MoveKind.WRONG_COLOUR):
            self.person.finish()
            for body in self._extra_discs:
                self.world.remove_disc(body)
            self._extra_discs.clear()
            self.world.wait_until_settled()
            if event.kind is MoveKind.WRONG_COLOUR:
                self.person.drop(self.opponent.choose(position), PERSON_DISCS, draw_linger=False)
        elif event.kind is MoveKind.DISC_REMOVED and self._taken is not None:
            (_, column), player = self._taken
            self._taken = None
            self.person.finish()
            self.world.drop_disc(column, player)
            self.world.wait_until_settled()
            self.person.drop(self.opponent.choose(position), PERSON_DISCS, draw_linger=False)


def sim_calibration(world, path: Path | None) -> calibration.Setup:
    """The calibration a simulated game reads with: the sections of the file at `path` (made with `c4robot
    calibrate ... --sim`), the missing ones from the world's own exact calibration."""
    exact = calibration.sim_setup(world, ROBOT_DISCS)
    if path is None:
        return exact
    made = calibration.load(path)
    # The exact calibration knows which discs are the robot's; a room's light may only rename their colour.
    if made.colours is not None and made.colours.robot != SIM_ROBOT_LETTER:
        raise ValueError(
            f"the calibration {path} says the robot plays {made.colours.robot}, but in the simulation it plays "
            f"{SIM_ROBOT_LETTER}: run `c4robot calibrate colours --sim --config {path}` again"
        )
    return dataclasses.replace(
        exact,
        camera=made.camera or exact.camera,
        board=made.board or exact.board,
        colours=made.colours or exact.colours,
        drops=made.drops or exact.drops,
        pick=made.pick or exact.pick,
        arm=made.arm or exact.arm,
    )


class _TableGoingOn:
    """The world as the game's camera sees it: the table goes on for `CAMERA_FRAME_S` before every frame (the
    person's hand moves, a disc falls), as a real table does not wait for the camera."""

    def __init__(self, world) -> None:
        self.world = world

    def render_camera(self) -> np.ndarray:
        self.world.step(CAMERA_FRAME_S)
        return self.world.render_camera()


class SimGame:
    """Everything a simulated game needs, built from a `SimTableConfig`; a context manager that closes the world.

    The calibration is the world's exact one (`calibration.sim_setup`, taken in the config's room: "plain",
    "varied" or "hard", see `sim.room`); a calibration file made with `c4robot calibrate ... --sim` replaces the
    sections it has. The person's hand has the room's habits (`sim.person.Habits.for_room`: lingering and covering
    holes in the varied and hard rooms, a quick drop in the plain one); `lingers` asks for a turn's linger exactly,
    `mischief` for what people do wrong (see `SimTable`). An `[arm]` section for a Feetech servo bus in the file
    puts the project's Feetech driver and a virtual servo bus between the game and the SO-101
    (`robot.game.sim_servo_arm`); otherwise the game moves the world's arm directly (`SimArm`).
    """

    def __init__(
        self,
        config: SimTableConfig,
        robot_first: bool,
        tell: Callable[[str], None],
        mischief: dict[int, str] | None = None,
        lingers: dict[int, Linger] | None = None,
    ) -> None:
        from robot.arm.drivers.sim import SimArm, sim_planner
        from sim import World, WorldConfig
        from sim.config import ArmMount
        from sim.room import furnish, room_for
        from vision.cameras import SimCamera

        seed = config.seed or 0
        board_pose = (config.board_x_mm / 1000.0, config.board_y_mm / 1000.0, math.radians(config.board_yaw_deg))
        world_config = WorldConfig(arm=ArmMount.named(config.arm)).with_board_pose(*board_pose)
        self.world = World(world_config, seed=seed, gui=config.gui)
        self.servo_arm = None
        try:
            self.room = room_for(config.room, seed)
            furnish(self.world, self.room)
            person = parse_opponent(config.opponent, random.Random(config.seed), input, tell)
            hand = Person(self.world, Habits.for_room(config.room, seed), np.random.default_rng([seed, 41]))
            arm_settings = calibration.load(config.calibration).arm if config.calibration else {}
            arm, planner = SimArm(self.world), sim_planner(self.world)
            if is_servo_bus(arm_settings):
                if config.arm != "so101":
                    raise ValueError(
                        f"the [arm] section of {config.calibration} drives a Feetech servo bus (an SO-100 / SO-101): "
                        "play it with --arm so101"
                    )
                self.servo_arm = SimServoArm(self.world, arm_settings)
                arm = self.servo_arm.arm
                planner = sim_planner(self.world, dataclasses.replace(self.servo_arm.config, urdf_path=None))
            self.table = SimTable(self.world, arm, planner, person, robot_first, mischief, hand, lingers)
            setup = sim_calibration(self.world, config.calibration)
            colours = (setup.colours.robot_bgr, setup.colours.person_bgr)
            self.recorder = (
                Recorder(config.record, png_frames=config.record_png, wide_view=True) if config.record else None
            )
            self.film = None
            self.watcher = BoardWatcher(
                SimCamera(_TableGoingOn(self.world)),
                (setup.board.rows, setup.board.cols),
                np.asarray(setup.board.corners_px),
                colours if robot_first else colours[::-1],
            )
            # The empty board as the webcam sees it at set-up, in the room's light: the holes the game knows are
            # empty and that still look so are empty (a resumed game's discs are put back after this).
            self.watcher.set_empty_reference([self.world.render_camera() for _ in range(EMPTY_REFERENCE_FRAMES)])
            # The game waits in the world's time, as the person acts in it: a loaded machine renders fewer frames a
            # second, and the person would otherwise seem slow to a game counting the wall clock.
            self.watcher.clock = lambda: self.world.time_s
        except BaseException:
            self._close_arm()
            self.world.close()
            raise
        self.tell = tell

    def game(
        self,
        settings: GameSettings,
        log_path: Path | None,
        previous: GameLog | None,
        resume_command: str | None = None,
    ) -> Game:
        """A game on this table; a resumed game first puts the logged discs back into the fresh world."""
        if previous is not None:
            for index, column in enumerate(previous.moves):
                player = 1 + index % 2
                self.world.drop_disc(column, self.table.world_player(player))
                self.world.wait_until_settled()
        on_move = self.recorder.save_move if self.recorder else None
        game = Game(self.table, self.watcher, settings, log_path, self.tell, previous, on_move, resume_command)
        if self.recorder is not None:
            from sim.video import Film

            game.watch(self.recorder)
            self.film = Film(self.world, self.recorder.fps, self.recorder.on_film, self.world.seed)
        return game

    def park(self) -> None:
        """At a game's end or pause: the driver's servos let go (torque off), as on the real table; the arm stands
        where its last move left it. The direct path has no torque to release."""
        if self.servo_arm is not None:
            self.servo_arm.arm.set_torque(False)

    def __enter__(self) -> SimGame:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.film is not None:
            self.film.close()
        if self.recorder is not None:
            self.recorder.close()
        self._close_arm()
        self.world.close()

    def _close_arm(self) -> None:
        if self.servo_arm is not None:
            self.servo_arm.close()
            self.servo_arm = None
