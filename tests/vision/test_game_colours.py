"""The game's watcher reads with colours learnt from every disc the game knows (issue 37 items 1 and 2): a pale
calibration sample is outvoted by the game's discs, light that drifts is re-learnt from the known discs or named,
and colours too close to tell apart are named."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import RED_BGR, YELLOW_BGR, Scene, random_game_grid, render_board

from robot.game.events import EventKind
from robot.game.watcher import BoardWatcher
from vision.cameras import StillCamera
from vision.degrade import DRIFTS
from vision.reliability import SURE


def _watcher(frame: np.ndarray, corners: np.ndarray, colours) -> tuple[BoardWatcher, list]:
    said: list = []
    watcher = BoardWatcher(StillCamera(frame), (6, 7), corners, colours)
    watcher.notify = lambda kind, **params: said.append((kind, params))
    return watcher, said


def _sure_wrong(reading, grid: np.ndarray) -> int:
    return int(((reading.grid != grid) & (reading.confidence >= SURE)).sum())


def test_the_game_s_discs_outvote_a_pale_calibration_sample() -> None:
    scene = Scene(noise_sigma=3.0, light_gradient=0.2, seed=21)
    before, after = random_game_grid(10, seed=21), random_game_grid(11, seed=21)
    frame, corners = render_board(before, scene)
    pale_yellow = (150, 215, 225)  # a speckled disc sampled near an empty hole's white
    watcher, said = _watcher(frame, corners, (RED_BGR, pale_yellow))
    assert watcher.colours == (RED_BGR, pale_yellow)
    watcher.look(5.0)
    watcher.know(before)
    learnt = np.array(watcher.colours[1])
    assert np.abs(learnt - YELLOW_BGR).max() < np.abs(np.subtract(pale_yellow, YELLOW_BGR)).max() / 2
    watcher.camera.show(render_board(after, scene)[0])
    reading = watcher.look(5.0)
    assert (reading.grid == after).all() and said == []


def test_drifting_light_is_relearnt_from_the_known_discs() -> None:
    scene = Scene(noise_sigma=3.0, light_gradient=0.2, seed=22)
    before, after = random_game_grid(12, seed=22), random_game_grid(13, seed=22)
    empty, corners = render_board(np.zeros((6, 7), np.int8), scene)
    for drift in ("exposure +30%", "warm light", "cool light", "exposure -30%"):
        watcher, said = _watcher(render_board(before, scene)[0], corners, (RED_BGR, YELLOW_BGR))
        watcher.set_empty_reference([empty])  # the face is then the empty board's, until the light moves it
        watcher.know(before)
        watcher.look(5.0)
        watcher.know(before)
        watcher.camera.show(DRIFTS[drift](render_board(after, scene)[0]))
        reading = watcher.look(5.0)
        assert (reading.grid == after).all() and _sure_wrong(reading, after) == 0, drift
        assert (reading.confidence < SURE).sum() <= (4 if drift == "exposure +30%" else 0), drift
        assert said == [], f"{drift}: the known discs were there to re-learn from"
    assert watcher.colours != (RED_BGR, YELLOW_BGR), "the colours followed the light"


def test_light_that_moved_with_no_known_disc_to_learn_from_is_named_once() -> None:
    scene = Scene(noise_sigma=3.0, seed=23)
    empty = np.zeros((6, 7), np.int8)
    first = random_game_grid(1, seed=23)
    frame, corners = render_board(empty, scene)
    watcher, said = _watcher(frame, corners, (RED_BGR, YELLOW_BGR))
    watcher.look(5.0)
    watcher.know(empty)
    watcher.camera.show(DRIFTS["exposure +30%"](render_board(first, scene)[0]))
    for _ in range(2):
        reading = watcher.look(5.0)
        assert _sure_wrong(reading, first) == 0
    assert said == [(EventKind.LIGHT_CHANGED, {})]


def test_colours_off_in_steady_light_are_not_a_change_of_light() -> None:
    scene = Scene(noise_sigma=3.0, seed=23)
    empty = np.zeros((6, 7), np.int8)
    first = random_game_grid(1, seed=23)
    frame, corners = render_board(empty, scene)
    watcher, said = _watcher(frame, corners, ((60, 60, 150), YELLOW_BGR))  # a red sampled in the shade
    watcher.look(5.0)
    watcher.know(empty)
    watcher.camera.show(render_board(first, scene)[0])
    reading = watcher.look(5.0)
    assert (reading.grid == first).all() and said == [], "the board's face shows the light as it was"


def test_colours_too_close_are_named_when_the_game_learns_them() -> None:
    grid = random_game_grid(10, seed=24)
    alike = (RED_BGR, (42, 42, 196))
    frame, corners = render_board(grid, Scene(disc_bgr=alike, seed=24))
    watcher, said = _watcher(frame, corners, alike)
    watcher.look(5.0)
    watcher.know(grid)
    watcher.know(grid)
    assert [kind for kind, _ in said] == [EventKind.COLOURS_TOO_CLOSE]
    assert said[0][1]["detail"].startswith("The two players' discs look alike")


def test_without_calibrated_colours_the_first_moves_teach_them() -> None:
    scene = Scene(noise_sigma=3.0, light_gradient=0.2, seed=25)
    boards = [random_game_grid(moves, seed=25) for moves in range(4)]
    watcher, said = _watcher(render_board(boards[0], scene)[0], render_board(boards[0], scene)[1], None)
    for board in boards[:3]:
        watcher.camera.show(render_board(board, scene)[0])
        watcher.look(5.0)
        watcher.know(board)
    assert np.abs(np.subtract(watcher.colours, (RED_BGR, YELLOW_BGR))).max() < 40
    watcher.camera.show(render_board(boards[3], scene)[0])
    reading = watcher.look(5.0)
    assert (reading.grid == boards[3]).all() and reading.colour_names == ("R", "Y") and said == []


class DriftedCamera:
    """A camera whose frames come in other light than the calibration's (a webcam's exposure or white balance)."""

    def __init__(self, camera, drift: str) -> None:
        self.camera, self.drift = camera, DRIFTS[drift]

    def read(self) -> np.ndarray:
        return self.drift(self.camera.read())

    def close(self) -> None:
        self.camera.close()


@pytest.mark.parametrize("drift", ["exposure +20%", "cool light"])
def test_a_sim_game_plays_on_in_light_changed_since_calibration(tmp_path, drift: str) -> None:
    from robot.game.config import GameSettings, SimTableConfig
    from robot.game.sim_table import SimGame
    from tests.late_games import late_log

    with SimGame(SimTableConfig(seed=4), robot_first=False, tell=lambda message: None) as sim:
        calibrated = sim.watcher.colours
        sim.watcher.camera = DriftedCamera(sim.watcher.camera, drift)
        game = sim.game(GameSettings(time_budget_s=0.1, seed=4, ponder=False, level=3), tmp_path / "g.json", late_log())
        summary = game.play().summary()
        learnt = sim.watcher.colours
    assert summary["winner"] == "robot" and summary["board_agreement"] is True, summary["events"]
    assert summary["events"] == [], "no one misbehaved, and the known discs were there to re-learn from"
    assert learnt != calibrated


def test_a_disc_colour_the_reader_cannot_tell_from_the_room_behind_the_holes_is_named() -> None:
    grid = random_game_grid(10, seed=13)
    discs = (RED_BGR, (222, 226, 226))
    frame, corners = render_board(
        grid, Scene(disc_bgr=discs, background_bgr=((228, 230, 230), (220, 224, 224)), seed=13)
    )
    watcher, said = _watcher(frame, corners, discs)
    watcher.look(5.0)
    watcher.know(grid)
    assert [kind for kind, _ in said] == [EventKind.COLOURS_TOO_CLOSE]
    assert said[0][1]["detail"].startswith("Player 2's discs look like what shows through the empty holes")
