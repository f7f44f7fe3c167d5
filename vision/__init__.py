"""Vision: read a Connect-4 board from a camera frame, stabilise readings and detect moves.

`read(image_bgr, shape=(6, 7), corners=None, colours=None) -> BoardReading` is the entry point.
"""

from vision.reading import BoardReading, read

__all__ = ["BoardReading", "read"]
