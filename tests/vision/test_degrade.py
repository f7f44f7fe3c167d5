"""The image changes of vision.degrade do what their names say, hands cover what they claim, and the bench's
scores (vision.reliability) add up. Rendered boards, so no photos are needed; one test uses ../shared."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import Scene, random_game_grid, render_board

from robot.cli.photo_files import load_image, parse_corners_file, parse_labels
from vision.degrade import (
    CHANGES,
    COOL_GAINS_BGR,
    HANDS,
    WARM_GAINS_BGR,
    apply_change,
    change_names,
    darken,
    fit_within,
    motion_blur,
    rotate,
    white_balance,
)
from vision.geometry import hole_centres_px
from vision.reliability import (
    SURE,
    LabelledPhoto,
    cells_matching,
    reliability_curve,
    run_trials,
    score_cells,
    tally,
)
from vision.synthetic_hand import EDGES, SLEEVES_BGR, add_hand

SHAPE = (6, 7)


@pytest.fixture(scope="module")
def board() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A rendered board in perspective with 14 discs: (image, corners, grid)."""
    grid = random_game_grid(14, seed=3)
    image, corners = render_board(grid, Scene(tilt=0.05, seed=3))
    return image, corners, grid


def _colour_at(image: np.ndarray, point: np.ndarray, radius: int = 2) -> np.ndarray:
    x, y = np.round(point).astype(int)
    return image[y - radius : y + radius + 1, x - radius : x + radius + 1].reshape(-1, 3).mean(axis=0)


def test_every_change_is_deterministic_and_keeps_the_frame_a_colour_image(board) -> None:
    image, corners, _ = board
    for name in CHANGES:
        first = apply_change(name, image, corners, SHAPE, seed=5, photo="a.jpg")
        again = apply_change(name, image, corners, SHAPE, seed=5, photo="a.jpg")
        assert first.image.dtype == np.uint8 and first.image.ndim == 3, name
        assert np.array_equal(first.image, again.image), f"{name} is not deterministic"
        assert np.array_equal(first.corners, again.corners), name
        if name != "none":
            assert first.image.shape != image.shape or not np.array_equal(first.image, image), f"{name} changed nothing"
    noisy = [apply_change("noise 12", image, corners, SHAPE, seed, "a.jpg").image for seed in (1, 2)]
    assert not np.array_equal(*noisy), "the seed does not reach the noise"


def test_downscale_fits_the_frame_and_moves_the_corners_with_it(board) -> None:
    image, corners, _ = board
    for size in ((480, 360), (320, 240)):
        small, moved = fit_within(image, corners, size)
        assert small.shape[1] <= size[0] and small.shape[0] <= size[1]
        assert max(small.shape[1] / size[0], small.shape[0] / size[1]) == pytest.approx(1.0, abs=0.01)
        for before, after in zip(corners, moved, strict=True):  # the corner holes' colour is where they went
            assert np.abs(_colour_at(image, before, 3) - _colour_at(small, after, 1)).max() < 40
    same, kept = fit_within(image, corners, (2000, 2000))
    assert same.shape == image.shape and np.allclose(kept, corners), "a small photo is never enlarged"


def test_rotation_turns_the_board_and_its_corners_by_the_angle(board) -> None:
    image, corners, _ = board
    turned, moved = rotate(image, corners, 8.0)
    assert turned.shape[0] > image.shape[0] and turned.shape[1] > image.shape[1], "nothing of the photo is cut"

    def top_edge_deg(points: np.ndarray) -> float:
        return float(np.degrees(np.arctan2(points[1, 1] - points[0, 1], points[1, 0] - points[0, 0])))

    assert top_edge_deg(corners) - top_edge_deg(moved) == pytest.approx(8.0, abs=0.01)  # counter-clockwise, y down
    for before, after in zip(corners, moved, strict=True):
        assert np.abs(_colour_at(image, before, 3) - _colour_at(turned, after, 1)).max() < 40


def test_white_balance_and_light_change_the_colours_as_named(board) -> None:
    image = board[0].astype(np.float64)
    mean_bgr = image.reshape(-1, 3).mean(axis=0)
    warm = white_balance(board[0], WARM_GAINS_BGR).reshape(-1, 3).mean(axis=0)
    cool = white_balance(board[0], COOL_GAINS_BGR).reshape(-1, 3).mean(axis=0)
    assert warm[2] / warm[0] > 1.4 * mean_bgr[2] / mean_bgr[0], "warm light: redder against blue"
    assert cool[2] / cool[0] < 0.75 * mean_bgr[2] / mean_bgr[0], "cool light: bluer against red"
    for fraction in (0.6, 0.45, 0.3):
        assert darken(board[0], fraction).mean() / image.mean() == pytest.approx(fraction, abs=0.01)


def test_jpeg_noise_and_blur_change_the_detail(board) -> None:
    image, corners, _ = board

    def sharpness(frame: np.ndarray) -> float:
        return float(cv2.Laplacian(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())

    noisy = apply_change("noise 12", image, corners, SHAPE, 0).image.astype(np.float64)
    difference = noisy - image
    inside = (image > 40) & (image < 215)  # away from clipping
    assert difference[inside].std() == pytest.approx(12.0, rel=0.1)
    assert sharpness(motion_blur(image, 9, 30.0)) < 0.5 * sharpness(image)
    blocky = apply_change("jpeg q25", image, corners, SHAPE, 0).image
    assert 1.0 < np.abs(blocky.astype(np.float64) - image).mean() < 20.0


@pytest.mark.parametrize(
    ("coverage", "skin_tone", "sleeve", "edge"), [(0.08, 1, "", "left"), (0.3, 10, "red", "bottom")]
)
def test_a_hand_covers_the_share_it_claims_from_its_edge(board, coverage, skin_tone, sleeve, edge) -> None:
    image, corners, _ = board
    hand = add_hand(image, corners, SHAPE, coverage, np.random.default_rng(1), skin_tone, sleeve, edge)
    assert hand.scene.coverage == pytest.approx(coverage, abs=0.03)
    border = {"left": hand.mask[:, 0], "right": hand.mask[:, -1], "top": hand.mask[0], "bottom": hand.mask[-1]}
    assert border[edge].any(), f"the arm does not come in from the {edge}"
    changed = np.abs(hand.image.astype(int) - image).sum(axis=2) > 30
    assert changed[hand.mask].mean() > 0.8, "the hand's pixels are drawn"
    reach = int(2 * 1.3 * np.linalg.norm(corners[1] - corners[0]) / 6)  # its shadow: within two hand units
    near = cv2.dilate(hand.mask.astype(np.uint8), np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)).astype(bool)
    assert not changed[~near].any(), "the hand changes nothing far from it"
    assert hand.hidden.shape == SHAPE and (hand.hidden >= 0.5).any()
    assert hand.hidden.min() >= 0.0 and hand.hidden.max() <= 1.0
    centres = np.round(hole_centres_px(corners, SHAPE)).astype(int)  # row 0 at the bottom, like hidden
    centre_in_hand = hand.mask[centres[..., 1], centres[..., 0]]
    assert centre_in_hand[hand.hidden == 1.0].all() and not centre_in_hand[hand.hidden == 0.0].any()
    skin = hand.image[hand.mask].astype(np.float64)
    if sleeve == "red":
        reddish = (skin[:, 2] > 1.8 * skin[:, 1]) & (skin[:, 2] > 1.8 * skin[:, 0])
        assert reddish.mean() > 0.1, "a red sleeve shows"
    else:
        assert skin.mean() > 120, "skin tone 1 is light"


def test_skin_tones_run_from_very_light_to_very_dark(board) -> None:
    image, corners, _ = board
    means = []
    for tone in (1, 5, 10):
        hand = add_hand(image, corners, SHAPE, 0.2, np.random.default_rng(4), tone, "", "bottom")
        means.append(float(hand.image[hand.mask].mean()))
    assert means[0] > means[1] > means[2] and means[0] - means[2] > 100, means


def test_a_hand_placed_from_every_edge_and_sleeve_stays_in_the_frame(board) -> None:
    image, corners, _ = board
    for index, (edge, sleeve) in enumerate(zip(EDGES, SLEEVES_BGR, strict=False)):
        hand = add_hand(image, corners, SHAPE, 0.15, np.random.default_rng(index), None, sleeve, edge)
        assert hand.image.shape == image.shape and 0.05 < hand.scene.coverage < 0.3, hand.scene
        border = np.concatenate([hand.mask[0], hand.mask[-1], hand.mask[:, 0], hand.mask[:, -1]])
        assert border.any(), f"{hand.scene}: the arm does not come in from outside the frame"


def test_cells_matching_renames_colours_and_scores_add_up() -> None:
    truth = ["....", "..RY", ".YRR"]
    swapped = ["....", "..YR", ".RYY"]  # the reader called the colours the other way round
    assert cells_matching(swapped, truth).all()
    read_rows = ["....", "....", ".YRR"]  # two discs missed
    confidence = np.array([[1.0] * 4, [1.0, 1.0, 0.95, 0.5], [1.0] * 4])
    covered = np.zeros((3, 4), bool)
    score = score_cells(read_rows, truth, confidence, covered)
    assert int((~score.right).sum()) == 2 and int(score.sure_wrong.sum()) == 1 and int(score.unsure.sum()) == 1
    assert not score.is_honest and not score.is_fully_right
    covered[1, 2] = True
    honest = score_cells(read_rows, truth, confidence, covered, hidden_top_first=covered * 0.8)
    assert honest.is_honest and honest.has_hand and honest.is_hand_named and honest.hidden_read_as_seen == 0
    alarm = score_cells(read_rows, truth, confidence, covered)  # covered with nothing in front
    assert alarm.falsely_covered == 1 and honest.falsely_covered == 0 and not alarm.has_hand
    assert (score.visible_unsure, honest.visible_unsure, alarm.visible_unsure) == (1, 1, 2)
    summed = tally([score, honest])
    assert (summed.cells, summed.right, summed.sure_wrong, summed.honest, summed.hands_named) == (24, 20, 1, 1, 1)
    bins, covered_bin = reliability_curve([score, honest])
    assert sum(b.cells for b in bins) + covered_bin.cells == 24
    assert sum(b.wrong for b in bins if b.low >= SURE) == 1 and covered_bin.wrong == 1
    with pytest.raises(ValueError, match="cannot be checked"):
        cells_matching(["..."], truth)


def test_change_names_are_checked() -> None:
    assert change_names(None) == list(CHANGES)
    assert change_names(" light 45%, hand 5-15%") == ["light 45%", "hand 5-15%"]
    with pytest.raises(ValueError, match="choose from"):
        change_names("light 10%")


def test_two_real_photos_under_two_changes_score_consistently(shared_dir: Path) -> None:
    folder = shared_dir / "vision" / "photos"
    if not (folder / "corners.txt").is_file():
        pytest.skip(f"no labelled photos with corners in {folder}")
    labels, corners = parse_labels(folder / "labels.txt"), parse_corners_file(folder / "corners.txt")
    photos = []
    for name in ("ts03.jpg", "mj01.jpg"):
        image, fitted = fit_within(load_image(folder / name), np.asarray(corners[name]), (640, 480))
        photos.append(LabelledPhoto(name, image, labels[name], fitted))
    trials = list(run_trials(photos, ["none", "hand 15-25%"], ["corners"], seed=0))
    assert [(t.photo, t.change) for t in trials] == [
        ("ts03.jpg", "none"),
        ("mj01.jpg", "none"),
        ("ts03.jpg", "hand 15-25%"),
        ("mj01.jpg", "hand 15-25%"),
    ]
    for trial in trials:
        score = trial.score
        assert score.right.shape == score.confidence.shape == score.covered.shape == SHAPE
        assert not (score.sure_wrong & score.right).any() and not (score.sure_wrong & score.unsure).any()
        assert (trial.hand != "") == (trial.change != "none") == score.has_hand


def test_a_photo_without_corners_takes_every_change_but_a_hand(board) -> None:
    image = board[0]
    for name in CHANGES:
        if name in HANDS:
            with pytest.raises(ValueError, match="needs the corners"):
                apply_change(name, image, None, SHAPE, 0)
        else:
            assert apply_change(name, image, None, SHAPE, 0).corners is None, name


def test_a_hand_can_hold_a_disc_in_front_of_the_board(board) -> None:
    image, corners, _ = board
    plain = add_hand(image, corners, SHAPE, 0.15, np.random.default_rng(2), 10, "", "right")
    holding = add_hand(image, corners, SHAPE, 0.15, np.random.default_rng(2), 10, "", "right", held_disc="yellow")
    pitch_px = np.linalg.norm(corners[1] - corners[0]) / 6

    def yellow_px(hand) -> int:
        pixels = hand.image[hand.mask].astype(int)
        return int(((pixels[:, 2] > 150) & (pixels[:, 1] > 120) & (pixels[:, 0] < 100)).sum())

    assert yellow_px(plain) == 0 and yellow_px(holding) > 0.2 * np.pi * (0.4 * pitch_px) ** 2
    assert "holding a yellow disc" in str(holding.scene)
