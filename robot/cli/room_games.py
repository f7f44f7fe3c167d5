"""`c4robot bench game rooms`: whole simulated games, each in its own seeded room (light, webcam pose, backdrop; in
`--room makes` also the board's and discs' make and light that drifts, `sim.makes`), reporting games finished, board agreement after every move, false events and robot turns per game
(`robot.game.room_trials` plays and judges them).

Every failure is printed with its room, what was said (with what the hand really hid) and the first disagreement;
`--frames DIR` also saves the camera's frame of each, for whoever fixes the reader.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from robot.game.room_trials import RoomGame, room_settings


def run_bench_rooms(games_count: int, seed: int, room: str, opponent: str, frames: Path | None, view=None) -> int:
    """Play the games, print the table and every failure; exit status 1 unless every game finished in agreement
    with no false event. `view` (a LiveView) is shown every game. The robot moves first on odd seeds, so a game
    replays alike whatever seed the run starts from."""
    from robot.game.room_trials import EventJudge

    games = []
    with tempfile.TemporaryDirectory() as folder:
        for index in range(games_count):
            game = RoomGame(seed + index, robot_first=(seed + index) % 2 == 1, room=room, judge=EventJudge(view))
            game.play(opponent, room_settings(), Path(folder) / f"game{index}.json")
            if frames is not None and game.problems:
                game.save_frames(frames)
            games.append(game)
            print(_progress(index + 1, games_count, game), flush=True)
    print()
    print(
        f"{'game':>4} {'seed':>5} {'robot':>6} {'result':>8} {'moves':>5} {'agree':>5} {'false':>5} {'hand':>4} "
        f"{'light':>5} {'wall s':>6}"
    )
    for index, game in enumerate(games, 1):
        notices, false, light = len(game.judge.notices), len(game.judge.false_events), len(game.judge.light_events)
        print(
            f"{index:>4} {game.seed:>5} {'first' if game.robot_first else 'second':>6} {game.result:>8} "
            f"{len(game.summary.get('moves', '')):>5} {'yes' if game.agrees else 'no':>5} {false:>5} "
            f"{notices - false - light:>4} {light:>5} {game.wall_s:>6.0f}"
        )
    turns = [len(game.summary["turns"]) for game in games if game.summary]
    finished = sum(game.finished for game in games)
    agreeing = sum(game.agrees for game in games)
    false_events = sum(len(game.judge.false_events) for game in games)
    light_events = sum(len(game.judge.light_events) for game in games)
    hand_events = sum(len(game.judge.notices) - len(game.judge.false_events) for game in games) - light_events
    print()
    print(f"games finished: {finished}/{len(games)}")
    print(f"board agreement after every move: {agreeing}/{len(games)} games")
    print(f"false events (no one misbehaved; not a hand really in front of the columns named): {false_events}")
    print(f"hand events (something covers columns the person's hand really hid then): {hand_events}")
    if any(game.judge.drift is not None for game in games):
        print(f"light events (the light changed, said when the webcam's light had drifted): {light_events}")
    wall = [game.wall_s for game in games]
    print(f"wall time: {sum(wall):.0f} s (median {statistics.median(wall):.0f} s a game)")
    if turns:
        print(f"robot turns per game: median {statistics.median(turns):g} (min {min(turns)}, max {max(turns)})")
    for index, game in enumerate(games, 1):
        if game.problems:
            print(f"\ngame {index} (seed {game.seed}, {room} room: {_room_and_hand(room, game.seed)}):")
            for problem in game.problems:
                print("  " + problem.replace("\n", "\n  "))
            for frame in game.frames:
                print(f"  frame: {frame}")
    return 0 if finished == agreeing == len(games) and not false_events else 1


def _progress(done: int, total: int, game: RoomGame) -> str:
    """One line per game as it ends, with an estimate of the time left."""
    left_s = game.wall_s * (total - done)  # the last game's length: rooms differ little in cost
    return (
        f"game {done}/{total}: seed {game.seed}, {game.result}, {len(game.summary.get('moves', ''))} moves, "
        f"{len(game.judge.false_events)} false events, {game.wall_s:.0f} s (about {left_s / 60:.0f} min left)"
    )


def _room_and_hand(kind: str, seed: int) -> str:
    """The room of a seed and the person's hand in it, in one line."""
    from sim.person import Habits
    from sim.room import room_for

    habits = Habits.for_room(kind, seed)
    return f"{room_for(kind, seed).describe()}; hand: {habits.look.describe()}, linger chance {habits.linger_chance:g}"
