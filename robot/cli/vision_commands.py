"""`c4robot read IMAGE` (read a photo of a board) and `c4robot bench vision` (cells right per labelled photo)."""

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


def format_grid_rows(grid, colour_names) -> list[str]:
    """Grid rows top to bottom as strings: '.' empty, a colour letter per disc."""
    return ["".join("." if value == 0 else colour_names[value - 1] for value in row) for row in grid[::-1]]


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


def cells_right(rows: list[str], truth: list[str]) -> int:
    """Cells equal to the label, best over renamings of the read disc colours onto the labelled ones."""
    seen = "".join(rows)
    wanted = "".join(truth)
    read_letters = sorted(set(seen) - {"."})
    label_letters = sorted(set(wanted) - {"."})
    padding = [f"#{i}" for i in range(len(read_letters))]
    best = 0
    for target in itertools.permutations(label_letters + padding, len(read_letters)):
        rename = dict(zip(read_letters, target, strict=False), **{".": "."})
        best = max(best, sum(rename[a] == b for a, b in zip(seen, wanted, strict=False)))
    return best


def _time_per_frame_ms(image, shape, corners) -> float:
    import vision

    started = time.perf_counter()
    for _ in range(BENCH_REPEATS):
        vision.read(image, shape=shape, corners=corners)
    return (time.perf_counter() - started) / BENCH_REPEATS * 1000


def run_bench(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    import vision

    photos: Path = args.photos
    labels_path = args.labels or photos / "labels.txt"
    corners_path = args.corners_file or photos / "corners.txt"
    if not labels_path.is_file():
        raise FileNotFoundError(f"labels file {labels_path} does not exist: give --labels FILE or --photos DIR")
    labels = parse_labels(labels_path)
    corners = parse_corners_file(corners_path) if corners_path.is_file() else {}
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
