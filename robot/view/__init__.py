"""The live web view of a game: what the robot sees and thinks, in a browser (layer 5, beside robot.game).

The game never imports this package: `Game.watch(LiveView())` hands it snapshots and frames, and
`ViewServer` serves them on 127.0.0.1 (by default) from its own threads. `LiveView` and `ViewServer` load
on first use: the command line reads the defaults below for every command's parser, and loading the view
(OpenCV, the reader) there would slow down commands that never show it, such as `c4robot move`.
"""

from __future__ import annotations

import importlib
from typing import Any

DEFAULT_HOST = "127.0.0.1"  # this computer only; 0.0.0.0 shares the view on the LAN
DEFAULT_PORT = 8765

_LAZY = {"LiveView": "robot.view.live", "ViewServer": "robot.view.server"}

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "LiveView", "ViewServer"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'robot.view' has no attribute {name!r}")
