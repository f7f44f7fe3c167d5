"""The game log: the record of one game, saved atomically after every move so `--resume` can continue it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from calibration.store import write_atomically

LOG_VERSION = 1


@dataclass
class RobotTurn:
    """One robot turn's figures; columns 0-based here, 1-based in the JSON summary."""

    column: int
    landed: int | None
    vision_s: float
    engine_s: float
    arm_s: float


@dataclass
class GameLog:
    """The record of a game, saved atomically after every move so `--resume` can continue it.

    `moves` are 0-based columns in play order; the file stores them as a 1-based move string.
    """

    robot_first: bool
    rows: int
    cols: int
    moves: list[int] = field(default_factory=list)
    turns: list[RobotTurn] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    board_agreement: bool = True
    winner: str | None = None

    @property
    def move_string(self) -> str:
        return "".join(str(column + 1) for column in self.moves)

    def summary(self) -> dict:
        """The `--json` summary of DESIGN.md: 1-based columns, the winner, per robot turn figures."""
        return {
            "moves": self.move_string,
            "winner": self.winner,
            "robot_first": self.robot_first,
            "turns": [
                {
                    "column": turn.column + 1,
                    "landed": None if turn.landed is None else turn.landed + 1,
                    "vision_s": round(turn.vision_s, 4),
                    "engine_s": round(turn.engine_s, 4),
                    "arm_s": round(turn.arm_s, 3),
                }
                for turn in self.turns
            ],
            "board_agreement": self.board_agreement,
            "events": list(self.events),
        }

    def save(self, path: Path) -> None:
        """Write the log atomically: a crash mid-write leaves the previous log intact."""
        document = {"version": LOG_VERSION, "rows": self.rows, "cols": self.cols, **self.summary()}
        write_atomically(path, json.dumps(document, indent=1))

    @classmethod
    def load(cls, path: Path) -> GameLog:
        """Read a saved log. Raises FileNotFoundError when there is none, ValueError when it is damaged."""
        if not path.exists():
            raise FileNotFoundError(f"no game log at {path}: there is no game to resume")
        try:
            document = json.loads(path.read_text())
            if document.get("version") != LOG_VERSION:
                raise ValueError(f"version {document.get('version')!r}, expected {LOG_VERSION}")
            moves = document["moves"]
            if not isinstance(moves, str) or not all(c.isdigit() and c != "0" for c in moves):
                raise ValueError(f"moves {moves!r} is not a move string")
            turns = [
                RobotTurn(
                    t["column"] - 1,
                    None if t["landed"] is None else t["landed"] - 1,
                    t["vision_s"],
                    t["engine_s"],
                    t["arm_s"],
                )
                for t in document["turns"]
            ]
            return cls(
                robot_first=bool(document["robot_first"]),
                rows=int(document["rows"]),
                cols=int(document["cols"]),
                moves=[int(c) - 1 for c in moves],
                turns=turns,
                events=list(document["events"]),
                board_agreement=bool(document["board_agreement"]),
                winner=document["winner"],
            )
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"the game log {path} is damaged ({error}): delete it to start a new game") from error
