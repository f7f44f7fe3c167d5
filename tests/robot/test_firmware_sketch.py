"""The Arduino sketch speaks the joint protocol the driver expects: built for the host with g++ against a
minimal Arduino core (serial fed from a timed script, a millisecond clock), then talked to with joint_wire."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from robot.arm.drivers import joint_wire as wire
from robot.arm.drivers.joint_wire import Command

SKETCH = Path(__file__).resolve().parents[2] / "robot" / "arm" / "firmware" / "c4arm_joint" / "c4arm_joint.ino"

# Just enough of the Arduino core for the sketch: Serial reads a script of "<ms> <line>" from stdin and
# delivers each line at its time; millis() advances one millisecond per loop().
ARDUINO_H = r"""
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>
#define HIGH 1
#define LOW 0
#define OUTPUT 1
#define A0 0
unsigned long host_ms = 0;
inline unsigned long millis() { return host_ms; }
inline unsigned long micros() { return host_ms * 1000; }
inline void pinMode(int, int) {}
inline void digitalWrite(int, int) {}
inline int analogRead(int) { return 7; }
inline void randomSeed(unsigned long) {}
inline long random(long low, long) { return low + 41; }
struct HostSerial {
  std::vector<std::pair<unsigned long, std::string>> script;
  std::string pending;
  void begin(long) {}
  int available() {
    while (!script.empty() && script.front().first <= host_ms) {
      pending += script.front().second + "\n";
      script.erase(script.begin());
    }
    return (int)pending.size();
  }
  int read() { int c = (unsigned char)pending[0]; pending.erase(0, 1); return c; }
  void print(const char *text) { fputs(text, stdout); }
  void print(char c) { fputc(c, stdout); }
};
HostSerial Serial;
"""
SERVO_H = "#pragma once\nstruct Servo { void attach(int) {} void writeMicroseconds(int) {} };\n"
# EEPROM as it is after flashing (all bytes 0xFF would be a fresh chip; 0 keeps the boot count readable).
EEPROM_H = r"""
#pragma once
struct HostEeprom {
  unsigned char bytes[1024] = {0};
  template <typename T> void get(int address, T &value) { memcpy(&value, bytes + address, sizeof value); }
  template <typename T> void put(int address, const T &value) { memcpy(bytes + address, &value, sizeof value); }
};
HostEeprom EEPROM;
"""
MAIN_CPP = r"""
#include "Arduino.h"
#include "c4arm_joint.ino"
int main() {
  char buffer[256];
  while (fgets(buffer, sizeof buffer, stdin)) {
    char *space = strchr(buffer, ' ');
    if (!space) continue;
    buffer[strcspn(buffer, "\n")] = 0;
    Serial.script.push_back({strtoul(buffer, nullptr, 10), std::string(space + 1)});
  }
  setup();
  for (host_ms = 0; host_ms < 20000; host_ms++) loop();
}
"""


@pytest.fixture(scope="module")
def firmware_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("g++ not installed: the sketch cannot be built for the host")
    folder = tmp_path_factory.mktemp("sketch")
    (folder / "Arduino.h").write_text(ARDUINO_H)
    (folder / "Servo.h").write_text(SERVO_H)
    (folder / "EEPROM.h").write_text(EEPROM_H)
    (folder / "main.cpp").write_text(MAIN_CPP)
    shutil.copy(SKETCH, folder / "c4arm_joint.ino")
    binary = folder / "c4arm_joint"
    subprocess.run(
        [
            compiler,
            "-std=c++17",
            "-Wall",
            "-Werror",
            "-Wno-unused-variable",
            "-O1",
            "-I",
            str(folder),
            "-o",
            str(binary),
            str(folder / "main.cpp"),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return binary


HELLO = wire.encode_command(Command(0, "HELLO", ("111",)))


def _run(binary: Path, script: list[tuple[int, bytes]]) -> list[wire.Reply]:
    text = "".join(f"{ms} {line.decode().rstrip()}\n" for ms, line in script)
    output = subprocess.run([str(binary)], input=text, capture_output=True, text=True, check=True, timeout=30).stdout
    return [wire.decode_reply(line.encode()) for line in output.splitlines()]


def test_sketch_handshake_queue_motion_and_status(firmware_binary: Path) -> None:
    target = np.radians([10.0, 20.0, -30.0, 10.0, 5.0])
    script = [
        (0, HELLO),
        (5, wire.encode_command(Command(1, "MOVE", wire.move_args(0.5, target)))),
        (100, wire.encode_command(Command(2, "STATUS"))),
        (1000, wire.encode_command(Command(3, "STATUS"))),
    ]
    hello, move, moving, idle = _run(firmware_binary, script)
    parsed = wire.parse_hello(hello)
    assert (parsed.version, parsed.dof, hello.seq) == (wire.PROTOCOL_VERSION, 5, 0)
    assert move.is_ok and move.seq == 1 and move.values == (str(parsed.queue_size - 1),)
    assert wire.parse_status(moving).state == "MOVING"
    status = wire.parse_status(idle)
    assert status.state == "IDLE" and status.queued == 0
    np.testing.assert_allclose(status.q_rad, target, atol=np.radians(0.01))


def test_sketch_runs_a_repeated_seq_once_and_ignores_garbled_lines(firmware_binary: Path) -> None:
    move = wire.encode_command(Command(7, "MOVE", wire.move_args(2.0, np.radians([1.0, 2.0, 3.0, 4.0, 5.0]))))
    garbled = wire.encode_command(Command(8, "STOP")).replace(b"STOP", b"STOQ")
    script = [(0, HELLO), (5, move), (10, move), (20, garbled), (30, wire.encode_command(Command(9, "STATUS")))]
    _, first, again, status = _run(firmware_binary, script)
    assert first == again  # the repeat got the stored answer ...
    assert wire.parse_status(status).queued == 1  # ... and queued nothing more; the garbled STOP did nothing


def test_sketch_refuses_bad_commands_with_codes(firmware_binary: Path) -> None:
    script = [
        (0, HELLO),
        (0, wire.encode_command(Command(1, "DANCE"))),
        (1, wire.encode_command(Command(2, "MOVE", ("10", "1", "2")))),
        (2, wire.encode_command(Command(3, "MOVE", wire.move_args(0.1, np.radians([170.0, 0, 0, 0, 0]))))),
        (3, wire.encode_command(Command(4, "STOP"))),
        (4, wire.encode_command(Command(5, "MOVE", wire.move_args(0.1, np.zeros(5))))),
    ]
    replies = _run(firmware_binary, script)[1:]
    assert [r.error_code for r in replies] == [1, 2, 4, 0, 5]


def test_sketch_refuses_all_but_stop_until_hello_and_counts_boots(firmware_binary: Path) -> None:
    """A reset with the port open shows at the next command; STOP still runs; the boot number is reported."""
    script = [
        (0, wire.encode_command(Command(5, "MOVE", wire.move_args(0.1, np.zeros(5))))),
        (1, wire.encode_command(Command(6, "STOP"))),
        (2, HELLO),
        (3, wire.encode_command(Command(7, "STATUS"))),
    ]
    refused, stopped, hello, status = _run(firmware_binary, script)
    assert not refused.is_ok and refused.error_code == wire.RESTARTED
    assert stopped.is_ok
    assert wire.parse_hello(hello).boot == "1"
    assert wire.parse_status(status).state == "STOPPED"


def test_sketch_forgets_the_stored_reply_for_a_new_host_session(firmware_binary: Path) -> None:
    """Two host sessions in a row: the second one's first seq equals the first one's last, and still runs."""
    stop = wire.encode_command(Command(1, "STOP"))
    home = wire.encode_command(Command(1, "HOME"))
    script = [
        (0, HELLO),
        (1, stop),
        (2, wire.encode_command(Command(0, "HELLO", ("222",)))),
        (3, home),
        (4, wire.encode_command(Command(2, "STATUS"))),
    ]
    _, stopped, _, homed, status = _run(firmware_binary, script)
    assert stopped.values == () and homed.values != ()  # HOME ran, it did not get STOP's stored reply
    assert wire.parse_status(status).state != "STOPPED"
