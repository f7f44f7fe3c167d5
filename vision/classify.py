"""Which holes hold a disc, and of which of the two colours: learnt from the frame, checked by gravity.

No fixed colour bands. The colours a hole can show are clustered; every pair of clusters (and a single
cluster, and none) is a hypothesis for the two disc colours. Under a hypothesis a hole holds a disc of
colour c when c covers all sectors of its ring (a disc in its slot fills the hole; a loose disc behind
the board shows as a crescent and covers some sectors only). The best legal board under each hypothesis
(gravity, disc counts) is found exactly (vision.gravity); the hypothesis whose board explains the frame
best wins, with a prior that disc colours are saturated. Background seen through empty holes can be as
uniform as a disc, but it cannot sit under empty cells nor unbalance the counts, so it loses.
With colours from calibration there is one hypothesis only.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from vision.gravity import best_legal_grid, count_problem, gravity_problems
from vision.hole_samples import SECTOR_COUNT, HoleSamples

CLUSTER_RADIUS = 12.0
MAX_CANDIDATES = 8
MATCH_RADIUS = 16.0
WORST_SECTORS = 3
COVERAGE_THRESHOLD = 0.5
COVERAGE_GAIN = 12.0
COLOUR_COST = 1.0
DULL_COLOUR_COST = 10.0
SATURATED_CHROMA = 35.0
ALLOWED_DIFFERENCES = (-1, 0, 1)


@dataclass(frozen=True)
class Classification:
    """Grid (rows, cols) int8, row 0 at the bottom, value k = colours[k - 1] (weighted Lab); per-cell confidence."""

    grid: np.ndarray
    confidence: np.ndarray
    colours: tuple[np.ndarray, ...]
    problems: list[str]


@dataclass(frozen=True)
class _Outcome:
    score: float
    grid: np.ndarray
    cell_scores: np.ndarray
    colours: tuple[np.ndarray, ...]


def candidate_colours(hole_colours: np.ndarray, face: np.ndarray) -> list[np.ndarray]:
    """Cluster centres of the holes' colours, biggest cluster first; the board face's own colour is left out."""
    remaining = np.ones(len(hole_colours), dtype=bool)
    distances = np.linalg.norm(hole_colours[:, None] - hole_colours[None], axis=2)
    centres = []
    while remaining.any() and len(centres) < MAX_CANDIDATES:
        neighbours = (distances < CLUSTER_RADIUS) & remaining[None] & remaining[:, None]
        seed = int(np.argmax(neighbours.sum(axis=1)))
        members = neighbours[seed]
        centre = np.median(hole_colours[members], axis=0)
        remaining &= ~members
        if np.linalg.norm(centre - face) >= MATCH_RADIUS:
            centres.append(centre)
    return centres


def coverage(samples: HoleSamples, colours: tuple[np.ndarray, ...]) -> np.ndarray:
    """(holes, len(colours)): how fully each colour covers each hole, as the mean of its worst ring sectors."""
    if not colours:
        return np.zeros((samples.pixels.shape[0], 0))
    distances = np.linalg.norm(samples.pixels[:, :, None, :] - np.asarray(colours)[None, None], axis=3)
    nearest = distances.argmin(axis=2)
    matched = distances.min(axis=2) < MATCH_RADIUS
    result = np.empty((samples.pixels.shape[0], len(colours)))
    for index in range(len(colours)):
        hit = (matched & (nearest == index)).astype(np.float64)
        per_sector = np.stack([hit[:, samples.sector == s].mean(axis=1) for s in range(SECTOR_COUNT)], axis=1)
        result[:, index] = np.sort(per_sector, axis=1)[:, :WORST_SECTORS].mean(axis=1)
    return result


def _dullness_cost(colour: np.ndarray) -> float:
    """Log prior cost per disc of a colour: none for vivid plastic colours, growing as the colour greys out."""
    chroma = float(np.hypot(colour[1], colour[2]))
    return DULL_COLOUR_COST * max(0.0, 1.0 - chroma / SATURATED_CHROMA)


def _evaluate(samples: HoleSamples, colours: tuple[np.ndarray, ...], with_prior: bool) -> _Outcome:
    rows, cols = samples.shape
    cell_scores = np.full((2, rows, cols), -1e6)
    covered = coverage(samples, colours)
    for index in range(len(colours)):
        gain = COVERAGE_GAIN * (covered[:, index] - COVERAGE_THRESHOLD) - _dullness_cost(colours[index])
        cell_scores[index] = gain.reshape(rows, cols)
    score, grid = best_legal_grid(cell_scores[0], cell_scores[1], ALLOWED_DIFFERENCES)
    if with_prior:
        score -= COLOUR_COST * len(colours)
    return _Outcome(score, grid, cell_scores, colours)


def _refit_colours(samples: HoleSamples, outcome: _Outcome) -> tuple[np.ndarray, ...]:
    """Re-estimate each disc colour from the ring pixels of the holes given to it (median, matching pixels only)."""
    flat = outcome.grid.ravel()
    refitted = []
    for index, colour in enumerate(outcome.colours):
        pixels = samples.pixels[flat == index + 1].reshape(-1, 3)
        close = pixels[np.linalg.norm(pixels - colour, axis=1) < MATCH_RADIUS]
        refitted.append(np.median(close, axis=0) if len(close) else colour)
    return tuple(refitted)


def _confidence(cell_scores: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Probability of the chosen label of each cell, from a softmax over (empty, colour 1, colour 2)."""
    logits = np.concatenate([np.zeros((1, *grid.shape)), np.clip(cell_scores, -50, 50)], axis=0)
    logits -= logits.max(axis=0)
    weights = np.exp(logits)
    chosen = np.take_along_axis(weights, grid[None].astype(np.int64), axis=0)[0]
    return chosen / weights.sum(axis=0)


def classify(samples: HoleSamples, reference_colours: tuple[np.ndarray, ...] | None = None) -> Classification:
    """Label every hole empty / colour 1 / colour 2; learn the colours unless calibration gives them."""
    if reference_colours is not None:
        outcome = _evaluate(samples, tuple(reference_colours), with_prior=False)
    else:
        hole_colours = np.median(samples.pixels, axis=1)
        candidates = candidate_colours(hole_colours, samples.face)
        hypotheses: list[tuple[np.ndarray, ...]] = [()]
        hypotheses += [(colour,) for colour in candidates]
        hypotheses += list(itertools.combinations(candidates, 2))
        outcome = max((_evaluate(samples, colours, with_prior=True) for colours in hypotheses), key=lambda o: o.score)
        if outcome.colours:
            outcome = _evaluate(samples, _refit_colours(samples, outcome), with_prior=True)
        outcome = _order_by_count(outcome)
    problems = []
    imbalance = count_problem(outcome.grid)
    if imbalance:
        problems.append(imbalance)
    return Classification(outcome.grid, _confidence(outcome.cell_scores, outcome.grid), outcome.colours, problems)


def _order_by_count(outcome: _Outcome) -> _Outcome:
    """Make colour 1 the colour with more discs (it moved first); ties keep the order found."""
    if len(outcome.colours) == 2 and (outcome.grid == 2).sum() > (outcome.grid == 1).sum():
        swapped = np.where(outcome.grid == 0, 0, 3 - outcome.grid).astype(np.int8)
        return _Outcome(outcome.score, swapped, outcome.cell_scores[::-1], outcome.colours[::-1])
    return outcome
