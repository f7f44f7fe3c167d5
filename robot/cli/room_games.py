"""`c4robot bench game --rooms N`: N whole simulated games, each in its own seeded room (light, webcam pose,
backdrop), reporting games finished, board agreement after every move, false events and robot turns per game.

No one misbehaves in these games, but the person's hand does linger in front of the board: an event that says
something covers columns of the board (or the whole board) is true when the hand was in front of a hole or its
rim in every column it names at that moment (`sim.person.Person.hidden_holes`, the segmentation of the webcam's view), and every
other event is false.
Every failure is printed with its room, what was said (with what the hand really hid) and the loop's
disagreement; `--frames DIR` also saves the camera's frame of each (the frame the game had just looked at when
it spoke or disagreed), for whoever fixes the reader.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from robot.cli.view_commands import opened_view
from vision.reading import COVERED_BOARD

ROOM_GIVE_UP_S = 60.0  # a board that shows no move for a minute in a room will not: the reader cannot see it


def run_bench_rooms(args: argparse.Namespace, game_args: Callable) -> int:
    """Play the games (`game_args(seed, opponent, robot_first, **more)`: what `play --sim` would be given), print
    the table and every failure; exit status 1 unless every game finished in agreement with no false event."""
    games = []
    warnings = _LoopWarnings()
    logging.getLogger("robot.game.loop").addHandler(warnings)
    try:
        with tempfile.TemporaryDirectory() as folder, opened_view(args, print, "c4robot bench game") as server:
            for index in range(args.rooms):
                game = _RoomGame(args.seed + index, robot_first=index % 2 == 0)
                keeper = _FrameKeeper(server and server.view)
                warnings.records, warnings.keeper = game.warnings, keeper
                game.play(
                    game_args(game.seed, args.opponent, game.robot_first, room=args.room),
                    Path(folder) / f"game{index}.json",
                    keeper,
                )
                if args.frames is not None and game.problems:
                    game.frames = keeper.save(args.frames, f"{args.room}_seed{game.seed}", game.problems)
                games.append(game)
    finally:
        logging.getLogger("robot.game.loop").removeHandler(warnings)
    print(
        f"{'game':>4} {'seed':>5} {'robot':>6} {'result':>8} {'moves':>5} {'agree':>5} {'false':>5} {'hand':>4} "
        f"{'turns':>5} {'wall s':>6}  room ({args.room})"
    )
    for index, game in enumerate(games, 1):
        print(
            f"{index:>4} {game.seed:>5} {'first' if game.robot_first else 'second':>6} {game.result:>8} "
            f"{len(game.summary.get('moves', '')):>5} {'yes' if game.agrees else 'no':>5} {len(game.false_events):>5} "
            f"{len(game.events) - len(game.false_events):>4} {len(game.summary.get('turns', [])):>5} "
            f"{game.wall_s:>6.0f}  {_room_and_hand(args.room, game.seed)}"
        )
    turns = [len(game.summary["turns"]) for game in games if game.summary]
    finished, agreeing, false_events, hand_events = (
        sum(game.finished for game in games),
        sum(game.agrees for game in games),
        sum(len(game.false_events) for game in games),
        sum(len(game.events) - len(game.false_events) for game in games),
    )
    print()
    print(f"games finished: {finished}/{len(games)}")
    print(f"board agreement after every move: {agreeing}/{len(games)} games")
    print(f"false events (no one misbehaved; not a hand really in front of the columns named): {false_events}")
    print(f"hand events (something covers columns the person's hand really hid then): {hand_events}")
    wall = [game.wall_s for game in games]
    print(f"wall time: {sum(wall):.0f} s (median {statistics.median(wall):.0f} s a game)")
    if turns:
        print(f"robot turns per game: median {statistics.median(turns):g} (min {min(turns)}, max {max(turns)})")
    for index, game in enumerate(games, 1):
        if game.problems:
            print(f"\ngame {index} (seed {game.seed}, {args.room} room: {_room_and_hand(args.room, game.seed)}):")
            for problem in game.problems:
                print("  " + problem.replace("\n", "\n  "))
            for frame in game.frames:
                print(f"  frame: {frame}")
    return 0 if finished == agreeing == len(games) and not false_events else 1


def _room_and_hand(kind: str, seed: int) -> str:
    """The room of a seed and the person's hand in it, in one line."""
    from sim.person import Habits
    from sim.room import room_for

    habits = Habits.for_room(kind, seed)
    return f"{room_for(kind, seed).describe()}; hand: {habits.look.describe()}, linger chance {habits.linger_chance:g}"


@dataclasses.dataclass
class _RoomGame:
    """One game of `bench game --rooms`: its summary, or why it stopped, and the loop's warnings."""

    seed: int
    robot_first: bool
    summary: dict = dataclasses.field(default_factory=dict)
    failure: str | None = None
    warnings: list[str] = dataclasses.field(default_factory=list)
    wall_s: float = 0.0
    frames: list[Path] = dataclasses.field(default_factory=list)
    false_events: list[str] = dataclasses.field(default_factory=list)

    def play(self, game_args: argparse.Namespace, log_path: Path, keeper: _FrameKeeper) -> None:
        """Play the game in its room, the keeper watching; judge what was said against what the hand did."""
        started = time.perf_counter()
        try:
            self.summary = _play_in_room(game_args, log_path, keeper)
            self.failure = self.summary.get("stopped")
        except Exception as error:  # noqa: BLE001 - a game that fails in a room is a finding, not the end
            self.failure = f"{type(error).__name__}: {error}"
        self.wall_s = time.perf_counter() - started
        self.false_events = keeper.false_events(self.events)

    @property
    def finished(self) -> bool:
        return bool(self.summary.get("winner"))

    @property
    def agrees(self) -> bool:
        return bool(self.summary) and self.summary["board_agreement"]

    @property
    def events(self) -> list[str]:
        return list(self.summary.get("events", []))

    @property
    def problems(self) -> list[str]:
        """Why it stopped, every false event, the first disagreement."""
        return ([self.failure] if self.failure else []) + self.false_events + self.warnings[:1]

    @property
    def result(self) -> str:
        return self.summary.get("winner") or "stopped"


def _play_in_room(game_args: argparse.Namespace, log_path: Path, keeper: _FrameKeeper) -> dict:
    """`play --sim` in the room of `game_args`, watched by `keeper` (who is shown the person's hand): its summary.

    A simulated person acts at once, so a board that shows no move for `ROOM_GIVE_UP_S` will not change."""
    from robot.game.loop import GameSettings
    from robot.game.sim_table import SimGame

    with SimGame(
        seed=game_args.seed,
        gui=False,
        opponent=game_args.opponent,
        robot_first=game_args.robot_first,
        tell=lambda message: None,
        room=game_args.room,
    ) as game_setup:
        settings = GameSettings(
            robot_first=game_args.robot_first,
            time_budget_s=game_args.time_ms / 1000.0,
            level=game_args.level,
            seed=game_args.seed,
            remind_after_s=20.0,
            give_up_after_s=ROOM_GIVE_UP_S,
        )
        game = game_setup.game(settings, log_path, None)
        keeper.person = game_setup.table.person
        game.watch(keeper)
        return game.play().summary()


@dataclasses.dataclass(frozen=True)
class _Said:
    """A message of the game (or a warning of the loop), the frame it was about, the columns the hand hid then."""

    message: str
    frame: np.ndarray | None
    hidden_columns: frozenset[int]


class _FrameKeeper:
    """Watches a bench game (passing everything on to the live view, if one is open): the last camera frame, and
    for each message said or disagreement the frame it was about and the columns the person's hand hid then."""

    def __init__(self, view) -> None:
        self.view = view
        self.frame: np.ndarray | None = None
        self.said: list[_Said] = []
        self.person = None  # the game's sim.person.Person, once the game is built

    def on_state(self, snapshot: dict) -> None:
        if snapshot.get("message"):
            self.mark(snapshot["message"])
        if self.view is not None:
            self.view.on_state(snapshot)

    def on_frame(self, frame: np.ndarray, reading) -> None:
        self.frame = frame
        if self.view is not None:
            self.view.on_frame(frame, reading)

    def mark(self, message: str) -> None:
        """Keep the frame `message` is about and what the hand hid at that moment (the world waits meanwhile)."""
        hidden: frozenset[int] = frozenset()
        if self.person is not None and self.person.is_busy:
            g = self.person.world.config.board
            shares = self.person.hidden_holes(rim_m=(min(g.row_pitch_m, g.column_pitch_m) - g.hole_diameter_m) / 2)
            hidden = frozenset(int(c) for c in np.flatnonzero((shares > 0).any(axis=0)))
        self.said.append(_Said(message, self.frame, hidden))

    def false_events(self, events: list[str]) -> list[str]:
        """The events (in the order said) that are not a true cover: a message that something covers columns
        the hand was not all in front of then, or any other message; each with the columns the hand hid."""
        false, start = [], 0
        for event in events:
            at = next((i for i in range(start, len(self.said)) if self.said[i].message == event.splitlines()[0]), None)
            hidden = self.said[at].hidden_columns if at is not None else frozenset()
            start = start if at is None else at + 1
            named = named_columns(event) if "cover" in event.lower() else frozenset()
            if not named and COVERED_BOARD in event and self.person is not None:  # the whole board, all its columns
                named = frozenset(range(self.person.world.config.board.columns))
            if not named or not named <= hidden:
                where = ", ".join(str(c + 1) for c in sorted(hidden)) or "none"
                false.append(f"{event} [the hand hid holes in columns: {where}]")
        return false

    def save(self, folder: Path, name: str, problems: list[str]) -> list[Path]:
        """The frames of `problems` (the last frame for one said before any was seen) as PNGs in `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        saved = []
        for index, problem in enumerate(problems):
            frame = next((s.frame for s in self.said if problem.startswith(s.message[:60])), None)
            frame = self.frame if frame is None else frame
            if frame is None:
                continue
            path = folder / f"{name}_{index + 1}.png"
            if not cv2.imwrite(str(path), frame):
                raise OSError(f"cannot write {path}: check that the folder is writable")
            saved.append(path)
        return saved


def named_columns(message: str) -> frozenset[int]:
    """0-based columns a sentence names as "column 3", "columns 3-5" or "columns 1, 4-6" (vision's column span)."""
    found = re.search(r"columns? (\d+(?:-\d+)?(?:, \d+(?:-\d+)?)*)", message)
    if found is None:
        return frozenset()
    columns: set[int] = set()
    for part in found.group(1).split(", "):
        first, _, last = part.partition("-")
        columns.update(range(int(first) - 1, int(last or first)))
    return frozenset(columns)


class _LoopWarnings(logging.Handler):
    """Keeps the game loop's warnings (the camera's board against the world's) of the game being played, and
    marks the frame they were about."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []
        self.keeper: _FrameKeeper | None = None

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        self.records.append(message)
        if self.keeper is not None:
            self.keeper.mark(message)
