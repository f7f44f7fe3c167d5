"""Engine-vs-engine matches: how the levels, styles and evaluation weights are measured and tuned.

A match plays pairs of games from seeded random openings (K plies, no immediate win in them), each
opening once with either side first, so neither player profits from the colour or the opening.
Players are levels 1..10 of engine.search or the robot seed document's bot (engine/seed_bot.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.position import Position
from engine.search import Limit, search
from engine.seed_bot import seed_move

Chooser = Callable[[Position, random.Random], int]


@dataclass(frozen=True)
class Player:
    """A named move chooser for matches."""

    name: str
    choose: Chooser


def make_player(spec: str, limit: Limit, style: str = "neutral") -> Player:
    """`seed` (the robot seed's bot) or a level "1".."10" searching within `limit`.

    Raises ValueError for anything else.
    """
    if spec == "seed":
        return Player("seed", lambda position, rng: seed_move(position.to_array(), position.side_to_move, rng))
    if not spec.isdigit():
        raise ValueError(f"player {spec!r} is neither a level 1..10 nor 'seed': give e.g. 10 or seed")
    level = int(spec)
    search(Position.empty(), Limit(time=None, depth=1), level=level, style=style)  # checks the level early
    name = f"level {level}" if style == "neutral" else f"level {level} {style}"
    return Player(name, lambda position, rng: search(position, limit, level=level, rng=rng, style=style).column)


@dataclass
class GameRecord:
    """One game: who moved first, the 1-based move string, and the winner's name ('' for a draw)."""

    first: str
    second: str
    moves: str
    winner: str


@dataclass
class MatchSummary:
    """Results from player A's point of view, and every game."""

    a: str
    b: str
    games: list[GameRecord] = field(default_factory=list)

    def count(self, name: str) -> int:
        return sum(1 for game in self.games if game.winner == name)

    @property
    def draws(self) -> int:
        return sum(1 for game in self.games if not game.winner)

    @property
    def score_a(self) -> float:
        """A's points (win 1, draw 1/2) per game."""
        return (self.count(self.a) + 0.5 * self.draws) / max(1, len(self.games))


def random_opening(plies: int, rng: random.Random, width: int = 7, height: int = 6) -> str:
    """The 1-based moves of a random opening of `plies` moves after which no line is made or waiting."""
    while True:
        position, moves = Position.empty(width, height), ""
        for _ in range(plies):
            col = rng.choice(position.legal_moves())
            position, moves = position.play(col), moves + str(col + 1)
            if position.is_over():
                break
        if not position.is_over() and not any(position.is_winning_move(col) for col in position.legal_moves()):
            return moves


def play_game(
    first: Player, second: Player, opening: str, rng: random.Random, width: int = 7, height: int = 6
) -> GameRecord:
    """Play from the 1-based `opening` moves to the end; `first` moves when the first player is to move."""
    position = Position.from_moves(opening, width, height)
    moves = opening
    while not position.is_over():
        mover = first if position.side_to_move == 1 else second
        col = mover.choose(position, rng)
        position = position.play(col)
        moves += str(col + 1)
    winner = "" if position.is_draw() else (first.name if position.winner() == 1 else second.name)
    return GameRecord(first.name, second.name, moves, winner)


def play_match(
    a: Player,
    b: Player,
    games: int,
    opening_plies: int = 2,
    seed: int = 0,
    width: int = 7,
    height: int = 6,
    on_game: Callable[[GameRecord], None] | None = None,
) -> MatchSummary:
    """`games` games (rounded up to pairs), each random opening once with either player first.

    Raises ValueError when both players have the same name (their wins could not be told apart).
    """
    if a.name == b.name:
        raise ValueError(f"both players are {a.name}: give two different players")
    rng = random.Random(seed)
    summary = MatchSummary(a.name, b.name)
    for _ in range((games + 1) // 2):
        opening = random_opening(opening_plies, rng, width, height)
        for first, second in ((a, b), (b, a)):
            record = play_game(first, second, opening, random.Random(rng.getrandbits(32)), width, height)
            summary.games.append(record)
            if on_game is not None:
                on_game(record)
    return summary
