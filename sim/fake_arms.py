"""Fake controllers of three serial protocols, each from its spec alone, with the faults of `sim.fake_devices`.

- `FakeJointFirmware`: the c4arm joint line protocol, version 2 (as documented in the sketch
  robot/arm/firmware/c4arm_joint/c4arm_joint.ino): checksummed lines, seq run once, HELLO with the
  host's session, boot number, code 6 until HELLO, STOP in any state.
- `FakeUarm`: a uArm Swift Pro 4.x: `#n G0 ...` -> `$n ok`, G2202 N3 wrist, M2231 pump, M2200,
  P2220, P2206 N3, P2231, P2203, `!` feed hold, `@1` when it has started.
- `FakeGrbl`: GRBL 1.1: lines answered in order by `ok` / `error:n`, `?` status report, `!` hold,
  Ctrl-X soft reset with its banner (ALARM:3 when reset in motion), `$I`, `$G` (with the tool number
  `T<n>`, cleared by a reset), `$X`, M8/M9, `T<n>`.

Positions are joint angles (centidegrees on the wire) or tool millimetres; the devices move towards
targets in time, `speed` times faster than real time, and know nothing of the arm's kinematics.
"""

from __future__ import annotations

import math

from sim.fake_devices import FakeDevice, Fault, Motion

HOME_CDEG = (7700, -1600, 2660, -1060, 1320)
QUEUE_SIZE = 16
GRBL_BANNER = b"\r\nGrbl 1.1h ['$' for help]\r\n"


def _checksum(body: bytes) -> str:
    value = 0
    for byte in body:
        value ^= byte
    return f"{value:02X}"


class FakeJointFirmware(FakeDevice):
    """The joint line protocol, version 2, with five joints."""

    def power_up(self) -> None:
        self.motion = Motion([float(v) for v in HOME_CDEG])
        self.stopped = self.gripping = False
        self.host: str | None = None
        self.last_seq, self.last_reply = -1, b""

    def tick(self, dt_s: float) -> None:
        self.motion.tick(dt_s)

    def _framed(self, body: str) -> bytes:
        return body.encode("ascii") + b"*" + _checksum(body.encode("ascii")).encode("ascii") + b"\n"

    def receive(self) -> None:
        while (line := self.take_line()) is not None:
            body, star, given = line.rpartition(b"*")
            if not star or _checksum(body) != given.decode("ascii", "replace").upper():
                continue  # garbled: the host repeats it
            parts = body.decode("ascii", "replace").split()
            if len(parts) < 2 or not parts[0].isdigit():
                continue
            self._command(int(parts[0]), parts[1], parts[2:])

    def _command(self, seq: int, name: str, args: list[str]) -> None:
        if name == "HELLO":
            if args and args[0] != self.host:
                self.host, self.last_seq = args[0], -1
            self.reply(self._framed(f"0 OK C4ARM 2 5 {QUEUE_SIZE} {self.boots}"))
            return
        if seq == self.last_seq:
            self.reply(self.last_reply)
            return
        if name == "STATUS":
            state = "STOPPED" if self.stopped else ("MOVING" if self.motion.busy else "IDLE")
            angles = " ".join(str(round(v)) for v in self.motion.position)
            answer, fault = f"OK {state} {int(self.gripping)} {len(self.motion.queue)} {angles}", None
        elif self.host is None and name != "STOP":
            answer, fault = "ERR 6 restarted: say HELLO", None
        elif name == "STOP":
            self.motion.halt()
            self.stopped = True
            self.executed.append("STOP")
            answer, fault = "OK", None
        else:
            fault = self.strikes()
            answer = "ERR 4 joint limit" if fault == "refused" else self._change(name, args)
        reply = self._framed(f"{seq} {answer}")
        self.last_seq, self.last_reply = seq, reply
        self.reply(reply, fault)

    def _change(self, name: str, args: list[str]) -> str:
        if name == "MOVE":
            if self.stopped:
                return "ERR 5 stopped"
            if len(args) != 6 or not all(a.lstrip("-").isdigit() for a in args) or int(args[0]) <= 0:
                return "ERR 2 bad arguments"
            if len(self.motion.queue) >= QUEUE_SIZE:
                return "ERR 3 queue full"
            self.motion.add([float(a) for a in args[1:]], int(args[0]) / 1000)
        elif name == "HOME":
            self.stopped = False
            self.motion.add([float(v) for v in HOME_CDEG], 1.0)
        elif name in ("GRIP", "RELEASE"):
            self.gripping = name == "GRIP"
        else:
            return "ERR 1 unknown command"
        self.executed.append(" ".join([name, *args]))
        if name in ("MOVE", "HOME"):
            return f"OK {QUEUE_SIZE - len(self.motion.queue)}"
        return "OK 1" if name == "GRIP" else "OK"


class _GcodeDevice(FakeDevice):
    """Shared by the G-code devices: tool position, wrist, pump, and the real-time bytes."""

    realtime = b"!"

    def __init__(self, start_mm: tuple[float, float, float], wrist_deg: float = 90.0, **kwargs) -> None:
        self.start_mm = start_mm
        self.start_wrist_deg = wrist_deg
        super().__init__(**kwargs)

    def power_up(self) -> None:
        self.motion = Motion(list(self.start_mm))
        self.wrist_deg = self.start_wrist_deg
        self.pump = False

    def tick(self, dt_s: float) -> None:
        self.motion.tick(dt_s)

    def receive(self) -> None:
        while True:
            special = [i for i in (self._input.find(bytes([b])) for b in self.realtime) if i >= 0]
            newline = self._input.find(b"\n")
            if special and (newline < 0 or min(special) < newline):
                index = min(special)
                byte, self._input = self._input[index : index + 1], self._input[:index] + self._input[index + 1 :]
                self.on_realtime(byte)
                continue
            line = self.take_line()
            if line is None:
                return
            if line:
                self.on_line(line.decode("ascii", "replace"))

    def on_realtime(self, byte: bytes) -> None:
        raise NotImplementedError

    def on_line(self, text: str) -> None:
        raise NotImplementedError

    def _move(self, words: dict[str, float]) -> None:
        target = [
            words.get(axis, self.motion.queue[-1][0][i] if self.motion.queue else self.motion.position[i])
            for i, axis in enumerate("XYZ")
        ]
        last = self.motion.queue[-1][0] if self.motion.queue else self.motion.position
        distance = math.dist(last, target)
        self.motion.add(target, distance / max(words.get("F", 3000.0) / 60.0, 1e-3))


def _words(parts: list[str]) -> dict[str, float]:
    words = {}
    for part in parts:
        try:
            words[part[0].upper()] = float(part[1:])
        except (ValueError, IndexError):
            continue
    return words


class FakeUarm(_GcodeDevice):
    """A uArm Swift Pro 4.x: numbered commands, `$n ok` answers, `@1` when started."""

    banner = b"@1\n"

    def on_realtime(self, byte: bytes) -> None:
        self.motion.halt()
        self.executed.append("STOP")

    def on_line(self, text: str) -> None:
        number, _, command = text.partition(" ")
        if not number.startswith("#") or not number[1:].isdigit():
            return  # this driver always numbers its commands
        seq, parts = int(number[1:]), command.split()
        code, words = (parts[0].upper() if parts else ""), _words(parts[1:])
        x, y, z = self.motion.position
        queries = {
            "M2200": f"V{int(self.motion.busy)}",
            "P2220": f"X{x:.2f} Y{y:.2f} Z{z:.2f}",
            "P2206": f"V{self.wrist_deg:.2f}",
            "P2231": f"V{int(self.pump)}",
            "P2203": "V4.3.2-fake",
        }
        if code in queries:
            self.reply(f"${seq} ok {queries[code]}\n".encode("ascii"))
            return
        if code not in ("G0", "G2202", "M2231"):
            self.reply(f"${seq} E20\n".encode("ascii"))
            return
        fault = self.strikes()
        if fault == "refused":
            self.reply(f"${seq} E22\n".encode("ascii"))
            return
        if code == "G0":
            self._move(words)
        elif code == "G2202":
            self.wrist_deg = words.get("V", self.wrist_deg)
        else:
            self.pump = words.get("V") == 1
        self.executed.append(command.strip())
        self.reply(f"${seq} ok\n".encode("ascii"), fault)


class FakeGrbl(_GcodeDevice):
    """GRBL 1.1 on a three-axis arm controller, vacuum on the coolant pin."""

    banner = GRBL_BANNER
    realtime = b"!?\x18"

    def power_up(self) -> None:
        super().power_up()
        self.state = "Idle"
        self.tool = 0  # the parser's tool number: a reset clears it

    def _status(self) -> str:
        state = "Run" if self.motion.busy and self.state == "Idle" else self.state
        x, y, z = self.motion.position
        return f"<{state}|MPos:{x:.3f},{y:.3f},{z:.3f}|FS:0,0>\r\n"

    def on_realtime(self, byte: bytes) -> None:
        if byte == b"?":
            self.reply(self._status().encode("ascii"))
        elif byte == b"!":
            if self.motion.busy:
                self.motion.halt()
                self.state = "Hold:0"
            self.executed.append("STOP")
        else:
            if self.motion.busy:
                self.state = "Alarm"
                self.reply(b"ALARM:3\r\n")
            self.motion.halt()
            self.state = "Alarm" if self.state == "Alarm" else "Idle"
            self.tool = 0
            self.reply(GRBL_BANNER)

    def on_line(self, text: str) -> None:
        parts = text.split()
        code, words = parts[0].upper(), _words(parts[1:])
        if code == "$I":
            self.reply(b"[VER:1.1h.fake:]\r\n[OPT:V,15,128]\r\nok\r\n")
        elif code == "$G":
            coolant = "M8" if self.pump else "M9"
            self.reply(f"[GC:G1 G54 G17 G21 G90 G94 M5 {coolant} T{self.tool} F0 S0]\r\nok\r\n".encode())
        elif code == "$X":
            self.state = "Idle"
            self.reply(b"[MSG:Caution: Unlocked]\r\nok\r\n")
        elif code[:1] == "T" and code[1:].isdigit():
            self.tool = int(code[1:])  # a tool number alone moves nothing
            self.reply(b"ok\r\n")
        elif code not in ("G1", "M8", "M9"):
            self.reply(b"error:20\r\n")
        elif self.state == "Alarm":
            self.reply(b"error:9\r\n")
        else:
            self._change(code, words, text)

    def _change(self, code: str, words: dict[str, float], text: str) -> None:
        fault = self.strikes()
        if fault == "refused":  # a hard limit switch trips as the move is planned
            self.motion.halt()
            self.state = "Alarm"
            self.reply(b"ALARM:1\r\nerror:9\r\n")
            return
        if code == "G1":
            self._move(words)
        else:
            self.pump = code == "M8"
        self.executed.append(text.strip())
        self.reply(b"ok\r\n", fault)


__all__ = ["FakeGrbl", "FakeJointFirmware", "FakeUarm", "Fault"]
