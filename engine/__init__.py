"""The game engine: positions, the exact solver, and (from the player work) the time-budgeted search.

Imports of the numba solver are lazy so `import engine` stays fast for code that needs only positions.
"""

from engine.position import IllegalMoveError, InvalidBoardError, InvalidMoveError, Position

__all__ = ["IllegalMoveError", "InvalidBoardError", "InvalidMoveError", "Position"]
