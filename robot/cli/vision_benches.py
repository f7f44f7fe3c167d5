"""`c4robot bench vision photos|degrade|calibrated`: how well the reader reads a folder of labelled photos.

photos: cells right per photo, found automatically and with its corners, and the time per frame. degrade: the
same photos under the image changes of vision.degrade, scored by vision.reliability. calibrated: read as a real
game reads them, with the corners and the colours `calibrate colours` records (robot.cli.vision_calibrated_bench).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

from robot.cli.common import COMMON, bounded_int
from robot.cli.photo_files import (
    DEFAULT_PHOTOS,
    cells_right,
    format_grid_rows,
    load_image,
    load_labelled_photos,
    write_image_atomically,
)

BENCH_FRAME_SIZE_PX = (640, 480)
BENCH_REPEATS = 3


def _photo_folder(defaults: bool) -> argparse.ArgumentParser:
    """The options naming the labelled photos. On `bench vision` itself they have their defaults; on a mode they
    are suppressed unless given, so `bench vision --photos DIR degrade` and `bench vision degrade --photos DIR`
    agree."""
    folder = argparse.ArgumentParser(add_help=False)
    default = {} if defaults else {"default": argparse.SUPPRESS}
    folder.add_argument(
        "--photos",
        type=Path,
        help=f"folder of photos (default {DEFAULT_PHOTOS})",
        **(default or {"default": DEFAULT_PHOTOS}),
    )
    folder.add_argument("--labels", type=Path, help="labels file (default PHOTOS/labels.txt)", **default)
    folder.add_argument(
        "--corners-file", type=Path, help="corner holes per photo (default PHOTOS/corners.txt)", **default
    )
    return folder


def register_benches(bench_targets: argparse._SubParsersAction) -> None:
    """Add `bench vision` and its modes (photos when none is named)."""
    from robot.cli.vision_calibrated_bench import register_calibrated
    from robot.cli.vision_makes_bench import register_makes

    vision = bench_targets.add_parser(
        "vision",
        parents=[COMMON, _photo_folder(defaults=True)],
        help="how well labelled photos are read: photos (default), degrade, calibrated",
    )
    vision.set_defaults(run=run_photos_bench)
    modes = vision.add_subparsers(dest="vision_mode", metavar="MODE")
    folder = _photo_folder(defaults=False)
    modes.add_parser(
        "photos",
        parents=[COMMON, folder],
        help="cells read right per photo, automatically and with corners; time per frame",
    ).set_defaults(run=run_photos_bench)
    degrade = modes.add_parser(
        "degrade",
        parents=[COMMON, folder],
        help="every photo under each image change (downscale, JPEG, noise, blur, rotation, white balance, dim "
        "light, hands): photos right, cells right, unsure, wrong at >= 0.9 confidence",
    )
    degrade.add_argument(
        "--changes", help='comma-separated image changes, e.g. "light 45%%,hand 15-25%%" (default all)'
    )
    degrade.add_argument(
        "--mode",
        choices=("auto", "corners", "both"),
        default="both",
        help="find the board (auto), give the photo's corners (corners), or both (default)",
    )
    degrade.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0, help="seed of the changes (default 0)")
    degrade.add_argument("--json", action="store_true", help="print the figures as JSON")
    degrade.add_argument("--write-images", metavar="DIR", type=Path, help="also save each changed photo in DIR")
    degrade.set_defaults(run=run_degrade_bench)
    register_calibrated(modes, folder)
    register_makes(modes)


def _time_per_frame_ms(image, shape, corners) -> float:
    import vision

    started = time.perf_counter()
    for _ in range(BENCH_REPEATS):
        vision.read(image, shape=shape, corners=corners)
    return (time.perf_counter() - started) / BENCH_REPEATS * 1000


def run_photos_bench(args: argparse.Namespace) -> int:
    """Every labelled photo read automatically and with its corners: cells right, time per 640x480 frame."""
    import cv2
    import numpy as np

    import vision

    photos, labels, corners = load_labelled_photos(args)
    print(f"{'photo':<12} {'size':>9} {'auto':>6} {'corners':>8} {'auto ms':>8} {'corners ms':>11}")
    totals = {"auto": 0, "corners": 0, "auto_full": 0, "corners_full": 0, "photos": 0}
    frame_ms = {"auto": [], "corners": []}
    for name, truth in sorted(labels.items()):
        image = load_image(photos / name)
        shape = (len(truth), len(truth[0]))
        automatic = vision.read(image, shape=shape)
        auto_right = cells_right(format_grid_rows(automatic.grid, automatic.colour_names), truth)
        row = f"{name:<12} {image.shape[1]:>4}x{image.shape[0]:<4} {auto_right:>3}/{shape[0] * shape[1]}"
        totals["auto"] += auto_right
        totals["auto_full"] += auto_right == shape[0] * shape[1]
        if name in corners:
            given = vision.read(image, shape=shape, corners=corners[name])
            given_right = cells_right(format_grid_rows(given.grid, given.colour_names), truth)
            totals["corners"] += given_right
            totals["corners_full"] += given_right == shape[0] * shape[1]
            row += f" {given_right:>5}/{shape[0] * shape[1]} {automatic.elapsed_s * 1000:>8.1f} {given.elapsed_s * 1000:>11.1f}"
        else:
            row += f" {'-':>8} {automatic.elapsed_s * 1000:>8.1f} {'-':>11}"
        print(row)
        totals["photos"] += 1
        scale = min(BENCH_FRAME_SIZE_PX[0] / image.shape[1], BENCH_FRAME_SIZE_PX[1] / image.shape[0])
        frame = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        canvas = np.zeros((BENCH_FRAME_SIZE_PX[1], BENCH_FRAME_SIZE_PX[0], 3), np.uint8)
        canvas[: frame.shape[0], : frame.shape[1]] = frame
        frame_ms["auto"].append(_time_per_frame_ms(canvas, shape, None))
        if name in corners:
            frame_ms["corners"].append(_time_per_frame_ms(canvas, shape, np.asarray(corners[name]) * scale))
    count = totals["photos"]
    cells = sum(len(t) * len(t[0]) for t in labels.values())
    print(
        f"automatic:    {totals['auto_full']}/{count} photos fully right, {totals['auto']}/{cells} cells "
        f"({100 * totals['auto'] / max(cells, 1):.1f}%)"
    )
    if corners:
        print(
            f"with corners: {totals['corners_full']}/{len(frame_ms['corners'])} photos fully right, "
            f"{totals['corners']} cells"
        )
    for kind, values in frame_ms.items():
        if values:
            print(
                f"640x480 frame, {'localisation' if kind == 'auto' else 'corners known'}: "
                f"median {np.median(values):.1f} ms, max {np.max(values):.1f} ms"
            )
    return 0


def _degraded_photo_writer(folder: Path):
    """Saves each changed photo as FOLDER/<photo>_<change>.png (the folder made when missing)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OSError(f"--write-images {folder}: the folder cannot be made ({error.strerror or error})") from None

    def write(photo, change: str, degraded) -> None:
        slug = "".join(c if c.isalnum() else "_" for c in change).strip("_")
        write_image_atomically(folder / f"{Path(photo.name).stem}_{slug}.png", degraded.image)

    return write


def run_degrade_bench(args: argparse.Namespace) -> int:
    """The labelled photos under every image change: a row per change and mode, the reliability curve,
    and the photos read wrong at >= 0.9 confidence (or all of it as JSON). Exit status 1 unless no cell is
    wrong at >= 0.9 and every hand is named (the issue's "done when")."""
    import dataclasses

    import numpy as np

    from vision.degrade import WEBCAM_SIZE_PX, change_names, fit_within
    from vision.reliability import SURE, TALLY_HEADER, LabelledPhoto, reliability_curve, run_trials, tally

    changes = change_names(args.changes)
    photos, labels, corners = load_labelled_photos(args)
    modes = ["auto", "corners"] if args.mode == "both" else [args.mode]
    without_corners = sorted(set(labels) - set(corners))
    if args.mode == "corners" and len(without_corners) == len(labels):
        raise FileNotFoundError(
            f"--mode corners needs the corner holes of the photos: no photo of {photos} has a line in corners.txt "
            "('photo.jpg x,y x,y x,y x,y', centres of the tl tr br bl holes)"
        )
    labelled = []
    for name in sorted(labels):
        known = np.asarray(corners[name]) if name in corners else None
        image, fitted = fit_within(load_image(photos / name), known, WEBCAM_SIZE_PX)
        labelled.append(LabelledPhoto(name, image, labels[name], fitted))
    writer = _degraded_photo_writer(args.write_images) if args.write_images else None
    if not args.json:
        print(
            f"vision under image changes: {len(labelled)} photos of {photos}, each fitted within "
            f"{WEBCAM_SIZE_PX[0]}x{WEBCAM_SIZE_PX[1]}, seed {args.seed}"
        )
        if without_corners:
            print(f"without corners in corners.txt (read automatically, no hands): {', '.join(without_corners)}")
        print(
            f"  unsure: confidence < {SURE} or covered; wrong@0.9: wrong at >= {SURE} (must be 0); honest: every wrong"
            " cell unsure\n  hand named: covered holes under the hand (or a problem saying so); hidden seen: holes half"
            " hidden yet read as seen\n  unsure visible: unsure holes nothing hides; false cover: covered holes nothing"
            " hides; ms: median per frame"
        )
        print(TALLY_HEADER, flush=True)
    trials, rows = [], []
    for change, mode in itertools.product(changes, modes):  # a row as soon as it is measured
        batch = list(run_trials(labelled, [change], [mode], args.seed, writer if mode == modes[0] else None))
        if not batch:  # hands, or corners given, and no photo has corners
            if not args.json:
                print(f"{change:<16} {mode:<7} no photo with corners")
            continue
        summary, median_ms = tally([t.score for t in batch]), float(np.median([t.elapsed_ms for t in batch]))
        rows.append({"change": change, "mode": mode, **dataclasses.asdict(summary), "median_ms": median_ms})
        trials += batch
        if not args.json:
            print(summary.row(change, mode, median_ms), flush=True)
    bins, covered = reliability_curve([t.score for t in trials])
    wrong = [t for t in trials if t.score.sure_wrong.any()]
    unnamed = [t for t in trials if t.score.has_hand and not t.score.is_hand_named]
    is_trustworthy = not wrong and not unnamed
    if args.json:
        print(
            json.dumps(
                {
                    "photos": str(photos),
                    "photo_count": len(labelled),
                    "without_corners": without_corners,
                    "frame_px": list(WEBCAM_SIZE_PX),
                    "seed": args.seed,
                    "is_trustworthy": is_trustworthy,
                    "rows": rows,
                    "reliability": [dataclasses.asdict(b) for b in bins],
                    "covered": dataclasses.asdict(covered),
                    "trials": [t.summary() for t in trials],
                }
            )
        )
        return 0 if is_trustworthy else 1
    print(f"\nreliability over all {len(trials)} readings: confidence bin, cells, wrong")
    for confidence_bin in bins:
        closing = "]" if confidence_bin.high == 1.0 else ")"
        share = 100 * confidence_bin.wrong / max(confidence_bin.cells, 1)
        print(
            f"  [{confidence_bin.low:.2f}, {confidence_bin.high:.2f}{closing} {confidence_bin.cells:>7} "
            f"{confidence_bin.wrong:>6} ({share:.1f}%)"
        )
    print(f"  covered      {covered.cells:>7} {covered.wrong:>6} (their grid value is a guess)")
    print(
        f"\nwrong at >= {SURE} confidence: {sum(int(t.score.sure_wrong.sum()) for t in wrong)} cells in {len(wrong)} readings"
    )
    for trial in wrong:
        said = f"; said: {trial.problems[0]}" if trial.problems else ""
        hand = f" [{trial.hand}]" if trial.hand else ""
        print(
            f"  {trial.change:<16} {trial.mode:<7} {trial.photo}: {int(trial.score.sure_wrong.sum())} cells{hand}{said}"
        )
    if unnamed:
        print(f"\nhands not named: {len(unnamed)} readings")
        for trial in unnamed:
            print(f"  {trial.change:<16} {trial.mode:<7} {trial.photo}: {trial.hand}")
    print("\ntrustworthy: no cell wrong at >= 0.9, every hand named" if is_trustworthy else "\nnot yet trustworthy")
    return 0 if is_trustworthy else 1
