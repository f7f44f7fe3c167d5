"""The recorded video is one browsers play: H.264, yuv420p, even sides, the index (moov) before the media."""

from __future__ import annotations

import struct
from pathlib import Path

import av
import numpy as np
import pytest

from robot.game.recorder import Recorder
from robot.game.video_file import VideoFile


def _top_level_boxes(path: Path) -> list[str]:
    """The MP4 file's top-level box types in file order, read from their 8-byte headers."""
    data = path.read_bytes()
    boxes, offset = [], 0
    while offset + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[offset : offset + 8])
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8 : offset + 16])[0]
        boxes.append(kind.decode("latin-1"))
        if size < 8:
            break
        offset += size
    return boxes


def _video_stream(path: Path) -> tuple[str, str, int, int, float, int]:
    """(codec, pixel format, width, height, frames a second, frames) as a decoder reads them."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return (
            stream.codec_context.name,
            stream.codec_context.pix_fmt,
            stream.width,
            stream.height,
            float(stream.average_rate),
            frames,
        )


def test_frames_of_odd_size_become_browser_ready_h264(tmp_path: Path) -> None:
    path = tmp_path / "clip.mp4"
    video = VideoFile(path, 15.0, (101, 75))
    rng = np.random.default_rng(0)
    for _ in range(12):
        video.write(rng.integers(0, 256, (75, 101, 3), np.uint8))
    video.close()
    assert _video_stream(path) == ("h264", "yuv420p", 102, 76, 15.0, 12)
    boxes = _top_level_boxes(path)
    assert boxes.index("moov") < boxes.index("mdat"), f"the index should come first (faststart): {boxes}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clip.mp4"]  # no .part left behind


def test_the_picture_survives_encoding(tmp_path: Path) -> None:
    """A frame half yellow, half red comes back in those colours (BGR order kept through yuv420p)."""
    image = np.zeros((64, 96, 3), np.uint8)
    image[:, :48] = (0, 220, 240)
    image[:, 48:] = (30, 30, 200)
    video = VideoFile(tmp_path / "c.mp4", 10.0, (96, 64))
    for _ in range(3):
        video.write(image)
    video.close()
    with av.open(str(tmp_path / "c.mp4")) as container:
        decoded = next(container.decode(video=0)).to_ndarray(format="bgr24")
    assert np.abs(decoded[8:56, 8:40].astype(int) - (0, 220, 240)).mean() < 12
    assert np.abs(decoded[8:56, 56:88].astype(int) - (30, 30, 200)).mean() < 12


def test_a_folder_that_does_not_exist_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="cannot write a video"):
        VideoFile(tmp_path / "missing" / "game.mp4", 15.0, (64, 48))


def test_the_recorders_game_video_is_h264(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path, wide_view=True)
    webcam = np.full((120, 161, 3), 90, np.uint8)
    wide = np.full((96, 128, 3), 140, np.uint8)
    for _ in range(4):
        recorder.on_film(webcam, wide)
    recorder.close()
    codec, pixel_format, width, height, fps, frames = _video_stream(tmp_path / "game.mp4")
    assert (codec, pixel_format, frames, fps) == ("h264", "yuv420p", 4, recorder.fps)
    assert width % 2 == 0 and height % 2 == 0
