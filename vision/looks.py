"""A lattice's holes seen two ways, and which look the reader keeps.

A thick face's holes are seen as a thin face's and in their lenses (vision.deep_holes); calibrated corners are read
where the frame's rims put them and where calibration did; a thin face seen far aside may show its ring discs in
their lenses only. Each way explains some frames better: the reader keeps the look with fewer unsure cells, and a
cell the two looks read differently is doubted in the look kept, never read surely from one of two that disagree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from vision.classify import Classification
from vision.deep_holes import in_lenses
from vision.hole_samples import HoleSamples
from vision.lens_rings import ring_discs_in_lenses, shows_ring_discs, with_sure_ring_discs
from vision.localise import BoardNotFoundError
from vision.occlusion import OCCLUDED_CONFIDENCE

SURE = 0.9  # a cell at or above this confidence is acted on without looking again


class Look(NamedTuple):
    """A lattice's holes as seen and read: as a thin face's holes and, when that sees no board or takes holes for
    covered as a thick face's tunnels make it do, in their lenses too (vision.deep_holes)."""

    found: np.ndarray
    samples: HoleSamples
    result: Classification
    off_frame: str | None
    too_dark: bool

    def unsure_cells(self) -> int:
        """Cells read below SURE or covered: the look that explains the frame with fewer is kept (kept_look)."""
        return int(((self.result.confidence < SURE) | ~self.samples.visible.reshape(self.result.grid.shape)).sum())


def kept_look(plain: Look, lenses: Look, may_switch: bool, cut: np.ndarray) -> Look:
    """Of a thick face's holes read as a thin face's (`plain`) and in their lenses, the plain look, or when it took
    some holes for covered or the lenses show ring discs (`may_switch`) the look with fewer unsure cells. A cell
    the other look reads otherwise at SURE, or as a disc at all, is unsure in the look kept (two ways of seeing one
    hole that disagree: a disc behind a thick face shows in its lens, one behind a thin face's hole in the plain look),
    and so is a hole the plain look kept read empty that a disc colour fills but for a crescent (`cut`)."""
    is_lenses = may_switch and lenses.unsure_cells() < plain.unsure_cells()
    kept, other = (lenses, plain) if is_lenses else (plain, lenses)
    if not is_lenses:  # a ring disc found deep in its lens is one, however the plain look saw it
        result, rings = with_sure_ring_discs(lenses.samples, lenses.result, plain.result, SURE)
        kept, cut = kept._replace(result=result), cut & ~rings
    differs = (other.result.grid != kept.result.grid) & other.samples.visible.reshape(kept.result.grid.shape)
    doubted = differs & ((other.result.confidence >= SURE) | (other.result.grid != 0)) | (cut & (not is_lenses))
    return _doubting(kept, doubted)


def unsure_holes_show_rings(
    plain: Look, image: np.ndarray, thickness: float, reference: tuple[np.ndarray, ...]
) -> bool:
    """Whether a hole the plain look is unsure of shows a ring disc in its lens `thickness` pitches deep
    (vision.lens_rings): only then is reading every lens worth its cost."""
    unsure = plain.result.confidence.ravel() < SURE
    lenses = in_lenses(plain.samples, image, plain.found, thickness)
    lenses = dataclasses.replace(lenses, covered=~(lenses.visible & unsure))
    return bool(ring_discs_in_lenses(lenses, reference).any())


def with_thin_face_rings(plain: Look, lenses: Callable[[], Look], reference: tuple[np.ndarray, ...]) -> Look:
    """A thin face's holes seen far aside (`plain`) with the cells it is unsure of read in their lenses at a thin
    face's depth, where those show ring discs and leave fewer cells unsure: a ring disc's hole nears the rim there, and
    the plain look takes the disc for one cut short. A cell the plain look reads sure stays, unsure where the lenses
    read it otherwise at SURE or as a disc (as kept_look doubts). Any other board keeps its plain look."""
    try:
        look = lenses()
    except BoardNotFoundError:
        return plain
    if look.unsure_cells() >= plain.unsure_cells() or not shows_ring_discs(look.samples, look.result.grid, reference):
        return plain
    thin, lens = plain.result, look.result
    sure = thin.confidence >= SURE
    grid = np.where(sure, thin.grid, lens.grid).astype(np.int8)
    merged = dataclasses.replace(thin, grid=grid, confidence=np.where(sure, thin.confidence, lens.confidence))
    doubted = sure & (lens.grid != thin.grid) & ((lens.confidence >= SURE) | (lens.grid != 0))
    return _doubting(plain._replace(result=merged), doubted)


def as_calibrated(refined: Look, calibrated: Callable[[], Look]) -> Look:
    """Of the holes read where calibrated corners were refined to (the rims the frame shows) and where calibration put
    them, the look with fewer unsure cells, doubting what the other reads otherwise (kept_look): seen from aside, the
    rims of a thin face lie off the discs behind them, and discs read there show crescents of the face."""
    try:
        other = calibrated()
    except BoardNotFoundError:
        return refined
    return kept_look(refined, other, True, np.zeros(refined.result.grid.shape, dtype=bool))


def _doubting(look: Look, doubted: np.ndarray) -> Look:
    """The look with the `doubted` cells ((rows, cols) bool) no surer than OCCLUDED_CONFIDENCE."""
    confidence = np.where(doubted, np.minimum(look.result.confidence, OCCLUDED_CONFIDENCE), look.result.confidence)
    return look._replace(result=dataclasses.replace(look.result, confidence=confidence))
