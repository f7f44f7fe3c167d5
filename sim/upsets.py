"""What goes wrong around a real arm, on purpose: a finger flicking the carried disc (on the way, or just as the
jaws open, too late for the gripper to feel it), a stuck or empty dispenser.

`c4robot bench arm --drops N --upsets F` and the tests use these to check that a lost disc and a missed
pick are seen (by the gripper's sense and the camera) and recovered from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pybullet as p

if TYPE_CHECKING:
    from sim.world import World


@dataclass
class Knock:
    """A flick on the held disc at `at_s` (world time): `force_n` in the disc's frame for one physics step."""

    at_s: float
    force_n: tuple[float, float, float]

    def act(self, world: World) -> bool:
        if world.time_s < self.at_s:
            return True
        if world.held_disc is not None:
            p.applyExternalForce(
                world.held_disc, -1, self.force_n, (0.0, 0.0, 0.0), p.LINK_FRAME, physicsClientId=world.client
            )
        return False


@dataclass
class KnockInCarry:
    """A flick on the next disc the arm picks, once it has been held `held_s` (mid-carry, wherever that is)."""

    held_s: float
    force_n: tuple[float, float, float]
    since_s: float | None = None

    def act(self, world: World) -> bool:
        if world.held_disc is None:
            self.since_s = None
            return True
        if self.since_s is None:
            self.since_s = world.time_s
        if world.time_s - self.since_s < self.held_s:
            return True
        return Knock(world.time_s, self.force_n).act(world)


@dataclass
class KnockOnRelease:
    """A flick on the next carried disc the moment the jaws let it go (held at least `held_s`): the gripper
    felt nothing wrong, the disc flies off anyway; only the camera can tell."""

    force_n: tuple[float, float, float]
    held_s: float = 0.5
    _held: int | None = None
    _since_s: float = 0.0

    def act(self, world: World) -> bool:
        if world.held_disc is not None:
            if world.held_disc != self._held:
                self._held, self._since_s = world.held_disc, world.time_s
            return True
        if self._held is None or world.time_s - self._since_s < self.held_s or self._held not in world.disc_ids():
            self._held = None
            return True
        centre = tuple(float(v) for v in world.disc_pose(self._held)[0])
        p.applyExternalForce(self._held, -1, self.force_n, centre, p.WORLD_FRAME, physicsClientId=world.client)
        return False


def knock_held_disc(world: World, after_s: float, force_n: tuple[float, float, float]) -> None:
    """Flick the disc the arm holds `after_s` from now; nothing happens if no disc is held then."""
    world.actors.append(Knock(world.time_s + after_s, tuple(float(f) for f in force_n)))


def knock_in_carry(world: World, held_s: float, force_n: tuple[float, float, float]) -> None:
    """Flick the next carried disc once it has been in the jaws `held_s` (a finger in the arm's way)."""
    world.actors.append(KnockInCarry(held_s, tuple(float(f) for f in force_n)))


def knock_on_release(world: World, force_n: tuple[float, float, float]) -> None:
    """Flick the next carried disc as the jaws open over the board (a finger catching it as it falls)."""
    world.actors.append(KnockOnRelease(tuple(float(f) for f in force_n)))


def jam_dispenser(world: World) -> None:
    """The dispenser's feed sticks: its waiting disc falls out and no other drops in until the jaws close on
    the empty post (a missed pick), as when a disc catches in a real gravity feed."""
    if world.dispenser.waiting is not None:
        world.remove_disc(world.dispenser.waiting)
    world.dispenser.is_jammed = True


@dataclass
class EmptyFeed:
    """The dispenser has run out: no disc drops in, whatever the jaws do."""

    def act(self, world: World) -> bool:
        jam_dispenser(world)
        return True


def run_out_dispenser(world: World) -> None:
    """The dispenser runs out of discs for good (until the world forgets the actor): every pick comes up empty."""
    world.actors.append(EmptyFeed())
