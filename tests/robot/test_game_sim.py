"""Whole games in the simulated world: the summary, the board agreement, and what people really do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robot.cli import main
from robot.game.config import GameSettings, SimTableConfig
from robot.game.events import EventKind, GameEvent
from robot.game.log import GameLog
from robot.game.play import play_sim_game, sim_settings
from robot.game.sim_table import CAMERA_FRAME_S
from tests.late_games import PERSON_TO_MOVE_ROBOT_WINS_NEXT, late_log


def _play(tmp_path: Path, seed: int, robot_first: bool = False, tell=lambda m: None, previous=None, **table) -> dict:
    """A simulated game as `play --sim` plays it, at 300 ms a move."""
    settings = sim_settings(GameSettings(robot_first=robot_first, time_budget_s=0.3, seed=seed))
    mischief = table.pop("mischief", None)
    config = SimTableConfig(seed=seed, **table)
    return play_sim_game(config, settings, tell, tmp_path / "g.json", previous, mischief=mischief)


def test_play_sim_prints_a_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["play", "--sim", "--seed", "3", "--time-ms", "300", "--json", "--opponent", "random", "--robot-first"]
    status = main([*argv, "--log", str(tmp_path / "log.json")])
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


def test_an_engine_person_plays_its_turn_and_the_robot_finishes(tmp_path: Path) -> None:
    """The engine as the simulated person (engine:3) in the sim; the robot takes the win it was left."""
    summary = _play(tmp_path, 5, robot_first=True, opponent="engine:3", previous=late_log(robot_first=True))
    assert summary["winner"] == "robot" and len(summary["moves"]) == len(late_log(robot_first=True).moves) + 2
    assert summary["board_agreement"] is True


@pytest.mark.parametrize("trick", ["two_discs", "wrong_colour", "take_back", "again_in_robot_turn"])
def test_what_people_do_is_told_and_the_game_goes_on(tmp_path: Path, trick: str) -> None:
    told: list[str] = []
    summary = _play(tmp_path, 4, tell=told.append, previous=late_log(), mischief={0: trick})
    assert summary["events"], f"{trick} went unnoticed"
    assert summary["board_agreement"] is True
    assert summary["winner"] in ("robot", "opponent", "draw"), f"the game did not finish: {told}"
    assert any(event["message"] in told for event in summary["events"])
    # A second disc seen only with the robot's is named two discs, or counted as the person's reply, said so.
    expected = {
        "two_discs": {"two_discs", "early_reply"},
        "wrong_colour": {"wrong_colour"},
        "take_back": {"disc_removed"},
        "again_in_robot_turn": {"two_discs", "early_reply"},
    }
    assert expected[trick] & {event["kind"] for event in summary["events"]}


def test_resume_continues_the_logged_game(tmp_path: Path) -> None:
    log_path = tmp_path / "g.json"
    late_log(robot_first=True).save(log_path)
    resumed = _play(tmp_path, 6, previous=GameLog.load(log_path))
    assert resumed["moves"].startswith(PERSON_TO_MOVE_ROBOT_WINS_NEXT[True]) and resumed["robot_first"] is True
    assert resumed["winner"] == "robot" and len(resumed["moves"]) == len(PERSON_TO_MOVE_ROBOT_WINS_NEXT[True]) + 2
    assert GameLog.load(log_path).move_string == resumed["moves"]


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
    from robot.game.sim_table import SimGame

    game_setup = SimGame(SimTableConfig(seed=4), robot_first=False, tell=told.append)
    game = game_setup.game(GameSettings(time_budget_s=0.2, **settings), tmp_path / "g.json", late_log())
    return game_setup, game


def test_a_blocked_camera_is_told_and_the_game_waits(tmp_path: Path) -> None:
    told: list[str] = []
    # Blocked for longer than a look waits (20 frames of the world's time).
    game_setup, game = _sim_game(tmp_path, told, look_timeout_s=2.0)
    with game_setup:
        game.watcher.camera = _BlockedForAWhile(game.watcher.camera, blocked_reads=60)
        summary = game.play().summary()
    assert any("cannot see the board" in message for message in told)
    assert summary["winner"] in ("robot", "opponent", "draw")
    assert summary["board_agreement"] is True


def test_a_sim_game_waits_in_the_world_s_time(tmp_path: Path) -> None:
    """However slowly a loaded machine renders, a look waits as long in the world's time as the person acts in."""
    from robot.game.watcher import BoardUnseenError

    game_setup, game = _sim_game(tmp_path, [], look_timeout_s=1.0)
    with game_setup:
        game.watcher.camera = _BlockedForAWhile(game.watcher.camera, blocked_reads=1000)
        started = game_setup.world.time_s
        with pytest.raises(BoardUnseenError):
            game.watcher.look(1.0)
        waited = game_setup.world.time_s - started
    assert 1.0 <= waited <= 1.0 + 4 * CAMERA_FRAME_S  # the last frame, and two more to see whether the board moved


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
    assert [event["columns"] for event in summary["events"] if event["kind"] == "disc_elsewhere"] == [
        [missed[0] + 1, first["column"]]
    ]
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
    assert len(saved.moves) == len(late_log().moves) + 1  # the person's move is saved: `--resume` goes on from there


def test_record_saves_each_move_and_a_video(tmp_path: Path) -> None:
    summary = _play(tmp_path, 2, previous=late_log(robot_to_move=True), record=tmp_path / "rec")
    pictures = sorted((tmp_path / "rec").glob("move_*.png"))
    played = range(len(late_log(robot_to_move=True).moves) + 1, len(summary["moves"]) + 1)  # this session's
    assert [path.name for path in pictures] == [f"move_{number:02d}.png" for number in played]
    assert (tmp_path / "rec" / "game.mp4").stat().st_size > 0


def _judged(judge, *said: GameEvent) -> None:
    for each in said:
        judge.on_state({"event": each})


def test_bench_rooms_judges_a_cover_by_what_the_hand_really_hid() -> None:
    """Said while the hand lingers over columns 3-5: a cover of columns 3-5 is true, of columns 1-5 is not
    (column 1 is in view), nor is any other notice; said after the hand withdrew, no cover is true."""
    import numpy as np

    from robot.game.room_trials import EventJudge
    from sim import World
    from sim.person import Habits, Linger, Person

    true_cover = GameEvent(EventKind.COVERED, "covered", (2, 3, 4))
    wide_cover = GameEvent(EventKind.COVERED, "covered", (0, 1, 2, 3, 4))
    other = GameEvent(EventKind.TWO_DISCS, "two", (2, 3), ((0, 2), (0, 3)))
    routine = GameEvent(EventKind.PERSON_MOVED, "moved", (5,))
    judge = EventJudge()
    with World(seed=2) as world:
        judge.person = Person(world, Habits.for_room("varied", 2), np.random.default_rng(2))
        visit = judge.person.drop(5, 1, Linger(columns=(2, 4), seconds=2.0))
        world.step(sum(visit.lingers_s) / 2 - (world.time_s - visit.started_s))
        _judged(judge, true_cover, wide_cover, other, routine)
        judge.person.finish()
        _judged(judge, true_cover)
    false = judge.false_events
    assert [m.event for m in false] == [wide_cover, other, true_cover]
    assert {2, 3, 4} <= false[0].hidden_columns and 0 not in false[0].hidden_columns  # the forearm may cross more
    assert false[-1].hidden_columns == frozenset()
    assert len(judge.notices) == 4  # the routine move is not a notice


def test_bench_rooms_counts_the_whole_board_covered_true_only_when_the_hand_hid_every_column() -> None:
    import numpy as np

    from robot.game.room_trials import EventJudge
    from sim import World
    from sim.person import Habits, Linger, Person

    whole = GameEvent(EventKind.BOARD_COVERED, "covered", tuple(range(7)))
    judge = EventJudge()
    with World(seed=2) as world:
        judge.person = Person(world, Habits.for_room("varied", 2), np.random.default_rng(2))
        for columns in ((2, 4), (0, 6)):
            visit = judge.person.drop(3, 1, Linger(columns=columns, seconds=2.0))
            world.step(sum(visit.lingers_s) / 2 - (world.time_s - visit.started_s))
            _judged(judge, whole)
            judge.person.finish()
    assert judge.marked[1].hidden_columns == frozenset(range(7))
    assert len(judge.false_events) == 1 and 0 not in judge.false_events[0].hidden_columns
