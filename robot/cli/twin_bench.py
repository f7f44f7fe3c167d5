"""`bench game twin`: whole games through the real path against digital twins, each table calibrated through the
commands first (robot.cli.twin_calibration) or played on the twin's own file; the twin says after every move whether
the game's log is its truth.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from robot.cli.twin_process import TwinProcess, play_at_terminal

COVERED_WORDS = ("in front of", "cover", "hand")  # an event about something before the board (the hand may linger)


@dataclass
class TwinGame:
    """One bench game: what the game logged, what the twin saw, and the verdicts."""

    seed: int
    robot_first: bool
    summary: dict = field(default_factory=dict)
    twin_moves: str = ""
    agreements: list[bool] = field(default_factory=list)
    failure: str | None = None
    wall_s: float = 0.0
    calibration_s: float | None = None  # None: played on the twin's truth setup

    @property
    def finished(self) -> bool:
        return bool(self.summary.get("winner"))

    @property
    def agrees(self) -> bool:
        """The game's moves were the twin's after every move it saved, and at the end."""
        return bool(self.agreements) and all(self.agreements) and self.summary.get("moves") == self.twin_moves

    @property
    def false_events(self) -> list[str]:
        """Events said when no one misbehaved (the twin's person never does), but for a hand that lingers."""
        said = [e["message"] if isinstance(e, dict) else str(e) for e in self.summary.get("events", [])]
        return [e for e in said if not any(w in e.lower() for w in COVERED_WORDS)]


def play_twin_game(
    protocol: str,
    room: str,
    seed: int,
    robot_first: bool,
    opponent: str,
    time_ms: float,
    folder: Path,
    calibrate: bool = True,
) -> TwinGame:
    """One whole game through the real path against a fresh twin: the table calibrated through the real commands
    first (`calibrate`), else played on the twin's truth setup."""
    from robot.cli.twin_calibration import calibrate_table
    from robot.game.log import GameLog

    game = TwinGame(seed, robot_first)
    log_path = folder / f"game-{seed}.json"
    serve = ["--protocol", protocol, "--room", room, "--seed", str(seed), "--opponent", opponent]
    serve += ["--game-log", str(log_path), "--folder", str(folder)] + (["--robot-first"] if robot_first else [])
    started = time.monotonic()
    try:
        with TwinProcess(serve, folder) as twin:
            info = twin.info
            setup = info["truth_setup"]
            if calibrate:
                setup = calibrate_table(twin, folder / f"setup-{seed}.toml")
                game.calibration_s = time.monotonic() - started
            play = ["--serial", info["port"], "--camera", info["camera"], "--config", str(setup)]
            play += ["--log", str(log_path), "--time-ms", str(time_ms), "--seed", str(seed)]
            terminal = play_at_terminal(play + (["--robot-first"] if robot_first else []))
            time.sleep(1.0)  # the twin's last look at the game's log
            game.twin_moves = "".join(str(line["column"]) for line in twin.moves)
            game.agreements = twin.agreements
        if log_path.exists():
            game.summary = GameLog.load(log_path).summary()
        if terminal.status != 0:
            lines = [line for line in terminal.transcript.splitlines() if line.startswith("c4robot:")]
            game.failure = lines[-1] if lines else f"play ended with status {terminal.status}"
    except (OSError, RuntimeError, ValueError) as error:  # a calibration step too (CalibrationStepError)
        game.failure = str(error)
    game.wall_s = time.monotonic() - started
    return game


def run_twin_bench(args: argparse.Namespace) -> int:
    """Play the games, print the table (or the JSON summary); exit status 1 unless all finished in agreement."""
    from robot.game.twin import TwinOptions

    TwinOptions(protocol=args.protocol, room=args.room, opponent=args.opponent)  # a bad one in one sentence
    games = []
    with tempfile.TemporaryDirectory(prefix="c4twin-bench-") as folder:
        for index in range(args.games):
            game = play_twin_game(
                args.protocol,
                args.room,
                args.seed + index,
                index % 2 == 0,
                args.opponent,
                args.time_ms,
                Path(folder),
                calibrate=not args.truth_setup,
            )
            games.append(game)
            if not args.json:
                _print_game(index + 1, game)
    turns = [turn for game in games for turn in game.summary.get("turns", [])]
    result = {
        "games": len(games),
        "finished": sum(game.finished for game in games),
        "agreement": sum(game.agrees for game in games),
        "false_events": sum(len(game.false_events) for game in games),
        "robot_turns": len(turns),
        "median_arm_s": round(statistics.median(t["arm_s"] for t in turns), 2) if turns else None,
        "median_vision_s": round(statistics.median(t["vision_s"] for t in turns), 3) if turns else None,
        "calibrated": not args.truth_setup,
        "median_calibration_s": _median([game.calibration_s for game in games if game.calibration_s is not None]),
        "failures": [game.failure for game in games if game.failure],
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(
            f"\n{args.protocol} protocol, {args.room} room: {result['finished']}/{len(games)} finished, "
            f"{result['agreement']}/{len(games)} in agreement, {result['false_events']} false events; "
            f"median robot turn: arm {result['median_arm_s']} s, vision {result['median_vision_s']} s; "
            + (
                f"calibrated through the commands, median {result['median_calibration_s']} s"
                if result["calibrated"]
                else "played on the twin's truth setup"
            )
        )
    return 0 if result["finished"] == result["agreement"] == len(games) and not result["false_events"] else 1


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _print_game(number: int, game: TwinGame) -> None:
    first = "first" if game.robot_first else "second"
    winner = game.summary.get("winner") or "-"
    print(
        f"game {number} (seed {game.seed}, robot {first}): {winner}, {len(game.summary.get('moves', ''))} moves, "
        f"agree {'yes' if game.agrees else 'no'}, false events {len(game.false_events)}, {game.wall_s:.0f} s"
        + ("" if game.calibration_s is None else f" ({game.calibration_s:.0f} s calibrating)")
        + (f"; {game.failure}" if game.failure else ""),
        flush=True,
    )
