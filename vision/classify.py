"""Which holes hold a disc, and of which of the two colours: learnt from the frame, checked by gravity.

No fixed colour bands. The colours a hole can show are clustered; every pair of clusters (and a single
cluster, and none) is a hypothesis for the two disc colours. Under a hypothesis a hole holds a disc of
colour c when c covers all sectors of its ring (a disc in its slot fills the hole; a loose disc behind
the board shows as a crescent and covers some sectors only), or, where the hole's middle shows a ring-shaped
disc's hole, of the band just inside its rim (vision.rim_band), and reaches the rim along every ray (a loose
disc covering three quarters of the hole leaves a crescent of the room or of the hole's inner wall:
vision.hole_fill). The best legal board under each hypothesis (gravity, disc counts) is found exactly
(vision.gravity); the hypothesis whose board explains the frame best wins, with a prior that disc colours
are saturated. Background seen through empty holes can be as
uniform as a disc, but it cannot sit under empty cells nor unbalance the counts, so it loses. Under a
hypothesis the other clusters stand for the room behind the board: a ring pixel that one of them explains
better than any shade of the hypothesis' colours is not disc, so wood of nearly the yellow discs' colour
neither passes for discs nor drags the true pair down. With colours from calibration there is one
hypothesis only. Then, in turn until the board holds, the colours seen through the holes the board leaves
empty (the room behind it) compete with the disc colours, and the disc colours are re-learnt from the discs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from vision.colour_clusters import (
    MATCH_RADIUS,
    SATURATED_CHROMA,
    SHADOW_RANGE,
    candidate_clusters,
    shades_of,
)
from vision.empty_proof import (
    CLEAR_CLAIM_MARGIN,
    UNPROVEN_EMPTY_CONFIDENCE,
    distinct_backgrounds,
    unproven_empty,
)
from vision.gravity import best_legal_grid, count_problem
from vision.hole_samples import HoleSamples, shaded_distances
from vision.lens_rings import ring_discs_in_lenses
from vision.occlusion import OCCLUDED_CONFIDENCE
from vision.rim_band import Band, banded, with_burnt_middles
from vision.ring_coverage import SHADING_RANGE, colour_distances, coverage
from vision.room_behind import background_claims, background_colours, shaded_disc
from vision.room_lookalikes import ROOM_LIKE_DISC_CONFIDENCE, room_like_discs
from vision.slot_walls import DENT_TOLERANCE_PITCH, colour_dents

BACKGROUND_ROUNDS = 3
COVERAGE_THRESHOLD = 0.5
COVERAGE_GAIN = 12.0
MISSING_COVERAGE_GAIN = 30.0
DISCARDED_EVIDENCE_COST = 0.5
# 0.01 pitch past the tolerance (vision.slot_walls.DENT_TOLERANCE_PITCH) costs what a full ring gains.
DENT_COST_PER_PITCH = 600.0
COLOUR_COST = 1.0
DULL_COLOUR_COST = 14.0
# Log-prior cost of count imbalance, times the squared excess over one (vision.gravity). A clearly seen disc
# scores about 5, so up to four clearly seen extra discs (a board set up by hand) are read as they are,
# a doubtful extra disc is dropped, and no background passes for many discs of one colour.
IMBALANCE_COST = 1.0
# The most a disc of the colour in excess is trusted when colours learnt from the frame give counts no game gives.
IMPOSSIBLE_COUNT_CONFIDENCE = 0.8
# A disc in its slot covers its whole ring (but the two spared sectors); one whose colour covers less than
# FULL_COVERAGE (a loose disc behind the board, rounded off by dim warm light) is trusted no more than this.
FULL_COVERAGE = 0.9
PARTLY_FILLED_CONFIDENCE = 0.8
# With calibrated colours every cell's colour is trusted on its own, so the counts are left free: a person
# who drops two discs or plays the robot's colour must show up as such for the move detector.
FREE_COUNTS = 0.0


@dataclass(frozen=True)
class Classification:
    """Grid (rows, cols) int8, row 0 at the bottom, value k = colours[k - 1] (weighted Lab); per-cell confidence;
    score: how well the grid and colours explain the frame (log-odds, higher is better)."""

    grid: np.ndarray
    confidence: np.ndarray
    colours: tuple[np.ndarray, ...]
    problems: list[str]
    score: float = 0.0


@dataclass(frozen=True)
class _Outcome:
    score: float
    grid: np.ndarray
    cell_scores: np.ndarray
    colours: tuple[np.ndarray, ...]
    dents: np.ndarray


def _dullness_cost(colour: np.ndarray) -> float:
    """Log prior cost per disc of a colour: none for vivid plastic colours, growing as the colour greys out."""
    chroma = float(np.hypot(colour[1], colour[2]))
    return DULL_COLOUR_COST * max(0.0, 1.0 - chroma / SATURATED_CHROMA)


def _cell_scores(
    samples: HoleSamples,
    colours: tuple[np.ndarray, ...],
    distances: np.ndarray,
    claimed: np.ndarray | None = None,
    band_covered: np.ndarray | None = None,
    is_learnt: bool = True,
) -> np.ndarray:
    """(2, rows, cols) log-odds of a disc of colour 1 / 2 against an empty hole (very low for absent colours),
    from how fully the colours cover the rings, or the bands just inside the rims, `band_covered` (holes, colours):
    a ring-shaped disc's centre shows the room (vision.rim_band); before _with_crescents. Colours
    learnt from the frame pay the prior that discs are vivid; calibrated ones (`is_learnt` False) are discs, black
    or white as they may be."""
    rows, cols = samples.shape
    scores = np.full((2, rows, cols), -1e6)
    covered = coverage(distances, samples.sector, claimed)
    if band_covered is not None:
        covered = np.maximum(covered, band_covered)
    for index, colour in enumerate(colours):
        margin = covered[:, index] - COVERAGE_THRESHOLD
        gain = np.where(margin > 0, COVERAGE_GAIN, MISSING_COVERAGE_GAIN) * margin - is_learnt * _dullness_cost(colour)
        scores[index] = np.where(samples.visible, gain, 0.0).reshape(rows, cols)
    return scores


def _with_crescents(cell_scores: np.ndarray, dents: np.ndarray) -> np.ndarray:
    """Cell scores less the cost of crescents: a colour that stops short of the rim on one side (`dents`, (holes,
    colours)) is seen through the hole, behind the board, however fully it covers the ring."""
    cost = DENT_COST_PER_PITCH * np.maximum(dents - DENT_TOLERANCE_PITCH, 0.0)
    scored = cell_scores.copy()
    for index in range(dents.shape[1]):
        scored[index] -= cost[:, index].reshape(scored.shape[1:])
    return scored


def _evaluate(
    colours: tuple[np.ndarray, ...], dents: np.ndarray, cell_scores: np.ndarray, imbalance_cost: float = IMBALANCE_COST
) -> _Outcome:
    """The best legal board under one hypothesis, scored with its priors.

    Disc-like evidence that the legal board leaves empty costs too: a colour that fills holes gravity
    says are empty is being seen through the board, so it is more likely background than a disc. The
    board is chosen under that same cost (an empty cell scores minus its discarded evidence), so the
    board picked and the score that ranks the hypotheses are one objective.
    """
    discarded = DISCARDED_EVIDENCE_COST * np.maximum(cell_scores, 0.0).sum(axis=0)
    score, grid = best_legal_grid(cell_scores[0] + discarded, cell_scores[1] + discarded, imbalance_cost)
    return _Outcome(score - float(discarded.sum()) - COLOUR_COST * len(colours), grid, cell_scores, colours, dents)


def _best_hypothesis(samples: HoleSamples, band: Band, is_learnt: bool = True) -> _Outcome:
    """Try every pair of candidate colours (and single colours, and none); keep the best legal explanation.
    `is_learnt` False: without the prior that disc colours are vivid (as _cell_scores).

    Under each hypothesis the other candidates (but shades of its colours) are what is behind the board: they claim the ring pixels
    they explain better than any shade of the hypothesis' colours (as in background_claims), so a room of
    nearly a disc's colour seen through every empty hole does not count against the true pair. A cluster and
    one of its own groups are one colour: they never pair, nor does one claim pixels from the other.
    Branch and bound: a hypothesis whose unconstrained score (every cell at its best, ignoring gravity) cannot
    beat the best so far is skipped without solving its board. Its colours each scored alone (no rival, no
    room claiming pixels, no crescents) bound that score from above, so hypotheses are taken in the order of
    that bound and the rest dropped once it falls below the best; crescents (vision.hole_fill), which only
    lower scores, are measured once a hypothesis gets that far, for the colours that fill some hole alone.
    """
    clusters = candidate_clusters(samples.hole_colours[samples.visible], samples.face)
    candidates = [centre for centre, _ in clusters]
    cluster = np.array([number for _, number in clusters])
    whole = np.r_[True, cluster[1:] != cluster[:-1]] if len(clusters) else np.zeros(0, dtype=bool)
    distances = colour_distances(samples, tuple(candidates)) if candidates else np.zeros((0, *samples.pixels.shape[:2]))
    shaded = shaded_distances(samples.pixels, np.asarray(candidates), SHADOW_RANGE) if candidates else distances
    is_shade = shades_of(candidates, candidates) if candidates else np.zeros((0, 0), dtype=bool)
    pairs = [
        (i, j)
        for i, j in itertools.combinations(range(len(candidates)), 2)
        if cluster[i] != cluster[j] or not (whole[i] or whole[j])
    ]
    hypotheses = [()] + [(i,) for i in range(len(candidates))] + pairs
    to_band = band.distances(candidates)
    alone = [
        _cell_scores(samples, (colour,), distances[[i]], None, band.coverage(to_band[[i]]), is_learnt)[0]
        for i, colour in enumerate(candidates)
    ]

    def bound_alone(indices: tuple[int, ...]) -> float:
        return _bound(np.array([alone[i] for i in indices] + [np.zeros(samples.shape)]), len(indices))

    hypotheses.sort(key=lambda indices: -bound_alone(indices))
    dents = np.full((samples.pixels.shape[0], len(candidates)), np.nan)
    best: _Outcome | None = None
    for indices in hypotheses:
        colours = tuple(candidates[i] for i in indices)
        if best is not None and bound_alone(indices) <= best.score:
            break
        others = [
            i
            for i in range(len(candidates))
            if i not in indices
            and not is_shade[i, list(indices)].any()
            and not any(cluster[i] == cluster[j] and (whole[i] or whole[j]) for j in indices)
        ]
        claimed = None
        if indices and others:
            claimed = distances[others].min(axis=0) < shaded[list(indices)].min(axis=0)
        band_covered = band.coverage(to_band[list(indices)], to_band[others] if indices else None)
        cell_scores = _cell_scores(samples, colours, distances[list(indices)], claimed, band_covered, is_learnt)
        if best is not None and _bound(cell_scores, len(indices)) <= best.score:
            continue
        if indices and np.isnan(dents).all():
            dents[:] = 0.0
            can_fill = [i for i in range(len(candidates)) if alone[i].max() > 0]
            dents[:, can_fill] = colour_dents(samples, [candidates[i] for i in can_fill])
        cell_scores = _with_crescents(cell_scores, dents[:, list(indices)])
        if best is not None and _bound(cell_scores, len(indices)) <= best.score:
            continue
        outcome = _evaluate(colours, dents[:, list(indices)], cell_scores)
        if best is None or outcome.score > best.score:
            best = outcome
    assert best is not None
    return best


def _bound(cell_scores: np.ndarray, colour_count: int) -> float:
    """The score a hypothesis could reach at best: every cell at its best, ignoring gravity and counts."""
    return float(np.maximum(cell_scores.max(axis=0), 0.0).sum()) - COLOUR_COST * colour_count


def _refit_colours(samples: HoleSamples, outcome: _Outcome) -> tuple[np.ndarray, ...]:
    """Re-estimate each disc colour from the ring pixels of the holes given to it (median, matching pixels only)."""
    flat = outcome.grid.ravel()
    refitted = []
    for index, colour in enumerate(outcome.colours):
        pixels = samples.pixels[(flat == index + 1) & samples.visible].reshape(-1, 3)
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


def _with_background(
    samples: HoleSamples,
    band: Band,
    outcome: _Outcome,
    imbalance_cost: float,
    learn_colours: bool,
    deep_rings: np.ndarray | None = None,
) -> _Outcome:
    """Read the board again with the room seen through its empty holes competing against the disc colours.

    Alternates, as k-means does, between the board and what it implies (the background from its empty
    holes and, when `learn_colours`, the disc colours from its discs), until the board stays the same.
    How far each colour reaches towards the rims is kept from the first reading: re-learning a colour moves
    it by a shade, not the holes' geometry; so are `deep_rings` (holes, colours), ring discs found deep in their lenses
    (vision.lens_rings), which fill their holes whatever the room claims.
    """
    measured: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # colours kept are measured once

    def distances(colours: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        key = np.asarray(colours).tobytes()
        if key not in measured:
            measured[key] = (
                colour_distances(samples, colours),
                band.distances(colours),
                shaded_disc(samples, colours),
            )
        return measured[key]

    for _ in range(BACKGROUND_ROUNDS):
        background = background_colours(samples, outcome.grid, outcome.colours)
        if not background:
            return outcome
        colours = _refit_colours(samples, outcome) if learn_colours else outcome.colours
        to_ring, to_band, to_shade = distances(colours)
        claimed = colour_distances(samples, background).min(axis=0) < to_shade  # as background_claims
        band_covered = band.coverage(to_band, band.distances(background))
        if deep_rings is not None:
            band_covered = np.maximum(band_covered, deep_rings)
        cell_scores = _cell_scores(samples, colours, to_ring, claimed, band_covered, is_learnt=learn_colours)
        cell_scores = _with_crescents(cell_scores, outcome.dents)
        previous, outcome = outcome, _evaluate(colours, outcome.dents, cell_scores, imbalance_cost)
        if np.array_equal(previous.grid, outcome.grid):
            break
    return outcome


def classify(
    samples: HoleSamples,
    reference_colours: tuple[np.ndarray, ...] | None = None,
    band: Band | None = None,
    doubts_dull_discs: bool = True,
) -> Classification:
    """Label every hole empty / colour 1 / colour 2; learn the colours unless calibration gives them.

    A first reading decides which holes are empty; what those show (the room behind the board) then
    competes with the disc colours in the readings that follow. `band`: the samples are already banded
    (vision.rim_band.banded) and these are their bands, as when one frame is read with several colours.
    `doubts_dull_discs` False: a board read empty with no colours keeps its empty holes' confidence without the
    search for dull discs (_dull_discs), for a caller that uses only the colours and the grid (a check).
    """
    if band is None:
        samples, band = banded(samples)
    deep_rings = np.zeros((len(samples.pixels), 2), dtype=bool)  # a full disc, however its crescent and middle look
    if reference_colours is not None:
        colours = tuple(reference_colours)
        deep_rings = ring_discs_in_lenses(samples, colours)
        dents = np.where(deep_rings, 0.0, colour_dents(samples, colours, walls=True))
        band_covered = np.maximum(band.coverage(band.distances(colours)), deep_rings)
        cell_scores = _cell_scores(samples, colours, colour_distances(samples, colours), None, band_covered, False)
        cell_scores = _with_crescents(cell_scores, dents)
        outcome = _evaluate(colours, dents, cell_scores, FREE_COUNTS)
        outcome = _with_background(samples, band, outcome, FREE_COUNTS, learn_colours=False, deep_rings=deep_rings)
    else:
        outcome = _best_hypothesis(samples, band)
        if outcome.colours:
            outcome = _order_by_count(_with_background(samples, band, outcome, IMBALANCE_COST, learn_colours=True))
    problems = []
    imbalance = count_problem(outcome.grid)
    if imbalance:
        problems.append(imbalance)
    confidence = _confidence(outcome.cell_scores, outcome.grid)
    if reference_colours is None:
        confidence = doubting_impossible_counts(outcome.grid, confidence)
    confidence = np.minimum(confidence, _partly_filled_cap(outcome, is_learnt=reference_colours is None))
    is_proved = outcome.colours or reference_colours is not None or not doubts_dull_discs
    proof = outcome if is_proved else _dull_discs(samples, band) or outcome
    background = distinct_backgrounds(background_colours(samples, proof.grid, proof.colours), proof.colours)
    claimed = background_claims(samples, proof.colours, background, CLEAR_CLAIM_MARGIN) if background else None
    unproven = unproven_empty(
        samples, outcome.grid, proof.colours, proof.dents, claimed, with_burnt_middles(samples, band)
    )
    confidence = np.where(unproven, np.minimum(confidence, UNPROVEN_EMPTY_CONFIDENCE), confidence)
    grazed = np.zeros(samples.shape, dtype=bool) if samples.grazed is None else samples.grazed.reshape(samples.shape)
    confidence = np.where(grazed, np.minimum(confidence, OCCLUDED_CONFIDENCE), confidence)
    room_like = room_like_discs(samples, outcome.grid, outcome.colours, (outcome.grid == 0) & ~grazed, SHADING_RANGE)
    room_like &= ~_of_read_colour(deep_rings, outcome.grid)  # the room seen through a ring disc's hole is no doubt
    confidence = np.where(room_like, np.minimum(confidence, ROOM_LIKE_DISC_CONFIDENCE), confidence)
    confidence = np.where(samples.visible.reshape(samples.shape), confidence, 0.0)
    return Classification(outcome.grid, confidence, outcome.colours, problems, outcome.score)


def _dull_discs(samples: HoleSamples, band: Band) -> _Outcome | None:
    """The best reading of a board read with no disc colours when two colours however dull are taken for discs, if it
    holds discs; else None. Black discs lose to an empty board by the prior that discs are vivid alone (the more so
    ring discs, whose middles show the room, covering their rings in part), so where such a pair stacks and balances
    as discs do, the holes it fills or cuts short (vision.empty_proof) are no proven empty holes. The room seen
    through an empty board's holes is mostly one colour: one dull colour counted as discs cannot balance its counts."""
    dull = _best_hypothesis(samples, band, is_learnt=False)
    return dull if len(dull.colours) == 2 and (dull.grid != 0).any() else None


def _of_read_colour(per_colour: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """(rows, cols) bool: for each disc of `grid`, `per_colour` ((holes, colours) bool) for the colour it is read in."""
    flat = grid.ravel().astype(np.int64)
    chosen = np.zeros(flat.shape, dtype=bool)
    discs = (flat > 0) & (flat <= per_colour.shape[1])
    chosen[discs] = per_colour[np.flatnonzero(discs), flat[discs] - 1]
    return chosen.reshape(grid.shape)


def doubting_impossible_counts(grid: np.ndarray, confidence: np.ndarray, sure: float | None = None) -> np.ndarray:
    """`confidence` with the discs of the colour in excess no surer than IMPOSSIBLE_COUNT_CONFIDENCE when no game
    gives the grid's counts: some of them may be what the frame made of something else (a loose disc behind the
    board smeared by blur into a full hole, a room of a disc's colour seen through a clear face's holes), or discs
    stacked by hand. `sure`: only those with no disc at that confidence or more above them, where a room passes
    for discs that gravity allows (discs of calibrated colours are trusted one by one)."""
    if not count_problem(grid):
        return confidence
    excess = 1 if (grid == 1).sum() > (grid == 2).sum() else 2
    doubted = grid == excess
    if sure is not None:
        sure_discs = (grid != 0) & (confidence >= sure)
        doubted &= np.flipud(np.cumsum(np.flipud(sure_discs), axis=0)) == sure_discs
    return np.where(doubted, np.minimum(confidence, IMPOSSIBLE_COUNT_CONFIDENCE), confidence)


def _partly_filled_cap(outcome: _Outcome, is_learnt: bool) -> np.ndarray:
    """(rows, cols) the most each disc can be trusted: PARTLY_FILLED_CONFIDENCE where its colour covers less than
    FULL_COVERAGE of the ring (a loose disc behind the board that blur or dim light has rounded off), else 1."""
    cap = np.ones(outcome.grid.shape)
    for index, colour in enumerate(outcome.colours):
        full = COVERAGE_GAIN * (FULL_COVERAGE - COVERAGE_THRESHOLD) - is_learnt * _dullness_cost(colour)
        cap[(outcome.grid == index + 1) & (outcome.cell_scores[index] < full)] = PARTLY_FILLED_CONFIDENCE
    return cap


def _order_by_count(outcome: _Outcome) -> _Outcome:
    """Make colour 1 the colour with more discs (it moved first); ties keep the order found."""
    if len(outcome.colours) == 2 and (outcome.grid == 2).sum() > (outcome.grid == 1).sum():
        swapped = np.where(outcome.grid == 0, 0, 3 - outcome.grid).astype(np.int8)
        return _Outcome(
            outcome.score, swapped, outcome.cell_scores[::-1], outcome.colours[::-1], outcome.dents[:, ::-1]
        )
    return outcome
