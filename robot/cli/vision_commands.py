"""`c4robot read IMAGE` (read a photo of a board) and `c4robot bench vision` (cells right per labelled photo;
with --degrade, the same photos under the image changes of vision.degrade, scored by vision.reliability)."""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import tempfile
import time
from pathlib import Path

from robot.cli.common import COMMON, bounded_int, quoted

DEFAULT_PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "vision" / "photos"
BENCH_FRAME_SIZE_PX = (640, 480)
BENCH_REPEATS = 3


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `read` and the `vision` benchmark."""
    read = commands.add_parser("read", parents=[COMMON], help="read the board in a photo")
    read.add_argument("image", help="photo of the board (any format OpenCV reads)")
    read.add_argument("--corners", help='centres of the tl, tr, br, bl holes in px: "x,y x,y x,y x,y"')
    read.add_argument("--rows", type=bounded_int(4, 12), default=6, help="rows of holes (default 6)")
    read.add_argument("--cols", type=bounded_int(4, 12), default=7, help="columns of holes (default 7)")
    read.add_argument("--json", action="store_true", help="print JSON instead of the board")
    read.add_argument("--overlay", metavar="OUT.png", help="also write a picture of what was seen")
    read.set_defaults(run=run_read)

    bench = bench_targets.add_parser(
        "vision", parents=[COMMON], help="cells read right per labelled photo, time per frame"
    )
    bench.add_argument(
        "--photos", type=Path, default=DEFAULT_PHOTOS, help=f"folder of photos (default {DEFAULT_PHOTOS})"
    )
    bench.add_argument("--labels", type=Path, help="labels file (default PHOTOS/labels.txt)")
    bench.add_argument("--corners-file", type=Path, help="corner holes per photo (default PHOTOS/corners.txt)")
    bench.add_argument(
        "--degrade",
        action="store_true",
        help="read every photo under each image change (downscale, JPEG, noise, blur, rotation, white balance, "
        "dim light, hands): photos right, cells right, unsure, wrong at >= 0.9 confidence",
    )
    bench.add_argument(
        "--changes", help='with --degrade: comma-separated changes, e.g. "light 45%%,hand 15-25%%" (default all)'
    )
    bench.add_argument(
        "--mode",
        choices=("auto", "corners", "both"),
        default="both",
        help="with --degrade: find the board (auto), give the photo's corners (corners), or both (default)",
    )
    bench.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0, help="with --degrade: seed of the changes")
    bench.add_argument("--json", action="store_true", help="with --degrade: print the figures as JSON")
    bench.add_argument("--write-images", metavar="DIR", type=Path, help="with --degrade: also save each changed photo")
    bench.set_defaults(run=run_bench)


def parse_corners(text: str) -> list[list[float]]:
    """'x,y x,y x,y x,y' -> four [x, y] points (tl, tr, br, bl)."""
    try:
        points = [[float(value) for value in pair.split(",")] for pair in text.replace(";", " ").split()]
    except ValueError:
        points = []
    if len(points) != 4 or any(len(point) != 2 or not all(math.isfinite(v) for v in point) for point in points):
        raise ValueError(f'--corners {quoted(text)} is not four x,y points: give "x,y x,y x,y x,y" (tl tr br bl)')
    return points


def load_image(path: str | Path):
    """The image as a BGR array; FileNotFoundError/OSError with one sentence when it cannot be read."""
    import cv2

    if not Path(path).is_file():
        raise FileNotFoundError(f"image {path} does not exist: give the path of a photo")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise OSError(f"image {path} could not be read: give a JPEG or PNG photo")
    return image


def write_image_atomically(path: str | Path, image) -> None:
    """Write an image via a temporary file in the same folder and os.replace."""
    import cv2

    target = Path(path)
    suffix = target.suffix or ".png"
    check_image_suffix(path)
    ok, encoded = cv2.imencode(suffix, image)
    if not ok:
        raise ValueError(f"overlay {path} has an extension OpenCV cannot write: use .png or .jpg")
    handle, temporary = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".", suffix=suffix)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(encoded.tobytes())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_image_suffix(path: str | Path) -> None:
    """ValueError naming the file when OpenCV cannot write its extension (checked before any work is done)."""
    import cv2

    if not cv2.haveImageWriter(f"x{Path(path).suffix or '.png'}"):
        raise ValueError(f"overlay {quoted(str(path))} has an extension OpenCV cannot write: use .png or .jpg")


def run_read(args: argparse.Namespace) -> int:
    import vision
    from vision.overlay import draw_reading

    corners = parse_corners(args.corners) if args.corners else None
    if args.overlay:
        check_image_suffix(args.overlay)
    image = load_image(args.image)
    reading = vision.read(image, shape=(args.rows, args.cols), corners=corners)
    if args.overlay:
        write_image_atomically(args.overlay, draw_reading(image, reading))
    rows = format_grid_rows(reading.grid, reading.colour_names)
    if args.json:
        summary = {
            "grid": rows,
            "colors": list(reading.colour_names),
            "corners": None if reading.corners is None else [[round(float(v), 1) for v in p] for p in reading.corners],
            "confidence": [[round(float(v), 3) for v in row] for row in reading.confidence[::-1]],
            "elapsed_ms": round(reading.elapsed_s * 1000, 1),
            "problems": reading.problems,
        }
        print(json.dumps(summary))
    else:
        print(" ".join(str(column + 1) for column in range(args.cols)))
        for row in rows:
            print(" ".join(row))
        print(
            f"colours: 1={reading.colour_names[0]} 2={reading.colour_names[1]}  "
            f"lowest confidence {reading.confidence.min():.2f}  {reading.elapsed_s * 1000:.0f} ms"
        )
        for problem in reading.problems:
            print(f"problem: {problem}")
    return 0 if reading.is_board_found else 1


def parse_labels(path: Path) -> dict[str, list[str]]:
    """labels.txt: 'file rows cols r1/r2/... [key=value]  # note' -> grid rows top to bottom per file."""
    labels = {}
    for line in path.read_text().splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 4:
            labels[fields[0]] = fields[3].split("/")
    return labels


def parse_corners_file(path: Path) -> dict[str, list[list[float]]]:
    """corners.txt: 'file x,y x,y x,y x,y ...' -> the four corner holes per file."""
    corners = {}
    for line in path.read_text().splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 5:
            corners[fields[0]] = parse_corners(" ".join(fields[1:5]))
    return corners


def format_grid_rows(grid, colour_names) -> list[str]:
    """Grid rows top to bottom as strings: '.' empty, a colour letter per disc."""
    from vision.reliability import letter_rows

    return letter_rows(grid, colour_names)


def cells_right(rows: list[str], truth: list[str]) -> int:
    """Cells equal to the label, best over renamings of the read disc colours onto the labelled ones."""
    from vision.reliability import cells_matching

    return int(cells_matching(rows, truth).sum())


def _time_per_frame_ms(image, shape, corners) -> float:
    import vision

    started = time.perf_counter()
    for _ in range(BENCH_REPEATS):
        vision.read(image, shape=shape, corners=corners)
    return (time.perf_counter() - started) / BENCH_REPEATS * 1000


def load_labelled_photos(args: argparse.Namespace) -> tuple[Path, dict[str, list[str]], dict[str, list[list[float]]]]:
    """The photo folder, its labels and corners (none when there is no corners file); a missing folder, labels
    file or photo is a FileNotFoundError of one sentence."""
    photos: Path = args.photos
    if not photos.is_dir():
        raise FileNotFoundError(
            f"photo folder {photos} {'is a file' if photos.exists() else 'does not exist'}: give --photos DIR, a folder "
            "of photos with labels.txt (and corners.txt)"
        )
    labels_path = args.labels or photos / "labels.txt"
    corners_path = args.corners_file or photos / "corners.txt"
    if not labels_path.is_file():
        raise FileNotFoundError(f"labels file {labels_path} does not exist: give --labels FILE or --photos DIR")
    labels = parse_labels(labels_path)
    if not labels:
        raise ValueError(f"labels file {labels_path} labels no photo: write 'photo.jpg 6 7 row1/row2/...' lines")
    ragged = sorted(name for name, rows in labels.items() if len({len(row) for row in rows}) != 1)
    if ragged:
        raise ValueError(f"the label of {ragged[0]} in {labels_path} has rows of different lengths: give rows/cols")
    missing = sorted(name for name in labels if not (photos / name).is_file())
    if missing:
        raise FileNotFoundError(f"photo {photos / missing[0]} named in {labels_path} does not exist")
    corners = parse_corners_file(corners_path) if corners_path.is_file() else {}
    return photos, labels, corners


# The degrade bench's own flags (argparse attribute) and their defaults.
DEGRADE_DEFAULTS = {"changes": None, "mode": "both", "seed": 0, "json": False, "write_images": None}


def run_bench(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    import vision

    degrade_only = [
        f"--{name.replace('_', '-')}" for name, value in DEGRADE_DEFAULTS.items() if getattr(args, name) != value
    ]
    if degrade_only and not args.degrade:
        raise ValueError(f"{', '.join(degrade_only)} go with --degrade: add --degrade or leave them out")
    photos, labels, corners = load_labelled_photos(args)
    if args.degrade:
        return run_degrade_bench(args, photos, labels, corners)
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


def run_degrade_bench(args: argparse.Namespace, photos: Path, labels: dict, corners: dict) -> int:
    """The labelled photos under every image change: a row per change and mode, the reliability curve,
    and the photos read wrong at >= 0.9 confidence (or all of it as JSON). Exit status 1 unless no cell is
    wrong at >= 0.9 and every hand is named (the issue's "done when")."""
    import dataclasses

    import numpy as np

    from vision.degrade import WEBCAM_SIZE_PX, change_names, fit_within
    from vision.reliability import SURE, TALLY_HEADER, LabelledPhoto, reliability_curve, run_trials, tally

    changes = change_names(args.changes)
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
