"""Whole games in the simulated world: the summary, the board agreement, and what people really do."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from robot.cli import main
from robot.cli.game_commands import play_sim_game
from robot.game.log import GameLog


def _args(**overrides) -> argparse.Namespace:
    values = {
        "seed": 3,
        "gui": False,
        "opponent": "random",
        "robot_first": False,
        "level": 10,
        "time_ms": 300,
        "record": None,
        "config": None,
        "resume": False,
    }
    values.update(overrides)
    return argparse.Namespace(**values)


def test_play_sim_prints_a_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["play", "--sim", "--seed", "3", "--time-ms", "300", "--json", "--log", str(tmp_path / "log.json")])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0
    assert summary["winner"] in ("robot", "opponent", "draw")
    assert summary["board_agreement"] is True
    assert summary["turns"], "the robot made no move"
    for turn in summary["turns"]:
        assert turn["landed"] == turn["column"]
        assert set(turn) == {"column", "landed", "vision_s", "engine_s", "arm_s"}
    moves = summary["moves"]
    robot_columns = [int(c) for c in moves[0 if summary["robot_first"] else 1 :: 2]]
    assert robot_columns == [turn["column"] for turn in summary["turns"]]
    assert GameLog.load(tmp_path / "log.json").move_string == moves


def test_robot_first_against_an_engine_person_wins_or_draws(tmp_path: Path) -> None:
    summary = play_sim_game(_args(robot_first=True, opponent="engine:3", seed=5), lambda m: None, tmp_path / "g.json")
    assert summary["winner"] in ("robot", "draw")
    assert summary["board_agreement"] is True


@pytest.mark.parametrize("trick", ["two_discs", "wrong_colour", "take_back", "again_in_robot_turn"])
def test_what_people_do_is_told_and_the_game_goes_on(tmp_path: Path, trick: str) -> None:
    told: list[str] = []
    summary = play_sim_game(_args(seed=4), told.append, tmp_path / "g.json", mischief={1: trick})
    assert summary["events"], f"{trick} went unnoticed"
    assert summary["board_agreement"] is True
    assert summary["winner"] in ("robot", "opponent", "draw"), f"the game did not finish: {told}"
    assert any(event in told for event in summary["events"])


def test_resume_continues_the_logged_game(tmp_path: Path) -> None:
    log_path = tmp_path / "g.json"
    first = play_sim_game(_args(seed=6), lambda m: None, log_path)
    partial = GameLog.load(log_path)
    partial.moves = partial.moves[:3]
    partial.turns = partial.turns[:1]
    partial.winner = None
    partial.save(log_path)
    resumed = play_sim_game(_args(seed=6, resume=True), lambda m: None, log_path)
    assert resumed["moves"].startswith(first["moves"][:3])
    assert resumed["winner"] in ("robot", "opponent", "draw")


def test_play_needs_a_place_to_play(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play"]) == 2
    assert "--sim" in capsys.readouterr().err


def test_resume_without_a_log_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--sim", "--resume", "--log", str(tmp_path / "none.json")]) == 1
    err = capsys.readouterr().err
    assert "no game log" in err and "Traceback" not in err


def test_damaged_log_is_refused_and_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log_path = tmp_path / "g.json"
    log_path.write_text("{not json")
    assert main(["play", "--sim", "--resume", "--log", str(log_path)]) == 2
    assert "damaged" in capsys.readouterr().err
    assert log_path.read_text() == "{not json"


class _BlockedForAWhile:
    """A camera with a hand in front of it for the first `blocked_reads` frames (a grey frame)."""

    def __init__(self, camera, blocked_reads: int) -> None:
        self.camera = camera
        self.blocked_reads = blocked_reads

    def read(self):
        frame = self.camera.read()
        if self.blocked_reads > 0:
            self.blocked_reads -= 1
            frame[:] = 128
        return frame

    def close(self) -> None:
        self.camera.close()


def _sim_game(tmp_path: Path, told: list[str], **settings):
    from robot.game.loop import GameSettings
    from robot.game.sim_table import SimGame

    game_setup = SimGame(seed=4, gui=False, opponent="random", robot_first=False, tell=told.append)
    game = game_setup.game(GameSettings(time_budget_s=0.2, **settings), tmp_path / "g.json", None)
    return game_setup, game


def test_a_blocked_camera_is_told_and_the_game_waits(tmp_path: Path) -> None:
    told: list[str] = []
    # Blocked for longer than a look waits on a fast machine, and a look long enough for three frames on a
    # loaded one (the watcher's timeout is wall-clock time).
    game_setup, game = _sim_game(tmp_path, told, look_timeout_s=2.0)
    with game_setup:
        game.watcher.camera = _BlockedForAWhile(game.watcher.camera, blocked_reads=60)
        summary = game.play().summary()
    assert any("cannot see the board" in message for message in told)
    assert summary["winner"] in ("robot", "opponent", "draw")
    assert summary["board_agreement"] is True


def test_a_robot_disc_in_the_wrong_column_is_reported_and_the_game_follows_the_board(tmp_path: Path) -> None:
    told: list[str] = []
    game_setup, game = _sim_game(tmp_path, told)
    with game_setup:
        table = game_setup.table
        world = table.world
        missed = []

        def off_by_one(column: int) -> float:
            """A badly calibrated drop pose: the first robot disc falls into the next column."""
            if not missed:
                target = column + 1 if column + 1 < 7 and world.board_state()[5, column + 1] == 0 else column - 1
                missed.append(target)
                world.drop_disc(target, table.world_player(game.robot_player))
                world.wait_until_settled()
                return 0.0
            return type(table).robot_drop(table, column)

        table.robot_drop = off_by_one
        summary = game.play().summary()
    first = summary["turns"][0]
    assert first["landed"] == missed[0] + 1 != first["column"]
    assert any("instead of" in event for event in summary["events"])
    assert summary["board_agreement"] is True
    assert summary["winner"] in ("robot", "opponent", "draw")


def test_a_jammed_robot_disc_stops_the_game_with_a_clear_error(tmp_path: Path) -> None:
    told: list[str] = []
    game_setup, game = _sim_game(tmp_path, told)
    with game_setup:
        game_setup.table.robot_drop = lambda column: 0.0  # the disc never left the gripper
        with pytest.raises(RuntimeError, match="did not show up"):
            game.play()
    saved = GameLog.load(tmp_path / "g.json")
    assert len(saved.moves) == 1  # the person's first move is saved: `--resume` continues from there


def test_record_saves_each_move_and_a_video(tmp_path: Path) -> None:
    summary = play_sim_game(_args(seed=2, record=tmp_path / "rec"), lambda m: None, tmp_path / "g.json")
    pictures = sorted((tmp_path / "rec").glob("move_*.png"))
    assert len(pictures) == len(summary["moves"])
    assert (tmp_path / "rec" / "game.mp4").stat().st_size > 0


def test_bench_rooms_reads_the_columns_a_sentence_names() -> None:
    from robot.cli.room_games import named_columns

    assert named_columns("Something covers column 3 of the board: I am waiting") == {2}
    assert named_columns("Something covers columns 1-4, 6-7 of the board: I am waiting") == {0, 1, 2, 3, 5, 6}
    assert named_columns("No new disc yet.") == frozenset()


def test_bench_rooms_judges_a_cover_by_what_the_hand_really_hid() -> None:
    """Said while the hand lingers over columns 3-5: "covers columns 3-5" is true, "covers columns 1-5" is not
    (column 1 is in view), nor is any other sentence; said after the hand withdrew, no cover is true."""
    import numpy as np

    from robot.cli.room_games import _FrameKeeper
    from sim import World
    from sim.person import Habits, Linger, Person

    true_cover = "Something covers columns 3-5 of the board: I am waiting until I can see it."
    wide_cover = "Something covers columns 1-5 of the board: I am waiting until I can see it."
    other = "I see 2 new discs (columns 3, 4): please play one disc per turn."
    keeper = _FrameKeeper(view=None)
    with World(seed=2) as world:
        keeper.person = Person(world, Habits.for_room("varied", 2), np.random.default_rng(2))
        visit = keeper.person.drop(5, 1, Linger(columns=(2, 4), seconds=2.0))
        world.step(sum(visit.lingers_s) / 2 - (world.time_s - visit.started_s))
        for message in (true_cover, wide_cover, other):
            keeper.mark(message)
        keeper.person.finish()
        keeper.mark(true_cover)
    false = keeper.false_events([true_cover, wide_cover, other, true_cover])
    assert [event.split(" [")[0] for event in false] == [wide_cover, other, true_cover]
    hid = false[0].split("the hand hid holes in columns: ")[1].rstrip("]").split(", ")
    assert {"3", "4", "5"} <= set(hid) and "1" not in hid  # the forearm may cross more columns, never column 1
    assert false[-1].endswith("the hand hid holes in columns: none]")


def test_bench_rooms_counts_the_whole_board_covered_true_only_when_the_hand_hid_every_column() -> None:
    import numpy as np

    from robot.cli.room_games import _FrameKeeper
    from sim import World
    from sim.person import Habits, Linger, Person
    from vision.reading import COVERED_BOARD

    whole = f"I cannot see the board ({COVERED_BOARD}): please keep it in the camera's view, uncovered."
    keeper = _FrameKeeper(view=None)
    with World(seed=2) as world:
        keeper.person = Person(world, Habits.for_room("varied", 2), np.random.default_rng(2))
        for columns in ((2, 4), (0, 6)):
            visit = keeper.person.drop(3, 1, Linger(columns=columns, seconds=2.0))
            world.step(sum(visit.lingers_s) / 2 - (world.time_s - visit.started_s))
            keeper.mark(whole)
            keeper.person.finish()
    assert [said.hidden_columns for said in keeper.said][1] == frozenset(range(7))
    false = keeper.false_events([whole, whole])
    assert len(false) == 1 and "1" not in false[0].split("the hand hid holes in columns: ")[1]
