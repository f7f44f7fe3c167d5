"""G-code lines for Cartesian desktop arms, two dialects: pure format/parse functions.

uArm Swift Pro (firmware 4.x): a command may carry a sequence number, `#<n> G0 X<mm> Y<mm> Z<mm>
F<mm/min>`, and its answer repeats it: `$<n> ok [values]` or `$<n> E<code>`. Other lines are not
answers; `@1` is the ready report a board sends when it has started (pyuarm's READY), so after
connect it means the arm restarted. Used here: G0 move, G2202 N3 V<deg> wrist servo (P2206 N3 reads
it), M2231 V1/V0 suction pump (P2231 reads it: V0 off), M2200 "moving?" (`ok V1`/`ok V0`), P2220
tool position (`ok X.. Y.. Z..`), P2203 firmware version, `!` feed hold (the 4.x firmware is built
on Grbl 0.9j, uArm-Developer/SwiftProForArduino).

GRBL 1.1: plain lines without numbers, answered in order by `ok` or `error:<code>`; `?` is a real-time
query answered by a `<Idle|MPos:x,y,z|...>` report (no `ok`); `$I` gives the build info, `$G` the
parser's modal state (`[GC:... M8 ...]`, so whether the coolant pin is on); `!` feed hold, then
Ctrl-X (0x18) soft reset clears the planner. A board that starts prints `Grbl 1.1h ['$' for help]`;
`ALARM:<n>` and `error:<n>` are named in words from GRBL's own tables (gnea/grbl
doc/csv/alarm_codes_en_US.csv and error_codes_en_US.csv). Vacuum on the coolant pin: M8 on, M9
off. Moves are G1 with a feed rate. GRBL answers carry no sequence number but come in order. The tool
number (`T<n>`, shown in `$G`; a reset clears it to T0, GRBL's gcode.c gc_init) is the marker by which
a host sees that a board it cannot hear greet (its start line lost while the port reopened) restarted.
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
_GRBL_STATUS = re.compile(r"^<(\w+(?::\d+)?)\|(?:MPos|WPos):(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)")
_GRBL_CODE = re.compile(r"^(error|ALARM):(\d+)$")
UARM_READY = "@1"
GRBL_BANNER = "Grbl "

# GRBL 1.1's alarm and error codes in words (gnea/grbl doc/csv, shortened).
GRBL_ALARMS = {
    1: "hard limit triggered: the machine position is likely lost, home again",
    2: "soft limit: the move's target is beyond the machine's travel",
    3: "reset while in motion: the machine position is likely lost, home again",
    4: "probe fail: the probe was not in its expected initial state",
    5: "probe fail: the probe did not touch within its travel",
    6: "homing fail: the homing cycle was reset",
    7: "homing fail: the safety door was opened during homing",
    8: "homing fail: the pull-off did not clear the limit switch",
    9: "homing fail: no limit switch found within the search distance",
}
GRBL_ERRORS = {
    1: "expected a command letter",
    2: "bad number format",
    3: "'$' command not recognised",
    4: "negative value",
    5: "homing is not enabled",
    6: "step pulse shorter than 3 microseconds",
    7: "EEPROM read failed, defaults restored",
    8: "'$' command only allowed when idle",
    9: "G-code locked out during an alarm or jog (unlock with $X or home with $H)",
    10: "soft limits need homing enabled",
    11: "line too long",
    12: "step rate above 30 kHz",
    13: "safety door open",
    14: "line too long for EEPROM",
    15: "jog beyond the machine's travel",
    16: "invalid jog command",
    17: "laser mode needs PWM output",
    20: "unsupported G-code command",
    21: "two commands of the same modal group in one line",
    22: "feed rate undefined",
    23: "command needs an integer value",
    24: "two commands that need axis words in one line",
    25: "repeated G-code word",
    26: "no axis words for a command that needs them",
    27: "invalid line number",
    28: "missing a required value word",
    29: "G59.x work coordinates not supported",
    30: "G53 only with G0 and G1",
    31: "axis words where no command uses them",
    32: "arc without an in-plane axis word",
    33: "invalid motion target",
    34: "invalid arc radius",
    35: "arc without an in-plane offset",
    36: "unused value words",
    37: "tool length offset on the wrong axis",
    38: "tool number too large",
}


def grbl_code_text(kind: str, code: int) -> str:
    """`error:22` / `ALARM:1` in words."""
    table = GRBL_ALARMS if kind == "ALARM" else GRBL_ERRORS
    return f"GRBL {'alarm' if kind == 'ALARM' else 'error'} {code}: {table.get(code, 'unknown code')}"


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


def format_query(what: Literal["version", "position", "moving", "suction"], dialect: Dialect) -> str:
    if dialect == "uarm":
        return {"version": "P2203", "position": "P2220", "moving": "M2200", "suction": "P2231"}[what]
    return {"version": "$I", "position": STATUS_QUERY, "moving": STATUS_QUERY, "suction": "$G"}[what]


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
    kind: Literal["ok", "error", "alarm", "status", "banner", "data", "other"]
    text: str
    state: str = ""
    position_mm: tuple[float, float, float] | None = None
    code: int = 0

    @property
    def meaning(self) -> str:
        return grbl_code_text("ALARM" if self.kind == "alarm" else "error", self.code)


def parse_grbl_line(line: str) -> GrblLine:
    """One line from GRBL: `ok`, `error:n`, `ALARM:n`, a status report, the start banner, `[...]` data."""
    text = line.strip()
    if text == "ok":
        return GrblLine("ok", text)
    coded = _GRBL_CODE.match(text)
    if coded is not None:
        return GrblLine("error" if coded.group(1) == "error" else "alarm", text, code=int(coded.group(2)))
    if text.startswith(GRBL_BANNER) and "help" in text:
        return GrblLine("banner", text)
    if text.startswith("["):
        return GrblLine("data", text)
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


LOCKED_OUT = 9  # GRBL's error while an alarm holds it


def after_alarm(last_alarm: str, joint: str = "") -> str:
    """The words 'after GRBL alarm 1: ...' once an alarm was heard: the lock-out that follows names its cause."""
    return f"{joint} after {last_alarm}" if last_alarm else ""


def refusal_text(parsed: GrblLine, last_alarm: str) -> str:
    """An `error:n` in words; the lock-out (error 9) with the alarm that caused it."""
    return parsed.meaning + (after_alarm(last_alarm, ",") if parsed.code == LOCKED_OUT else "")


RESTART_MARKER = "T1"  # set by the host at connect; a GRBL board that restarts shows T0


def tool_number(modes: str) -> int | None:
    """The `T<n>` of `$G`'s `[GC:...]` line, None when the line has none."""
    words = modes.strip("[]").removeprefix("GC:").split()
    numbers = [word[1:] for word in words if word[:1] == "T" and word[1:].isdigit()]
    return int(numbers[0]) if numbers else None


def coolant_on(modes: str) -> bool:
    """Whether `$G`'s `[GC:...]` line has the flood coolant (the vacuum pin) on: M8 (or M7 with it)."""
    words = modes.strip("[]").removeprefix("GC:").split()
    return "M8" in words
