"""The view's picture of a game: game snapshots (robot.game.loop.Game.watch) turned into what the page shows.

`LiveView` is the game's observer. On the game's thread it only keeps the events said and swaps the newest
snapshot into a slot; its own thread turns that into the page's state (the board from the moves, every
column's verdict from the robot's search or the books) and replaces the latest state, which the web server
sends on from its threads. So neither the verdicts nor a browser ever hold the game up.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import numpy as np

from robot.game.arm_readings import ArmPose
from robot.view.arm_sketch import LABEL as ARM_LABEL
from robot.view.arm_sketch import arm_sketch
from robot.view.camera_stream import CameraStream
from robot.view.slot import LatestSlot
from robot.view.verdicts import position_verdicts
from vision import BoardReading

log = logging.getLogger(__name__)

EVENTS_KEPT = 30
ARM_SKETCH_PX = 480  # before the first webcam frame
WAKE_S = 0.5  # how often the state thread checks whether the view is closing


def board_from_moves(moves: list[int], rows: int, cols: int) -> list[list[int]]:
    """Rows bottom first of 0 empty, 1 the first player, 2 the second, from 0-based columns in play order."""
    grid = [[0] * cols for _ in range(rows)]
    heights = [0] * cols
    for index, column in enumerate(moves):
        grid[heights[column]][column] = 1 + index % 2
        heights[column] += 1
    return grid


def page_state(snapshot: dict, events: list[dict], title: str, camera: bool) -> dict:
    """What the page shows of one snapshot: the board, whose turn, every column's verdict, the events said."""
    said = snapshot.get("event")
    rows, cols = snapshot["rows"], snapshot["cols"]
    robot_player = 1 if snapshot["robot_first"] else 2
    search = snapshot.get("search")
    fresh = search is not None and search["stones"] == len(snapshot["moves"])
    return {
        **snapshot,
        "event": None if said is None else said.to_json(),
        "title": title,
        "board": board_from_moves(snapshot["moves"], rows, cols),
        "robot_player": robot_player,
        "robot_column": None if search is None else search["column"],
        "chosen_column": search["column"] if fresh else None,
        "verdicts": position_verdicts(snapshot["moves"], rows, cols, search),
        "verdicts_for": snapshot["turn"],
        "events": events,
        "camera": camera,
    }


class LiveView:
    """Latest page state (`states`) and camera pictures (`camera`) of one game or replay.

    `first_viewer` is set when a page first listens (a replay waits for it); `control`, when set (a replay),
    takes the page's buttons: "play", "pause", "step". A snapshot may carry a "replay" entry for the page.
    """

    def __init__(self, title: str = "Connect 4 robot") -> None:
        self.title = title
        self.states: LatestSlot[dict] = LatestSlot()
        self.camera = CameraStream()
        self.events: list[dict] = []  # the last events said, as their JSON (kind, columns, cells, message, time)
        self.first_viewer = threading.Event()
        self.control: Callable[[str], None] | None = None
        self._snapshots: LatestSlot[tuple[dict, list[dict]]] = LatestSlot()
        self._done = 0  # the snapshot version the latest state shows
        self._caught_up = threading.Condition()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._states_forever, name="view-state", daemon=True)
        self._thread.start()

    def on_state(self, snapshot: dict) -> None:
        """Called on the game's thread: keep the event said and hand the snapshot to the view's thread."""
        said = snapshot.get("event")
        if said is not None:
            self.events = [*self.events, said.to_json()][-EVENTS_KEPT:]
        self._snapshots.put((snapshot, self.events))

    def on_frame(self, frame: np.ndarray, reading: BoardReading) -> None:
        self.camera.offer(frame, reading)

    def on_film(self, webcam_bgr: np.ndarray | None, wide_bgr: np.ndarray) -> None:
        """The simulation's film (sim.video.Film): the webcam (None: the game's last frame is shown) and the wide
        view of the table with the arm."""
        self.camera.offer_film(webcam_bgr, wide_bgr)

    def on_arm(self, pose: ArmPose) -> None:
        """The real arm's joints as read (robot.game.arm_readings): drawn beside the webcam, where the sim films."""
        webcam = self.camera.frames.get()[1]
        height = ARM_SKETCH_PX if webcam is None else webcam[0].shape[0]
        self.camera.offer_film(None, arm_sketch(pose, height), ARM_LABEL)

    @property
    def wants_film(self) -> bool:
        """True while a page shows the camera: a film's frames cost rendering, worth it only when watched."""
        return self.camera.watchers > 0

    def wait_caught_up(self, timeout_s: float = 5.0) -> bool:
        """Wait until the latest state shows the latest snapshot; False after `timeout_s`."""
        with self._caught_up:
            return self._caught_up.wait_for(lambda: self._done >= self._snapshots.get()[0], timeout=timeout_s)

    def _states_forever(self) -> None:
        while not self._closing.is_set():
            version, item = self._snapshots.wait_newer(self._done, WAKE_S)
            if item is None or version == self._done:
                continue
            snapshot, events = item
            try:
                self.states.put(page_state(snapshot, events, self.title, self.camera.frames.get()[0] > 0))
            except Exception:  # a view that stops on one odd snapshot would freeze the page for the whole game
                log.exception("the live view could not show a game snapshot")
            with self._caught_up:
                self._done = version
                self._caught_up.notify_all()

    def close(self) -> None:
        self._closing.set()
        self._thread.join(timeout=2.0)
        self.camera.close()
