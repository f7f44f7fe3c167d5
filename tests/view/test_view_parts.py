"""The live view's parts without a browser: verdicts in words, the latest-value slot, the server's streams,
the replay of a saved log and the `c4robot view` command's errors."""

from __future__ import annotations

import json
import re
import socket
import threading
import urllib.error
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine import Position
from engine.search import Limit, search
from robot.game.events import EventKind, GameEvent
from robot.game.log import GameLog
from robot.view import LiveView, ViewServer
from robot.view.live import board_from_moves
from robot.view.replay import replay_snapshots
from robot.view.slot import LatestSlot
from robot.view.verdicts import NOT_SEARCHED, column_verdict, position_verdicts
from vision import BoardReading


def test_proven_scores_read_as_wins_and_losses_counted_in_moves() -> None:
    cells = 42
    # Pons' scale: a win with the side to move's next disc at 6 stones scores (43 - 6) // 2 = 18.
    assert column_verdict(18, True, 6, cells, False) == "win in 1"
    # the opponent wins with their next disc (7 stones before it): -(43 - 7) // 2 = -18.
    assert column_verdict(-18, True, 6, cells, False) == "loss in 1"
    assert column_verdict(0, True, 6, cells, False) == "draw"
    assert column_verdict(-1, True, 14, cells, False) == "loss in 14"  # lost with the last disc of the board
    assert column_verdict(37, False, 6, cells, False) == "eval +37"
    assert column_verdict(None, True, 6, cells, True) == "full"
    assert column_verdict(None, True, 6, cells, False) == "not searched"


def test_the_engine_s_scores_of_a_solved_position_become_verdicts() -> None:
    moves = "44444433333312"
    position = Position.from_moves(moves)
    result = search(position, Limit(time=0.5))
    snapshot = {"column_scores": list(result.column_scores), "proven": result.proven, "stones": len(moves)}
    verdicts = position_verdicts([int(m) - 1 for m in moves], 6, 7, snapshot)
    assert verdicts[2] == verdicts[3] == "full"  # columns 3 and 4 hold six discs each
    grammar = r"win in \d+|loss in \d+|draw|eval [+-]\d+|full|not searched"
    assert all(re.fullmatch(grammar, verdict) for verdict in verdicts)
    if result.proven:  # the engine's best here is a draw: no column may read as a win
        assert verdicts[result.column] == "draw" and not any(v.startswith("win") for v in verdicts)


def test_the_slot_keeps_only_the_newest_value_and_a_reader_waits_for_a_newer_one() -> None:
    slot: LatestSlot[int] = LatestSlot()
    for value in range(10_000):  # no reader: the writer never waits, nothing piles up
        slot.put(value)
    assert slot.get() == (10_000, 9_999)
    got: list = []
    reader = threading.Thread(target=lambda: got.append(slot.wait_newer(10_000, timeout_s=10)))
    reader.start()
    slot.put(-1)
    reader.join(timeout=10)
    assert got == [(10_001, -1)]
    assert slot.wait_newer(10_001, timeout_s=0.01) == (10_001, -1)  # nothing newer: the current one


def test_the_board_is_built_bottom_up_from_the_moves() -> None:
    board = board_from_moves([3, 3, 0], rows=6, cols=7)
    assert board[0][3] == 1 and board[1][3] == 2 and board[0][0] == 1 and sum(map(sum, board)) == 4


def _snapshot(moves: list[int], message: str) -> dict:
    return {
        "rows": 6,
        "cols": 7,
        "moves": moves,
        "robot_first": False,
        "turn": "person",
        "winner": None,
        "winning_cells": [],
        "search": {"column": 3, "proven": False, "column_scores": [1, 2, 3, 4, 5, 6, 7], "stones": 1},
        "message": message,
        "event": GameEvent(EventKind.SAID, message),
    }


def test_the_server_sends_each_state_as_an_event_and_the_camera_as_jpeg_with_the_overlay() -> None:
    with ViewServer(LiveView(), port=0) as server:
        server.view.on_state(_snapshot([0], "You played column 1."))
        with urllib.request.urlopen(server.url + "events", timeout=10) as events:
            first = json.loads(events.readline().decode().removeprefix("data: "))
            assert first["board"][0][0] == 1 and [e["message"] for e in first["events"]] == ["You played column 1."]
            server.view.on_state(_snapshot([0, 3], "I play column 4."))
            events.readline()
            second = json.loads(events.readline().decode().removeprefix("data: "))
            assert second["board"][0][3] == 2 and second["robot_column"] == 3
            assert second["verdicts"] == position_verdicts([0, 3], 6, 7) and NOT_SEARCHED not in second["verdicts"]
            assert [e["message"] for e in second["events"]] == ["You played column 1.", "I play column 4."]
        page = urllib.request.urlopen(server.url, timeout=10).read().decode()
        assert "I play column 4." in page and "__INITIAL_STATE__" not in page  # the page carries the state
        frame = np.full((240, 320, 3), 90, dtype=np.uint8)
        reading = BoardReading(
            grid=np.zeros((6, 7), np.int8),
            colour_names=("R", "Y"),
            confidence=np.ones((6, 7)),
            corners=None,
            elapsed_s=0.0,
            problems=["a hand covers the board"],
        )
        with urllib.request.urlopen(server.url + "stream.mjpg", timeout=10) as stream:
            server.view.on_frame(frame, reading)
            assert stream.readline().strip() == b"--c4frame"
            headers = {}
            while (line := stream.readline().strip()) != b"":
                key, value = line.decode().split(": ", 1)
                headers[key] = value
            assert headers["Content-Type"] == "image/jpeg"
            picture = cv2.imdecode(
                np.frombuffer(stream.read(int(headers["Content-Length"])), np.uint8), cv2.IMREAD_COLOR
            )
        assert picture.shape == frame.shape
        assert np.abs(picture.astype(int) - frame).max() > 100  # "board not found" and the problem are drawn on it
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(server.url + "nothing", timeout=10)


def test_a_port_in_use_is_one_sentence_naming_the_flags() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}.*--view-port"):
            ViewServer(LiveView(), port=port)


def test_a_replay_steps_through_every_move_to_the_winning_four() -> None:
    game_log = GameLog(robot_first=True, rows=6, cols=7, moves=[3, 0, 3, 0, 3, 0, 3], winner="robot")
    snapshots = replay_snapshots(game_log)
    assert [len(s["moves"]) for s in snapshots] == [0, 1, 2, 3, 4, 5, 6, 7, 7]
    assert snapshots[1]["message"] == "I played column 4." and snapshots[2]["message"] == "The person played column 1."
    assert snapshots[-1]["winner"] == "robot" and snapshots[-1]["message"] == "I win!"
    assert snapshots[-1]["winning_cells"] == [[3, 0], [3, 1], [3, 2], [3, 3]]
    view = LiveView()
    for snapshot in snapshots:
        view.on_state(snapshot)
    assert view.wait_caught_up()
    state = view.states.get()[1]
    assert state["turn"] == "over" and state["camera"] is False and len(state["events"]) == 9
    view.close()


def test_view_of_a_missing_or_damaged_log_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from robot.cli.main import main

    assert main(["view", "--log", str(tmp_path / "none.json")]) != 0
    assert "no game log" in capsys.readouterr().err
    damaged = tmp_path / "bad.json"
    damaged.write_text("{not json", encoding="utf-8")
    assert main(["view", "--log", str(damaged)]) != 0
    error = capsys.readouterr().err
    assert "damaged" in error and len(error.strip().splitlines()) == 1
