"""The colours the holes show, as candidates for the two disc colours: clusters, and a vivid cluster's two groups.

Colours are compared brought to one light (a light gradient across the board spreads one material along its
shades, not apart), so a cluster is one material; a vivid cluster may still hold two materials that no light
makes alike (yellow discs among holes showing wood of nearly their colour), and then its two groups are
candidates too (vision.classify tries them all as hypotheses).
"""

from __future__ import annotations

import numpy as np

from vision.hole_samples import BLACK, shaded_distances

CLUSTER_RADIUS = 12.0
MAX_CANDIDATES = 8
# Two groups of a cluster are two colours when they lie this many times their spread apart (a spread along
# one colour's shades splits far less: its halves are shades of each other anyway).
SPLIT_SEPARATION = 4.0
SPLIT_MIN_SPREAD = 1.0
SPLIT_ROUNDS = 4
# How much a difference in light counts, against one of hue or chroma, when clustering the holes' colours.
LIGHT_WEIGHT = 0.5
MAX_SPLIT_GROUPS = 2
# Two colours nearer than this (weighted Lab) are one: a hole's colour this near the face is the face.
MATCH_RADIUS = 16.0
# Every shade a disc colour can take under the light of a room: a background colour wins a ring pixel only
# when no shade in this range explains the pixel as well.
SHADOW_RANGE = (0.5, 1.5)
# A colour within this of some shade of a disc colour is that disc colour (in shadow, in brighter light), never
# a background: a disc's own shades lie well inside it, wood of nearly a yellow disc's colour well outside.
SHADE_MATCH_RADIUS = 4.5
# Chroma from which a colour is as vivid as plastic discs are.
SATURATED_CHROMA = 45.0


def is_vivid(colour: np.ndarray) -> bool:
    """Whether a weighted-Lab colour is as saturated as a plastic disc (where a disc colour can hide)."""
    return float(np.hypot(colour[1], colour[2])) >= SATURATED_CHROMA


def candidate_colours(hole_colours: np.ndarray, face: np.ndarray) -> list[np.ndarray]:
    """Cluster centres of the holes' colours, biggest cluster first; the board face's own colour is left out."""
    return [centre for centre, _ in candidate_clusters(hole_colours, face, split=False)]


def candidate_clusters(hole_colours: np.ndarray, face: np.ndarray, split: bool = True) -> list[tuple[np.ndarray, int]]:
    """Cluster centres of the holes' colours with the cluster each belongs to, biggest cluster first (the board
    face's own colour left out). With `split`, a vivid cluster (where a disc colour can hide) that holds two
    groups of colours no light makes alike (yellow discs among holes showing wood of nearly their colour,
    split_cluster) also gives the centre of each group, with its own cluster's number.

    Colours are compared brought to one light, with their difference in light counting LIGHT_WEIGHT only: a
    light gradient across the board spreads one material along its shades, and must not break it in two.
    """
    remaining = np.ones(len(hole_colours), dtype=bool)
    relit, lights = _relit(hole_colours)
    light_differences = LIGHT_WEIGHT * (lights[:, None] - lights[None])
    distances = np.sqrt(((relit[:, None] - relit[None]) ** 2).sum(axis=2) + light_differences**2)
    clusters, centres = [], []
    while remaining.any() and len(clusters) < MAX_CANDIDATES:
        neighbours = (distances < CLUSTER_RADIUS) & remaining[None] & remaining[:, None]
        seed = int(np.argmax(neighbours.sum(axis=1)))
        members = neighbours[seed]
        remaining &= ~members
        centre = np.median(hole_colours[members], axis=0)
        if np.linalg.norm(centre - face) >= MATCH_RADIUS:
            centres.append((centre, len(clusters)))
            clusters.append(hole_colours[members])
    for number, members in enumerate(clusters if split else []):
        groups = split_cluster(members) if is_vivid(centres[number][0]) else []
        if len(centres) + len(groups) <= MAX_CANDIDATES + MAX_SPLIT_GROUPS:
            centres += [(group, number) for group in groups]
    return sorted(centres, key=lambda item: item[1])


def _relit(colours: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Colours (n, 3) all brought to their median light, and their lights (n,): shading scales a colour's
    distance from black."""
    shifted = colours.astype(np.float64) - BLACK
    lights = np.linalg.norm(shifted, axis=1)
    return shifted / np.maximum(lights, 1e-6)[:, None] * np.median(lights) + BLACK, lights


def split_cluster(colours: np.ndarray) -> list[np.ndarray]:
    """The centres of a cluster's two groups of colours (n, 3), bigger first, when two-means finds groups well apart
    for their spread (SPLIT_SEPARATION) that are not shades of each other; else none.

    The groups are sought with every colour brought to the cluster's median light (a light gradient across the
    board spreads one material's colours along its shades, not apart from another material's).
    """
    if len(colours) < 2:
        return []
    relit, _ = _relit(colours)
    apart = np.linalg.norm(relit[:, None] - relit[None], axis=2)
    first, second = np.unravel_index(np.argmax(apart), apart.shape)
    centres = relit[[first, second]]
    for _ in range(SPLIT_ROUNDS):
        group = np.linalg.norm(relit[:, None] - centres[None], axis=2).argmin(axis=1)
        if group.min() == group.max():
            return []
        centres = np.array([np.median(relit[group == k], axis=0) for k in range(2)])
    spread = np.median(np.linalg.norm(relit - centres[group], axis=1))
    separation = float(np.linalg.norm(centres[0] - centres[1]))
    groups = [np.median(colours[group == k], axis=0) for k in range(2)]
    if separation < SPLIT_SEPARATION * max(spread, SPLIT_MIN_SPREAD) or shades_of(groups[:1], groups[1:]).any():
        return []
    return [groups[k] for k in np.argsort(-np.bincount(group, minlength=2), kind="stable")]


def shades_of(
    colours: list[np.ndarray] | tuple[np.ndarray, ...], discs: list[np.ndarray] | tuple[np.ndarray, ...]
) -> np.ndarray:
    """(colours, discs): whether some light in SHADOW_RANGE makes the disc colour into the colour."""
    return shaded_distances(np.asarray(colours), np.asarray(discs), SHADOW_RANGE).T < SHADE_MATCH_RADIUS
