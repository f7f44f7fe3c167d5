"""The digital twin: a simulated table that looks like real hardware from outside (`c4robot sim serve`).

Its arm is behind a pseudo-terminal speaking one of the project's protocols (the virtual firmware for the joint,
uArm and GRBL protocols, a servo bus for the Feetech one), its webcam is an MJPEG stream on 127.0.0.1, and its
person plays when the robot's disc has landed (`robot.game.twin_referee`). A calibration file written from the
twin's own geometry (`calibration.sim_truth`: what a perfect calibration would find, plus the `[arm]` settings
of its protocol) lets `c4robot play --serial PORT --camera URL --config FILE` play on it exactly as on a real
table, and is what the real calibration commands run against the twin are compared with.

Faults (`--faults`) come from the devices: `dropped@N`, `garbled@N` (the N-th command's reply), `late@S` (every
reply S seconds late; on the servo bus: the reply to the N-th change held 3 s), `reset@N` (the board restarts
after the N-th command), `back@N` and `gone@N` (the port vanishes, back after half a second or for good), and
on the servo bus `reboot@N`, `refused@N`, `silent@N` too; `stall@N` or `stall@N:S` stops the camera's stream
for S seconds (default 20) once the N-th move is on the board.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import calibration
from calibration.sim_truth import sim_setup
from robot.arm import ArmConfig
from robot.game.opponents import parse_opponent
from robot.game.twin_referee import PERSON_DISCS, REQUESTS, ROBOT_DISCS, TwinReferee

PROTOCOLS = ("joint", "uarm", "grbl", "feetech")
ARMS = ("c4arm", "so101")
ROOMS = ("plain", "varied", "hard")
DEVICE_FAULTS = ("dropped", "garbled", "late", "reset", "back", "gone")
BUS_ONLY_FAULTS = ("reboot", "refused", "silent")
STALL_S = 20.0
PORT_BACK_S = 0.5


@dataclass(frozen=True)
class TwinOptions:
    """What `sim serve` is given; ValueError in one sentence for anything it cannot build."""

    protocol: str = "joint"
    arm: str | None = None  # None: the SO-101 on a servo bus, the c4arm otherwise
    seed: int = 0
    room: str = "plain"
    faults: tuple[str, ...] = ()
    opponent: str = "random"
    robot_first: bool = False
    fps: float = 10.0
    first_move_after_s: float = 6.0
    servo_settings: Mapping[str, Any] | None = None  # an [arm] section for a servo bus: the twin's bus is that arm

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"there is no protocol {self.protocol!r}: choose {', '.join(PROTOCOLS)}")
        if self.arm is None:
            object.__setattr__(self, "arm", "so101" if self.protocol == "feetech" else "c4arm")
        if self.arm not in ARMS:
            raise ValueError(f"there is no simulated arm {self.arm!r}: choose c4arm or so101")
        if self.protocol in ("uarm", "grbl") and self.arm != "c4arm":
            raise ValueError(f"a {self.protocol} controller moves a tool-vertical desktop arm: use --arm c4arm with it")
        if self.room not in ROOMS:
            raise ValueError(f"there is no room {self.room!r}: choose plain, varied or hard")
        if self.opponent == "human" or self.opponent.startswith("human"):
            raise ValueError("the twin's person plays by a policy: use --opponent random or engine:LEVEL")
        parse_opponent(self.opponent, random.Random(0), input, print)  # the same sentence as `play` for a bad one
        if not 0.5 <= self.fps <= 30:
            raise ValueError(f"a webcam of {self.fps:g} frames a second: give 0.5 to 30")
        for fault in self.faults:
            parse_fault(fault, self.protocol)
        if self.servo_settings is not None:
            if self.servo_settings.get("protocol") != "feetech":
                raise ValueError(
                    "the setup's [arm] section is not a Feetech servo bus: import it with `calibrate arm "
                    "--from-lerobot` or record it with `calibrate arm`"
                )
            if self.protocol != "feetech":
                raise ValueError("a servo bus's setup is served on a servo bus: give --protocol feetech with it")
            ArmConfig.from_dict(dict(self.servo_settings))  # the driver's sentence for a section it cannot use


@dataclass(frozen=True)
class Fault:
    kind: str
    at: int
    seconds: float = 0.0


def parse_fault(text: str, protocol: str) -> Fault:
    """`KIND@N` (or `late@S`, `stall@N:S`) checked against what the protocol's device can do."""
    kind, _, where = text.strip().partition("@")
    number, _, seconds = where.partition(":")
    allowed = ("stall", *DEVICE_FAULTS, *(BUS_ONLY_FAULTS if protocol == "feetech" else ()))
    if kind not in allowed:
        raise ValueError(f"fault {text!r}: choose {', '.join(a + '@N' for a in allowed)} for the {protocol} protocol")
    try:
        if kind == "late" and protocol != "feetech":
            return Fault(kind, 0, float(number))
        at = int(number)
        pause = float(seconds) if seconds else STALL_S
    except ValueError:
        raise ValueError(
            f"fault {text!r}: write KIND@N with N a whole number (late@SECONDS, stall@N:SECONDS)"
        ) from None
    if at < 1 or pause <= 0:
        raise ValueError(f"fault {text!r}: N counts from 1 and a stall lasts more than 0 s")
    return Fault(kind, at, pause)


class Twin:
    """The world, its device on a pty, its camera stream and its referee; `info` is what `sim serve` prints.

    A context manager: closing stops the device's thread, the stream and the world.
    """

    def __init__(
        self, options: TwinOptions, folder: Path, report: Callable[[dict], None], game_log: Path | None = None
    ) -> None:
        from robot.arm.drivers.sim import sim_planner
        from sim import World, WorldConfig
        from sim.config import ArmMount
        from sim.person import Habits, Person
        from sim.room import furnish, room_for
        from sim.twin_stream import FrameFeed, StreamServer

        self.options = options
        faults = [parse_fault(text, options.protocol) for text in options.faults]
        self.stalls = {f.at: f.seconds for f in faults if f.kind == "stall"}
        self.world = World(WorldConfig(arm=ArmMount.named(options.arm)), seed=options.seed)
        self.device = self.server = self.referee = None
        try:
            furnish(self.world, room_for(options.room, options.seed))
            home_q = sim_planner(self.world).home_q
            self.world.set_arm_joints(home_q)
            self.world.set_dispenser_player(ROBOT_DISCS)
            self.world.step(0.5)
            self.truth_setup = self._write_truth(folder / "truth-setup.toml", home_q)
            self.feed = FrameFeed()
            self.feed.put(self.world.render_camera())
            self.server = StreamServer(self.feed)
            rng = np.random.default_rng([options.seed, 41])
            person = Person(self.world, Habits.for_room(options.room, options.seed), rng)
            opponent = parse_opponent(options.opponent, random.Random(options.seed), input, print)
            self.device, host_seen = _device(self.world, options, home_q, [f for f in faults if f.kind != "stall"])
            self.referee = TwinReferee(
                self.world,
                person,
                opponent,
                self.feed.put,
                self.feed.repeat,
                report,
                host_seen,
                options.robot_first,
                options.fps,
                options.first_move_after_s,
                game_log,
                self._on_move,
                self.world.tool_pose()[0],
            )
            self.world.add_step_listener(self.referee)
            self.device.start()
        except BaseException:
            self.close()
            raise

    @property
    def info(self) -> dict:
        return {"port": self.device.port, "camera": self.server.url, "truth_setup": str(self.truth_setup)}

    def _write_truth(self, path: Path, home_q: np.ndarray) -> Path:
        """What a perfect calibration of this table finds, with the `[arm]` settings of its device."""
        setup = sim_setup(self.world, ROBOT_DISCS)
        arm: dict = {"home_deg": [round(float(np.degrees(q)), 4) for q in home_q]}
        if self.options.arm == "so101":
            arm["urdf"] = str(self.world.arm_urdf_path)
        if self.options.servo_settings is not None:
            arm = {**self.options.servo_settings, **arm}
        elif self.options.protocol == "feetech":
            arm["protocol"] = "feetech"
            dof = len(home_q)
            arm["servo_ids"] = list(range(1, dof + 2))
        elif self.options.protocol in ("uarm", "grbl"):
            arm.update(protocol="gcode", gcode_dialect=self.options.protocol)
        return calibration.save(dataclasses.replace(setup, arm=arm), path)

    def ask(self, request: str) -> None:
        """Ask the person for a calibration chore (`robot.game.twin_referee.REQUESTS`); done on the world's thread."""
        if request not in REQUESTS:
            raise ValueError(f"the twin's person cannot {request[:40]!r}: ask {', '.join(REQUESTS)}")
        self.referee.requests.put(request)

    def _on_move(self, number: int) -> None:
        if number in self.stalls:
            self.feed.stall(self.stalls[number])

    def close(self) -> None:
        if self.device is not None:
            self.device.close()  # its thread owned the world: now this one may touch it
        if self.referee is not None:
            self.referee.put_chessboard_away()
        if self.server is not None:
            self.server.close()
        self.world.close()

    def __enter__(self) -> Twin:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _device(world, options: TwinOptions, home_q: np.ndarray, faults: list[Fault]) -> tuple[object, Callable[[], bool]]:
    """The arm's controller on a pty (not started) and a test of whether a host has spoken to it."""
    protocol = options.protocol
    if protocol == "feetech":
        from sim.fake_devices import Fault as BusFault
        from sim.twin_bus import WorldServoBus

        if len(faults) > 1:
            raise ValueError("the servo bus takes one fault at a time: give one --faults KIND@N besides stalls")
        fault = BusFault(faults[0].kind, faults[0].at) if faults else None
        if options.servo_settings is not None:
            from robot.game.sim_servo_arm import servo_bus

            config = ArmConfig.from_dict(dict(options.servo_settings))
            bus = servo_bus(world, config, steps_world=True, fault=fault, back_s=PORT_BACK_S)
        else:
            bus = WorldServoBus(world, fault=fault, back_s=PORT_BACK_S)
        return bus, lambda: bus.changes > 0
    from sim.virtual_firmware import Faults, VirtualFirmware

    kinds = {f.kind: f for f in faults}
    vanish = next((f for f in faults if f.kind in ("reset", "back", "gone")), None)
    settings = Faults(
        drop_replies=frozenset(f.at for f in faults if f.kind == "dropped"),
        garble_replies=frozenset(f.at for f in faults if f.kind == "garbled"),
        reply_delay_s=kinds["late"].seconds if "late" in kinds else 0.0,
        vanish_after=vanish.at if vanish else None,
        back_after_s=None if vanish is None or vanish.kind == "gone" else PORT_BACK_S,
        reboot_on_return=vanish is not None and vanish.kind == "reset",
    )
    kind, dialect = ("joint", "uarm") if protocol == "joint" else ("gcode", protocol)
    firmware = VirtualFirmware(world, kind, dialect, faults=settings, home_rad=home_q)
    return firmware, lambda: firmware.commands_received > 0


__all__ = ["PERSON_DISCS", "ROBOT_DISCS", "Twin", "TwinOptions", "parse_fault"]
