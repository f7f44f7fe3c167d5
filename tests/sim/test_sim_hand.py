"""The simulated person's hand: it shows in the webcam's frames where it is, with its skin and sleeve; a linger
asked for covers exactly those columns for that long; the disc still lands; a game waits for it."""

from __future__ import annotations

import numpy as np
import pybullet as p
import pytest

from sim import World
from sim.hand import PALM_CENTRE_M, SKIN_TONES, SLEEVE_COLOURS, WRIST_M, Hand, HandLook
from sim.person import Habits, Linger, Person


def _bgr_at(frame: np.ndarray, point_px: np.ndarray) -> np.ndarray:
    x, y = np.round(point_px).astype(int)
    return frame[y, x].astype(int)


def test_the_hand_shows_its_skin_and_sleeve_where_it_is_placed() -> None:
    with World(seed=1) as world:
        empty = world.render_camera()
        pinch = np.array([0.0, -0.08, 0.06])
        elbow = np.array([0.30, -0.38, 0.10])
        tones = []
        for skin in (SKIN_TONES[0], SKIN_TONES[-1]):
            hand = Hand(world.client, HandLook(skin_rgb=skin, sleeve_rgb=(0.16, 0.44, 0.24), bare_forearm_m=0.05))
            hand.place(pinch, (0.0, 0.0, 0.0, 1.0), elbow)
            frame = world.render_camera()
            palm = world.project_to_image(pinch + np.array(PALM_CENTRE_M))
            wrist = pinch + np.array(WRIST_M)
            sleeve = world.project_to_image(wrist + 0.12 * (elbow - wrist) / np.linalg.norm(elbow - wrist))
            blue, green, red = _bgr_at(frame, palm)
            assert red > blue + 8 and red >= green  # skin, where the board's blue was
            assert _bgr_at(empty, palm)[0] > _bgr_at(empty, palm)[2]
            sleeve_bgr = _bgr_at(frame, sleeve)
            assert sleeve_bgr[1] == sleeve_bgr.max() and sleeve_bgr[1] > sleeve_bgr[2] + 20  # the green sleeve
            far_corner = world.hole_centres_px()[0, 0]
            assert np.abs(_bgr_at(frame, far_corner) - _bgr_at(empty, far_corner)).max() < 10  # nothing else moved
            tones.append(int(red) + green + blue)
            hand.park()
            assert np.abs(world.render_camera().astype(int) - empty).max() < 10  # parked out of view
            hand.remove()
        assert tones[0] > 2 * tones[1]  # very light skin shows far brighter than very dark


def test_drawn_hands_range_from_very_light_to_very_dark_skin_with_many_sleeves() -> None:
    looks = [HandLook.drawn(np.random.default_rng(seed)) for seed in range(200)]
    lightness = [float(np.mean(look.skin_rgb)) for look in looks]
    assert min(lightness) < 0.2 and max(lightness) > 0.8
    assert len(
        {
            SLEEVE_COLOURS.index(min(SLEEVE_COLOURS, key=lambda c: np.abs(np.subtract(c, look.sleeve_rgb)).sum()))
            for look in looks
        }
    ) == len(SLEEVE_COLOURS)
    assert any(look.bare_forearm_m == 0 for look in looks) and any(look.bare_forearm_m > 0.1 for look in looks)
    hard = [HandLook.drawn(np.random.default_rng(seed), hard=True) for seed in range(50)]
    assert all(np.mean(look.skin_rgb) < 0.25 or np.mean(look.skin_rgb) > 0.7 for look in hard)
    assert Habits.for_room("plain", 3).linger_chance == 0 < Habits.for_room("varied", 3).linger_chance
    with pytest.raises(ValueError, match="room kind"):
        Habits.for_room("garden", 1)


@pytest.mark.parametrize("before_drop", [False, True])
def test_a_hand_lingering_over_columns_3_to_5_for_2_s_covers_them_and_the_disc_lands(before_drop: bool) -> None:
    with World(seed=2) as world:
        person = Person(world, Habits.for_room("varied", 2), np.random.default_rng(2))
        holes = np.round(world.hole_centres_px()).astype(int)
        visit = person.drop(5, 1, Linger(columns=(2, 4), seconds=2.0, rows=(1, 4), before_drop=before_drop))
        assert not person.hand.pixels(world.camera).any()  # the hand starts out of view
        begin, end = visit.lingers_s
        assert end - begin == pytest.approx(2.0)
        world.step(begin - (world.time_s - visit.started_s) + 0.01)
        lingered = []
        while world.time_s - visit.started_s < end:
            covered = person.hand.pixels(world.camera)[holes[..., 1], holes[..., 0]]  # (rows, cols) of hole centres
            assert covered[1:5, 2:5].all()
            assert not covered[:, 0].any()  # column 1 stays in view
            hidden = person.hidden_holes()
            assert (hidden[1:5, 2:5] > 0.5).all() and not hidden[:, 0].any()
            lingered.append(world.time_s)
            world.step(0.2)
        person.finish()
        assert world.wait_until_settled()
        assert world.board_state()[0, 5] == 1 and world.board_state().sum() == 1
        assert not person.hand.pixels(world.camera).any()  # withdrawn
    assert len(lingered) == 10 and lingered[-1] - lingered[0] > 1.75  # every fifth of a second for 2 s


def test_a_person_dropping_twice_finishes_the_first_visit_and_every_disc_lands() -> None:
    with World(seed=3) as world:
        bodies = p.getNumBodies(physicsClientId=world.client)
        person = Person(world, Habits.for_room("hard", 3), np.random.default_rng(3))
        first = person.drop(0, 1, draw_linger=False)
        second = person.drop(6, 2, draw_linger=False)
        assert first.released and not second.released
        person.finish()
        assert world.wait_until_settled() and not person.is_busy
        assert world.board_state()[0, 0] == 1 and world.board_state()[0, 6] == 2
        assert p.getNumBodies(physicsClientId=world.client) == bodies + 4  # two discs, the hand and its forearm
        disc = world.human_drop(3, 1)  # a person's hand that comes and goes
        assert world.disc_cell(disc) == (0, 3)
        assert p.getNumBodies(physicsClientId=world.client) == bodies + 5


class _AlwaysFirstColumn:
    """A person who always plays column 1: the robot wins in four moves."""

    def choose(self, position) -> int:
        return 0 if 0 in position.legal_moves() else position.legal_moves()[0]


def test_a_short_game_waits_for_a_lingering_hand_and_agrees_with_the_board(tmp_path) -> None:
    from robot.game.config import GameSettings, SimTableConfig
    from robot.game.sim_table import SimGame

    told: list[str] = []
    covered_columns: set[int] = set()

    class CoveredSeen:
        def on_state(self, snapshot: dict) -> None:
            pass

        def on_frame(self, frame: np.ndarray, reading) -> None:
            if reading.covered is not None:
                covered_columns.update(np.flatnonzero(reading.covered.any(axis=0)))

    with SimGame(
        SimTableConfig(seed=5), robot_first=True, tell=told.append, lingers={0: Linger(columns=(2, 4), seconds=2.0)}
    ) as sim:
        sim.table.opponent = _AlwaysFirstColumn()
        game = sim.game(GameSettings(robot_first=True, time_budget_s=0.1, seed=5, ponder=False), None, None)
        game.watch(CoveredSeen())
        summary = game.play().summary()
    assert summary["winner"] == "robot" and summary["board_agreement"] is True
    assert {2, 3, 4} <= covered_columns  # the game saw the hand over columns 3-5 ...
    assert all(event["kind"] == "covered" for event in summary["events"])  # ... and named it, nothing else
    assert summary["events"]
