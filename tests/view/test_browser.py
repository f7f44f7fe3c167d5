"""A sim game shown in headless Chromium: after every move the page's board, turn and events match the game.

The game runs on its own thread; the test's observer hands each snapshot to the real LiveView, then holds
the game at each new move until Chromium has loaded the page and the DOM was checked (the hold is the
test's, so a slow browser start cannot make the check race the next move).
"""

from __future__ import annotations

import queue
import re
import shutil
import subprocess
import threading
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from robot.view import LiveView, ViewServer
from tests.late_games import late_log

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium; .ci/run installs it)"
)


def chromium(url: str, *extra: str) -> str:
    """Chromium's DOM of `url` once its scripts ran (or its screenshot, with --screenshot in `extra`)."""
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--timeout=5000", *extra]
    done = subprocess.run([*command, url], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def page_cells(dom: str) -> list[dict[str, str]]:
    """Every board cell the page draws, as its attributes (data-col, data-row 1-based; data-owner; class)."""
    return [
        dict(re.findall(r'([\w-]+)="([^"]*)"', found)) for found in re.findall(r"<div ([^>]*data-owner[^>]*)>", dom)
    ]


def page_board(dom: str, rows: int, cols: int) -> np.ndarray:
    """The board the page draws, row 0 at the bottom: 0 empty, 1 the robot's, 2 the person's."""
    board = np.full((rows, cols), -1, dtype=np.int8)
    for cell in page_cells(dom):
        value = {"empty": 0, "robot": 1, "person": 2}[cell["data-owner"]]
        board[int(cell["data-row"]) - 1, int(cell["data-col"]) - 1] = value
    return board


def page_text(dom: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</', dom, re.S)
    assert match, f"no #{element_id} on the page"
    return match.group(1)


class HoldAtEveryMove:
    """The game's observer in this test: the real LiveView, and the game held at each new move until checked."""

    def __init__(self, view: LiveView) -> None:
        self.view = view
        self.moves_seen = 0
        self.to_check: queue.Queue = queue.Queue()
        self.checked = threading.Event()

    def on_state(self, snapshot: dict) -> None:
        self.view.on_state(snapshot)
        if len(snapshot["moves"]) > self.moves_seen or snapshot["winner"] is not None:
            self.moves_seen = len(snapshot["moves"])
            self.checked.clear()
            self.to_check.put(snapshot)
            self.checked.wait(timeout=120)

    def on_frame(self, frame, reading) -> None:
        self.view.on_frame(frame, reading)


def test_the_page_shows_the_board_after_every_move_of_a_sim_game(tmp_path: Path) -> None:
    from robot.game.config import GameSettings, SimTableConfig
    from robot.game.sim_table import SimGame

    told: list[str] = []
    with (
        ViewServer(LiveView(), port=0) as server,
        SimGame(SimTableConfig(seed=5), robot_first=True, tell=told.append) as game_setup,
    ):
        late = late_log(robot_first=True)  # the last moves of a game: the page follows a resumed game as a new one
        game = game_setup.game(GameSettings(robot_first=True, time_budget_s=0.2), tmp_path / "g.json", late)
        observer = HoldAtEveryMove(server.view)
        # watch() shows the resumed board at once: on the game's thread, so the hold there holds the game, not the test
        playing = threading.Thread(target=lambda: (game.watch(observer), game.play()), daemon=True)
        playing.start()
        resumed_at, checked_counts = len(late.moves), set()  # the game appends to the log it resumes
        while True:
            snapshot = observer.to_check.get(timeout=180)
            dom = chromium(server.url, "--dump-dom")
            checked_counts.add(len(snapshot["moves"]))
            robot_first_board = game.position.to_array()  # the robot started: its discs are the 1s
            assert np.array_equal(page_board(dom, 6, 7), robot_first_board), f"after {len(snapshot['moves'])} moves"
            assert snapshot["message"] is None or snapshot["message"] in dom.replace("&nbsp;", " ")
            turn = page_text(dom, "turn")
            if snapshot["winner"] is not None:
                break
            person_turn = "Your turn" if snapshot["person"] == "you" else "The simulated person's turn"
            assert turn.startswith(
                {"robot": "Robot's turn", "person": person_turn, "over": "Game over"}[snapshot["turn"]]
            )
            if snapshot["turn"] == "person" and snapshot["search"]:  # the robot moved: every column's verdict
                verdicts = re.findall(r'class="verdict[^"]*"[^>]*>([^<]*)<', dom)
                assert len(verdicts) == 7 and all(
                    re.fullmatch(r"win in \d+|loss in \d+|win|loss|draw|eval [+-]\d+|full|not searched", v)
                    for v in verdicts
                )
                assert f"column {snapshot['search']['column'] + 1}" in page_text(dom, "why")
            observer.checked.set()
        observer.checked.set()
        playing.join(timeout=60)
        assert game.log.winner == "robot" and turn == "Game over: the robot wins"
        four = [cell for cell in page_cells(dom) if "four" in cell["class"].split()]
        assert all(cell["data-owner"] == "robot" for cell in four)
        four_cells = sorted((int(cell["data-col"]) - 1, int(cell["data-row"]) - 1) for cell in four)
        assert four_cells == game.position.winning_cells()
        assert checked_counts == set(range(resumed_at, len(game.log.moves) + 1))  # the resumed board, every move
        jpeg = urllib.request.urlopen(server.url + "frame.jpg", timeout=10).read()
        assert jpeg[:2] == b"\xff\xd8" and len(jpeg) > 5000  # the camera picture with its overlay


def page_verdicts(dom: str) -> list[str]:
    return re.findall(r'class="verdict[^"]*"[^>]*>([^<]*)<', dom)


def test_the_page_shows_a_verdict_under_every_column_at_the_first_move() -> None:
    from robot.game.events import EventKind, event

    with ViewServer(LiveView(), port=0) as server:
        for moves, turn in (([], "person"), ([3], "robot")):  # the robot plays second: the person's, then its own
            said = event(EventKind.PERSON_TURN, 0.0) if turn == "person" else event(EventKind.SAID, 1.0, detail="x")
            snapshot = {
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
            server.view.on_state(snapshot)
            assert server.view.wait_caught_up()
            dom = chromium(server.url, "--dump-dom")
            verdicts = page_verdicts(dom)
            assert len(verdicts) == 7 and all(re.fullmatch(r"(win|loss) in \d+|draw", v) for v in verdicts), verdicts
            mover = "the robot" if turn == "robot" else "you"
            assert f"worth for {mover}" in page_text(dom, "verdicts-for")
            assert "replay" not in page_text(dom, "no-camera") and "live" in page_text(dom, "connection")


def test_a_replay_page_says_replay_and_has_its_buttons(tmp_path: Path) -> None:
    from robot.game.log import GameLog
    from robot.view.replay import ReplayPlayer

    game_log = GameLog(robot_first=False, rows=6, cols=7, moves=[3, 0, 3, 0, 3, 0, 3], winner="opponent")
    with ViewServer(LiveView("Replay of g.json"), port=0) as server:
        player = ReplayPlayer(game_log, server.view, step_s=60.0)
        stop = threading.Event()
        threading.Thread(target=player.run, args=(stop,), daemon=True).start()
        try:
            assert server.view.first_viewer.wait(0.01) is False
            dom = chromium(server.url, "--dump-dom")
            assert server.view.first_viewer.is_set()  # the page listened: the replay may start
            assert page_text(dom, "turn") == "Replay: the person's move next"
            assert page_text(dom, "connection").startswith("replay")
            assert "A replay has no camera pictures" in page_text(dom, "no-camera")
            assert all(f'id="{button}"' in dom for button in ("play", "pause", "step"))
            assert len(page_verdicts(dom)) == 7
        finally:
            stop.set()
