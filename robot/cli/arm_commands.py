"""`c4robot bench arm` (the arm's turn time per column, its IK error and drops landed, in the sim) and
`c4robot bench serial` (every serial protocol against misbehaving fake devices: commands lost or doubled)."""

from __future__ import annotations

import argparse
import math
import time

from robot.cli.common import COMMON, bounded_int, finite_float


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `bench arm columns|drops` and `bench serial`."""
    bench = bench_targets.add_parser("arm", parents=[COMMON], help="the simulated arm: turn times, IK error, drops")
    modes = bench.add_subparsers(dest="mode", required=True, metavar="MODE")
    columns = modes.add_parser(
        "columns",
        parents=[COMMON],
        help="turn time, IK error and discs landed per column (simulated time)",
        description="Plays robot turns in the simulated world at the given motion limits and prints, per column, "
        "the turn time (leaving home to the end of the retreat), the way home, the IK error and how many discs "
        "landed in the right cell.",
    )
    columns.add_argument("--columns", default=None, help="1-based columns, e.g. 1,4,7 (default: all)")
    columns.add_argument(
        "--turns", type=bounded_int(1, 100), default=6, help="robot turns per column (6 fills a column; default 6)"
    )
    columns.add_argument(
        "--free-drops",
        type=bounded_int(0, 10_000),
        default=0,
        metavar="N",
        help="also drop N free discs over the columns (no arm) and print where they landed",
    )
    drops = modes.add_parser(
        "drops",
        parents=[COMMON],
        help="robot turns into random columns with the physical carry: picks missed, discs lost, landed, unreported",
        description="Plays robot turns into random columns with the physical carry (the jaws pinch by contact and "
        "friction), upsets some on purpose if asked, and counts picks missed, discs lost in transit, discs landed "
        "and misses nobody was told of (exit status 1 if any).",
    )
    drops.add_argument("--turns", type=bounded_int(1, 10_000), default=20, help="robot turns (default 20)")
    drops.add_argument(
        "--upsets",
        type=finite_float(0, 1),
        default=0.0,
        metavar="F",
        help="this fraction of the turns is upset (a flick on the carried disc on the way or as the jaws open, a "
        "jammed dispenser)",
    )
    drops.add_argument(
        "--servo-error-deg",
        type=finite_float(0, 10),
        default=0.0,
        metavar="D",
        help="each turn as on a table whose servo zeros are off by up to D degrees per joint (drawn per turn; the "
        "planner does not know)",
    )
    for mode, run in ((columns, run_bench), (drops, run_bench_drops)):
        mode.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0)
        mode.add_argument(
            "--velocity-deg-s", type=finite_float(1, 1000), default=90.0, help="joint speed limit (default 90)"
        )
        mode.add_argument(
            "--acceleration-deg-s2",
            type=finite_float(1, 10_000),
            default=300.0,
            help="joint acceleration limit (default 300)",
        )
        mode.add_argument("--profile", choices=("trapezoid", "quintic"), default="trapezoid")
        mode.set_defaults(run=run)

    serial = bench_targets.add_parser(
        "serial",
        parents=[COMMON],
        help="serial drivers against misbehaving fake devices: commands lost, doubled, named errors",
        description="Runs a whole pick-and-drop on every protocol's driver against fake devices on a "
        "pseudo-terminal, each fault injected at several points, and prints per protocol and fault: trials, "
        "finished, named errors, commands lost, commands doubled, and trials whose outcome was not the one "
        "the fault calls for (or no STOP ran after an error).",
    )
    serial.add_argument(
        "--points", type=bounded_int(1, 100), default=3, help="fault points per pick-and-drop (default 3)"
    )
    serial.add_argument(
        "--protocols", default=None, help="comma-separated subset of joint,uarm,grbl,feetech (default all)"
    )
    serial.add_argument("--faults", default=None, help="comma-separated subset of the faults (default all)")
    serial.add_argument(
        "--late-s", type=finite_float(0.01, 60), default=3.0, help="how late the late reply is (default 3 s)"
    )
    serial.add_argument(
        "--reply-timeout-s", type=finite_float(0.01, 60), default=1.0, help="the drivers' reply timeout (default 1 s)"
    )
    serial.set_defaults(run=run_bench_serial)


def _parse_columns(text: str | None, count: int) -> list[int]:
    if text is None:
        return list(range(count))
    if not text.strip():
        raise ValueError("--columns is empty: give 1-based column numbers separated by commas, e.g. 1,4,7")
    try:
        columns = [int(part) - 1 for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--columns {text!r}: give 1-based column numbers separated by commas, e.g. 1,4,7") from None
    bad = [c + 1 for c in columns if not 0 <= c < count]
    if bad:
        raise ValueError(f"--columns {text!r}: columns {bad} are not on the board (1..{count})")
    return columns


def workspace_ik_error_m(planner: object) -> tuple[float, int]:
    """Largest IK position error over poses around every drop pose (±1 cm across, up to 8 cm above)."""
    import numpy as np

    from robot.arm.planner import ToolPose

    worst, poses = 0.0, 0
    for drop in planner.workcell.drops:
        x, y, z = drop.position_m
        for height in (0.0, 0.02, 0.04, 0.06, 0.08):
            for across in (-0.01, 0.0, 0.01):
                pose = ToolPose((x + across, y, z + height), drop.yaw_rad)
                q, _ = planner.solve(pose, planner.home_q)
                reached = planner.chain.forward(q)[:3, 3]
                worst = max(worst, float(np.linalg.norm(reached - np.array(pose.position_m))))
                poses += 1
    return worst, poses


def run_bench(args: argparse.Namespace) -> int:
    from robot.arm.drivers.sim import SimArm, sim_planner
    from robot.arm.planner import play_column
    from sim import World

    config = _motion_limits(args)
    wall_start_s = time.perf_counter()
    with World(seed=args.seed) as world:
        geometry = world.config.board
        columns = _parse_columns(args.columns, geometry.columns)
        turns = min(args.turns, geometry.rows)
        planner = sim_planner(world, config)
        arm = SimArm(world)
        world.set_arm_joints(planner.home_q)
        player = world.dispenser_player
        print(
            f"arm {world.arm_urdf_path.name}: {args.velocity_deg_s:g} deg/s, {args.acceleration_deg_s2:g} deg/s^2 per "
            f"joint, {args.profile}; {turns} turns per column; times are simulated seconds"
        )
        print(f"{'column':>6} {'turn_s':>7} {'max_turn_s':>10} {'home_s':>7} {'ik_err_mm':>9} {'landed':>7}")
        all_turns, landed_total, planned_total = [], 0, 0
        for column in columns:
            results, landed = [], 0
            for row in range(turns):
                result = play_column(arm, planner, column)
                world.wait_until_settled(5.0)
                results.append(result)
                landed += int(world.board_state()[row, column] == player)
            world.clear_board()
            turn_times = [r.arm_s for r in results]
            all_turns += turn_times
            landed_total += landed
            planned_total += turns
            print(
                f"{column + 1:>6} {sum(turn_times) / len(turn_times):>7.2f} {max(turn_times):>10.2f} "
                f"{sum(r.home_s for r in results) / len(results):>7.2f} "
                f"{max(r.ik_error_m for r in results) * 1000:>9.4f} {landed:>4}/{turns}"
            )
        worst_m, poses = workspace_ik_error_m(planner)
        print(
            f"{'all':>6} {sum(all_turns) / len(all_turns):>7.2f} {max(all_turns):>10.2f} {'':>7} "
            f"{worst_m * 1000:>9.4f} {landed_total:>4}/{planned_total}"
        )
        print(
            f"IK error over the board workspace: {worst_m * 1000:.4f} mm max over {poses} poses; "
            f"wall {time.perf_counter() - wall_start_s:.1f} s"
        )
    if args.free_drops:
        from sim.drops import run_drop_trials

        stats = run_drop_trials(args.free_drops, args.seed)
        print(
            f"free drops: {stats.landed_right}/{stats.drops} in the right cell, {stats.wrong_cell} wrong cell, "
            f"{stats.stuck} stuck, {stats.out} out; {stats.drops_per_s:.1f} drops/s, "
            f"sim {stats.realtime_factor:.1f}x real time"
        )
    return 0 if landed_total == planned_total else 1


def _motion_limits(args: argparse.Namespace):
    from robot.arm import ArmConfig

    return ArmConfig(
        velocity_rad_s=math.radians(args.velocity_deg_s),
        acceleration_rad_s2=math.radians(args.acceleration_deg_s2),
        profile=args.profile,
    )


def run_bench_drops(args: argparse.Namespace) -> int:
    """Robot turns with the physical carry, upset as asked; exit status 1 if a miss went unreported."""
    import logging

    from robot.arm.planner import PICK_ATTEMPTS
    from robot.game.carry_trials import run_carry_trials
    from robot.game.loop import DROP_ATTEMPTS

    # Each missed pick and rolling disc is a warning in a game; here the table counts them (-v shows them too).
    quieted = [logging.getLogger(name) for name in ("robot.arm.planner", "sim.world")]
    if not vars(args).get("verbose", 0):
        for logger in quieted:
            logger.setLevel(logging.ERROR)
    try:
        stats = run_carry_trials(
            args.turns, args.seed, args.upsets, _motion_limits(args), zero_error_deg=args.servo_error_deg
        )
    finally:
        for logger in quieted:
            logger.setLevel(logging.NOTSET)
    upsets = ", ".join(f"{count} {name}" for name, count in stats.upsets.items())
    print(
        f"carried drops: {stats.turns} robot turns into random columns, {args.upsets:.0%} upset ({upsets})"
        + (f", servo zeros off by up to {args.servo_error_deg:g} deg" if args.servo_error_deg else "")
        + "; "
        f"{stats.turns_per_s:.1f} turns/s"
    )
    print(
        f"  picks missed: {stats.picks_missed} (picked again; {PICK_ATTEMPTS} in a row end the turn with a named error)"
    )
    print(
        f"  discs lost in transit: {stats.lost_in_transit} ({stats.lost_fell_in_board} fell into the board); lost as "
        f"the jaws opened: {stats.lost_after_release} (the gripper felt nothing; the camera sees no new disc)"
    )
    print(
        f"  discs fetched again: {stats.fetched_again} (lost either way and not on the board; "
        f"{DROP_ATTEMPTS} lost in a row end the turn with a named error)"
    )
    print(
        f"  discs landed: {stats.landed_right}/{stats.turns} in the chosen column, {stats.landed_elsewhere} in another "
        f"(said), {len(stats.named_errors)} turns ended in a named error, {len(stats.unreported)} misses unreported"
    )
    for problem in stats.named_errors + stats.unreported:
        print(f"    {problem}")
    return 1 if stats.unreported else 0


def _subset(text: str | None, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    """The names listed in `text` (all of `known` when the option was not given); an empty list is refused."""
    if text is None:
        return known
    chosen = tuple(part.strip() for part in text.split(",") if part.strip())
    if not chosen:
        raise ValueError(f"the list of {what} is empty: name at least one of {', '.join(known)}, or leave it out")
    unknown = [name for name in chosen if name not in known]
    if unknown:
        raise ValueError(f"unknown {what} {unknown}: choose from {', '.join(known)}")
    return chosen


def run_bench_serial(args: argparse.Namespace) -> int:
    """The fault table; exit status 1 when any trial lost or doubled a command or ended unexpectedly."""
    from robot.cli.serial_faults import FAULT_NAMES, PROTOCOLS, Timing, faults_of, run_trials

    if args.points < 1 or args.late_s <= 0 or args.reply_timeout_s <= 0:
        raise ValueError("--points must be at least 1, --late-s and --reply-timeout-s positive")
    protocols = _subset(args.protocols, PROTOCOLS, "protocols")
    faults = _subset(args.faults, FAULT_NAMES, "faults")
    timing = Timing(reply_timeout_s=args.reply_timeout_s, late_s=args.late_s)
    started_s = time.perf_counter()
    trials = run_trials(protocols, faults, args.points, timing)
    print(
        f"pick-and-drop against fake devices on a pty; late reply {args.late_s:g} s, reply timeout "
        f"{args.reply_timeout_s:g} s, port back after {timing.back_s:g} s"
    )
    header = f"{'protocol':<8} {'fault':<14} {'trials':>6} {'finished':>8} {'named':>5} {'lost':>4} {'doubled':>7} {'wrong':>5}"
    print(header)
    failures = 0
    for protocol in protocols:
        for fault in faults_of(protocol, faults):
            rows = [t for t in trials if t.protocol == protocol and t.fault == fault]
            wrong = sum(not t.as_expected or t.stop_missed or t.outcome == "other" for t in rows)
            lost, doubled = sum(t.lost for t in rows), sum(t.doubled for t in rows)
            failures += wrong + lost + doubled
            print(
                f"{protocol:<8} {fault:<14} {len(rows):>6} {sum(t.outcome == 'finished' for t in rows):>8} "
                f"{sum(t.outcome == 'named' for t in rows):>5} {lost:>4} {doubled:>7} {wrong:>5}"
            )
    for trial in trials:
        if not trial.as_expected or trial.stop_missed or trial.lost or trial.doubled or trial.outcome == "other":
            print(f"  {trial.protocol} {trial.fault} at command {trial.at}: {trial.outcome} {trial.error}")
    print(f"{len(trials)} trials, wall {time.perf_counter() - started_s:.1f} s")
    return 1 if failures else 0
