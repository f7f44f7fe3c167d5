"""The simulated webcam: frames show the discs where the world has them; the pinhole model matches the renderer."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pybullet as p

from sim import DISC_COLOURS, World, WorldConfig, config_variants

NO_ARM = WorldConfig(arm=None)


def colour_at(frame: np.ndarray, xy: np.ndarray, radius_px: int = 3) -> np.ndarray:
    x, y = int(round(xy[0])), int(round(xy[1]))
    return frame[y - radius_px : y + radius_px + 1, x - radius_px : x + radius_px + 1].reshape(-1, 3).mean(axis=0)


def classify(bgr: np.ndarray) -> int:
    """1 for a red disc, 2 for a yellow one, 0 for anything else seen through a hole."""
    blue, green, red = bgr
    if red > 100 and green < 0.45 * red and blue < 0.45 * red:
        return 1
    if red > 120 and green > 0.6 * red and blue < 0.5 * green:
        return 2
    return 0


def read_frame(world: World) -> np.ndarray:
    frame = world.render_camera()
    centres = world.hole_centres_px()
    rows, cols = centres.shape[:2]
    return np.array(
        [[classify(colour_at(frame, centres[r, c])) for c in range(cols)] for r in range(rows)], dtype=np.int8
    )


def test_frame_shows_the_discs_where_the_world_has_them() -> None:
    with World(NO_ARM, seed=4) as world:
        for turn, column in enumerate([3, 3, 4, 2, 2, 6, 0, 0, 0, 0, 0, 0]):
            world.drop_disc(column, 1 + turn % 2)
            assert world.wait_until_settled(3.0)
        frame = world.render_camera()
        assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8
        grid = world.board_state()
        assert np.count_nonzero(grid) == 12
        np.testing.assert_array_equal(read_frame(world), grid)


def test_frames_of_varied_worlds_still_show_the_board_as_it_is() -> None:
    for config in config_variants(2, seed=11, base=NO_ARM):
        config = dataclasses.replace(config, camera=dataclasses.replace(config.camera, colour_temperature_k=6000.0))
        with World(config, seed=5) as world:
            for turn, column in enumerate([1, 1, 5, 3]):
                world.drop_disc(column, 1 + turn % 2)
                assert world.wait_until_settled(3.0)
            np.testing.assert_array_equal(read_frame(world), world.board_state())


def test_pinhole_model_matches_the_rendered_image() -> None:
    points = np.array([(0.05, -0.1, 0.15), (-0.15, -0.2, 0.3), (0.12, -0.05, 0.04)])
    with World(NO_ARM) as world:
        for point in points:
            marker = p.createVisualShape(
                p.GEOM_SPHERE, radius=0.003, rgbaColor=(0, 1, 0, 1), physicsClientId=world.client
            )
            p.createMultiBody(0.0, -1, marker, list(point), physicsClientId=world.client)
        frame = world.render_camera().astype(int)
        green = frame[:, :, 1] - np.maximum(frame[:, :, 0], frame[:, :, 2]) > 40
        _, _, _, centroids = cv2.connectedComponentsWithStats(green.astype(np.uint8))
        projected = world.project_to_image(points)
    for centroid in centroids[1:]:
        assert np.min(np.linalg.norm(projected - centroid, axis=1)) < 0.35


def test_camera_settings_change_the_frame_and_noise_repeats_with_the_seed() -> None:
    noisy = dataclasses.replace(
        NO_ARM.camera, noise_sigma=4.0, colour_temperature_k=3000.0, width_px=160, height_px=120
    )
    config = dataclasses.replace(NO_ARM, camera=noisy)
    with World(config, seed=9) as first, World(config, seed=9) as again:
        frame, same = first.render_camera(), again.render_camera()
        np.testing.assert_array_equal(frame, same)
        first.set_camera(dataclasses.replace(noisy, noise_sigma=0.0, colour_temperature_k=6500.0))
        neutral = first.render_camera()
    assert frame.shape == (120, 160, 3)
    warm = frame.reshape(-1, 3).mean(axis=0)
    plain = neutral.reshape(-1, 3).mean(axis=0)
    assert warm[0] / warm[2] < 0.8 * plain[0] / plain[2]  # 3000 K light is red: less blue relative to red


def test_disc_colours_can_be_changed() -> None:
    with World(NO_ARM) as world:
        world.drop_disc(3, 1)
        assert world.wait_until_settled(3.0)
        world.set_disc_colours((DISC_COLOURS["G"], DISC_COLOURS["Y"]))
        frame = world.render_camera()
        blue, green, red = colour_at(frame, world.hole_centres_px()[0, 3])
        assert green > 1.5 * red and green > 1.5 * blue
