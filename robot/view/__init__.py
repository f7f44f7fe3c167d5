"""The live web view of a game: what the robot sees and thinks, in a browser (layer 5, beside robot.game).

The game never imports this package: `Game.watch(LiveView())` hands it snapshots and frames, and
`ViewServer` serves them on 127.0.0.1 (by default) from its own threads.
"""

from robot.view.live import LiveView
from robot.view.server import DEFAULT_HOST, DEFAULT_PORT, ViewServer

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "LiveView", "ViewServer"]
