"""The recorded video is one browsers play: H.264, yuv420p, even sides, the index (moov) before the media."""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import struct
import subprocess
import threading
from pathlib import Path

import av
import numpy as np
import pytest

from robot.game.recorder import Recorder
from robot.game.video_file import VideoFile

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
YELLOW_BGR, RED_BGR = (0, 220, 240), (30, 30, 200)
# Decodes the video's frame at 0.5 s onto a canvas and writes the colours of two points into the page.
PAGE = """<html><body><video id="v" src="clip.mp4" muted></video><pre id="out">not played</pre><script>
const v = document.getElementById("v"), out = document.getElementById("out");
v.addEventListener("loadeddata", () => { v.currentTime = 0.5; });
// A busy machine may fire "seeked" before the frame is decoded (drawn black): draw again a little later, 20 times.
const draw = (tries) => {
  const canvas = document.createElement("canvas");
  canvas.width = v.videoWidth; canvas.height = v.videoHeight;
  const context = canvas.getContext("2d");
  context.drawImage(v, 0, 0);
  const at = (x, y) => Array.from(context.getImageData(x, y, 1, 1).data.slice(0, 3)).join(",");
  const left = at(24, 32), right = at(72, 32);
  if ((left === "0,0,0" || right === "0,0,0") && tries > 0) { setTimeout(() => draw(tries - 1), 100); return; }
  out.textContent = `played ${v.videoWidth}x${v.videoHeight} left=${left} right=${right}`;
};
v.addEventListener("seeked", () => draw(20));
v.addEventListener("error", () => { out.textContent = `error ${v.error.code}`; });
</script></body></html>"""


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
    image[:, :48] = YELLOW_BGR
    image[:, 48:] = RED_BGR
    video = VideoFile(tmp_path / "c.mp4", 10.0, (96, 64))
    for _ in range(3):
        video.write(image)
    video.close()
    with av.open(str(tmp_path / "c.mp4")) as container:
        decoded = next(container.decode(video=0)).to_ndarray(format="bgr24")
    assert np.abs(decoded[8:56, 8:40].astype(int) - YELLOW_BGR).mean() < 12
    assert np.abs(decoded[8:56, 56:88].astype(int) - RED_BGR).mean() < 12


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_a_browser_plays_it(tmp_path: Path) -> None:
    """Headless Chromium loads the video, seeks into it and paints the frame's yellow and red."""
    image = np.zeros((64, 96, 3), np.uint8)
    image[:, :48] = YELLOW_BGR
    image[:, 48:] = RED_BGR
    video = VideoFile(tmp_path / "clip.mp4", 10.0, (96, 64))
    for _ in range(10):
        video.write(image)
    video.close()
    (tmp_path / "page.html").write_text(PAGE)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000"]
        url = f"http://127.0.0.1:{server.server_address[1]}/page.html"
        dom = subprocess.run([*command, "--dump-dom", url], capture_output=True, text=True, timeout=60).stdout
    finally:
        server.shutdown()
        server.server_close()
    played = re.search(r"played 96x64 left=(\d+),(\d+),(\d+) right=(\d+),(\d+),(\d+)", dom)
    assert played, f"Chromium did not play the video: {re.search(r'<pre id=.out.>([^<]*)', dom)}"
    left, right = np.array(played.groups()[:3], int), np.array(played.groups()[3:], int)
    assert np.abs(left - YELLOW_BGR[::-1]).max() < 25 and np.abs(right - RED_BGR[::-1]).max() < 25


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
