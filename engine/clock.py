"""The clock the numba kernels read themselves for their deadlines: the CPU's counter where user programs
may read it, else the system's monotonic clock.

A kernel that polled a flag set by a timer thread would stop late on a busy machine (the timer thread
waits for a core too); a kernel that reads a clock every 1024 nodes stops on time.

The kernels call `ticks()`, an external function this module binds once a process, before any kernel
loads, to one of three sources (so cached kernels serve every source):
  - "counter": LLVM's readcyclecounter: the time-stamp counter on x86-64, CNTVCT_EL0 (the generic
    timer Linux lets user programs read, a few tens of MHz) on aarch64 with LLVM 20 or later (older
    LLVMs emit PMCCNTR_EL0, which traps, or a constant 0); its period is measured against the wall clock;
  - "portable": clock_gettime(CLOCK_MONOTONIC) in nanoseconds, for every other CPU;
  - "slow": the monotonic clock in 50 ns ticks, a 20 MHz counter for testing on a fast machine what
    an ARM board's generic timer gives (its period is measured as a counter's is).
C4ROBOT_CLOCK=counter|portable|slow chooses one; by default the counter where it is known to work.
"""

from __future__ import annotations

import ctypes
import os
import platform
import time
from collections.abc import Callable

import llvmlite.binding as llvm
from llvmlite import ir
from numba import cfunc, types
from numba.core import cgutils
from numba.extending import intrinsic

SOURCES = ("counter", "portable", "slow")
CLOCK_ENV = "C4ROBOT_CLOCK"
COUNTER_CPUS = ("x86_64", "amd64", "aarch64", "arm64")  # where readcyclecounter is a register users may read
MIN_AARCH64_LLVM = 20  # the first LLVM llvmlite ships (0.45) that lowers it to CNTVCT_EL0 on aarch64
SLOW_TICK_NS = 50
CALIBRATION_S = 0.05  # the span the counter's period is measured over
MAX_BRACKET_S = 50e-6  # a reading whose two wall-clock brackets are further apart was interrupted: read again
_SYMBOL = "c4robot_clock_ticks"
_I64 = ir.IntType(64)
_LONG = ir.IntType(8 * ctypes.sizeof(ctypes.c_long))  # struct timespec's fields on LP64 and on 32-bit Linux


class ClockError(ValueError):
    """C4ROBOT_CLOCK names no clock source."""


@intrinsic
def _cycle_counter(typingctx):
    """LLVM's readcyclecounter."""

    def codegen(context, builder, signature, args):
        counter = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_I64, []), "llvm.readcyclecounter")
        return builder.call(counter, [])

    return types.uint64(), codegen


@intrinsic
def _monotonic_ns(typingctx):
    """clock_gettime(CLOCK_MONOTONIC) in nanoseconds."""

    def codegen(context, builder, signature, args):
        timespec = ir.LiteralStructType([_LONG, _LONG])
        clock_gettime = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()]), "clock_gettime"
        )
        slot = cgutils.alloca_once(builder, timespec)
        builder.call(clock_gettime, [ir.Constant(ir.IntType(32), time.CLOCK_MONOTONIC), slot])
        seconds = builder.sext(builder.load(cgutils.gep_inbounds(builder, slot, 0, 0)), _I64)
        nanoseconds = builder.sext(builder.load(cgutils.gep_inbounds(builder, slot, 0, 1)), _I64)
        return builder.add(builder.mul(seconds, ir.Constant(_I64, 1_000_000_000)), nanoseconds)

    return types.uint64(), codegen


llvm.add_symbol("clock_gettime", ctypes.cast(ctypes.CDLL(None).clock_gettime, ctypes.c_void_p).value)


@cfunc(types.uint64(), cache=True)
def _counter_source():
    return _cycle_counter()


@cfunc(types.uint64(), cache=True)
def _portable_source():
    return _monotonic_ns()


@cfunc(types.uint64(), cache=True)
def _slow_source():
    return _monotonic_ns() // SLOW_TICK_NS


_SOURCE_FUNCTIONS = {"counter": _counter_source, "portable": _portable_source, "slow": _slow_source}


def counter_expected_to_work(machine: str, llvm_major: int) -> bool:
    """True where readcyclecounter lowers to a counter user programs may read (see the module's docstring)."""
    machine = machine.lower()
    if machine not in COUNTER_CPUS:
        return False
    return machine in ("x86_64", "amd64") or llvm_major >= MIN_AARCH64_LLVM


def _advances(read: Callable[[], int]) -> bool:
    """True when `read` changes within a millisecond (a counter LLVM could not lower stays 0)."""
    first, started = read(), time.perf_counter()
    while time.perf_counter() - started < 0.001:
        if read() != first:
            return True
    return False


def choose_source() -> str:
    """C4ROBOT_CLOCK's source, else the counter where it works on this CPU and LLVM, else the portable clock.

    Raises ClockError for an unknown C4ROBOT_CLOCK."""
    wanted = os.environ.get(CLOCK_ENV, "").strip().lower()
    if wanted:
        if wanted not in SOURCES:
            raise ClockError(f"{CLOCK_ENV}={wanted!r} is no clock source: give one of {', '.join(SOURCES)}")
        return wanted
    usable = counter_expected_to_work(platform.machine(), llvm.llvm_version_info[0])
    return "counter" if usable and _advances(_counter_source.ctypes) else "portable"


SOURCE = choose_source()
read_ticks: Callable[[], int] = _SOURCE_FUNCTIONS[SOURCE].ctypes  # the same clock, from Python
llvm.add_symbol(_SYMBOL, _SOURCE_FUNCTIONS[SOURCE].address)


@intrinsic
def ticks(typingctx):
    """The process's clock (SOURCE), readable inside a kernel."""

    def codegen(context, builder, signature, args):
        return builder.call(cgutils.get_or_insert_function(builder.module, ir.FunctionType(_I64, []), _SYMBOL), [])

    return types.uint64(), codegen


def calibrate(
    read: Callable[[], int], wall: Callable[[], float] = time.perf_counter, span_s: float = CALIBRATION_S
) -> float:
    """The period in seconds of the clock `read`, measured against `wall` over `span_s`.

    Each end is a reading bracketed by two wall-clock readings close together: one the scheduler
    interrupted is taken again, so a busy machine does not skew the period."""

    def bracketed() -> tuple[int, float]:
        while True:
            before = wall()
            count = read()
            after = wall()
            if after - before <= MAX_BRACKET_S:
                return count, (before + after) / 2

    first, started = bracketed()
    while wall() - started < span_s:
        pass
    last, ended = bracketed()
    while last == first:  # a clock slower than the span: wait for its next tick
        last, ended = bracketed()
    return (ended - started) / (last - first)


def seconds_per_tick() -> float:
    """The process's clock's period: exact for the portable clock, measured once a process otherwise."""
    if not _PERIOD:
        _PERIOD.append(1e-9 if SOURCE == "portable" else calibrate(read_ticks))
    return _PERIOD[0]


_PERIOD: list[float] = []


def deadline_ticks(deadline: float) -> int:
    """`deadline` (a time.perf_counter() reading) on the process's clock; at least one tick from now."""
    return read_ticks() + max(1, round((deadline - time.perf_counter()) / seconds_per_tick()))
