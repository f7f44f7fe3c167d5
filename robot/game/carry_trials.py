"""Carried drops: robot turns in the simulation with the physical carry, counted (`c4robot bench arm --drops N`).

Each trial is a robot turn (`robot.arm.planner.play_column`) into a random column that is not full: the jaws
pinch the dispenser's disc by contact and friction (`sim.grip`), so a pick can come up empty and a disc can
be torn out on the way. A fraction of the turns is upset on purpose (`sim.upsets`): a flick on the carried
disc, a flick just as the jaws open (too late for the gripper to feel), or a jammed dispenser feed. What the
robot does about it is what the game does (`robot.game.loop`): the planner picks again after an empty pick
(a named error after `PICK_ATTEMPTS`); a disc lost on the way, or let go as planned but not on the board
afterwards, is looked for on the board (here the world's own board; the game asks the camera) and, when it
is not there, fetched again once; a second disc that does not arrive either is said to the person (the game
stops for them: "my disc did not show up"). Every turn ends in one of: its disc in the chosen column, in another
column (said to the person: the game goes on from the board), or a named error (said to the person) - or,
the failure this bench exists to find, a disc that did not land where the robot believes and nobody was
told (`unreported`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from robot.arm import ArmConfig
from robot.arm.drivers.sim import SimArm, sim_planner
from robot.arm.planner import PICK_ATTEMPTS, DiscLostError, PickMissedError, play_column
from robot.game.loop import DROP_ATTEMPTS
from sim import World
from sim.upsets import KnockInCarry, KnockOnRelease, jam_dispenser, knock_in_carry, knock_on_release

FLICK_FORCE_N = (20.0, 80.0)  # from a brush that the pinch holds to a flick that tears the disc out
FLICK_AFTER_S = (0.6, 2.5)  # held this long: from the lift to the end of the carry
RELEASE_FLICK_N = (3.0, 10.0)  # as the jaws open: 1.4 to 4.6 m/s on a 4.5 g disc, out of the funnel
SETTLE_S = 5.0


@dataclass
class CarryTrialStats:
    """Counts over a run of robot turns; `landed_right` + `landed_elsewhere` + `named_errors` + `unreported` =
    `turns`. Picks missed and discs lost count events (a turn can have several); `recovered` are those the
    turn got over by itself (picked again, fetched again)."""

    turns: int = 0
    upsets: dict[str, int] = field(default_factory=lambda: {"flick": 0, "flick at release": 0, "jam": 0})
    picks_missed: int = 0
    lost_in_transit: int = 0
    lost_fell_in_board: int = 0
    fetched_again: int = 0
    lost_after_release: int = 0  # the gripper let go of it as planned, yet no new disc is on the board
    landed_right: int = 0
    landed_elsewhere: int = 0
    named_errors: list[str] = field(default_factory=list)
    unreported: list[str] = field(default_factory=list)
    sim_s: float = 0.0
    wall_s: float = 0.0

    @property
    def turns_per_s(self) -> float:
        return self.turns / self.wall_s if self.wall_s > 0 else math.inf


def _new_discs(world: World, before: np.ndarray) -> list[tuple[int, int]]:
    """Cells (row, column) holding a disc now that were empty in `before`."""
    now = world.board_state()
    return [(int(r), int(c)) for r, c in np.argwhere((before == 0) & (now != 0))]


def _tidy(world: World) -> None:
    """The person picks up discs that fell off the board or stuck in it (they are no one's move)."""
    keep = (world.held_disc, world.dispenser.waiting)
    for body in world.disc_ids():
        if body not in keep and world.disc_cell(body) is None:
            world.remove_disc(body)


def _upset(world: World, rng: np.random.Generator, stats: CarryTrialStats) -> None:
    """A flick on the carried disc, a flick as the jaws open, or a jammed dispenser: 2 : 1 : 2."""
    kind = rng.random()
    if 0.4 <= kind < 0.6:
        angle = rng.uniform(0, 2 * math.pi)
        force = rng.uniform(*RELEASE_FLICK_N)
        knock_on_release(world, (force * math.cos(angle), force * math.sin(angle), 0.0))
        stats.upsets["flick at release"] += 1
    elif kind < 0.4:
        angle = rng.uniform(0, 2 * math.pi)
        force = rng.uniform(*FLICK_FORCE_N)
        knock_in_carry(
            world, float(rng.uniform(*FLICK_AFTER_S)), (force * math.cos(angle), 0.0, force * math.sin(angle))
        )
        stats.upsets["flick"] += 1
    else:
        jam_dispenser(world)
        stats.upsets["jam"] += 1


def _turn(world: World, arm: SimArm, planner, column: int, stats: CarryTrialStats) -> str:
    """One robot turn with the game's recovery; what came of it, in words ("" when the disc is where it should be)."""
    before = world.board_state()
    for attempt in range(1, DROP_ATTEMPTS + 1):
        released = True
        try:
            stats.picks_missed += play_column(arm, planner, column).picks_missed
            lost = "released, but no new disc is on the board"
        except PickMissedError as error:
            stats.picks_missed += PICK_ATTEMPTS
            stats.named_errors.append(f"column {column + 1}: {error}")
            return "named"
        except DiscLostError as error:
            stats.lost_in_transit += 1
            released, lost = False, str(error)
        world.wait_until_settled(SETTLE_S)
        new = _new_discs(world, before)
        if new:
            stats.lost_fell_in_board += not released
            break
        stats.lost_after_release += released
        if attempt == DROP_ATTEMPTS:  # the game's camera sees no new disc: it says so and stops for the person
            stats.named_errors.append(f"column {column + 1}: {lost} ({DROP_ATTEMPTS} discs in a row)")
            return "named"
        stats.fetched_again += 1
        _tidy(world)
    if new == [(int(np.count_nonzero(before[:, column])), column)]:
        stats.landed_right += 1
        return "right"
    if len(new) == 1:
        stats.landed_elsewhere += 1  # the game reads the board and says where the disc went
        return "elsewhere"
    stats.unreported.append(f"column {column + 1}: {len(new)} new discs on the board {new}, none reported")
    return "unreported"


def run_carry_trials(
    n: int,
    seed: int,
    upset_fraction: float = 0.0,
    config: ArmConfig = ArmConfig(),
    arm: str = "c4arm",
    zero_error_deg: float = 0.0,
) -> CarryTrialStats:
    """Play `n` robot turns into random open columns of a fresh world; `upset_fraction` of them upset. With
    `zero_error_deg` each turn is played as on a table whose servo zeros are off by up to that much (each
    joint's error drawn afresh per turn: the spread of calibrations the carry must survive)."""
    from sim.config import ArmMount, WorldConfig

    if n < 0 or not 0.0 <= upset_fraction <= 1.0:
        raise ValueError(f"{n} turns with {upset_fraction} of them upset: give turns >= 0 and a fraction 0..1")
    if not 0.0 <= zero_error_deg <= 10.0:
        raise ValueError(f"servo zero error {zero_error_deg} degrees: use 0..10")
    rng = np.random.default_rng(seed)
    stats = CarryTrialStats()
    started_s = time.perf_counter()
    with World(WorldConfig(arm=ArmMount.named(arm)), seed=seed) as world:
        planner = sim_planner(world, config)
        sim_arm = SimArm(world)
        world.set_arm_joints(planner.home_q)
        for _ in range(n):
            board = world.board_state()
            open_columns = [c for c in range(board.shape[1]) if board[-1, c] == 0]
            if not open_columns:
                world.clear_board()
                open_columns = list(range(board.shape[1]))
            if zero_error_deg:
                limit = math.radians(zero_error_deg)
                sim_arm.miscalibrate(rng.uniform(-limit, limit, sim_arm.dof))
            if rng.random() < upset_fraction:
                _upset(world, rng, stats)
            _turn(world, sim_arm, planner, int(rng.choice(open_columns)), stats)
            # a flick that found no disc to flick is forgotten with its turn
            world.actors[:] = [a for a in world.actors if not isinstance(a, KnockInCarry | KnockOnRelease)]
            _tidy(world)
            stats.turns += 1
        stats.sim_s = world.time_s
    stats.wall_s = time.perf_counter() - started_s
    return stats
