"""Whole simulated games in seeded rooms (light, webcam pose, backdrop), judged for `c4robot bench game rooms`.

No one misbehaves in these games, but the person's hand does linger in front of the board. A notice that something
covers columns (or the whole board) is true when the hand was in front of a hole or its rim in every column it
names at that moment (`sim.person.Person.hidden_holes`, the segmentation of the webcam's view); in a room whose light
drifts (`--room makes`, `sim.light_drift`), a notice that the light changed is true when the webcam's exposure or
white balance then differs from the calibrated one by at least `LIGHT_CHANGE` (less, a person would not call it a
change); every other notice is false. The judge reads the events' kinds and columns, never their sentences.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import cv2
import numpy as np

from robot.game.config import GameSettings, SimTableConfig
from robot.game.events import EventKind, GameEvent, GameObserver

ROOM_GIVE_UP_S = 60.0  # a board that shows no move for a minute in a room will not: the reader cannot see it
COVER_KINDS = (EventKind.COVERED, EventKind.BOARD_COVERED)
LIGHT_CHANGE = (0.05, 250.0)  # exposure (share of the calibrated), white balance (kelvin)


@dataclasses.dataclass(frozen=True)
class Marked:
    """An event of the game, the camera frame it was about, the columns the person's hand hid then."""

    event: GameEvent
    frame: np.ndarray | None
    hidden_columns: frozenset[int]
    light_change: tuple[float, float] = (0.0, 0.0)  # exposure share, kelvin: the light then against the calibrated

    @property
    def is_true_cover(self) -> bool:
        """A cover notice whose columns the hand really hid, all of them."""
        named = frozenset(self.event.columns)
        return self.event.kind in COVER_KINDS and bool(named) and named <= self.hidden_columns

    @property
    def is_true_light(self) -> bool:
        """A notice that the light changed, said when it really had."""
        exposure, kelvin = self.light_change
        return self.event.kind is EventKind.LIGHT_CHANGED and (
            abs(exposure) >= LIGHT_CHANGE[0] or abs(kelvin) >= LIGHT_CHANGE[1]
        )

    def describe(self) -> str:
        where = ", ".join(str(c + 1) for c in sorted(self.hidden_columns)) or "none"
        exposure, kelvin = self.light_change
        light = (
            f"; the light {100 * exposure:+.0f}%, {kelvin:+.0f} K since calibration" if any(self.light_change) else ""
        )
        return f"{self.event.kind}: {self.event.message} [the hand hid holes in columns: {where}{light}]"


class EventJudge:
    """Watches a bench game (passing everything on to `view`, the live view, if given): keeps the last camera frame
    and, for every notice and every disagreement with the world, the frame it was about and what the hand hid."""

    def __init__(self, view: GameObserver | None = None) -> None:
        self.view = view
        self.frame: np.ndarray | None = None
        self.marked: list[Marked] = []
        self.person = None  # the game's sim.person.Person, once the game is built
        self.drift = None  # the room's sim.light_drift.LightDrift, when its light drifts

    def on_state(self, snapshot: dict) -> None:
        said = snapshot.get("event")
        if said is not None and (said.is_notice or said.kind is EventKind.BOARD_DISAGREES):
            self.marked.append(Marked(said, self.frame, self._hidden_columns(), self._light_change()))
        if self.view is not None:
            self.view.on_state(snapshot)

    def on_frame(self, frame: np.ndarray, reading) -> None:
        self.frame = frame
        if self.view is not None:
            self.view.on_frame(frame, reading)

    def _hidden_columns(self) -> frozenset[int]:
        """The columns in which the person's hand hides a hole or its rim now (the world waits meanwhile)."""
        if self.person is None or not self.person.is_busy:
            return frozenset()
        g = self.person.world.config.board
        shares = self.person.hidden_holes(rim_m=(min(g.row_pitch_m, g.column_pitch_m) - g.hole_diameter_m) / 2)
        return frozenset(int(c) for c in np.flatnonzero((shares > 0).any(axis=0)))

    def _light_change(self) -> tuple[float, float]:
        """How far the webcam's light has drifted from the calibrated one now (none in a room whose light stays)."""
        if self.drift is None or self.person is None:
            return 0.0, 0.0
        time_s = self.person.world.time_s
        return self.drift.exposure_at(time_s) - 1.0, self.drift.tint_at(time_s)

    @property
    def notices(self) -> list[Marked]:
        return [m for m in self.marked if m.event.is_notice]

    @property
    def false_events(self) -> list[Marked]:
        """Notices that are neither a true cover nor a true change of light, in the order said."""
        return [m for m in self.notices if not (m.is_true_cover or m.is_true_light)]

    @property
    def light_events(self) -> list[Marked]:
        """Notices that the light changed, said when it had."""
        return [m for m in self.notices if m.is_true_light]

    @property
    def disagreements(self) -> list[Marked]:
        return [m for m in self.marked if m.event.kind is EventKind.BOARD_DISAGREES]

    def save(self, folder: Path, name: str, problems: list[Marked]) -> list[Path]:
        """The frames of `problems` (the last frame for one marked before any was seen) as PNGs in `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        saved = []
        for index, problem in enumerate(problems):
            frame = self.frame if problem.frame is None else problem.frame
            if frame is None:
                continue
            path = folder / f"{name}_{index + 1}.png"
            if not cv2.imwrite(str(path), frame):
                raise OSError(f"cannot write {path}: check that the folder is writable")
            saved.append(path)
        return saved


@dataclasses.dataclass
class RoomGame:
    """One game of `bench game rooms`: its summary or why it stopped, and the judge's findings."""

    seed: int
    robot_first: bool
    room: str
    summary: dict = dataclasses.field(default_factory=dict)
    failure: str | None = None
    wall_s: float = 0.0
    judge: EventJudge = dataclasses.field(default_factory=EventJudge)
    frames: list[Path] = dataclasses.field(default_factory=list)

    def play(self, opponent: str, settings: GameSettings, log_path: Path) -> None:
        """Play the game in its room, the judge watching."""
        from robot.game.sim_table import SimGame

        started = time.perf_counter()
        table = SimTableConfig(seed=self.seed, opponent=opponent, room=self.room)
        settings = dataclasses.replace(settings, robot_first=self.robot_first, seed=self.seed)
        try:
            with SimGame(table, self.robot_first, tell=lambda message: None) as game_setup:
                game = game_setup.game(settings, log_path, None)
                self.judge.person = game_setup.table.person
                self.judge.drift = game_setup.room.drift
                game.watch(self.judge)
                self.summary = game.play().summary()
            self.failure = self.summary.get("stopped")
        except Exception as error:  # noqa: BLE001 - a game that fails in a room is a finding, not the end
            self.failure = f"{type(error).__name__}: {error}"
        self.wall_s = time.perf_counter() - started

    @property
    def finished(self) -> bool:
        return bool(self.summary.get("winner"))

    @property
    def agrees(self) -> bool:
        return bool(self.summary) and self.summary["board_agreement"]

    @property
    def problems(self) -> list[str]:
        """Why it stopped, every false event, the first disagreement."""
        marked = self.judge.false_events + self.judge.disagreements[:1]
        return ([self.failure] if self.failure else []) + [m.describe() for m in marked]

    def save_frames(self, folder: Path) -> None:
        """The camera frames of the false events and the first disagreement, for whoever fixes the reader."""
        marked = self.judge.false_events + self.judge.disagreements[:1]
        self.frames = self.judge.save(folder, f"{self.room}_seed{self.seed}", marked)

    @property
    def result(self) -> str:
        return self.summary.get("winner") or "stopped"


def room_settings() -> GameSettings:
    """What a room game plays with: perfect play, half a second a move, the simulated person's patience."""
    from robot.game.play import sim_settings

    return sim_settings(GameSettings(), give_up_s=ROOM_GIVE_UP_S)
