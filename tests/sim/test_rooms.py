"""Rooms: seeded light, camera pose and backdrop; the plain room is the studio every other test uses."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pybullet as p
import pytest

from sim import World, WorldConfig
from sim.room import ROOM_KINDS, Room, furnish, room_camera, room_for

NO_ARM = WorldConfig(arm=None)


def test_the_plain_room_changes_nothing() -> None:
    with World(NO_ARM) as world:
        bodies = p.getNumBodies(physicsClientId=world.client)
        camera = world.camera
        furnish(world, room_for("plain", 7))
        assert world.camera == camera
        assert p.getNumBodies(physicsClientId=world.client) == bodies


@pytest.mark.parametrize("kind", ["varied", "hard"])
def test_rooms_are_seeded_and_within_their_ranges(kind: str) -> None:
    rooms = [room_for(kind, seed) for seed in range(60)]
    assert room_for(kind, 5) == rooms[5]
    assert len({room.light_level for room in rooms}) == len(rooms)
    for room in rooms:
        assert 0.30 <= room.light_level <= 1.20
        assert 2700 <= room.colour_temperature_k <= 9000
        assert max(abs(v) for v in room.camera_shift_m) <= 0.04
        assert max(abs(v) for v in room.camera_turn_deg) <= 4.0
        if kind == "hard":
            assert room.light_level <= 0.45 or room.light_level >= 1.05
            assert math.hypot(*room.light_gradient) >= 0.25
            assert room.backdrop != "none" and room.table_top != "plain"
    assert {room.backdrop for room in rooms} >= {"wall", "curtain", "wood"}


def test_an_unknown_room_is_named() -> None:
    with pytest.raises(ValueError, match="there is no room 'dark'"):
        room_for("dark", 1)


def test_the_camera_moves_and_turns_by_the_room_and_the_board_stays_in_view() -> None:
    room = Room(kind="varied", camera_shift_m=(0.02, -0.01, 0.03), camera_turn_deg=(3.0, -2.0))
    with World(NO_ARM) as world:
        studio = world.hole_centres_px()
        camera = room_camera(world.camera, room)
        world.set_camera(camera)
        moved = world.hole_centres_px()
    assert np.allclose(np.subtract(camera.eye_m, WorldConfig().camera.eye_m), room.camera_shift_m)
    forward_before = np.subtract(WorldConfig().camera.target_m, WorldConfig().camera.eye_m)
    forward_after = np.subtract(camera.target_m, camera.eye_m)
    cosine = forward_before @ forward_after / np.linalg.norm(forward_before) / np.linalg.norm(forward_after)
    assert math.degrees(math.acos(cosine)) == pytest.approx(math.hypot(3.0, 2.0), abs=0.3)
    assert np.abs(moved - studio).max() > 10  # pixels: the camera really moved
    assert moved.min() > 0 and moved[..., 0].max() < camera.width_px and moved[..., 1].max() < camera.height_px


def test_light_level_and_gradient_reach_the_frame() -> None:
    with World(NO_ARM) as world:
        studio = world.render_camera().astype(float)
        world.set_camera(replace(world.camera, exposure=0.5, light_gradient=(0.4, 0.0)))
        dim = world.render_camera().astype(float)
    width = studio.shape[1]
    left, right = slice(0, width // 4), slice(3 * width // 4, width)
    assert dim.mean() / studio.mean() == pytest.approx(0.5, abs=0.06)
    # A gradient of +0.4 to the right: the right quarter is lit about (1 + 0.3) / (1 - 0.3) times the left's.
    ratio = (dim[:, right].mean() / studio[:, right].mean()) / (dim[:, left].mean() / studio[:, left].mean())
    assert ratio == pytest.approx(1.3 / 0.7, rel=0.15)


def test_the_webcam_makes_up_most_but_not_all_of_a_dim_warm_room() -> None:
    dim_warm = Room(kind="varied", light_level=0.3, colour_temperature_k=2700.0)
    with World(NO_ARM) as world:
        studio = world.render_camera().reshape(-1, 3).astype(float).mean(axis=0)
        furnish(world, dim_warm)
        in_room = world.render_camera().reshape(-1, 3).astype(float).mean(axis=0)
    assert 0.5 < in_room.sum() / studio.sum() < 0.8, "darker than the studio, far brighter than 30% of it"
    blue, _, red = in_room / studio
    assert 0.4 < blue / red < 0.9, "a warm cast is left after the white balance"


def test_the_backdrop_shows_through_the_empty_holes() -> None:
    red_wall = Room(kind="hard", backdrop="wall", backdrop_rgb=(0.72, 0.10, 0.08))
    with World(NO_ARM) as world:
        top_left_hole = np.round(world.hole_centres_px()[-1, 0]).astype(int)
        x, y = top_left_hole
        studio = world.render_camera()[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3).mean(axis=0)
        furnish(world, red_wall)
        in_room = world.render_camera()[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3).mean(axis=0)
    blue, green, red = in_room
    assert red > 1.8 * max(blue, green), f"the hole shows {in_room} (BGR), not the red wall"
    assert not np.allclose(studio, in_room, atol=20)


def test_play_offers_every_room_kind() -> None:
    from robot.cli.game_commands import ROOM_KINDS as CLI_ROOMS

    assert CLI_ROOMS == ROOM_KINDS


def test_bench_game_in_rooms_reports_each_game_with_its_room(capsys: pytest.CaptureFixture[str]) -> None:
    from robot.cli import main

    assert (
        main(["bench", "game", "rooms", "--games", "1", "--room", "varied", "--seed", "2", "--opponent", "random"]) == 0
    )
    out = capsys.readouterr().out
    assert "game 1/1: seed 2" in out
    assert "games finished: 1/1" in out
    assert "board agreement after every move: 1/1 games" in out
    assert "false events (no one misbehaved; not a hand really in front of the columns named): 0" in out
    assert "robot turns per game: median" in out


def test_a_room_failure_keeps_the_frame_it_was_said_at(tmp_path) -> None:
    from robot.game.events import EventKind, GameEvent
    from robot.game.room_trials import EventJudge

    judge = EventJudge()
    first, second = np.zeros((4, 4, 3), np.uint8), np.full((4, 4, 3), 200, np.uint8)
    judge.on_frame(first, None)
    judge.on_state({"event": GameEvent(EventKind.TWO_DISCS, "two new discs", (5,))})
    judge.on_frame(second, None)
    saved = judge.save(tmp_path, "varied_seed11", judge.false_events)
    assert [path.name for path in saved] == ["varied_seed11_1.png"]
    assert cv2.imread(str(saved[0])).max() == 0, "the frame the game had looked at when it spoke, not the last"


def test_a_light_notice_is_true_only_when_the_light_had_really_drifted() -> None:
    from robot.game.events import EventKind, GameEvent
    from robot.game.room_trials import EventJudge
    from sim.light_drift import LightDrift
    from sim.person import Habits, Person

    judge = EventJudge()
    judge.drift = LightDrift(exposure_swing=0.2, tint_swing_k=0.0, periods_s=(8.0, 8.0, 8.0))
    with World(NO_ARM) as world:
        judge.person = Person(world, Habits.for_room("makes", 2), np.random.default_rng(2))
        judge.on_state({"event": GameEvent(EventKind.LIGHT_CHANGED, "the light changed")})  # at once: no drift yet
        world.step(2.0)  # a quarter of the wave: 20% brighter
        judge.on_state({"event": GameEvent(EventKind.LIGHT_CHANGED, "the light changed")})
    assert [m.is_true_light for m in judge.notices] == [False, True]
    assert len(judge.false_events) == 1 and len(judge.light_events) == 1
    assert "the light +20%" in judge.light_events[0].describe()
