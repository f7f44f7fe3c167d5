"""Whole simulated games in seeded rooms (light, webcam pose, backdrop), judged for `c4robot bench game rooms`.

No one misbehaves in these games, but the person's hand does linger in front of the board. A notice that something
covers columns (or the whole board) is true when the hand was in front of a hole or its rim in every column it
names at that moment (`sim.person.Person.hidden_holes`, the segmentation of the webcam's view); every other notice
is false. The judge reads the events' kinds and columns, never their sentences.
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


@dataclasses.dataclass(frozen=True)
class Marked:
    """An event of the game, the camera frame it was about, the columns the person's hand hid then."""

    event: GameEvent
    frame: np.ndarray | None
    hidden_columns: frozenset[int]

    @property
    def is_true_cover(self) -> bool:
        """A cover notice whose columns the hand really hid, all of them."""
        named = frozenset(self.event.columns)
        return self.event.kind in COVER_KINDS and bool(named) and named <= self.hidden_columns

    def describe(self) -> str:
        where = ", ".join(str(c + 1) for c in sorted(self.hidden_columns)) or "none"
        return f"{self.event.kind}: {self.event.message} [the hand hid holes in columns: {where}]"


class EventJudge:
    """Watches a bench game (passing everything on to `view`, the live view, if given): keeps the last camera frame
    and, for every notice and every disagreement with the world, the frame it was about and what the hand hid."""

    def __init__(self, view: GameObserver | None = None) -> None:
        self.view = view
        self.frame: np.ndarray | None = None
        self.marked: list[Marked] = []
        self.person = None  # the game's sim.person.Person, once the game is built

    def on_state(self, snapshot: dict) -> None:
        said = snapshot.get("event")
        if said is not None and (said.is_notice or said.kind is EventKind.BOARD_DISAGREES):
            self.marked.append(Marked(said, self.frame, self._hidden_columns()))
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

    @property
    def notices(self) -> list[Marked]:
        return [m for m in self.marked if m.event.is_notice]

    @property
    def false_events(self) -> list[Marked]:
        """Notices that are not a true cover, in the order said."""
        return [m for m in self.notices if not m.is_true_cover]

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
