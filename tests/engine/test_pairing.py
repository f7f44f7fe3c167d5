"""The follower's pairing proofs (engine/pairing.py) hold: every bound they give agrees with an independent judge."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from brute_force import brute_force_scorer

from engine.bitboard import board_masks, popcount, rows_mask, winning_cells
from engine.pairing import CANNOT_WIN, LOSES, NOTHING_PROVEN, follower_bound, threat_zugzwang_bound
from engine.position import Position
from engine.solver import Solver
from engine.testsets import read_test_set


def bound_of(position: Position) -> tuple[int, int]:
    """(the pairing bound for the side to move, how many columns have an odd number of empty cells)."""
    current, mask = (np.uint64(bits) for bits in position.bitboards)
    bottom, board = board_masks(position.width, position.height)
    mover_rows = rows_mask(position.width, position.height, 0)
    h1 = np.uint64(position.height + 1)
    bound = follower_bound(current, mask, bottom, board, mover_rows, board ^ mover_rows, h1, position.connect)
    return bound, int(popcount((mask + bottom) & board & (board ^ mover_rows)))


def threat_bound_of(position: Position) -> int:
    """The follower's threat-zugzwang bound for the side to move (LOSES or NOTHING_PROVEN)."""
    current, mask = (np.uint64(bits) for bits in position.bitboards)
    bottom, board = board_masks(position.width, position.height)
    follower_rows = board ^ rows_mask(position.width, position.height, 0)
    h1 = np.uint64(position.height + 1)
    threats = winning_cells(current ^ mask, mask, h1, board, position.connect)
    return threat_zugzwang_bound(current, mask, bottom, board, follower_rows, h1, position.connect, threats)


def random_positions(rng: random.Random, size: tuple[int, int, int], first_ply: int) -> Iterator[tuple[str, Position]]:
    """(1-based moves, position) of every unfinished position from `first_ply` on along random games, forever."""
    while True:
        position, moves = Position.empty(*size), ""
        while not position.is_over():
            if len(moves) >= first_ply:
                yield moves, position
            column = rng.choice(position.legal_moves())
            position, moves = position.play(column), moves + str(column + 1)


def test_a_baseinverse_proves_what_claimeven_alone_cannot() -> None:
    # First player to move; columns 3 and 4 have an odd number of empty cells (their lowest empty cells pair
    # as a baseinverse), the others even: the second player holds at least the draw.
    position = Position.from_moves("4745744354")
    assert position.side_to_move == 1
    bound, odd_columns = bound_of(position)
    assert odd_columns == 2
    assert bound == CANNOT_WIN
    assert Solver(16).solve(position, weak=True).score <= 0


@pytest.mark.parametrize("size", [(5, 4, 4), (4, 5, 4), (4, 6, 4)])
def test_every_bound_on_small_boards_agrees_with_brute_force(size: tuple[int, int, int]) -> None:
    brute = brute_force_scorer(*size)
    proven_by_odd_columns: dict[int, int] = {}
    for moves, position in itertools.islice(random_positions(random.Random(sum(size)), size, 2), 1500):
        bound, odd_columns = bound_of(position)
        if bound != NOTHING_PROVEN:
            proven_by_odd_columns[odd_columns] = proven_by_odd_columns.get(odd_columns, 0) + 1
            score = brute(moves)
            assert (score < 0) if bound == LOSES else (score <= 0), f"{moves}: pairing says {bound}, minimax {score}"
    assert proven_by_odd_columns.get(0, 0) > 5 and proven_by_odd_columns.get(2, 0) > 5, proven_by_odd_columns


def test_every_bound_at_a_test_set_position_agrees_with_its_score(shared_dir: Path) -> None:
    proven = 0
    for name in ("L3_R1", "L2_R1", "L2_R2"):
        for moves, score in read_test_set(shared_dir / "engine" / "testsets", name, 1000):
            bound, _ = bound_of(Position.from_moves(moves))
            if bound != NOTHING_PROVEN:
                proven += 1
                assert (score < 0) if bound == LOSES else (score <= 0), f"{moves}: pairing says {bound}, set {score}"
    assert proven > 100


def test_an_odd_threat_gives_the_first_player_the_zugzwang() -> None:
    # Second player to move, an odd number of columns with an odd number of empty cells: no pairing of the
    # whole board holds, but the first player's threat on the third row, with the cells of its column from
    # the second row up left out, leaves the second player to fill that cell and give the threat away.
    position = Position.from_moves("2553635322312")
    assert position.side_to_move == 2
    assert bound_of(position)[0] == NOTHING_PROVEN
    assert threat_bound_of(position) == LOSES
    assert Solver(16).solve(position, weak=True).score < 0


@pytest.mark.parametrize("size", [(5, 4, 4), (4, 5, 4), (4, 6, 4), (5, 5, 4)])
def test_every_threat_bound_on_small_boards_agrees_with_brute_force(size: tuple[int, int, int]) -> None:
    brute = brute_force_scorer(*size)
    beyond_pairing = 0
    for moves, position in itertools.islice(random_positions(random.Random(sum(size)), size, 2), 1500):
        if any(position.is_winning_move(col) for col in position.legal_moves()):
            continue  # the solver never asks there
        if threat_bound_of(position) == LOSES:
            assert brute(moves) < 0, f"{moves}: the threat's zugzwang says lost, minimax {brute(moves)}"
            beyond_pairing += bound_of(position)[0] != LOSES
    assert beyond_pairing > 10


def test_every_threat_bound_at_a_test_set_position_agrees_with_its_score(shared_dir: Path) -> None:
    proven = 0
    for name in ("L3_R1", "L2_R1", "L2_R2"):
        for moves, score in read_test_set(shared_dir / "engine" / "testsets", name, 1000):
            if threat_bound_of(Position.from_moves(moves)) == LOSES:
                proven += 1
                assert score < 0, f"{moves}: the threat's zugzwang says lost, set {score}"
    assert proven > 100
