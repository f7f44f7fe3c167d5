"""G-code lines for Cartesian desktop arms, two dialects: pure format/parse functions.

uArm Swift Pro (firmware 4.x): a command may carry a sequence number, `#<n> G0 X<mm> Y<mm> Z<mm>
F<mm/min>`, and its answer repeats it: `$<n> ok [values]` or `$<n> E<code>`. Other lines (`@1` when
ready, `@`-events) are not answers. Used here: G0 move, G2202 N3 V<deg> wrist servo (P2206 N3 reads it), M2231 V1/V0
suction pump, M2200 "moving?" (`ok V1`/`ok V0`), P2220 tool position (`ok X.. Y.. Z..`), P2203
firmware version, `!` feed hold (the 4.x firmware is built on Grbl).

GRBL 1.1: plain lines without numbers, answered in order by `ok` or `error:<code>`; `?` is a real-time
query answered by a `<Idle|MPos:x,y,z|...>` report (no `ok`); `$I` gives the build info; `!` feed
hold, then Ctrl-X (0x18) soft reset clears the planner. Vacuum on the coolant pin: M8 on, M9 off.
Moves are G1 with a feed rate. GRBL answers carry no sequence number, so a command whose answer is
lost cannot be repeated safely: the driver fails instead of guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Dialect = Literal["uarm", "grbl"]
FEED_HOLD = b"!"
SOFT_RESET = b"\x18"
STATUS_QUERY = "?"

_UARM_REPLY = re.compile(r"^\$(\d+)\s+(ok|E\d+)\b\s*(.*)$")
_GRBL_STATUS = re.compile(r"^<(\w+)(?::\d+)?\|(?:MPos|WPos):(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)")


class GcodeReplyError(ValueError):
    """A line that should have been an answer but cannot be read."""


def format_move(x_mm: float, y_mm: float, z_mm: float, feed_mm_min: float, dialect: Dialect) -> str:
    word = "G0" if dialect == "uarm" else "G1"
    return f"{word} X{x_mm:.2f} Y{y_mm:.2f} Z{z_mm:.2f} F{max(feed_mm_min, 1.0):.0f}"


def format_wrist(angle_deg: float) -> str:
    """uArm wrist servo (joint 3), 0..180 degrees, 90 = straight."""
    return f"G2202 N3 V{angle_deg:.2f}"


def format_wrist_query() -> str:
    """uArm: the wrist servo's angle (`ok V<deg>`)."""
    return "P2206 N3"


def parse_angle(values: tuple[str, ...]) -> float:
    """The V<deg> word of an answer."""
    for value in values:
        if value[:1].upper() == "V":
            try:
                return float(value[1:])
            except ValueError:
                break
    raise GcodeReplyError(f"answer {' '.join(values)!r} has no V<angle>")


def format_suction(on: bool, dialect: Dialect) -> str:
    if dialect == "uarm":
        return f"M2231 V{1 if on else 0}"
    return "M8" if on else "M9"


def format_query(what: Literal["version", "position", "moving"], dialect: Dialect) -> str:
    if dialect == "uarm":
        return {"version": "P2203", "position": "P2220", "moving": "M2200"}[what]
    return {"version": "$I", "position": STATUS_QUERY, "moving": STATUS_QUERY}[what]


def with_seq(seq: int, command: str) -> str:
    """A uArm command line carrying its sequence number."""
    return f"#{seq} {command}"


@dataclass(frozen=True)
class UarmReply:
    seq: int
    is_ok: bool
    values: tuple[str, ...]
    error: str = ""


def parse_uarm_reply(line: str) -> UarmReply | None:
    """The answer in `line`, or None for lines that are not answers (`@1`, events, echoes)."""
    match = _UARM_REPLY.match(line.strip())
    if match is None:
        if line.strip().startswith("$"):
            raise GcodeReplyError(f"uArm answer {line.strip()!r} is not '$<n> ok|E<code> ...'")
        return None
    seq, verdict, rest = match.groups()
    if verdict == "ok":
        return UarmReply(int(seq), True, tuple(rest.split()))
    return UarmReply(int(seq), False, tuple(rest.split()), verdict)


@dataclass(frozen=True)
class GrblLine:
    kind: Literal["ok", "error", "status", "other"]
    text: str
    state: str = ""
    position_mm: tuple[float, float, float] | None = None


def parse_grbl_line(line: str) -> GrblLine:
    text = line.strip()
    if text == "ok":
        return GrblLine("ok", text)
    if text.startswith("error:"):
        return GrblLine("error", text)
    if text.startswith("<"):
        match = _GRBL_STATUS.match(text)
        if match is None:
            raise GcodeReplyError(f"GRBL status report {text!r} has no MPos")
        return GrblLine("status", text, match.group(1), tuple(float(v) for v in match.groups()[1:]))
    return GrblLine("other", text)


def parse_position(values: tuple[str, ...]) -> tuple[float, float, float]:
    """X.. Y.. Z.. words (uArm P2220 answer) as millimetres."""
    words = {value[0].upper(): value[1:] for value in values if value}
    try:
        return float(words["X"]), float(words["Y"]), float(words["Z"])
    except (KeyError, ValueError):
        raise GcodeReplyError(f"position answer {' '.join(values)!r} needs X, Y and Z") from None
