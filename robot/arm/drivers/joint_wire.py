"""The joint-angle line protocol spoken with an Arduino servo arm: pure encode/decode functions.

Version 2. ASCII lines ending in '\\n'; each line is `<body>*<XX>` where XX is the XOR of the body's
bytes as two upper-case hex digits (as NMEA does), so a garbled line is detected and dropped.

Host to arm, one command per line, `<seq> <NAME> [args]` with seq 1..9999 (then 1 again), a new
seq for every new command and the same seq when the host repeats a command whose reply it missed:

    HELLO <host>               -> OK C4ARM <version> <dof> <queue_size> <boot>
    STATUS                     -> OK <IDLE|MOVING|STOPPED> <gripping 0|1> <queued> <a1> .. <an>
    MOVE <dt_ms> <a1> .. <an>  -> OK <free>   queue a point: reach angles a in dt_ms, linearly
    HOME                       -> OK <free>   queue the move to the firmware's home angles
    GRIP                       -> OK <holding 0|1>   suction on (or gripper closed)
    RELEASE                    -> OK
    STOP                       -> OK          halt now and empty the queue (emergency stop)

Angles are integer centidegrees (1/100 degree). The arm answers every command with
`<seq> OK [values]` or `<seq> ERR <code> <text>` (codes: 1 unknown command, 2 bad arguments,
3 queue full, 4 joint limit, 5 stopped: send HOME, 6 restarted: say HELLO). It executes each seq
once: a command carrying the seq of the previous one is answered with the stored reply and not run
again, which makes repeating a command whose reply was lost safe.

Sessions, so that a seq never meets a stored reply of another session: HELLO (always seq 0, never
stored) carries the host's session number, drawn anew at every connect; a HELLO from a different
host session forgets the stored reply, a HELLO from the same one (a reconnect after a cable glitch)
keeps it. The firmware answers with its boot number, which changes at every power-up or reset, so a
reconnecting host tells a glitch (same boot) from a restarted arm (new boot). A firmware that has
heard no HELLO since it started refuses every command but STOP with code 6, so a reset with the port
left open is noticed at the next command. STOP is run in any state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

PROTOCOL_VERSION = 2
MAX_SEQ = 9999
ERROR_CODES = {
    1: "unknown command",
    2: "bad arguments",
    3: "queue full",
    4: "joint limit",
    5: "stopped",
    6: "restarted",
}
RESTARTED = 6


class WireError(ValueError):
    """A line that is not a valid protocol line (bad checksum, not ASCII, malformed)."""


def checksum(body: str) -> str:
    value = 0
    for byte in body.encode("ascii"):
        value ^= byte
    return f"{value:02X}"


def frame(body: str) -> bytes:
    """`body` as one line on the wire, with its checksum."""
    if "*" in body or "\n" in body:
        raise WireError(f"line body {body!r} must not contain '*' or a newline")
    return f"{body}*{checksum(body)}\n".encode("ascii")


def unframe(raw: bytes) -> str:
    """The body of one received line; raises WireError when it is garbled."""
    try:
        text = raw.decode("ascii").strip()
    except UnicodeDecodeError:
        raise WireError(f"line {raw!r} is not ASCII") from None
    body, star, given = text.rpartition("*")
    if not star or len(given) != 2:
        raise WireError(f"line {text!r} has no checksum")
    if checksum(body) != given.upper():
        raise WireError(f"line {text!r} fails its checksum")
    return body


def next_seq(seq: int) -> int:
    return 1 if seq >= MAX_SEQ else seq + 1


@dataclass(frozen=True)
class Command:
    seq: int
    name: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reply:
    seq: int
    is_ok: bool
    values: tuple[str, ...] = ()
    error_code: int = 0

    @property
    def error_text(self) -> str:
        return " ".join(self.values) or ERROR_CODES.get(self.error_code, "error")


def encode_command(command: Command) -> bytes:
    return frame(" ".join([str(command.seq), command.name, *command.args]))


def decode_command(raw: bytes) -> Command:
    parts = unframe(raw).split()
    if len(parts) < 2 or not parts[0].isdigit():
        raise WireError(f"command line {raw!r} needs '<seq> <NAME>'")
    return Command(int(parts[0]), parts[1].upper(), tuple(parts[2:]))


def encode_reply(reply: Reply) -> bytes:
    if reply.is_ok:
        return frame(" ".join([str(reply.seq), "OK", *reply.values]))
    return frame(" ".join([str(reply.seq), "ERR", str(reply.error_code), *reply.values]))


def decode_reply(raw: bytes) -> Reply:
    parts = unframe(raw).split()
    if len(parts) < 2 or not parts[0].isdigit() or parts[1] not in ("OK", "ERR"):
        raise WireError(f"reply line {raw!r} needs '<seq> OK|ERR ...'")
    if parts[1] == "OK":
        return Reply(int(parts[0]), True, tuple(parts[2:]))
    if len(parts) < 3 or not parts[2].isdigit():
        raise WireError(f"error reply {raw!r} needs a numeric code")
    return Reply(int(parts[0]), False, tuple(parts[3:]), int(parts[2]))


def angles_to_wire(q_rad: np.ndarray) -> tuple[str, ...]:
    """Joint angles as integer centidegrees."""
    return tuple(str(int(round(math.degrees(float(value)) * 100))) for value in q_rad)


def angles_from_wire(values: tuple[str, ...] | list[str]) -> np.ndarray:
    try:
        return np.radians(np.array([int(value) for value in values], dtype=float) / 100.0)
    except ValueError:
        raise WireError(f"joint angles {list(values)} are not integer centidegrees") from None


def move_args(duration_s: float, q_rad: np.ndarray) -> tuple[str, ...]:
    """Arguments of MOVE: reach `q_rad` in `duration_s` (at least 1 ms)."""
    return (str(max(1, int(round(duration_s * 1000)))), *angles_to_wire(q_rad))


@dataclass(frozen=True)
class Hello:
    version: int
    dof: int
    queue_size: int
    boot: str


def parse_hello(reply: Reply) -> Hello:
    if len(reply.values) != 5 or reply.values[0] != "C4ARM" or not all(v.isdigit() for v in reply.values[1:4]):
        raise WireError(f"HELLO answer {' '.join(reply.values)!r} is not 'C4ARM <version> <dof> <queue> <boot>'")
    return Hello(int(reply.values[1]), int(reply.values[2]), int(reply.values[3]), reply.values[4])


@dataclass(frozen=True)
class JointStatus:
    state: str
    gripping: bool
    queued: int
    q_rad: np.ndarray


def parse_status(reply: Reply) -> JointStatus:
    values = reply.values
    if len(values) < 4 or values[0] not in ("IDLE", "MOVING", "STOPPED") or not values[2].isdigit():
        raise WireError(f"STATUS answer {' '.join(values)!r} is not '<state> <grip> <queued> <angles...>'")
    return JointStatus(values[0], values[1] == "1", int(values[2]), angles_from_wire(values[3:]))
