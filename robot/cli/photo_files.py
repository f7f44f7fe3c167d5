"""What the vision commands share: images read and written, and a labelled folder of photos (labels.txt with
each photo's grid, corners.txt with its corner holes), as `read` and the `bench vision` modes use them."""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path

from robot.cli.common import quoted

DEFAULT_PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "vision" / "photos"


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
