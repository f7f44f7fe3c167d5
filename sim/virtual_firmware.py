"""A virtual arm firmware: a pseudo-terminal that speaks the arm's serial protocols and moves the sim arm.

Real drivers open `VirtualFirmware.port` with pyserial exactly as they would open /dev/ttyACM0, so the
serial code is tested end to end without hardware. Two protocols, like two boards one could flash:

- "joint": the c4arm joint line protocol (documented in robot/arm/drivers/joint_wire.py and the Arduino
  sketch robot/arm/firmware/c4arm_joint/c4arm_joint.ino): checksummed lines, sequence numbers, a motion
  queue of timed joint points, each seq executed once.
- "gcode": a uArm-Swift-Pro-like Cartesian firmware (`#n G0 X Y Z F` -> `$n ok`, M2231 suction,
  G2202 N3 wrist, P2206 N3 wrist angle, M2200 moving?, P2220 position, P2203 version) or, with dialect "grbl", GRBL-style
  (`G1 ... F` -> `ok`/`error:N`, `?` status report, `$I`, M8/M9 suction, `!` hold, Ctrl-X reset).
  Positions are the tool's in the arm's base frame in mm; the tool is kept vertical
  (wrist_pitch = -(shoulder + elbow), as the uArm's parallelogram does) and the wrist servo angle
  V is 90 + the wrist yaw in degrees. GRBL drives Cartesian machines, whose tool never turns: with
  that dialect the wrist keeps the tool's yaw where it was at the home pose (a gantry built with its
  gripper square to the board), whatever the base's yaw.

Faults can be injected (`Faults`): answers dropped or garbled, answers delayed, only noise, silence,
and the port vanishing mid-move (optionally coming back after a while, as a USB glitch, or as a
rebooted board). Simulated time runs `time_scale` times faster than the wall clock.

Longer than 400 lines because it is one firmware: two protocols share its motion queue, its fault
injection and the Cartesian kinematics a uArm computes on board.

This module uses only `sim.World` of the project (a firmware knows its own arm, not the host's
code). `c4robot sim serve` runs it behind a digital twin of a whole table.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import select
import tempfile
import threading
import time
import tty
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pybullet as p

from sim.world import World

log = logging.getLogger(__name__)

JOINT_PROTOCOL_VERSION = 2
TICK_S = 0.004
UARM_VERSION = "V4.3.2-c4sim"
WRIST_SPEED_RAD_S = math.radians(180.0)
HOME_SPEED_RAD_S = math.radians(45.0)
STORED_REPLIES = 1


@dataclass(frozen=True)
class Faults:
    """Misbehaviour to inject; command numbers count received command lines from 1."""

    drop_replies: frozenset[int] = frozenset()  # answers never sent
    garble_replies: frozenset[int] = frozenset()  # answers sent with bytes flipped
    reply_delay_s: float = 0.0  # every answer this late (wall time)
    vanish_after: int | None = None  # the port disappears after this many commands
    back_after_s: float | None = None  # ... and reappears this much later (None: never)
    reboot_on_return: bool = False  # ... as a board that restarted (new session, motion lost)
    noise_only: bool = False  # answer every line with noise (a different device)
    silent: bool = False  # never answer


def _checksum(body: str) -> str:
    value = 0
    for byte in body.encode("ascii"):
        value ^= byte
    return f"{value:02X}"


@dataclass
class _Move:
    """One queued motion: joint target (joint protocol) or tool target (G-code), or a gripper switch."""

    duration_s: float = 0.0
    target_q: np.ndarray | None = None
    target_mm: np.ndarray | None = None
    feed_mm_s: float = 0.0
    wrist_rad: float | None = None
    suction: bool | None = None
    elapsed_s: float = 0.0
    start_q: np.ndarray | None = None
    start_mm: np.ndarray | None = None


@dataclass
class _Pending:
    due_s: float
    data: bytes


@dataclass
class _State:
    queue: deque = field(default_factory=deque)
    current: _Move | None = None
    stopped: bool = False
    gripping: bool = False
    last_seq: int = -1
    last_reply: bytes = b""
    host_session: str | None = None  # None until a host says HELLO after power-up
    commanded_q: np.ndarray | None = None  # where the interpolator last sent the joints (None: where they stand)
    tool: int = 0  # GRBL's tool number, shown in $G: a restart clears it


class VirtualFirmware:
    """A firmware thread behind a pty; `port` is a stable path (a symlink) to open with pyserial."""

    def __init__(
        self,
        world: World,
        protocol: str = "joint",
        dialect: str = "uarm",
        faults: Faults = Faults(),
        time_scale: float = 1.0,
        queue_size: int = 16,
        home_rad: np.ndarray | None = None,
    ) -> None:
        if protocol not in ("joint", "gcode") or dialect not in ("uarm", "grbl"):
            raise ValueError(f"virtual firmware protocol {protocol!r}/{dialect!r}: use joint, or gcode with uarm|grbl")
        if world.arm is None:
            raise ValueError("the virtual firmware needs a world with an arm")
        self.world = world
        self.protocol = protocol
        self.dialect = dialect
        self.faults = faults
        self.time_scale = time_scale
        self.queue_size = queue_size
        limits = world.arm_joint_limits()
        self.lower = np.array([lim.lower_rad for lim in limits])
        self.upper = np.array([lim.upper_rad for lim in limits])
        self.home_rad = np.asarray(home_rad if home_rad is not None else world.arm_joints(), dtype=float)
        self.session = 1
        self.commands_received = 0
        self.executed: list[tuple[int, str]] = []  # (seq, command) of every joint command run, for tests
        self._state = _State()
        self._directory = Path(tempfile.mkdtemp(prefix="c4arm-"))
        self.port = str(self._directory / "ttyC4ARM")
        self._master: int | None = None
        self._slave: int | None = None
        self._pending: list[_Pending] = []
        self._buffer = b""
        self._return_at: float | None = None
        self._lock = threading.Lock()
        self._running = False
        self._thread: threading.Thread | None = None
        self._sim_debt_s = 0.0
        self._suction_on = False
        self._base_from_world = self._arm_base_from_world()
        self._gantry_yaw_rad = self._yaw_at(self.home_rad) if dialect == "grbl" else None

    # -- lifetime ---------------------------------------------------------------------------

    def start(self) -> VirtualFirmware:
        self._open_pty()
        self._running = True
        self._thread = threading.Thread(target=self._run, name="virtual-firmware", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        self._close_pty()
        with contextlib.suppress(OSError):
            self._directory.rmdir()

    def __enter__(self) -> VirtualFirmware:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _open_pty(self) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        tmp_link = self._directory / "ttyC4ARM.new"
        tmp_link.unlink(missing_ok=True)
        tmp_link.symlink_to(os.ttyname(self._slave))
        os.replace(tmp_link, self.port)
        self._buffer = b""
        self._pending.clear()

    def _close_pty(self) -> None:
        Path(self.port).unlink(missing_ok=True)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def vanish(self) -> None:
        """Pull the cable: the port disappears (the arm finishes what it was doing)."""
        self._close_pty()
        if self.faults.back_after_s is not None:
            self._return_at = time.monotonic() + self.faults.back_after_s

    def _come_back(self) -> None:
        self._return_at = None
        if self.faults.reboot_on_return:
            self.session += 1
            self._state = _State()
        self._open_pty()

    # -- main loop --------------------------------------------------------------------------

    def _run(self) -> None:
        last = time.monotonic()
        while self._running:
            if self._master is not None:
                readable, _, _ = select.select([self._master], [], [], TICK_S)
                if readable:
                    try:
                        self._buffer += os.read(self._master, 4096)
                    except OSError:
                        self._buffer = b""
                self._handle_input()
                self._flush_replies()
            else:
                time.sleep(TICK_S)
                if self._return_at is not None and time.monotonic() >= self._return_at:
                    self._come_back()
            now = time.monotonic()
            self._advance((now - last) * self.time_scale)
            last = now

    def _handle_input(self) -> None:
        while self._master is not None:
            if self._buffer[:1] in (b"!", b"\x18") and self.protocol == "gcode":
                realtime, self._buffer = self._buffer[:1], self._buffer[1:]
                self._realtime(realtime)
                continue
            if self.protocol == "gcode" and self._buffer.startswith(b"?"):
                self._buffer = self._buffer[1:]
                self._reply_now(self._grbl_status())
                continue
            newline = self._buffer.find(b"\n")
            if newline < 0:
                return
            if self.protocol == "gcode" and len(self._state.queue) >= self.queue_size:
                return  # like a full planner buffer: the answer waits until there is room
            line, self._buffer = self._buffer[:newline].strip(b"\r "), self._buffer[newline + 1 :]
            if not line:
                continue
            self.commands_received += 1
            number = self.commands_received
            reply = self._answer(line)
            self._queue_reply(number, reply)
            if self.faults.vanish_after is not None and number == self.faults.vanish_after:
                self.vanish()

    def _queue_reply(self, number: int, reply: bytes) -> None:
        faults = self.faults
        if faults.silent or number in faults.drop_replies or not reply:
            return
        if faults.noise_only:
            reply = bytes((i * 37 + 11) % 256 for i in range(len(reply))) + b"\n"
        elif number in faults.garble_replies:
            reply = reply[:2] + bytes([reply[2] ^ 0x5A]) + reply[3:]
        self._pending.append(_Pending(time.monotonic() + faults.reply_delay_s, reply))

    def _reply_now(self, data: bytes) -> None:
        self._pending.append(_Pending(time.monotonic(), data))

    def _flush_replies(self) -> None:
        now = time.monotonic()
        while self._pending and self._pending[0].due_s <= now and self._master is not None:
            try:
                os.write(self._master, self._pending.pop(0).data)
            except OSError:
                return

    # -- motion -----------------------------------------------------------------------------

    def _advance(self, sim_s: float) -> None:
        """Move along the queue for `sim_s` of simulated time, one physics step at a time.

        The joints are set at every step, as a real firmware's interpolator does, so the arm moves at its
        speed and a pinched disc is carried (set in jumps, the grip would lose it).
        """
        self._sim_debt_s += sim_s
        step_s = self.world.time_step_s
        steps = int(self._sim_debt_s / step_s)
        self._sim_debt_s -= steps * step_s
        state = self._state
        for _ in range(steps):
            remaining = step_s
            while remaining > 1e-12 and (state.current is not None or state.queue):
                if state.current is None:
                    state.current = state.queue.popleft()
                    self._begin(state.current)
                move = state.current
                used = min(remaining, max(move.duration_s - move.elapsed_s, 0.0))
                move.elapsed_s += used
                remaining -= used
                self._apply(move)
                if move.elapsed_s >= move.duration_s - 1e-12:
                    state.current = None
                    if not state.queue:
                        self._hold()
            self.world.step(step_s)

    def _commanded(self) -> np.ndarray:
        """The joints as the firmware last commanded them: its own reckoning, not the measured angles, so the
        arm's small lag behind each set point does not feed back into the next one."""
        if self._state.commanded_q is None:
            self._state.commanded_q = self.world.arm_joints()
        return self._state.commanded_q.copy()

    def _command(self, q: np.ndarray) -> None:
        self._state.commanded_q = np.asarray(q, dtype=float).copy()
        self.world.set_arm_joints(self._state.commanded_q)

    def _begin(self, move: _Move) -> None:
        q = self._commanded()
        move.start_q = q
        if move.suction is not None:
            if move.suction:
                self._state.gripping = bool(self.world.grip())
            else:
                self.world.release()
                self._state.gripping = False
        if move.target_mm is not None:
            move.start_mm = self._tool_mm()
            distance = float(np.linalg.norm(move.target_mm - move.start_mm))
            move.duration_s = distance / move.feed_mm_s if move.feed_mm_s > 0 else 0.0
        if move.wrist_rad is not None:
            move.duration_s = abs(move.wrist_rad - q[-1]) / WRIST_SPEED_RAD_S

    def _apply(self, move: _Move) -> None:
        fraction = 1.0 if move.duration_s <= 0 else min(1.0, move.elapsed_s / move.duration_s)
        if move.target_q is not None:
            self._command(move.start_q + fraction * (move.target_q - move.start_q))
        elif move.target_mm is not None:
            self._set_tool_mm(move.start_mm + fraction * (move.target_mm - move.start_mm))
        elif move.wrist_rad is not None:
            q = self._commanded()
            q[-1] = move.start_q[-1] + fraction * (move.wrist_rad - move.start_q[-1])
            self._command(np.clip(q, self.lower, self.upper))

    def _hold(self) -> None:
        """Stop where the last move ended (set again at the same instant: no speed carried on)."""
        self._command(self._commanded())

    def _halt(self) -> None:
        self._state.queue.clear()
        self._state.current = None

    # -- Cartesian kinematics of the arm (what a uArm firmware computes) ---------------------

    def _arm_base_from_world(self) -> np.ndarray:
        """World to base-link frame; PyBullet reports the base's inertial frame, so undo its offset."""
        arm = self.world.arm
        com_position, com_orientation = p.getBasePositionAndOrientation(arm.body, physicsClientId=self.world.client)
        local_position, local_orientation = p.getDynamicsInfo(arm.body, -1, physicsClientId=self.world.client)[3:5]
        inv_position, inv_orientation = p.invertTransform(local_position, local_orientation)
        position, orientation = p.multiplyTransforms(com_position, com_orientation, inv_position, inv_orientation)
        world_base = np.eye(4)
        world_base[:3, :3] = np.array(p.getMatrixFromQuaternion(orientation)).reshape(3, 3)
        world_base[:3, 3] = position
        return np.linalg.inv(world_base)

    def _tool_mm(self) -> np.ndarray:
        position, _ = self.world.tool_pose()
        return (self._base_from_world @ np.append(position, 1.0))[:3] * 1000.0

    def _joints_for(self, target_mm: np.ndarray, seed: np.ndarray) -> np.ndarray:
        """Base yaw, shoulder and elbow by Newton steps on the measured tool position; the wrist
        pitch keeps the tool vertical and the wrist yaw stays."""
        q = seed.copy()

        def place(values: np.ndarray) -> np.ndarray:
            values = values.copy()
            values[3] = -(values[1] + values[2])
            values = np.clip(values, self.lower, self.upper)
            self.world.arm.set_joints(values)
            if self._gantry_yaw_rad is not None:
                values = self._square_to_gantry(values)
            return values

        for _ in range(6):
            q = place(q)
            error = target_mm - self._tool_mm()
            if np.linalg.norm(error) < 0.01:
                break
            jacobian = np.zeros((3, 3))
            for column in range(3):
                nudged = q.copy()
                nudged[column] += 1e-4
                place(nudged)
                jacobian[:, column] = (self._tool_mm() - (target_mm - error)) / 1e-4
            q[:3] += np.linalg.lstsq(jacobian, error, rcond=None)[0]
        return place(q)

    def _tool_yaw(self) -> float:
        """The tool's yaw in the arm's base frame, as the arm stands."""
        _, orientation = self.world.tool_pose()
        rotation = self._base_from_world[:3, :3] @ np.array(p.getMatrixFromQuaternion(orientation)).reshape(3, 3)
        return math.atan2(rotation[1, 0], rotation[0, 0])

    def _yaw_at(self, q: np.ndarray) -> float:
        """The tool's yaw with the arm at `q` (the arm is put back where it stood)."""
        standing = self.world.arm_joints()
        self.world.arm.set_joints(q)
        yaw = self._tool_yaw()
        self.world.arm.set_joints(standing)
        return yaw

    def _square_to_gantry(self, q: np.ndarray) -> np.ndarray:
        """`q` with the wrist's yaw turned so the tool's yaw is the gantry's (the tool is vertical: the wrist's
        yaw turns the tool's yaw one for one, in the direction measured here)."""
        q = q.copy()
        for _ in range(2):
            error = math.remainder(self._gantry_yaw_rad - self._tool_yaw(), 2 * math.pi)
            nudged = q.copy()
            nudged[-1] += 0.1
            self.world.arm.set_joints(nudged)
            gain = math.remainder(self._tool_yaw() - self._gantry_yaw_rad + error, 2 * math.pi) / 0.1
            q[-1] = float(np.clip(q[-1] + error / (gain if abs(gain) > 0.5 else 1.0), self.lower[-1], self.upper[-1]))
            self.world.arm.set_joints(q)
        return q

    def _set_tool_mm(self, target_mm: np.ndarray) -> None:
        self._command(self._joints_for(target_mm, self._commanded()))

    # -- protocols --------------------------------------------------------------------------

    def _answer(self, line: bytes) -> bytes:
        if self.protocol == "joint":
            return self._answer_joint(line)
        return self._answer_gcode(line.decode("ascii", "replace"))

    def _answer_joint(self, line: bytes) -> bytes:
        text = line.decode("ascii", "replace")
        body, star, given = text.rpartition("*")
        if not star or _checksum(body) != given.upper():
            return b""  # a garbled command is ignored: the host repeats it
        parts = body.split()
        if len(parts) < 2 or not parts[0].isdigit():
            return b""
        seq, name, args = int(parts[0]), parts[1].upper(), parts[2:]
        state = self._state
        if name == "HELLO" and args and args[0] != state.host_session:
            state.host_session, state.last_seq = args[0], -1  # a new host session: forget the stored reply
        if seq != 0 and seq == state.last_seq:
            return state.last_reply
        if state.host_session is None and name != "STOP":
            reply_body = f"{seq} ERR 6 restarted: say HELLO"
            return f"{reply_body}*{_checksum(reply_body)}\n".encode("ascii")
        reply_body = f"{seq} " + self._joint_command(name, args)
        self.executed.append((seq, name))
        reply = f"{reply_body}*{_checksum(reply_body)}\n".encode("ascii")
        if seq != 0:
            state.last_seq, state.last_reply = seq, reply
        return reply

    def _joint_command(self, name: str, args: list[str]) -> str:
        state = self._state
        dof = len(self.lower)
        if name == "HELLO":
            return f"OK C4ARM {JOINT_PROTOCOL_VERSION} {dof} {self.queue_size} {self.session}"
        if name == "STATUS":
            busy = state.current is not None or bool(state.queue)
            mode = "STOPPED" if state.stopped else ("MOVING" if busy else "IDLE")
            angles = " ".join(str(int(round(math.degrees(v) * 100))) for v in self.world.arm_joints())
            holding = int(self.world.is_gripping())  # the gripper's sense: a disc that slipped out shows
            return f"OK {mode} {holding} {len(state.queue) + (state.current is not None)} {angles}"
        if name in ("MOVE", "HOME"):
            if state.stopped and name == "MOVE":
                return "ERR 5 stopped"
            if len(state.queue) >= self.queue_size:
                return "ERR 3 queue full"
            if name == "HOME":
                state.stopped = False
                span = float(np.max(np.abs(self.home_rad - self.world.arm_joints())))
                state.queue.append(_Move(span / HOME_SPEED_RAD_S, target_q=self.home_rad.copy()))
                return f"OK {self.queue_size - len(state.queue)}"
            try:
                values = [int(v) for v in args]
            except ValueError:
                return "ERR 2 bad arguments"
            if len(values) != dof + 1 or values[0] <= 0:
                return "ERR 2 bad arguments"
            target = np.radians(np.array(values[1:], dtype=float) / 100.0)
            if np.any(target < self.lower - 1e-3) or np.any(target > self.upper + 1e-3):
                return "ERR 4 joint limit"
            state.queue.append(_Move(values[0] / 1000.0, target_q=np.clip(target, self.lower, self.upper)))
            return f"OK {self.queue_size - len(state.queue)}"
        if name == "GRIP":
            state.gripping = bool(self.world.grip())
            return f"OK {int(state.gripping)}"
        if name == "RELEASE":
            self.world.release()
            state.gripping = False
            return "OK"
        if name == "STOP":
            self._halt()
            state.stopped = True
            return "OK"
        return "ERR 1 unknown command"

    def _realtime(self, byte: bytes) -> None:
        self._halt()
        if byte == b"\x18":
            self._state.tool = 0  # a soft reset starts the parser afresh
            self._reply_now(b"Grbl 1.1h ['$' for help]\r\n")

    def _grbl_status(self) -> bytes:
        busy = self._state.current is not None or bool(self._state.queue)
        x, y, z = self._tool_mm()
        return f"<{'Run' if busy else 'Idle'}|MPos:{x:.3f},{y:.3f},{z:.3f}|FS:0,0>\r\n".encode("ascii")

    def _answer_gcode(self, text: str) -> bytes:
        seq = None
        if self.dialect == "uarm" and text.startswith("#"):
            number, _, text = text[1:].partition(" ")
            seq = int(number) if number.isdigit() else None
        ok, values, error = self._gcode_command(text.strip())
        if self.dialect == "grbl":
            extra = "".join(f"{v}\r\n" for v in values)
            return (extra + ("ok" if ok else f"error:{error}") + "\r\n").encode("ascii")
        if seq is None:
            return b""
        verdict = "ok" if ok else f"E{error}"
        return (f"${seq} {verdict} {' '.join(values)}".rstrip() + "\n").encode("ascii")

    def _gcode_command(self, text: str) -> tuple[bool, list[str], int]:
        words = text.upper().split()
        if not words:
            return False, [], 20
        code, params = words[0], {}
        for word in words[1:]:
            try:
                params[word[0]] = float(word[1:])
            except ValueError:
                return False, [], 21
        state = self._state
        if code in ("G0", "G1"):
            current = self._tool_mm()
            target = np.array([params.get(axis, current[i]) for i, axis in enumerate("XYZ")])
            feed = params.get("F", 3000.0) / 60.0
            state.queue.append(_Move(target_mm=target, feed_mm_s=feed))
            return True, [], 0
        if code == "G2202" and params.get("N") == 3 and "V" in params:
            wrist = math.radians(params["V"] - 90.0)
            if not self.lower[-1] <= wrist <= self.upper[-1]:
                return False, [], 22
            state.queue.append(_Move(wrist_rad=wrist))
            return True, [], 0
        if code in ("M2231", "M8", "M9"):
            on = params.get("V", 0) == 1 if code == "M2231" else code == "M8"
            self._suction_on = on  # the parser's state at once, the pump when the move queue gets there
            state.queue.append(_Move(suction=on))
            return True, [], 0
        if code == "M2200":
            busy = state.current is not None or bool(state.queue)
            return True, [f"V{int(busy)}"], 0
        if code == "P2220":
            x, y, z = self._tool_mm()
            return True, [f"X{x:.2f}", f"Y{y:.2f}", f"Z{z:.2f}"], 0
        if code == "P2206" and params.get("N") == 3:
            return True, [f"V{math.degrees(self.world.arm_joints()[-1]) + 90.0:.2f}"], 0
        if code == "P2203":
            return True, [UARM_VERSION], 0
        if code == "P2231":
            return True, [f"V{int(self._suction_on)}"], 0
        if code == "$I":
            return True, ["[VER:1.1h.c4sim:]"], 0
        if code == "$G":
            coolant = "M8" if self._suction_on else "M9"
            return True, [f"[GC:G1 G54 G17 G21 G90 G94 M5 {coolant} T{state.tool} F0 S0]"], 0
        if code == "T" or (code[:1] == "T" and code[1:].isdigit()):
            state.tool = int(code[1:] or 0)  # a tool number alone moves nothing
            return True, [], 0
        if code == "$X":
            return True, ["[MSG:Caution: Unlocked]"], 0
        return False, [], 20
