"""Who plays against the robot in a simulated game: a policy that picks the simulated person's column.

On the real board the person plays by hand and no policy is needed; in the simulation a policy stands in
for the person: one who plays as people do at a skill level (`person:LEVEL`, the default), uniformly
random, an engine level, or columns typed at the terminal. Keys typed at the terminal while the robot moved
are dropped before the person is asked (with a word): they were typed before the person saw the board.
"""

from __future__ import annotations

import fcntl
import random
import struct
import sys
import termios
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TextIO

from engine import Position
from engine.search import Limit, search
from robot.game.person_policy import DEFAULT_SKILL, SKILLS, PersonOpponent


class Opponent(Protocol):
    """Chooses the simulated person's column (0-based) in a position where the person is to move."""

    name: str

    def choose(self, position: Position) -> int: ...


@dataclass
class RandomOpponent:
    """Any legal column with equal chance: the weakest, most chaotic person."""

    rng: random.Random
    name: str = "random"

    def choose(self, position: Position) -> int:
        return self.rng.choice(position.legal_moves())


@dataclass
class EngineOpponent:
    """The engine at a skill level (1 beginner .. 10 perfect) plays the person's side."""

    level: int
    rng: random.Random
    time_s: float = 0.5

    @property
    def name(self) -> str:
        return f"engine:{self.level}"

    def choose(self, position: Position) -> int:
        return search(position, Limit(time=self.time_s), level=self.level, rng=self.rng).column


def discard_typed_ahead(stream: TextIO | None = None) -> bool:
    """Drop the lines typed at a terminal that no one asked for yet; True when a typed line was dropped.

    Only a terminal is flushed: piped or redirected input is a script's moves, all of them read ahead by design.
    """
    stream = sys.stdin if stream is None else stream
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    if not stream.isatty():
        return False
    waiting = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]  # whole lines typed
    termios.tcflush(fd, termios.TCIFLUSH)  # and any half-typed one
    return waiting > 0


@dataclass
class TypedOpponent:
    """A person at the terminal types 1-based columns for the simulated hand; asks again on bad input.

    `discard` drops what was typed before the question (while the robot moved) and says whether it did.
    """

    ask: Callable[[str], str]
    tell: Callable[[str], None]
    name: str = "human"
    discard: Callable[[], bool] = field(default=discard_typed_ahead)

    def choose(self, position: Position) -> int:
        if self.discard():
            self.tell("Typed while I moved: ignored. Type your move now that you see the board.")
        while True:
            answer = self.ask(f"your move (column 1-{position.width}): ").strip()
            if answer.isdigit() and 1 <= int(answer) <= position.width:
                if position.can_play(int(answer) - 1):
                    return int(answer) - 1
                self.tell(f"Column {int(answer)} is full; pick another column.")
                continue
            shown = answer if len(answer) <= 20 else answer[:17] + "..."
            self.tell(f"{shown!r} is not a column: type a number from 1 to {position.width}.")


OPPONENT_HELP = (
    f"person (a person of middling skill, person:{DEFAULT_SKILL}), person:LEVEL (1 beginner .. {max(SKILLS)} strong), "
    "random, engine:LEVEL (1..10) or human (you type the columns)"
)


def parse_opponent(text: str, rng: random.Random, ask: Callable[[str], str], tell: Callable[[str], None]) -> Opponent:
    """The opponent named on the command line: `person`, `person:LEVEL`, `human`, `random` or `engine:LEVEL`.

    Raises ValueError naming the text when it is none of those.
    """
    if text == "random":
        return RandomOpponent(rng)
    if text == "human":
        return TypedOpponent(ask, tell)
    if text == "person":
        return PersonOpponent(DEFAULT_SKILL, rng)
    kind, _, level = text.partition(":")
    if kind == "engine" and level.isdigit() and 1 <= int(level) <= 10:
        return EngineOpponent(int(level), rng)
    if kind == "person" and level.isdigit() and int(level) in SKILLS:
        return PersonOpponent(int(level), rng)
    shown = text if len(text) <= 30 else text[:27] + "..."
    raise ValueError(
        f"unknown opponent {shown!r}: use person, person:LEVEL (1 to {max(SKILLS)}), human, random "
        "or engine:LEVEL (1 to 10)"
    )
