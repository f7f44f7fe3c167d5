"""A table of one board-and-disc make for the tests of the makes (sim.makes): a world without an arm, the webcam at
a chosen view, a grey-green wall behind the board."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sim import World, WorldConfig
from sim.makes import Make
from sim.room import Room, furnish

WALL_RGB = (0.45, 0.55, 0.40)


@contextlib.contextmanager
def makes_table(make: Make, view_deg: tuple[float, float] = (0.0, 10.0), backdrop: str = "wall") -> Iterator[World]:
    """A world without an arm with `make` on the table and the webcam at `view_deg` (degrees aside, above)."""
    room = Room(kind="makes", make=make, view_deg=view_deg, backdrop=backdrop, backdrop_rgb=WALL_RGB)
    with World(WorldConfig(arm=None)) as world:
        furnish(world, room)
        yield world


def drop(world: World, column: int, player: int) -> int:
    """A disc of `player` dropped into `column` (0-based) and settled; its body id."""
    body = world.drop_disc(column, player)
    world.wait_until_settled()
    return body
