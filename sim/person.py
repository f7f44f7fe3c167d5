"""The simulated person: a hand that reaches into the webcam's view with a disc, holds it over the slot, lets go
a little carelessly and withdraws, sometimes lingering in front of the board and covering holes.

On a real table the camera sees a hand every turn, so the simulation shows one (`sim.hand`). A visit is a
script of hand poses in time: out of view (the arm drawn back along the forearm) -> in front of and above the
column -> over the slot -> hold -> let go (the disc falls as physics makes it) -> lift -> withdraw. A `Linger`
keeps the hand in front of the board over some columns for a while, holding the disc before the drop or
empty-handed after it; `Habits` draw how a person moves and how often they linger from a room's kind and a
seed, so a test can ask for exactly "the hand lingers over columns 3-5 for 2 s" (`Linger((2, 4), 2.0)`).
A `Person` is one of the world's actors: its visit goes on while anything steps the world (the game's
camera, the arm), and `drop` returns as the hand starts to reach in: a real person's hand does not wait for
the robot to look.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np
import pybullet as p

from sim.arm import DISC_IN_TOOL
from sim.hand import PALM_CENTRE_M, PALM_HALF_EXTENTS_M, Hand, HandLook

if TYPE_CHECKING:
    from sim.world import World

HUMAN_PAUSE_S = (0.6, 1.6)
HUMAN_OFFSET_M = (0.004, 0.0015)
HUMAN_TILT_RAD = math.radians(4.0)
PINCH_BELOW_TOP_M = 0.007  # the fingertips hold the disc this far below its top edge
APPROACH_M = (-0.035, 0.02)  # before the slot: this far in front of it and above the release
LIFT_M = 0.015  # the empty fingers rise this much after letting go, before the hand withdraws
RETRACT_M = 0.40  # out of view: the whole arm drawn back this far along the forearm
LINGER_MOVE_S = 0.4  # from above the slot down in front of the board, and back
NEAREST_COVER_M = 0.04  # a lingering hand stays at least this far in front of the board's face
FARTHEST_COVER_M = 0.22


@dataclass(frozen=True)
class Linger:
    """The hand stays in front of the board over `columns` (first, last; 0-based) and `rows` for `seconds`,
    holding the disc before the drop (`before_drop`) or empty after it."""

    columns: tuple[int, int]
    seconds: float
    rows: tuple[int, int] = (1, 4)
    before_drop: bool = False

    def __post_init__(self) -> None:
        if not (0 <= self.columns[0] <= self.columns[1] and 0 <= self.rows[0] <= self.rows[1]):
            raise ValueError(f"linger over columns {self.columns} rows {self.rows}: give (first, last), 0-based")
        if not 0.0 < self.seconds <= 60.0:
            raise ValueError(f"linger of {self.seconds} s: use more than 0 and at most 60 s")


@dataclass(frozen=True)
class Habits:
    """How one person plays: their hand, how fast it moves, where their elbow is and how often they linger."""

    look: HandLook = HandLook()
    side: int = 1  # +1: the arm comes from the camera's right, -1: from its left
    reach_s: float = 0.45
    hold_s: float = 0.15
    withdraw_s: float = 0.40
    elbow_height_m: tuple[float, float] = (0.32, 0.40)  # high: the hand comes from above, over the board
    linger_chance: float = 0.0
    linger_s: tuple[float, float] = (0.5, 3.0)

    def __post_init__(self) -> None:
        if self.side not in (1, -1):
            raise ValueError(f"side {self.side}: use 1 (the camera's right) or -1 (its left)")
        if not 0.0 <= self.linger_chance <= 1.0:
            raise ValueError(f"linger chance {self.linger_chance}: use 0..1")

    @classmethod
    def for_room(cls, kind: str, seed: int) -> Habits:
        """A person for a room's kind ("plain": quick, from above, never lingering; "varied" and "makes"; "hard":
        hard skin and sleeves, low elbows, lingering often) and a seed."""
        rng = np.random.default_rng([seed, 31])
        look = HandLook.drawn(rng, hard=kind == "hard")
        side = 1 if rng.uniform() < 0.7 else -1
        if kind == "plain":
            return cls(look, side)
        if kind not in ("varied", "hard", "makes"):
            raise ValueError(f"there is no room kind {kind!r}: use plain, varied, hard or makes")
        hard = kind == "hard"
        return cls(
            look,
            side,
            reach_s=float(rng.uniform(0.5, 0.9)),
            hold_s=float(rng.uniform(0.1, 0.5)),
            withdraw_s=float(rng.uniform(0.4, 0.8)),
            elbow_height_m=(0.08, 0.30) if hard else (0.12, 0.40),
            linger_chance=0.5 if hard else 0.25,
            linger_s=(1.0, 4.0) if hard else (0.5, 3.0),
        )

    def drawn_linger(self, rng: np.random.Generator, columns: int, rows: int) -> Linger | None:
        """This turn's linger, or None (most turns)."""
        if rng.uniform() >= self.linger_chance:
            return None
        first = int(rng.integers(columns))
        last = min(columns - 1, first + int(rng.integers(0, 3)))
        low = int(rng.integers(rows))
        high = min(rows - 1, low + int(rng.integers(0, 3)))
        return Linger((first, last), float(rng.uniform(*self.linger_s)), (low, high), bool(rng.uniform() < 0.5))


@dataclass(frozen=True)
class _Key:
    """One pose of the visit's script: at `time_s` from its start, the pinch and the elbow (world)."""

    time_s: float
    pinch_m: np.ndarray
    elbow_m: np.ndarray


@dataclass
class Visit:
    """One turn of the person's hand: the disc it brings (a frozen body until let go) and its script."""

    column: int
    player: int
    disc: int
    linger: Linger | None
    keys: list[_Key]
    orientation: tuple[float, ...]
    release_s: float
    started_s: float
    disc_below_pinch: tuple[np.ndarray, tuple[float, ...]]
    lingers_s: tuple[float, float] | None = None  # from when to when (visit time) the hand stays in front
    released: bool = False

    @property
    def end_s(self) -> float:
        return self.keys[-1].time_s

    def pose_at(self, time_s: float) -> tuple[np.ndarray, np.ndarray]:
        """(pinch, elbow) at `time_s` from the visit's start: eased from key to key."""
        keys = self.keys
        for before, after in pairwise(keys):
            if time_s < after.time_s:
                share = (time_s - before.time_s) / max(after.time_s - before.time_s, 1e-9)
                ease = share * share * (3 - 2 * share)
                return (
                    before.pinch_m + ease * (after.pinch_m - before.pinch_m),
                    before.elbow_m + ease * (after.elbow_m - before.elbow_m),
                )
        return keys[-1].pinch_m, keys[-1].elbow_m


class Person:
    """The simulated person at the table: `drop` starts a visit of their hand, the world's steps carry it out."""

    def __init__(self, world: World, habits: Habits, rng: np.random.Generator) -> None:
        self.world = world
        self.habits = habits
        self.rng = rng
        self.hand = Hand(world.client, habits.look)
        self.visits: list[Visit] = []

    @property
    def is_busy(self) -> bool:
        """Whether the hand is still at the table (a visit not over)."""
        return bool(self.visits)

    def drop(self, column: int, player: int, linger: Linger | None = None, draw_linger: bool = True) -> Visit:
        """After a pause, start the hand's visit that drops a disc of `player` into `column`; returns at once.

        The previous visit is finished first. Without `linger`, one is drawn from the habits (unless
        `draw_linger` is False). The visit's disc exists from now on, in the hand, out of view."""
        world = self.world
        if player not in (1, 2):
            raise ValueError(f"player {player}: use 1 or 2")
        self.finish()
        world.step(float(self.rng.uniform(*HUMAN_PAUSE_S)))
        g = world.config.board
        if linger is None and draw_linger:
            linger = self.habits.drawn_linger(self.rng, g.columns, g.rows)
        if linger is not None and (linger.columns[1] >= g.columns or linger.rows[1] >= g.rows):
            raise ValueError(
                f"linger over columns {linger.columns} rows {linger.rows}: off the {g.columns}x{g.rows} board"
            )
        visit = self._script(column, player, linger)
        self.visits.append(visit)
        if self not in world.actors:
            world.actors.append(self)
        self._pose(visit, 0.0)
        return visit

    def finish(self, timeout_s: float = 30.0) -> None:
        """Run the world until the hand has withdrawn (every visit over)."""
        end_s = self.world.time_s + timeout_s
        while self.visits and self.world.time_s < end_s:
            self.world.step(self.world.time_step_s)

    def act(self, world: World) -> bool:
        """After a physics step: move the hand (and its disc) along the visit's script; False when none is left."""
        if not self.visits:
            return False
        visit = self.visits[0]
        time_s = world.time_s - visit.started_s
        if not visit.released and time_s >= visit.release_s:
            self._pose(visit, visit.release_s)
            if visit.disc in world.discs:  # not taken out of the hand by someone
                world.discs.unfreeze(visit.disc)
            visit.released = True
        if time_s >= visit.end_s:
            self.visits.pop(0)
            self.hand.park()
            return bool(self.visits)
        self._pose(visit, time_s)
        return True

    def hidden_holes(self, rim_m: float = 0.0) -> np.ndarray:
        """(rows, cols) share 0..1 of each hole the webcam cannot see for the hand and forearm now: the truth
        that what a reader calls covered is judged by. `rim_m` widens each hole all round (a finger on its rim
        hides the edge a reader looks at)."""
        world = self.world
        g = world.config.board
        centres = world.hole_centres_px()
        pitch_px = float(np.mean(np.linalg.norm(np.diff(centres, axis=1), axis=-1)))
        radius_px = (g.hole_diameter_m / 2 + rim_m) / g.column_pitch_m * pitch_px
        reach = math.ceil(radius_px)
        seen = np.pad(self.hand.pixels(world.camera), reach)  # a hole at the frame's edge keeps a whole window
        offsets = np.arange(-reach, reach + 1)
        disc = offsets[:, None] ** 2 + offsets[None, :] ** 2 <= radius_px**2
        shares = np.zeros(centres.shape[:2])
        for index in np.ndindex(*shares.shape):
            x, y = np.round(centres[index]).astype(int) + reach
            if reach <= x < seen.shape[1] - reach and reach <= y < seen.shape[0] - reach:
                shares[index] = float(seen[y - reach : y + reach + 1, x - reach : x + reach + 1][disc].mean())
        return shares

    def _pose(self, visit: Visit, time_s: float) -> None:
        pinch, elbow = visit.pose_at(time_s)
        self.hand.place(pinch, visit.orientation, elbow)
        if not visit.released and visit.disc in self.world.discs:
            centre, turn = p.multiplyTransforms(list(pinch), visit.orientation, *visit.disc_below_pinch)
            p.resetBasePositionAndOrientation(visit.disc, centre, turn, physicsClientId=self.world.client)

    def _script(self, column: int, player: int, linger: Linger | None) -> Visit:
        """The visit's poses: a careless release over `column`, the elbow drawn from the habits."""
        world, habits, rng = self.world, self.habits, self.rng
        g = world.config.board
        entry, yaw = world.slot_entry_pose(column)
        offset = rng.uniform(-1, 1, 2) * HUMAN_OFFSET_M
        tilt = float(rng.uniform(-1, 1) * HUMAN_TILT_RAD)
        orientation = p.getQuaternionFromEuler((tilt, 0.0, yaw))
        disc_below_pinch = ((0.0, 0.0, PINCH_BELOW_TOP_M - g.disc_diameter_m / 2), DISC_IN_TOOL)
        c, s = math.cos(yaw), math.sin(yaw)
        centre = entry + np.array([c * offset[0] - s * offset[1], s * offset[0] + c * offset[1], 0.0])
        up, _ = p.multiplyTransforms(
            (0, 0, 0), orientation, (0.0, 0.0, g.disc_diameter_m / 2 - PINCH_BELOW_TOP_M), (0, 0, 0, 1)
        )
        release = centre + np.array(up)
        approach = (
            release
            + world.board.to_world(np.array([0.0, APPROACH_M[0], APPROACH_M[1]]))
            - world.board.to_world(np.zeros(3))
        )
        elbow = self._elbow(float(rng.uniform(*habits.elbow_height_m)))
        keys = [_Key(0.0, *self._retracted(approach, elbow))]
        lingers_s = None
        if linger is not None and linger.before_drop:
            clock, lingers_s = self._add_linger(keys, linger, habits.reach_s, (approach, elbow))
        else:
            clock = habits.reach_s
            keys.append(_Key(clock, approach, elbow))
        clock += 0.25
        keys.append(_Key(clock, release, elbow))
        clock += habits.hold_s
        keys.append(_Key(clock, release, elbow))
        release_s = clock
        clock += 0.12
        lifted = release + np.array([0.0, 0.0, LIFT_M])
        keys.append(_Key(clock, lifted, elbow))
        if linger is not None and not linger.before_drop:
            clock, lingers_s = self._add_linger(keys, linger, LINGER_MOVE_S, None)
        keys.append(_Key(clock + habits.withdraw_s, *self._retracted(keys[-1].pinch_m, keys[-1].elbow_m)))
        body = world.discs.spawn(player, keys[0].pinch_m, orientation, is_frozen=True)
        return Visit(
            column, player, body, linger, keys, orientation, release_s, world.time_s, disc_below_pinch, lingers_s
        )

    def _add_linger(
        self, keys: list[_Key], linger: Linger, move_s: float, then: tuple[np.ndarray, np.ndarray] | None
    ) -> tuple[float, tuple[float, float]]:
        """Keys that take the hand from the last key in `move_s` down in front of the board, keep it there and
        then (pinch, elbow) move it to `then`; returns the clock after them and when the hand stays in front."""
        pinch, low_elbow = self._cover_pose(linger)
        clock = keys[-1].time_s + move_s
        keys.append(_Key(clock, pinch, low_elbow))
        window = (clock, clock + linger.seconds)
        clock += linger.seconds
        keys.append(_Key(clock, pinch, low_elbow))
        if then is not None:
            clock += LINGER_MOVE_S
            keys.append(_Key(clock, *then))
        return clock, window

    def _cover_pose(self, linger: Linger) -> tuple[np.ndarray, np.ndarray]:
        """(pinch, elbow) of a hand whose palm covers the lingered columns and rows as the webcam sees them: on
        the line from the camera to their middle, near enough to the camera for the palm to span them (up to
        `FARTHEST_COVER_M`: more of the board than that is covered by the forearm, if at all)."""
        world = self.world
        g = world.config.board
        x = (g.column_x_m(linger.columns[0]) + g.column_x_m(linger.columns[1])) / 2
        z = (g.row_z_m(linger.rows[0]) + g.row_z_m(linger.rows[1])) / 2
        target = world.board.to_world(np.array([x, g.front_face_y_m, z]))
        eye = np.asarray(world.camera.eye_m, float)
        distance = float(np.linalg.norm(target - eye))
        width = (linger.columns[1] - linger.columns[0] + 1) * g.column_pitch_m
        height = (linger.rows[1] - linger.rows[0] + 1) * g.row_pitch_m
        palm = 2 * np.array(PALM_HALF_EXTENTS_M) * self.habits.look.scale
        spans = distance * (1 - min(palm[0] / width, palm[2] / height))
        nearer = float(np.clip(spans, NEAREST_COVER_M, FARTHEST_COVER_M))
        palm_centre = target + (eye - target) * nearer / distance
        pinch = palm_centre - np.array(PALM_CENTRE_M) * self.habits.look.scale
        return pinch, self._elbow(float(pinch[2]) + float(self.rng.uniform(-0.05, 0.12)))

    def _elbow(self, height_m: float) -> np.ndarray:
        """Where the person's elbow is: to the habits' side of the camera, a little in front of it."""
        eye = np.asarray(self.world.camera.eye_m, float)
        across = self.habits.side * float(self.rng.uniform(0.16, 0.30))
        return np.array([eye[0] + across, eye[1] + float(self.rng.uniform(0.06, 0.16)), height_m])

    def _retracted(self, pinch: np.ndarray, elbow: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The hand out of view: the whole arm drawn back along the forearm."""
        back = (elbow - pinch) / np.linalg.norm(elbow - pinch) * RETRACT_M
        return pinch + back, elbow + back


def careless_drop(world: World, column: int, player: int) -> int:
    """A person's hand drops a disc of `player` into `column` and withdraws; waits until the disc rests.

    The hand is the world's plain person (`Habits.for_room("plain", world.seed)`), removed afterwards."""
    person = Person(world, Habits.for_room("plain", world.seed), world.rng)
    try:
        visit = person.drop(column, player)
        person.finish()
    finally:
        if person in world.actors:
            world.actors.remove(person)
        person.hand.remove()
    world.wait_until_settled()
    return visit.disc
