"""`c4robot bench vision calibrated`: the labelled photos read as a real game reads them.

A real table reads every frame with the corners from `calibrate board` and the disc colours from `calibrate
colours`, and the colours depend on which two discs the person shows the step and on the light since. So each
photo is calibrated from every pair of its bottom-row discs of two colours that the colour step accepts
(calibration.colours.colours_from_discs, the holes the label says are empty as the empty reference), and read with
each pair's colours under each light drift after calibration (vision.degrade.DRIFTS). The worst pair counts: a photo is fully right only if every accepted pair
reads it fully right. The colours are named as the step named them, so a reading that swaps the robot's and the
person's colours is wrong, not renamed into right. A photo of an empty board, which has no pair of its own, is
read with the pairs of the other photos of its set, as a game starts from an earlier calibration.

`--as-game` reads each photo as well as the game's watcher does (robot.game.watcher): it knows the board but its
last disc, its colour model learns from the photo as taken, and the frame it then reads has drifted; the light
changes it names (EventKind.LIGHT_CHANGED) are counted.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from robot.cli.common import COMMON
from robot.cli.photo_files import load_image, load_labelled_photos

if TYPE_CHECKING:  # numpy loads where it is used: building the CLI's parser must not load it
    import numpy as np


def register_calibrated(modes: argparse._SubParsersAction, folder: argparse.ArgumentParser) -> None:
    """Add the `calibrated` mode of `bench vision`."""
    calibrated = modes.add_parser(
        "calibrated",
        parents=[COMMON, folder],
        help="every photo read with its corners and the colours the colour step records from each disc pair it "
        "accepts, under light drifting after calibration: photos right, cells right, unsure, wrong at >= 0.9",
    )
    calibrated.add_argument(
        "--drifts", help='comma-separated light drifts, e.g. "none,exposure -20%%,warm light" (default all)'
    )
    calibrated.add_argument(
        "--as-game",
        action="store_true",
        help="also read each photo as a game's watcher does: colours learnt from the board it knows (the photo but "
        "its last disc) in the calibration's light, then the light drifts",
    )
    calibrated.add_argument("--json", action="store_true", help="print the figures as JSON")
    calibrated.set_defaults(run=run_calibrated_bench)


@dataclass(frozen=True)
class PhotoResult:
    """One photo under one drift: the worst of its accepted pairs, and the cold reading with corners."""

    photo: str
    pairs: int
    pairs_fully_right: int
    worst_pair: str
    right: int
    unsure: int
    sure_wrong: int
    cold_right: int
    cold_unsure: int
    cold_sure_wrong: int
    cells: int


@dataclass(frozen=True)
class Calibration:
    """The colours the step recorded from one pair of discs (robot's first) and their letters in the labels."""

    pair: str
    colours: tuple[tuple[float, ...], tuple[float, ...]]
    names: tuple[str, str]


@dataclass(frozen=True)
class CalibratedPhoto:
    """A photo fitted within the webcam's frame, its corners, its label and the colours of each accepted pair."""

    name: str
    image: np.ndarray
    corners: np.ndarray
    truth: list[str]
    calibrations: list[Calibration]
    refused: int


def calibrated_photo(name: str, image: np.ndarray, corners: np.ndarray, truth: list[str]) -> CalibratedPhoto:
    """The photo calibrated from every pair of bottom-row discs of two colours (columns a < b, a the robot's), the
    holes its label says are empty as the empty reference; `refused` counts the pairs the colour step refuses."""
    from calibration.colours import colours_from_discs
    from calibration.failures import CalibrationFailedError
    from calibration.store import BoardCalibration

    board = BoardCalibration(rows=len(truth), cols=len(truth[0]), corners_px=tuple(map(tuple, corners)))
    bottom = truth[-1]
    empty = [
        (len(truth) - 1 - row, col) for row, line in enumerate(truth) for col, cell in enumerate(line) if cell == "."
    ]
    calibrations, refused = [], 0
    for robot, person in itertools.combinations(range(len(bottom)), 2):
        if "." in (bottom[robot], bottom[person]) or bottom[robot] == bottom[person]:
            continue
        try:
            step = colours_from_discs(image, board, [(0, robot)], [(0, person)], empty)
        except CalibrationFailedError:
            refused += 1
            continue
        names = (bottom[robot], bottom[person])
        calibrations.append(Calibration(f"{robot + 1},{person + 1}", (step.robot_bgr, step.person_bgr), names))
    return CalibratedPhoto(name, image, corners, truth, calibrations, refused)


def lent_calibrations(photos: list[CalibratedPhoto]) -> list[CalibratedPhoto]:
    """The photos, those without a pair of their own (an empty board) given the pairs of the other photos of their
    set (the name's letters before its number: the same board and discs), or of every photo: the colours of an
    earlier calibration, which a game starts from."""
    lenders = [photo for photo in photos if photo.calibrations]

    def lent(photo: CalibratedPhoto) -> list[Calibration]:
        family = [other for other in lenders if _set_of(other.name) == _set_of(photo.name)]
        return [
            dataclasses.replace(calibration, pair=f"{other.name} {calibration.pair}")
            for other in family or lenders
            for calibration in other.calibrations
        ]

    return [photo if photo.calibrations else dataclasses.replace(photo, calibrations=lent(photo)) for photo in photos]


def _set_of(name: str) -> str:
    """The letters a photo's name starts with: photos of one set (ts01, ts02) show one board and its discs."""
    return re.match(r"[^\W\d_]*", name).group()


def _scored(reading, truth: list[str], names: tuple[str, str] | None):
    """The reading scored against the label: with `names` (the step's letters) as named, else under the best
    renaming of the read colours (a cold reading only has to tell the two apart)."""
    import numpy as np

    from vision.reliability import CellScore, letter_rows, score_reading

    if names is None:
        return score_reading(reading, truth)
    read_rows = letter_rows(reading.grid, names)
    right = np.array([list(row) for row in read_rows]) == np.array([list(row) for row in truth])
    covered = reading.covered_holes[::-1]
    return CellScore(right=right, confidence=reading.confidence[::-1], covered=covered, is_found=reading.is_board_found)


def photo_under_drift(photo: CalibratedPhoto, drift: str, cpu_ms: list[float] | None = None) -> PhotoResult:
    """Read the photo under `drift` with each accepted pair's colours and cold with its corners; the worst pair
    (most cells wrong at >= 0.9, then fewest right, then most unsure) counts. Adds each calibrated read's CPU time
    to `cpu_ms` when given."""

    import vision
    from vision.degrade import DRIFTS

    frame = DRIFTS[drift](photo.image)
    shape = (len(photo.truth), len(photo.truth[0]))
    scores = {}
    for calibration in photo.calibrations:
        started = time.process_time()
        reading = vision.read(frame, shape=shape, corners=photo.corners, colours=calibration.colours)
        if cpu_ms is not None:
            cpu_ms.append((time.process_time() - started) * 1000)
        scores[calibration.pair] = _scored(reading, photo.truth, calibration.names)
    cold = _scored(vision.read(frame, shape=shape, corners=photo.corners), photo.truth, None)
    return _worst_pair(photo.name, scores, cold)


def photo_in_game(photo: CalibratedPhoto, drift: str, cpu_ms: list[float]) -> tuple[PhotoResult, int]:
    """The photo read as the game's watcher reads it, with each accepted pair's colours: the game knows the board
    but its last disc and has learnt the colours from the photo as taken; the frame read has drifted. The worst pair
    counts; also how many pairs' readings had the change of light named. Adds the CPU time of each drifted frame's
    look (with its re-learning) to `cpu_ms`."""
    import numpy as np

    from robot.game.watcher import BoardUnseenError, BoardWatcher
    from vision.cameras import StillCamera
    from vision.degrade import DRIFTS

    shape = (len(photo.truth), len(photo.truth[0]))
    letters = np.array([list(row) for row in photo.truth[::-1]])  # row 0 at the bottom
    scores, named = {}, 0
    for calibration in photo.calibrations:
        robot, person = calibration.names
        first, second = (robot, person) if (letters == robot).sum() >= (letters == person).sum() else (person, robot)
        grid = np.where(letters == first, 1, np.where(letters == second, 2, 0)).astype(np.int8)
        colours = calibration.colours if first == robot else calibration.colours[::-1]
        known = _before_last_disc(grid)
        said: list = []
        watcher = BoardWatcher(StillCamera(photo.image), shape, photo.corners, colours, stable_frames=1)
        watcher.notify = lambda kind, **params: said.append(kind)  # noqa: B023 (read before the next pair)
        watcher.know(known)
        for is_drifted, frame in enumerate((photo.image, DRIFTS[drift](photo.image))):
            watcher.camera.show(frame)
            started = time.process_time()
            with contextlib.suppress(BoardUnseenError):  # the reading is scored as it is
                watcher.look(1.0)
            if is_drifted:
                cpu_ms.append((time.process_time() - started) * 1000)
            else:
                watcher.know(known)
        reading = watcher.last_reading
        named += any(kind == "light_changed" for kind in said)
        scores[calibration.pair] = _scored(reading, photo.truth, (first, second))
    return _worst_pair(photo.name, scores), named


def _before_last_disc(grid: np.ndarray) -> np.ndarray:
    """The board a move before `grid` (players' values, row 0 at the bottom): a top disc of the player who moved
    last taken out (the board as it is when no top disc is theirs)."""

    last = 1 if (grid == 1).sum() > (grid == 2).sum() else 2
    heights = (grid != 0).sum(axis=0)
    for column in range(grid.shape[1]):
        if heights[column] and grid[heights[column] - 1, column] == last:
            before = grid.copy()
            before[heights[column] - 1, column] = 0
            return before
    return grid.copy()


def _worst_pair(name: str, scores: dict, cold=None) -> PhotoResult:
    """The photo's result by its worst pair (most cells wrong at >= 0.9, then fewest right, then most unsure), with
    the cold reading's figures beside it (the worst pair's again where there is none)."""
    worst = max(
        scores,
        key=lambda pair: (
            int(scores[pair].sure_wrong.sum()),
            -int(scores[pair].right.sum()),
            int(scores[pair].unsure.sum()),
        ),
    )
    cold = cold or scores[worst]
    return PhotoResult(
        photo=name,
        pairs=len(scores),
        pairs_fully_right=sum(score.is_fully_right for score in scores.values()),
        worst_pair=worst,
        right=int(scores[worst].right.sum()),
        unsure=int(scores[worst].unsure.sum()),
        sure_wrong=int(scores[worst].sure_wrong.sum()),
        cold_right=int(cold.right.sum()),
        cold_unsure=int(cold.unsure.sum()),
        cold_sure_wrong=int(cold.sure_wrong.sum()),
        cells=int(scores[worst].right.size),
    )


def drift_row(drift: str, results: list[PhotoResult]) -> dict:
    """The figures of one drift over every photo (worst pair per photo), with the cold reading's beside them."""
    return {
        "drift": drift,
        "photos": len(results),
        "pairs": sum(r.pairs for r in results),
        "pairs_fully_right": sum(r.pairs_fully_right for r in results),
        "fully_right": sum(r.right == r.cells for r in results),
        "right": sum(r.right for r in results),
        "cells": sum(r.cells for r in results),
        "unsure": sum(r.unsure for r in results),
        "sure_wrong": sum(r.sure_wrong for r in results),
        "cold_fully_right": sum(r.cold_right == r.cells for r in results),
        "cold_unsure": sum(r.cold_unsure for r in results),
        "cold_sure_wrong": sum(r.cold_sure_wrong for r in results),
    }


HEADER = (
    f"{'drift':<15} {'pairs right':>12} {'photos right':>13} {'cells right':>12} {'unsure':>7} {'wrong@0.9':>10}"
    f"   cold with corners: {'photos':>6} {'unsure':>7} {'wrong@0.9':>10}"
)


def _printed_row(row: dict) -> str:
    return (
        f"{row['drift']:<15} {row['pairs_fully_right']:>5}/{row['pairs']:<6} {row['fully_right']:>6}/{row['photos']:<6} "
        f"{row['right']:>6}/{row['cells']:<5} {row['unsure']:>7} {row['sure_wrong']:>10}"
        f"   {'':>19}{row['cold_fully_right']:>3}/{row['photos']:<3} {row['cold_unsure']:>6} {row['cold_sure_wrong']:>10}"
    )


GAME_HEADER = (
    f"{'drift':<15} {'pairs right':>12} {'photos right':>13} {'cells right':>12} {'unsure':>7} {'wrong@0.9':>10}"
    f" {'light named':>12}"
)


def _printed_game_row(row: dict) -> str:
    return _printed_row(row)[: len(GAME_HEADER) - 13] + f" {row['light_named']:>12}"


def failure_line(drift: str, result: PhotoResult) -> str:
    """A photo not fully right under a drift, with its worst pair."""
    return (
        f"  {drift:<15} {result.photo}: pair {result.worst_pair} {result.right}/{result.cells} right, "
        f"{result.sure_wrong} wrong at >= 0.9"
    )


def run_calibrated_bench(args: argparse.Namespace) -> int:
    """Exit status 1 unless no cell is read wrong at >= 0.9 with any accepted pair under any drift."""
    import numpy as np

    from vision.degrade import DRIFTS, WEBCAM_SIZE_PX, change_names, fit_within

    drifts = change_names(args.drifts, tuple(DRIFTS), "light drifts")
    photos, labels, corners = load_labelled_photos(args)
    if not set(labels) & set(corners):
        raise FileNotFoundError(
            f"no photo of {photos} has its corner holes in corners.txt: the calibrated reading starts from them "
            "('photo.jpg x,y x,y x,y x,y', centres of the tl tr br bl holes)"
        )
    calibrated = []
    for name in sorted(set(labels) & set(corners)):
        image, fitted = fit_within(load_image(photos / name), np.asarray(corners[name]), WEBCAM_SIZE_PX)
        calibrated.append(calibrated_photo(name, image, fitted, labels[name]))
    unpaired = [photo.name for photo in calibrated if not photo.calibrations]
    if len(unpaired) == len(calibrated):
        raise ValueError(
            f"no photo of {photos} has discs of both colours in its bottom row that the colour step accepts: "
            "the calibrated reading needs one pair at least"
        )
    accepted = sum(len(photo.calibrations) for photo in calibrated)
    calibrated = lent_calibrations(calibrated)
    if not args.json:
        print(
            f"vision with calibrated corners and colours: {len(calibrated)} photos of {photos}, each fitted within "
            f"{WEBCAM_SIZE_PX[0]}x{WEBCAM_SIZE_PX[1]}; {accepted} disc pairs "
            f"accepted by the colour step, {sum(p.refused for p in calibrated)} refused"
        )
        if unpaired:
            print(f"no pair of their own (read with the pairs of their set's photos): {', '.join(unpaired)}")
        print("  worst accepted pair per photo; unsure: confidence < 0.9 or covered; wrong@0.9: must be 0")
        print(HEADER, flush=True)
    rows, failures, cpu_ms = [], [], []
    for drift in drifts:
        results = [photo_under_drift(photo, drift, cpu_ms if drift == "none" else None) for photo in calibrated]
        row = drift_row(drift, results)
        rows.append(row)
        failures += [(drift, r) for r in results if r.sure_wrong or r.right < r.cells]
        if not args.json:
            print(_printed_row(row), flush=True)
    game_rows, game_cpu_ms = [], []
    if args.as_game:
        if not args.json:
            print("\nas a game reads: colours learnt from the board it knows but the last disc, then the light drifts")
            print(GAME_HEADER, flush=True)
        for drift in drifts:
            outcomes = [photo_in_game(photo, drift, game_cpu_ms) for photo in calibrated]
            row = {**drift_row(drift, [result for result, _ in outcomes]), "light_named": sum(n for _, n in outcomes)}
            game_rows.append(row)
            failures += [(f"game {drift}", r) for r, _ in outcomes if r.sure_wrong or r.right < r.cells]
            if not args.json:
                print(_printed_game_row(row), flush=True)
    median_ms = float(np.median(cpu_ms)) if cpu_ms else None
    is_trustworthy = not any(row["sure_wrong"] for row in rows + game_rows)
    if args.json:
        print(
            json.dumps(
                {
                    "photos": str(photos),
                    "unpaired": unpaired,
                    "rows": rows,
                    "game_rows": game_rows,
                    "median_cpu_ms": median_ms,
                    "game_median_cpu_ms": float(np.median(game_cpu_ms)) if game_cpu_ms else None,
                    "is_trustworthy": is_trustworthy,
                    "failures": [{"drift": d, **dataclasses.asdict(r)} for d, r in failures],
                }
            )
        )
        return 0 if is_trustworthy else 1
    if median_ms is not None:
        print(f"\ncalibrated read, no drift: median CPU {median_ms:.1f} ms per frame ({len(cpu_ms)} reads)")
    if game_cpu_ms:
        print(
            f"as a game reads, every drift: median CPU {np.median(game_cpu_ms):.1f} ms per frame, 90th percentile "
            f"{np.percentile(game_cpu_ms, 90):.1f} ms ({len(game_cpu_ms)} frames)"
        )
    if failures:
        print("\nphotos not fully right with their worst pair (robot's column, person's column, 1-based):")
    for drift, result in failures:
        print(failure_line(drift, result))
    print("\ntrustworthy: no cell wrong at >= 0.9" if is_trustworthy else "\nnot yet trustworthy")
    return 0 if is_trustworthy else 1
