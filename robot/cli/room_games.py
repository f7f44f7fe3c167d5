"""`c4robot bench game --rooms N`: N whole simulated games, each in its own seeded room (light, webcam pose,
backdrop), reporting games finished, board agreement after every move, false events and robot turns per game.

No one misbehaves in these games, so every event the game tells the person is a false one. Every failure is
printed with its room, what was said and the loop's disagreement; `--frames DIR` also saves the camera's frame
of each (the frame the game had just looked at when it spoke or disagreed), for whoever fixes the reader.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from robot.cli.view_commands import opened_view

ROOM_GIVE_UP_S = 60.0  # a board that shows no move for a minute in a room will not: the reader cannot see it


def run_bench_rooms(args: argparse.Namespace, play_game: Callable, game_args: Callable) -> int:
    """Play the games (`play_game` is `play --sim`'s, `game_args(seed, opponent, robot_first, **more)` its
    arguments), print the table and every failure; exit status 1 unless every game finished in agreement with
    no false event."""
    from sim.room import room_for

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
                    play_game,
                    game_args(game.seed, args.opponent, game.robot_first, room=args.room, give_up_s=ROOM_GIVE_UP_S),
                    Path(folder) / f"game{index}.json",
                    keeper,
                )
                if args.frames is not None and game.problems:
                    game.frames = keeper.save(args.frames, f"{args.room}_seed{game.seed}", game.problems)
                games.append(game)
    finally:
        logging.getLogger("robot.game.loop").removeHandler(warnings)
    print(
        f"{'game':>4} {'seed':>5} {'robot':>6} {'result':>8} {'moves':>5} {'agree':>5} {'false':>5} {'turns':>5} "
        f"{'wall s':>6}  room ({args.room})"
    )
    for index, game in enumerate(games, 1):
        print(
            f"{index:>4} {game.seed:>5} {'first' if game.robot_first else 'second':>6} {game.result:>8} "
            f"{len(game.summary.get('moves', '')):>5} {'yes' if game.agrees else 'no':>5} {len(game.events):>5} "
            f"{len(game.summary.get('turns', [])):>5} {game.wall_s:>6.0f}  {room_for(args.room, game.seed).describe()}"
        )
    turns = [len(game.summary["turns"]) for game in games if game.summary]
    finished, agreeing, false_events = (
        sum(game.finished for game in games),
        sum(game.agrees for game in games),
        sum(len(game.events) for game in games),
    )
    print()
    print(f"games finished: {finished}/{len(games)}")
    print(f"board agreement after every move: {agreeing}/{len(games)} games")
    print(f"false events (no one misbehaved in these games, so every event is false): {false_events}")
    if turns:
        print(f"robot turns per game: median {statistics.median(turns):g} (min {min(turns)}, max {max(turns)})")
    for index, game in enumerate(games, 1):
        if game.problems:
            print(f"\ngame {index} (seed {game.seed}, {args.room} room: {room_for(args.room, game.seed).describe()}):")
            for problem in game.problems:
                print("  " + problem.replace("\n", "\n  "))
            for frame in game.frames:
                print(f"  frame: {frame}")
    return 0 if finished == agreeing == len(games) and not false_events else 1


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

    def play(self, play_game: Callable, game_args: argparse.Namespace, log_path: Path, view) -> None:
        started = time.perf_counter()
        try:
            self.summary = play_game(game_args, lambda message: None, log_path, view=view)
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
    def events(self) -> list[str]:
        return list(self.summary.get("events", []))

    @property
    def problems(self) -> list[str]:
        """Why it stopped, every event said, the first disagreement."""
        return ([self.failure] if self.failure else []) + self.events + self.warnings[:1]

    @property
    def result(self) -> str:
        return self.summary.get("winner") or "stopped"


class _FrameKeeper:
    """Watches a bench game (passing everything on to the live view, if one is open): the last camera frame,
    and the frame at which each message was said or the loop disagreed."""

    def __init__(self, view) -> None:
        self.view = view
        self.frame: np.ndarray | None = None
        self.at: dict[str, np.ndarray] = {}

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
        if self.frame is not None and message not in self.at:
            self.at[message] = self.frame

    def save(self, folder: Path, name: str, problems: list[str]) -> list[Path]:
        """The frames of `problems` (the last frame for one said before any was seen) as PNGs in `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        saved = []
        for index, problem in enumerate(problems):
            frame = next((f for message, f in self.at.items() if message.startswith(problem[:60])), self.frame)
            if frame is None:
                continue
            path = folder / f"{name}_{index + 1}.png"
            if not cv2.imwrite(str(path), frame):
                raise OSError(f"cannot write {path}: check that the folder is writable")
            saved.append(path)
        return saved


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
