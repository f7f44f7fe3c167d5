"""Every column's verdict from the books and one look ahead, worked out off the game's thread; `--hints`' line;
a replay that waits for its first viewer and obeys the page's play, pause and step; the sim's film in the view."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import urllib.request

import cv2
import numpy as np
import pybullet as p

from engine import Position
from robot.game.events import EventKind, GameEvent
from robot.game.log import GameLog
from robot.view import LiveView, ViewServer
from robot.view.replay import ReplayPlayer
from robot.view.verdicts import NOT_SEARCHED, HintTeller, hint_line, position_verdicts, verdicts_by_move

EXACT = r"win in \d+|loss in \d+|draw"


def test_the_books_give_every_column_s_verdict_early_in_either_player_s_turn() -> None:
    empty = position_verdicts([], 6, 7)  # the person's turn when the robot plays second
    assert all(re.fullmatch(EXACT, v) for v in empty) and empty[3].startswith("win")
    assert empty[0].startswith("loss") and empty[2] == "draw"
    after_one = position_verdicts([3], 6, 7)  # the robot's turn, before its search
    assert all(re.fullmatch(EXACT, v) for v in after_one)
    off_the_lines = position_verdicts([3, 3, 2, 2], 6, 7)  # the early book's outcomes
    assert NOT_SEARCHED not in off_the_lines and all(re.fullmatch(EXACT + r"|win|loss", v) for v in off_the_lines)


def test_one_look_ahead_knows_a_winning_drop_and_a_drop_that_hands_over_a_win() -> None:
    # 15 plies, past every book: X has 4,4,4 in column 4 (X to move: column 4 wins).
    moves = [3, 0, 3, 0, 3, 1, 6, 1, 6, 2, 5, 2, 5, 6, 5]
    assert Position.from_moves("".join(str(c + 1) for c in moves)).side_to_move == 2
    verdicts = position_verdicts(moves, 6, 7)
    assert verdicts[3] == "loss in 1" or verdicts[3] == "win in 1"  # O must block 4, or X wins with it
    full = position_verdicts([3] * 6, 6, 7)
    assert full[3] == "full" and NOT_SEARCHED not in full


def test_a_proven_search_of_this_position_wins_over_the_books_and_a_stale_one_is_ignored() -> None:
    search = {"column": 3, "proven": True, "column_scores": [-1, -2, 0, 1, 0, -2, -1], "stones": 1}
    verdicts = position_verdicts([3], 6, 7, search)
    assert verdicts[3] == "win in 21" and verdicts[2] == "draw"  # the books say otherwise: a test score
    stale = {**search, "stones": 0}
    assert position_verdicts([3], 6, 7, stale) == position_verdicts([3], 6, 7)
    assert position_verdicts([3, 0, 3, 0, 3, 0, 3], 6, 7) == []  # over: nothing to judge


def test_hints_are_one_line_of_the_person_s_columns_1_based() -> None:
    line = hint_line([3], 6, 7)
    assert line.startswith("Hints: 1 ") and " 7 " in line and "\n" not in line
    assert len(re.findall(r"\d (?:win|loss|draw)", line)) == 7


def _snapshot(moves: list[int], turn: str) -> dict:
    said = GameEvent(EventKind.SAID, f"{len(moves)} moves")
    return {
        "rows": 6,
        "cols": 7,
        "moves": moves,
        "robot_first": False,
        "person": "you",
        "turn": turn,
        "winner": None,
        "winning_cells": [],
        "search": None,
        "message": said.message,
        "event": said,
    }


def test_the_game_s_thread_only_hands_the_snapshot_over() -> None:
    view = LiveView()
    try:
        called_here: list[str] = []
        for index in range(12):
            moves = [3, 2, 4, 3, 2, 4, 1, 5, 0, 6, 1, 5][: index + 1]
            sys.setprofile(
                lambda frame, what, arg: called_here.append(frame.f_code.co_name) if what == "call" else None
            )
            view.on_state(_snapshot(moves, "person" if index % 2 else "robot"))
            sys.setprofile(None)
            assert view.wait_caught_up()
        assert called_here and not {"page_state", "position_verdicts", "book_score"} & set(called_here)
        assert view.states.get()[1]["verdicts"] == position_verdicts(moves, 6, 7)
    finally:
        view.close()


def _post(url: str) -> None:
    urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=10).read()


def test_a_replay_waits_for_its_first_viewer_then_plays_pauses_and_steps() -> None:
    game_log = GameLog(robot_first=True, rows=6, cols=7, moves=[3, 0, 3, 0, 3, 0, 3], winner="robot")
    with ViewServer(LiveView(), port=0) as server:
        player = ReplayPlayer(game_log, server.view, step_s=0.05)
        stop = threading.Event()
        running = threading.Thread(target=player.run, args=(stop,), daemon=True)
        running.start()
        try:
            time.sleep(0.5)  # ten steps' time, and nobody watches
            assert server.view.wait_caught_up() and server.view.states.get()[1]["replay"]["step"] == 0
            with urllib.request.urlopen(server.url + "events", timeout=10) as events:
                first = json.loads(events.readline().decode().removeprefix("data: "))
                assert first["replay"]["steps"] == 8 and first["turn"] == "robot"
                deadline = time.monotonic() + 10
                while player.index < player.last and time.monotonic() < deadline:
                    time.sleep(0.02)
            assert player.index == player.last and not player.playing
            _post(server.url + "control/play")  # at the end: from the start again
            _post(server.url + "control/pause")
            paused_at = player.index
            time.sleep(0.2)
            assert player.index == paused_at and not player.playing
            _post(server.url + "control/step")
            assert player.index == paused_at + 1 and not player.playing
            assert server.view.wait_caught_up()
            state = server.view.states.get()[1]
            assert state["replay"] == {"step": paused_at + 1, "steps": 8, "playing": False}
            assert len(state["events"]) == paused_at + 2  # the opening word and one per move: none twice
        finally:
            stop.set()
            running.join(timeout=5)


def test_the_sim_s_film_puts_the_table_camera_with_the_arm_beside_the_webcam() -> None:
    from sim import World, WorldConfig
    from sim.camera import project
    from sim.video import Film, wide_camera

    with World(WorldConfig(), seed=2) as world, ViewServer(LiveView(), port=0) as server:
        film = Film(world, 5.0, server.view.on_film)
        world.step(0.25)
        film.close()
        jpeg = urllib.request.urlopen(server.url + "frame.jpg", timeout=10).read()
        served = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        webcam_w, webcam_h = world.camera.width_px, world.camera.height_px
        wide = wide_camera(world.camera)
        assert served.shape[0] == webcam_h and served.shape[1] == webcam_w + wide.width_px * webcam_h // wide.height_px
        arm = world.arm
        links = [
            p.getLinkState(arm.body, link, physicsClientId=world.client)[0]
            for link in range(p.getNumJoints(arm.body, physicsClientId=world.client))
        ]
        pixels = project(np.asarray(links), wide)
        inside = (
            (pixels[:, 0] >= 0) & (pixels[:, 0] < wide.width_px) & (pixels[:, 1] >= 0) & (pixels[:, 1] < wide.height_px)
        )
        assert len(links) >= 5 and inside.all(), pixels  # every link of the arm is in the served wide pane
        pane = served[:, webcam_w:]
        assert pane.std() > 10  # a picture, not a blank pane


def test_hints_are_told_once_in_each_of_the_person_s_turns_and_never_in_the_robot_s() -> None:
    told: list[str] = []
    hints = HintTeller(told.append)
    for moves, turn in (([], "person"), ([], "person"), ([3], "robot"), ([3, 3], "robot"), ([3, 3, 2], "person")):
        hints.on_state(_snapshot(moves, turn))
    assert told == [hint_line([], 6, 7), hint_line([3, 3, 2], 6, 7)]


def test_json_gets_every_position_s_verdicts_from_the_books() -> None:
    every = verdicts_by_move([3, 3, 2], 6, 7)
    assert len(every) == 4 and every[0] == position_verdicts([], 6, 7) and all(len(v) == 7 for v in every)


def test_a_film_of_the_table_alone_is_drawn_beside_the_last_webcam_frame() -> None:
    view = LiveView()
    try:
        view.on_film(None, np.full((384, 512, 3), 200, np.uint8))  # no webcam frame yet: nothing to show
        assert view.camera.snapshot_jpeg() is None
        view.on_film(np.full((480, 640, 3), 40, np.uint8), np.full((384, 512, 3), 200, np.uint8))
        view.on_film(None, np.full((384, 512, 3), 120, np.uint8))  # the table alone: the webcam stays
        served = cv2.imdecode(np.frombuffer(view.camera.snapshot_jpeg(), np.uint8), cv2.IMREAD_COLOR)
        assert served.shape == (480, 640 + 640, 3)
        assert abs(int(served[10, 10, 0]) - 40) < 8 and abs(int(served[10, 900, 0]) - 120) < 8
    finally:
        view.close()
