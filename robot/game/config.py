"""A game's settings as data: how the robot plays (`GameSettings`) and what it plays on (`SimTableConfig`,
`RealTableConfig`). The CLI builds them once from its arguments; benches and tests build them directly."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SIM_ARMS = ("c4arm", "so101")
ROOM_KINDS = ("plain", "varied", "hard", "makes")  # sim.room.ROOM_KINDS, without importing pybullet to parse arguments
# A simulated person acts at once: a board that shows no move this long (wall clock, generous for a loaded small
# computer) will not change any more, and a reminder comes sooner than for a real person.
SIM_GIVE_UP_S = 180.0
SIM_REMIND_AFTER_S = 20.0


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

    def __post_init__(self) -> None:
        if not 1 <= self.level <= 10:
            raise ValueError(f"level {self.level} is out of range: give 1 to 10")
        if min(self.time_budget_s, self.look_timeout_s, self.remind_after_s, self.give_up_after_s) <= 0:
            raise ValueError("the thinking budget and the waiting times must be positive")


@dataclass(frozen=True)
class SimTableConfig:
    """The simulated table: the world's seed, arm and room, the simulated person, the calibration to read it with.

    `calibration` is a file made with `c4robot calibrate ... --sim`: its sections are used, the missing ones come
    from the simulation's own exact calibration.
    """

    seed: int | None = None
    opponent: str = "random"
    arm: str = "c4arm"
    room: str = "plain"
    calibration: Path | None = None
    gui: bool = False
    record: Path | None = None
    record_png: bool = False
    board_x_mm: float = 0.0  # the board moved on the table, as `calibrate --sim` can have it
    board_y_mm: float = 0.0
    board_yaw_deg: float = 0.0

    def __post_init__(self) -> None:
        if self.arm not in SIM_ARMS:
            raise ValueError(f"there is no simulated arm {self.arm[:40]!r}: choose {' or '.join(SIM_ARMS)}")
        if self.room not in ROOM_KINDS:
            raise ValueError(f"there is no room {self.room[:40]!r}: choose {', '.join(ROOM_KINDS)}")
        if self.record_png and self.record is None:
            raise ValueError("--record-png saves the video's frames: give the folder with --record DIR too")


@dataclass(frozen=True)
class RealTableConfig:
    """The real table: the arm's serial port, the camera (index, URL, video file or folder), the calibration."""

    port: str
    camera: str
    calibration: Path | None = None
    record: Path | None = None
    record_png: bool = False

    def __post_init__(self) -> None:
        if not self.port:
            raise ValueError("a real game needs the arm's serial port: add --serial PORT")
        if not self.camera:
            raise ValueError("a real game needs the camera too: add --camera N (index, URL, video file or folder)")
        if self.record_png and self.record is None:
            raise ValueError("--record-png saves the video's frames: give the folder with --record DIR too")
