"""`c4robot read IMAGE`: read the board in a photo. The `bench vision` modes are in robot.cli.vision_benches."""

from __future__ import annotations

import argparse
import json

from robot.cli.common import COMMON, bounded_int
from robot.cli.photo_files import (
    check_image_suffix,
    format_grid_rows,
    load_image,
    parse_corners,
    write_image_atomically,
)
from robot.cli.vision_benches import register_benches


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `read` and the `vision` benchmarks."""
    read = commands.add_parser("read", parents=[COMMON], help="read the board in a photo")
    read.add_argument("image", help="photo of the board (any format OpenCV reads)")
    read.add_argument("--corners", help='centres of the tl, tr, br, bl holes in px: "x,y x,y x,y x,y"')
    read.add_argument("--rows", type=bounded_int(4, 12), default=6, help="rows of holes (default 6)")
    read.add_argument("--cols", type=bounded_int(4, 12), default=7, help="columns of holes (default 7)")
    read.add_argument("--json", action="store_true", help="print JSON instead of the board")
    read.add_argument("--overlay", metavar="OUT.png", help="also write a picture of what was seen")
    read.set_defaults(run=run_read)

    register_benches(bench_targets)


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
