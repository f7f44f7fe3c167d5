"""`--record DIR`: a video of the game a person wants to watch, and each move's frame as a PNG.

`game.mp4` (H.264 that browsers play, `robot.game.video_file`; RECORD_FPS frames a second) shows the webcam
with what vision read drawn on it beside a wide view of the whole arm and board, over captions: whose turn,
what was said (the column played), the engine's verdict of every column; at the end the winning four is ringed
for a few seconds. In the simulation a `sim.video.Film` hands the recorder frames at a steady rate of
simulated time while the arm moves and discs fall (`on_film`), so the video runs in real time and vision's
latest reading is drawn on each; on the real table the video is the frames the game looked at. `move_NN.png`
is the frame that confirmed each move; with `png_frames` every video frame is also a PNG.
The recorder is a `GameObserver` (`Game.watch(recorder)`).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from robot.game.video_file import VideoFile
from robot.view.verdicts import position_verdicts
from vision import BoardReading
from vision.overlay import draw_reading

RECORD_FPS = 15.0
END_HOLD_S = 3.0  # the final board with its winning four stays this long
CAPTION_LINE_PX = 26
CAPTION_LINES = 3
CAPTION_BGR = (235, 235, 235)
FOUR_BGR = (60, 255, 60)
FONT = cv2.FONT_HERSHEY_SIMPLEX


class Recorder:
    """Writes `game.mp4`, `move_NN.png` per move and, when asked, `frames/frame_NNNNN.png`."""

    def __init__(
        self, folder: Path, fps: float = RECORD_FPS, png_frames: bool = False, wide_view: bool = False
    ) -> None:
        """`wide_view`: the simulation films the table (`on_film`: the webcam and a second, wider camera), so
        the video is the film's frames; else it is the frames the game looked at."""
        self.folder = folder
        self.fps = fps
        self.wide_view = wide_view
        self.folder.mkdir(parents=True, exist_ok=True)
        self.frames_folder = folder / "frames" if png_frames else None
        if self.frames_folder is not None:
            self.frames_folder.mkdir(exist_ok=True)
        self.frames_written = 0
        self._video: VideoFile | None = None
        self._size: tuple[int, int] | None = None  # (width, height) of the video, fixed by its first frame
        self._last_webcam: np.ndarray | None = None
        self._reading: BoardReading | None = None
        self._wide: np.ndarray | None = None
        self._state: dict | None = None
        self._said = ""
        self._verdicts_of: tuple[int, int | None] | None = None
        self._verdicts_shown: list[str] = []

    # -- what the game shows (GameObserver) ----------------------------------------------------

    def on_state(self, snapshot: dict) -> None:
        """The captions follow the game; its end is held when the recording closes (the game announces its
        end more than once: the last word, with the winner, is the one shown)."""
        self._state = snapshot
        if snapshot.get("message"):
            self._said = snapshot["message"]

    def on_frame(self, frame_bgr: np.ndarray, reading: BoardReading) -> None:
        """A frame the game looked at, with what vision read in it: a frame of the video unless a film shows
        the table (its frames keep the video in real time; this reading is then drawn on them)."""
        self._reading = reading
        if not self.wide_view:
            self._last_webcam = frame_bgr
            self._write(self._compose(frame_bgr, self._wide))

    def on_film(self, webcam_bgr: np.ndarray, wide_bgr: np.ndarray) -> None:
        """A frame of the table moving (the simulation's film); the overlay is vision's last reading."""
        self._wide = wide_bgr
        self._last_webcam = webcam_bgr
        self._write(self._compose(webcam_bgr, wide_bgr))

    def save_move(self, move_number: int, frame_bgr: np.ndarray, reading: BoardReading) -> Path:
        """The frame that confirmed move `move_number` (1-based), with the overlay."""
        path = self.folder / f"move_{move_number:02d}.png"
        if not cv2.imwrite(str(path), draw_reading(frame_bgr, reading)):
            raise OSError(f"cannot write {path}: check that the folder is writable")
        return path

    def close(self) -> None:
        """At a game's end its last frame, the winning four ringed, stays `END_HOLD_S`; then the video is done."""
        if self._video is None:
            return
        state = self._state
        if state is not None and state["turn"] == "over" and self._last_webcam is not None:
            final = self._compose(self._last_webcam, self._wide, four=state["winning_cells"])
            for _ in range(round(END_HOLD_S * self.fps)):
                self._write(final)
        self._video.close()
        self._video = None

    # -- drawing -------------------------------------------------------------------------------

    def _compose(self, webcam_bgr: np.ndarray, wide_bgr: np.ndarray | None, four: list | None = None) -> np.ndarray:
        """Webcam with the overlay (and the four), the wide view beside it, the captions below."""
        left = draw_reading(webcam_bgr, self._reading) if self._reading is not None else webcam_bgr.copy()
        if four and self._reading is not None and self._reading.hole_centres_px is not None:
            radius = int(
                0.45 * np.linalg.norm(self._reading.hole_centres_px[0, 1] - self._reading.hole_centres_px[0, 0])
            )
            for column, row in four:
                centre = tuple(int(round(v)) for v in self._reading.hole_centres_px[row, column])
                cv2.circle(left, centre, radius, FOUR_BGR, 4, cv2.LINE_AA)
        _label(left, "webcam: what vision reads")
        panes = [left]
        if self.wide_view:
            height = left.shape[0]
            wide_bgr = wide_bgr if wide_bgr is not None else np.zeros_like(left)
            wide = cv2.resize(wide_bgr, (round(wide_bgr.shape[1] * height / wide_bgr.shape[0]), height))
            _label(wide, "the table")
            panes.append(wide)
        top = np.hstack(panes)
        band = np.full((CAPTION_LINES * CAPTION_LINE_PX + 12, top.shape[1], 3), 32, np.uint8)
        for index, line in enumerate(self._captions()):
            cv2.putText(band, line, (10, 22 + index * CAPTION_LINE_PX), FONT, 0.55, CAPTION_BGR, 1, cv2.LINE_AA)
        return np.vstack([top, band])

    def _captions(self) -> list[str]:
        """Whose turn, what was said last, the engine's verdict of every column."""
        state = self._state
        if state is None:
            return ["the game is being set up"]
        moves = state["moves"]
        if state["turn"] == "over":
            winner = {"robot": "the robot wins", "opponent": "you win", "draw": "a draw"}.get(state["winner"], "over")
            four = ", ".join(f"column {c + 1} row {r + 1}" for c, r in state["winning_cells"])
            whose = f"Game over after {len(moves)} moves: {winner}" + (f" (the four: {four})" if four else "")
        else:
            whose = f"Move {len(moves) + 1}: " + ("the robot's turn" if state["turn"] == "robot" else "your turn")
        lines = [whose, f'said: "{self._said}"' if self._said else ""]
        search = state["search"]
        verdicts = self._verdicts(moves, state["rows"], state["cols"], search)
        each = "   ".join(f"{column + 1}: {verdict}" for column, verdict in enumerate(verdicts))
        if search is not None and verdicts:
            lines.append(f"engine: column {search['column'] + 1}  |  {each}")
        elif verdicts:
            lines.append(f"columns: {each}")
        return lines

    def _verdicts(self, moves: list[int], rows: int, cols: int, search: dict | None) -> list[str]:
        """Every column's verdict (robot.view.verdicts), worked out once per position: captions redraw 15 times a
        second."""
        key = (len(moves), None if search is None else search["stones"])
        if self._verdicts_of != key:
            self._verdicts_of, self._verdicts_shown = key, position_verdicts(moves, rows, cols, search)
        return self._verdicts_shown

    def _write(self, image: np.ndarray) -> None:
        if self._video is None:
            self._size = image.shape[1], image.shape[0]
            self._video = VideoFile(self.folder / "game.mp4", self.fps, self._size)
        if (image.shape[1], image.shape[0]) != self._size:
            image = cv2.resize(image, self._size)  # a camera that changed its resolution
        self._video.write(image)
        self.frames_written += 1
        if self.frames_folder is not None:
            path = self.frames_folder / f"frame_{self.frames_written:05d}.png"
            if not cv2.imwrite(str(path), image):
                raise OSError(f"cannot write {path}: check that the folder is writable")


def _label(image: np.ndarray, text: str) -> None:
    """White words on a dark strip in the bottom-left corner, readable on any room's colours."""
    (width, height), _ = cv2.getTextSize(text, FONT, 0.5, 1)
    bottom = image.shape[0] - 6
    cv2.rectangle(image, (4, bottom - height - 6), (12 + width, bottom + 4), (32, 32, 32), -1)
    cv2.putText(image, text, (8, bottom - 2), FONT, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
