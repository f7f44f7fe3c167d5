"""A Connect-N position on a W x H board: bitboards, legal moves, wins, and the checks that keep it valid.

Bit layout (Pons): each column takes H + 1 bits, bottom cell first, with one spare bit on top that is
always empty, so runs of stones never wrap from one column into the next. For 7 x 6:

    .  .  .  .  .  .  .     <- spare row (always 0)
    5 12 19 26 33 40 47
    4 11 18 25 32 39 46
    3 10 17 24 31 38 45
    2  9 16 23 30 37 44
    1  8 15 22 29 36 43
    0  7 14 21 28 35 42     <- bottom row

A position is two bitboards: `current` (stones of the side to move) and `mask` (all stones).
`key = current + mask` is unique per position (it marks each column's first empty cell and the side
to move's stones below it). Bits are Python ints, so boards with W * (H + 1) > 64 (9 x 7, 8 x 8) work
the same way; the solver's numba fast path takes boards that fit 64 bits.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

MAX_WIDTH = 9  # move strings use one digit per column
MIN_CONNECT = 3
EMPTY, FIRST_PLAYER, SECOND_PLAYER = 0, 1, 2


def centre_first(width: int) -> list[int]:
    """Columns from the centre outwards: the usual first guess of a good move."""
    return sorted(range(width), key=lambda col: (abs(2 * col - width + 1), col))


class InvalidMoveError(ValueError):
    """A move string or column that is not a move at all (bad character, column out of range)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules forbid here (full column, game already over)."""


class InvalidBoardError(ValueError):
    """A board that no game of Connect-N can produce (bad shape or values, floating disc, wrong counts)."""


class Geometry:
    """Constant bit masks of one board size; shared by all positions of that size."""

    _cache: dict[tuple[int, int, int], Geometry] = {}

    def __init__(self, width: int, height: int, connect: int) -> None:
        self.width, self.height, self.connect = width, height, connect
        self.column_bits = height + 1
        self.bottom = [1 << (col * self.column_bits) for col in range(width)]
        self.column_mask = [((1 << height) - 1) << (col * self.column_bits) for col in range(width)]
        self.top = [1 << (height - 1 + col * self.column_bits) for col in range(width)]
        self.bottom_mask = sum(self.bottom)
        self.board_mask = sum(self.column_mask)
        # Steps between neighbours along a line: vertical, horizontal, both diagonals.
        self.directions = (1, self.column_bits, self.column_bits - 1, self.column_bits + 1)

    @classmethod
    def of(cls, width: int, height: int, connect: int) -> Geometry:
        """The geometry of a size, checked and cached."""
        if not isinstance(width, int) or not 1 <= width <= MAX_WIDTH:
            raise InvalidBoardError(f"board width {width!r} is not supported: use 1 to {MAX_WIDTH} columns")
        if not isinstance(height, int) or height < 1:
            raise InvalidBoardError(f"board height {height!r} is not supported: use at least 1 row")
        if not isinstance(connect, int) or connect < MIN_CONNECT:
            raise InvalidBoardError(f"connect {connect!r} is not supported: use {MIN_CONNECT} or more in a row")
        key = (width, height, connect)
        if key not in cls._cache:
            cls._cache[key] = cls(width, height, connect)
        return cls._cache[key]

    def winning_cells(self, stones: int, mask: int) -> int:
        """Empty cells (playable or not) where one more stone would complete a line of `connect` for `stones`."""
        found = 0
        n = self.connect
        for step in self.directions:
            for gap in range(n):
                # A line covers gap cells before the empty cell and n - 1 - gap after it (along `step`).
                cells = -1
                for offset in range(-gap, n - gap):
                    if offset > 0:
                        cells &= stones >> (offset * step)
                    elif offset < 0:
                        cells &= stones << (-offset * step)
                found |= cells
        return found & (self.board_mask ^ mask)

    def lines_of(self, stones: int) -> int:
        """All cells of `stones` that lie on a completed line of `connect`."""
        cells = 0
        n = self.connect
        for step in self.directions:
            starts = stones
            for offset in range(1, n):
                starts &= stones >> (offset * step)
            for offset in range(n):
                cells |= starts << (offset * step)
        return cells

    def has_line(self, stones: int) -> bool:
        """True if `stones` hold a completed line of `connect`."""
        return self.lines_of(stones) != 0


class Position:
    """An immutable position: the side to move's stones, all stones, and whether the game is won.

    Columns are 0-based here; move strings are 1-based digits.
    """

    __slots__ = ("_geometry", "_current", "_mask", "_moves", "_winner")

    def __init__(self, geometry: Geometry, current: int, mask: int, moves: int, winner: int) -> None:
        """Internal: use `from_moves`, `from_array` or `play`, which check their input."""
        self._geometry = geometry
        self._current = current
        self._mask = mask
        self._moves = moves
        self._winner = winner

    # ----- construction -------------------------------------------------------------------------
    @classmethod
    def empty(cls, width: int = 7, height: int = 6, connect: int = 4) -> Position:
        """The empty board of a size."""
        return cls(Geometry.of(width, height, connect), 0, 0, 0, EMPTY)

    @classmethod
    def from_moves(cls, moves: str, width: int = 7, height: int = 6, connect: int = 4) -> Position:
        """The position after playing a 1-based move string such as "4453" from the empty board.

        Raises InvalidMoveError (a character that is not a column digit of this board) or
        IllegalMoveError (a full column, a move after the game is over).
        """
        position = cls.empty(width, height, connect)
        if not isinstance(moves, str):
            raise InvalidMoveError(f"moves {moves!r} are not a string of column digits")
        for index, char in enumerate(moves):
            if not ("1" <= char <= "9") or int(char) > width:
                raise InvalidMoveError(
                    f"move {index + 1} of {moves!r} is {char!r}: use the digits 1 to {width} for the columns"
                )
        for index, char in enumerate(moves):
            try:
                position = position.play(int(char) - 1)
            except IllegalMoveError as error:
                raise IllegalMoveError(f"move {index + 1} of {moves!r}: {error}") from None
        return position

    @classmethod
    def from_array(cls, board: Iterable, connect: int = 4) -> Position:
        """The position shown by a (rows, cols) board, row 0 at the bottom, 0 empty, 1 first player, 2 second.

        Raises InvalidBoardError for a wrong shape, values other than 0/1/2, a floating disc, stone
        counts no game produces, both players with a line, or stones played after the game was won.
        """
        import numpy as np  # here, not at the top: `c4robot move` asks the resident engine without numpy

        grid = np.asarray(board)
        if grid.ndim != 2 or grid.shape[0] < 1 or grid.shape[1] < 1:
            raise InvalidBoardError(f"board of shape {grid.shape} is not a (rows, cols) grid")
        height, width = grid.shape
        geometry = Geometry.of(width, height, connect)
        if not np.issubdtype(grid.dtype, np.number) or not np.isin(grid, (EMPTY, FIRST_PLAYER, SECOND_PLAYER)).all():
            bad = sorted({repr(v) for v in grid.ravel().tolist() if v not in (EMPTY, FIRST_PLAYER, SECOND_PLAYER)})
            raise InvalidBoardError(f"board holds {', '.join(bad[:3])}: cells must be 0 (empty), 1 or 2")
        grid = grid.astype(np.int8)
        stones = {FIRST_PLAYER: 0, SECOND_PLAYER: 0}
        for col in range(width):
            column = grid[:, col]
            filled = int(np.count_nonzero(column))
            if column[:filled].min(initial=1) == EMPTY:
                row = int(np.argmin(column[:filled] != EMPTY))
                raise InvalidBoardError(
                    f"column {col + 1} has a disc floating above the empty row {row + 1}: discs rest on the one below"
                )
            for row in range(filled):
                stones[int(column[row])] |= 1 << (row + col * geometry.column_bits)
        first, second = stones[FIRST_PLAYER], stones[SECOND_PLAYER]
        n_first, n_second = first.bit_count(), second.bit_count()
        if n_first not in (n_second, n_second + 1):
            raise InvalidBoardError(
                f"board has {n_first} discs of player 1 and {n_second} of player 2: "
                "player 1 starts, so it has as many or one more"
            )
        mask = first | second
        moves = n_first + n_second
        last_mover = FIRST_PLAYER if n_first > n_second else SECOND_PLAYER
        winner = _check_winner(geometry, first, second, mask, last_mover)
        current = first if last_mover == SECOND_PLAYER else second
        return cls(geometry, current, mask, moves, winner)

    # ----- properties ---------------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self._geometry.width

    @property
    def height(self) -> int:
        return self._geometry.height

    @property
    def connect(self) -> int:
        return self._geometry.connect

    @property
    def geometry(self) -> Geometry:
        """The board size's constant bit masks."""
        return self._geometry

    @property
    def moves_played(self) -> int:
        return self._moves

    @property
    def side_to_move(self) -> int:
        """1 if the first player moves next, else 2."""
        return FIRST_PLAYER if self._moves % 2 == 0 else SECOND_PLAYER

    @property
    def bitboards(self) -> tuple[int, int]:
        """(stones of the side to move, all stones) in the layout drawn at the top of this module."""
        return self._current, self._mask

    @property
    def fits_64_bits(self) -> bool:
        """True when the board's bit layout fits a uint64 (the solver's fast path)."""
        return self.width * (self.height + 1) <= 64

    # ----- rules --------------------------------------------------------------------------------
    def can_play(self, col: int) -> bool:
        """True if `col` is on the board, not full, and the game is not over."""
        g = self._geometry
        return 0 <= col < g.width and not self._mask & g.top[col] and self._winner == EMPTY

    def legal_moves(self) -> list[int]:
        """Playable columns, left to right (empty once the game is over)."""
        return [col for col in range(self.width) if self.can_play(col)]

    def is_winning_move(self, col: int) -> bool:
        """True if playing `col` now completes a line for the side to move (False if `col` is not playable)."""
        if not self.can_play(col):
            return False
        g = self._geometry
        cell = (self._mask + g.bottom[col]) & g.column_mask[col]
        return bool(g.winning_cells(self._current, self._mask) & cell)

    def play(self, col: int) -> Position:
        """The position after the side to move drops a stone in 0-based column `col`.

        Raises InvalidMoveError (not a column of this board) or IllegalMoveError (full, game over).
        """
        g = self._geometry
        if not _is_integer(col) or not 0 <= col < g.width:
            raise InvalidMoveError(f"column {col!r} is not on the board: use 0 to {g.width - 1}")
        col = int(col)
        if self._winner != EMPTY:
            raise IllegalMoveError(f"player {self._winner} has already won: no more moves")
        if self._mask & g.top[col]:
            raise IllegalMoveError(f"column {col + 1} is full: pick another column")
        winner = self.side_to_move if self.is_winning_move(col) else EMPTY
        mask = self._mask | (self._mask + g.bottom[col])
        return Position(g, self._current ^ self._mask, mask, self._moves + 1, winner)

    def winner(self) -> int:
        """1 or 2 for the player who completed a line, 0 if nobody has."""
        return self._winner

    def is_draw(self) -> bool:
        """True if the board is full and nobody won."""
        return self._winner == EMPTY and self._moves == self.width * self.height

    def is_over(self) -> bool:
        return self._winner != EMPTY or self._moves == self.width * self.height

    def winning_cells(self) -> list[tuple[int, int]]:
        """(col, row) of every cell on the winner's completed line(s), sorted; empty if nobody won."""
        if self._winner == EMPTY:
            return []
        g = self._geometry
        stones = self._current ^ self._mask  # the winner moved last
        cells = g.lines_of(stones)
        return [
            (col, row) for col in range(g.width) for row in range(g.height) if cells >> (row + col * g.column_bits) & 1
        ]

    # ----- identity -----------------------------------------------------------------------------
    def key(self) -> int:
        """A number unique to this position on its board size (current + mask)."""
        return self._current + self._mask

    def mirror(self) -> Position:
        """The position reflected left to right (same score, columns c <-> width - 1 - c)."""
        g = self._geometry
        current = mask = 0
        for col in range(g.width):
            shift = (g.width - 1 - 2 * col) * g.column_bits
            bits_cur = self._current & g.column_mask[col]
            bits_mask = self._mask & g.column_mask[col]
            current |= bits_cur << shift if shift >= 0 else bits_cur >> -shift
            mask |= bits_mask << shift if shift >= 0 else bits_mask >> -shift
        return Position(g, current, mask, self._moves, self._winner)

    def to_array(self) -> np.ndarray:
        """The board as int8 (rows, cols), row 0 at the bottom, 0 empty, 1 first player, 2 second."""
        import numpy as np

        g = self._geometry
        grid = np.zeros((g.height, g.width), dtype=np.int8)
        mover = self.side_to_move
        other = SECOND_PLAYER if mover == FIRST_PLAYER else FIRST_PLAYER
        for col in range(g.width):
            for row in range(g.height):
                bit = 1 << (row + col * g.column_bits)
                if self._mask & bit:
                    grid[row, col] = mover if self._current & bit else other
        return grid

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._geometry is other._geometry and self._current == other._current and self._mask == other._mask

    def __hash__(self) -> int:
        return hash((self.width, self.height, self.connect, self._current, self._mask))

    def __repr__(self) -> str:
        return (
            f"<Position {self.width}x{self.height} connect {self.connect}, "
            f"{self._moves} moves, player {self.side_to_move} to move>"
        )

    def __str__(self) -> str:
        """The board top row first, 'X' first player, 'O' second, '.' empty, 1-based column labels below."""
        symbols = {EMPTY: ".", FIRST_PLAYER: "X", SECOND_PLAYER: "O"}
        grid = self.to_array()
        rows = [" ".join(symbols[int(v)] for v in grid[row]) for row in range(self.height - 1, -1, -1)]
        rows.append(" ".join(str(col + 1) for col in range(self.width)))
        return "\n".join(rows)


def _check_winner(geometry: Geometry, first: int, second: int, mask: int, last_mover: int) -> int:
    """The winner of a board read whole, or InvalidBoardError if play went on after a line was made."""
    first_won, second_won = geometry.has_line(first), geometry.has_line(second)
    if first_won and second_won:
        raise InvalidBoardError("both players have a line: a game stops at the first one")
    if not (first_won or second_won):
        return EMPTY
    winner = FIRST_PLAYER if first_won else SECOND_PLAYER
    if winner != last_mover:
        raise InvalidBoardError(
            f"player {winner} has a line but player {last_mover} played after it: a game stops at the first line"
        )
    stones = first if winner == FIRST_PLAYER else second
    # The winning stone was the last one played: some top stone of the winner must make every line.
    for col in range(geometry.width):
        column = mask & geometry.column_mask[col]
        if not column:
            continue
        top = 1 << (column.bit_length() - 1)
        if stones & top and not geometry.has_line(stones ^ top):
            return winner
    raise InvalidBoardError(
        f"player {winner} has lines that one last disc cannot have made: the game went on after it was won"
    )


def _is_integer(value: object) -> bool:
    """An int or a numpy integer; numpy is not imported for the check (a numpy value means it is loaded)."""
    numpy = sys.modules.get("numpy")
    return isinstance(value, int) or (numpy is not None and isinstance(value, numpy.integer))
