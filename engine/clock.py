"""The CPU's cycle counter as a clock the numba kernels read themselves: their deadlines.

A kernel that polls a flag set by a timer thread stops late when the machine is so busy that the
process gets a few percent of a core (the timer thread waits for its turn too: 25-150 ms late measured
beside two busy loops); a kernel that reads the counter every 1024 nodes stops on time.
"""

from __future__ import annotations

import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def cycles(typingctx):
    """The CPU's time-stamp counter (LLVM readcyclecounter): a clock readable inside a kernel."""

    def codegen(context, builder, signature, args):
        counter = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(counter, [])

    return types.uint64(), codegen


@njit(cache=True)
def cycles_now() -> np.uint64:
    return cycles()


def seconds_per_cycle() -> float:
    """The cycle counter's period, measured once a process against the wall clock over 50 ms."""
    if not _CYCLE_PERIOD:
        first, started = cycles_now(), time.perf_counter()
        while time.perf_counter() - started < 0.05:
            pass
        _CYCLE_PERIOD.append((time.perf_counter() - started) / float(cycles_now() - first))
    return _CYCLE_PERIOD[0]


_CYCLE_PERIOD: list[float] = []


def deadline_cycles(deadline: float) -> int:
    """`deadline` (a time.perf_counter() reading) on the cycle counter; at least one cycle from now."""
    return int(cycles_now()) + max(1, int((deadline - time.perf_counter()) / seconds_per_cycle()))
