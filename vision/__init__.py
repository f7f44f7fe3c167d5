"""Vision: read a Connect-4 board from a camera frame, stabilise readings and detect moves.

`read(image_bgr, shape=(6, 7), corners=None, colours=None) -> BoardReading` is the entry point;
`Stabiliser` accepts a reading once several frames agree; `detect_move` turns the previous board and an
accepted reading into a `MoveEvent`. Camera sources live in `vision.cameras`.
"""

from vision.moves import MoveEvent, MoveKind, detect_move
from vision.reading import BoardReading, read
from vision.stabiliser import Stabiliser

__all__ = ["BoardReading", "MoveEvent", "MoveKind", "Stabiliser", "detect_move", "read"]
