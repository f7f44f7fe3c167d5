"""engine.match and the seed bot: games end legally, the seed bot behaves like the seed document's."""

from __future__ import annotations

import random

import numpy as np

from engine.match import make_player, play_match, random_opening
from engine.position import Position
from engine.search import Limit
from engine.seed_bot import score_position, seed_move


def test_seed_bot_takes_a_win_and_blocks_a_loss() -> None:
    winning = Position.from_moves("112233")  # first player to move wins in column 4
    assert seed_move(winning.to_array(), 1, random.Random(0)) == 3
    threatened = Position.from_moves("17273")  # first player has columns 1-3 of the bottom row
    assert seed_move(threatened.to_array(), 2, random.Random(0)) == 3


def test_seed_score_counts_windows_like_the_seed() -> None:
    board = np.zeros((6, 7), dtype=np.int8)
    board[0, 3] = 2
    # centre disc: 3 points; no window holds two of its discs yet
    assert score_position(board, 2) == 3


def test_match_plays_pairs_of_complete_games() -> None:
    limit = Limit(time=None, depth=3)
    summary = play_match(make_player("9", limit), make_player("seed", limit), games=2, opening_plies=2, seed=5)
    assert len(summary.games) == 2
    assert summary.games[0].moves[:2] == summary.games[1].moves[:2]
    for game in summary.games:
        final = Position.from_moves(game.moves)
        assert final.is_over()
        assert game.winner in ("", "level 9", "seed")


def test_openings_have_no_made_or_waiting_line() -> None:
    rng = random.Random(2)
    for _ in range(20):
        position = Position.from_moves(random_opening(4, rng))
        assert not position.is_over()
        assert not any(position.is_winning_move(col) for col in position.legal_moves())
