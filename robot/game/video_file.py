"""A video file every browser plays: H.264 (yuv420p) in MP4 with its index at the front, encoded in-process by
the libx264 that PyAV's wheel ships (OpenCV's wheels write only MPEG-4 Part 2, which browsers do not play).

The file is written under a `.part` name and renamed when closed, so a video that exists is a whole one.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

CODEC = "libx264"
PIXEL_FORMAT = "yuv420p"  # the chroma layout every H.264 decoder in a browser takes
ENCODER_OPTIONS = {"preset": "veryfast", "crf": "23"}  # a few ms a frame on one core; crisp captions


class VideoFile:
    """Frames (BGR, all of one size) to `path` at `fps`; `close()` finishes the file."""

    def __init__(self, path: Path, fps: float, size: tuple[int, int]) -> None:
        """`size` is (width, height) of the frames to come; an odd side gets one edge column or row repeated,
        as yuv420p needs even sides."""
        self.path = Path(path)
        self._part = self.path.with_name(self.path.name + ".part")
        width, height = size
        self._padding = ((0, height % 2), (0, width % 2), (0, 0))
        try:
            self._part.open("wb").close()  # the muxer opens its file only at the first frame: fail here instead
        except OSError as error:
            raise OSError(f"cannot write a video to {self.path}: check that the folder is writable ({error})") from None
        self._container = av.open(str(self._part), "w", format="mp4", options={"movflags": "+faststart"})
        self._stream = self._container.add_stream(CODEC, rate=Fraction(fps).limit_denominator(1001))
        self._stream.width = width + width % 2
        self._stream.height = height + height % 2
        self._stream.pix_fmt = PIXEL_FORMAT
        self._stream.options = dict(ENCODER_OPTIONS)
        self.frames = 0

    def write(self, image_bgr: np.ndarray) -> None:
        """One frame of the size given at the start."""
        if any(after for _, after in self._padding):
            image_bgr = np.pad(image_bgr, self._padding, mode="edge")
        frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image_bgr), format="bgr24")
        self._container.mux(self._stream.encode(frame))
        self.frames += 1

    def close(self) -> None:
        """Flush the encoder, put the index at the front, and give the file its name."""
        if self._container is None:
            return
        self._container.mux(self._stream.encode(None))
        self._container.close()
        self._container = None
        os.replace(self._part, self.path)
