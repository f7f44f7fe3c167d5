"""A simulated person who plays Connect 4 as people do, at a skill level from 1 (beginner) to 5 (strong).

People look one move ahead, not twenty: they take a win they see, usually block the robot's four, now and
then miss a threat or fill the hole under the robot's winning cell, like the centre and build their own
lines. Each habit is a chance per move, so a level makes varied, human-looking games against the robot
rather than the random stacking of a uniform policy or the cold precision of the engine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import Position

LINE_WORTH = (0.0, 1.0, 3.0, 9.0)  # a window of four holding 0..3 of one side's discs and none of the other's
GIFT_PENALTY = 20.0  # a column whose disc lets the robot win right on top of it
# The share of a diagonal's chance of going unseen that a line in each direction has: a column of three
# stands out, a row less so, a diagonal least. (row step, column step) -> share.
HIDDEN = {(1, 0): 0.25, (0, 1): 0.5, (1, 1): 1.0, (1, -1): 1.0}
FORK_WORTH = 12.0  # a column that lets the robot make two threats at once (a minus), or makes two of one's own


@dataclass(frozen=True)
class Skill:
    """How often a person sees each thing, and how much they care about the rest of the board."""

    takes_win: float  # chance of seeing a winning move of their own
    blocks: float  # chance of seeing (and blocking) the robot's winning move along a diagonal; plainer lines more
    avoids_gift: float  # chance, per column, of seeing that playing it lets the robot win above it
    foresight: float  # chance, per move, of looking for double threats: the robot's next one, one's own
    attack: float  # weight of building their own lines
    defence: float  # weight of spoiling the robot's lines
    centre: float  # weight of the centre columns
    whim: float  # spread of the random taste added to every column's worth


# fmt: off
SKILLS = {
    #        takes_win blocks avoids_gift foresight attack defence centre whim
    1: Skill(0.6,      0.35,  0.0,        0.0,      0.3,   0.1,    1.0,   3.0),
    2: Skill(0.8,      0.6,   0.3,        0.2,      0.6,   0.3,    1.5,   2.0),
    3: Skill(0.95,     0.9,   0.7,        0.6,      1.0,   0.7,    2.0,   1.0),
    4: Skill(1.0,      0.95,  0.85,       0.85,     1.0,   0.8,    2.0,   0.6),
    5: Skill(1.0,      1.0,   0.97,       0.97,     1.0,   1.0,    2.0,   0.25),
}
# fmt: on
DEFAULT_SKILL = 3  # a middling player: a real game against the robot, which still wins it


@dataclass
class PersonOpponent:
    """The person's side at `level` (a key of SKILLS); `rng` draws every slip and whim."""

    level: int
    rng: random.Random

    @property
    def name(self) -> str:
        return f"person:{self.level}"

    def choose(self, position: Position) -> int:
        skill = SKILLS[self.level]
        legal = position.legal_moves()
        wins = [column for column in legal if position.is_winning_move(column)]
        if wins and self.rng.random() < skill.takes_win:
            return self.rng.choice(wins)
        geometry = position.geometry
        mine, mask = position.bitboards
        robot_wins = geometry.winning_cells(mine ^ mask, mask)
        grid = position.to_array()
        me = position.side_to_move
        threats = [column for column in legal if _landing_cell(position, column) & robot_wins]
        seen = [
            column
            for column in threats
            if self.rng.random() < 1.0 - (1.0 - skill.blocks) * _how_hidden(grid, column, 3 - me, position.connect)
        ]
        if seen:
            return self.rng.choice(seen)
        looks_ahead = self.rng.random() < skill.foresight
        worth = {column: self._worth(position, grid, me, column, robot_wins, skill) for column in legal}
        if looks_ahead:
            for column in legal:
                worth[column] += FORK_WORTH * (_makes_fork(position.play(column)) - _allows_fork(position.play(column)))
        return max(legal, key=lambda column: worth[column] + self.rng.gauss(0.0, skill.whim))

    def _worth(self, position: Position, grid, me: int, column: int, robot_wins: int, skill: Skill) -> float:
        """How much the person likes `column`: its centrality, the lines it builds and spoils, a gift seen."""
        middle = (position.width - 1) / 2
        worth = skill.centre * (1.0 - abs(column - middle) / middle)
        row = int((grid[:, column] != 0).sum())
        own, theirs = _windows_through(grid, row, column, me, position.connect)
        worth += skill.attack * own + skill.defence * theirs
        gives_away = (_landing_cell(position, column) << 1) & robot_wins
        if gives_away and self.rng.random() < skill.avoids_gift:
            worth -= GIFT_PENALTY
        return worth


def _threats_now(position: Position) -> int:
    """How many columns the side that just moved could win in with its next disc (a fork when two or more)."""
    geometry = position.geometry
    mover_to_be, mask = position.bitboards
    cells = geometry.winning_cells(mover_to_be ^ mask, mask)
    return sum(bool(_landing_cell(position, column) & cells) for column in position.legal_moves())


def _makes_fork(after: Position) -> bool:
    """True when the disc that led to `after` left its player two winning columns at once."""
    return not after.is_over() and _threats_now(after) >= 2


def _allows_fork(after: Position) -> bool:
    """True when the side to move in `after` (the robot) has a disc that makes a fork."""
    return any(not after.is_winning_move(column) and _makes_fork(after.play(column)) for column in after.legal_moves())


def _how_hidden(grid, column: int, player: int, connect: int) -> float:
    """HIDDEN's share for the plainest line `player` completes by a disc in `column` (1.0 when none)."""
    height, width = grid.shape
    row = int((grid[:, column] != 0).sum())
    shares = [1.0]
    for (d_row, d_col), share in HIDDEN.items():
        run = 1
        for sign in (1, -1):
            r, c = row + sign * d_row, column + sign * d_col
            while 0 <= r < height and 0 <= c < width and grid[r, c] == player:
                run += 1
                r, c = r + sign * d_row, c + sign * d_col
        if run >= connect:
            shares.append(share)
    return min(shares)


def _landing_cell(position: Position, column: int) -> int:
    """The bit of the cell a disc dropped in `column` lands in."""
    geometry = position.geometry
    _, mask = position.bitboards
    return (mask + geometry.bottom[column]) & geometry.column_mask[column]


def _windows_through(grid, row: int, column: int, me: int, connect: int) -> tuple[float, float]:
    """The worth of every window of `connect` cells through (row, column) that is open for the person (own
    lines grown) and for the robot (the robot's lines that a disc here spoils)."""
    height, width = grid.shape
    own = theirs = 0.0
    for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for start in range(-connect + 1, 1):
            cells = [(row + (start + k) * d_row, column + (start + k) * d_col) for k in range(connect)]
            if not all(0 <= r < height and 0 <= c < width for r, c in cells):
                continue
            values = [int(grid[r, c]) for r, c in cells]
            mine = sum(v == me for v in values)
            other = sum(v not in (0, me) for v in values)
            if other == 0:
                own += LINE_WORTH[min(mine, len(LINE_WORTH) - 1)]
            elif mine == 0:
                theirs += LINE_WORTH[min(other, len(LINE_WORTH) - 1)]
    return own, theirs
