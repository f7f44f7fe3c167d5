"""Work beside a benchmark, as a robot's brain has it: a simulated game playing (arm, camera, reader, its own
engine) and a process that keeps a core busy. `bench engine keeps-value --beside game,busy` measures the engine
while they run, since the budget is the wall clock a person waits, whatever else the computer does.

Each is its own process, started before the measurement and ended after it, whatever happens.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence

KINDS = ("game", "busy")
# Each process beside ends itself once its parent (argv[1], given: it may be gone before the child starts) is gone;
# a bench killed outright cannot end them itself.
ENDS_WITH_PARENT = (
    "import os, sys, threading, time\n"
    "parent = int(sys.argv[1])\n"
    "def end_with_parent():\n"
    "    while os.getppid() == parent:\n"
    "        time.sleep(0.5)\n"
    "    os._exit(0)\n"
    "threading.Thread(target=end_with_parent, daemon=True).start()\n"
)
# Whole simulated games one after another, each with its own seed, until the bench ends them; their log in a
# folder of their own (argv[2]), never the person's game log.
GAMES_FOREVER = ENDS_WITH_PARENT + (
    "import itertools\nfrom robot.cli import main\n"
    "for seed in itertools.count(1):\n"
    "    main(['play', '--sim', '--one-game', '--opponent', 'random', '--room', 'varied', '--seed', str(seed),\n"
    "          '--log', sys.argv[2] + '/game.json'])\n"
)
BUSY_FOREVER = ENDS_WITH_PARENT + "while True:\n    pass\n"
END_TIMEOUT_S = 10.0


def parse_beside(text: str) -> tuple[str, ...]:
    """`game,busy` -> ("game", "busy"); ValueError in one sentence for anything else."""
    kinds = tuple(kind.strip() for kind in text.split(",") if kind.strip())
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"--beside {text!r}: give game, busy or both, comma-separated")
    return kinds


@contextlib.contextmanager
def running_beside(kinds: Sequence[str]) -> Iterator[list[subprocess.Popen]]:
    """Each of `kinds` running in its own process (output discarded) while the block runs, given to it; all ended
    after it."""
    processes: list[subprocess.Popen] = []
    folder = tempfile.TemporaryDirectory(prefix="c4beside-")
    try:
        for kind in kinds:
            code = GAMES_FOREVER if kind == "game" else BUSY_FOREVER
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-c", code, str(os.getpid()), folder.name],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # its own group: a game's own helpers end with it
                )
            )
        yield processes
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(END_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        folder.cleanup()
