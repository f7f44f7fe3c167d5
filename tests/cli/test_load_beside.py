"""`bench engine keeps-value --beside game,busy`: the work beside the measurement runs while it runs and is ended
after it, whatever happens; an unknown kind is one sentence."""

from __future__ import annotations

import time

import pytest

from robot.cli.load_beside import parse_beside, running_beside
from robot.cli.main import main


def test_the_work_beside_runs_during_the_block_and_ends_after_it() -> None:
    with running_beside(("game", "busy")) as processes:
        time.sleep(2.0)
        assert len(processes) == 2 and all(p.poll() is None for p in processes), "a process beside ended early"
    assert all(p.returncode is not None for p in processes)


def test_the_work_beside_ends_when_the_measurement_fails() -> None:
    with pytest.raises(RuntimeError), running_beside(("busy",)) as processes:
        raise RuntimeError("the bench failed")
    assert processes[0].returncode is not None


@pytest.mark.parametrize("text", ["melt", "", "game,,fire"])
def test_an_unknown_kind_is_one_sentence(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="give game, busy or both"):
        parse_beside(text)
    status = main(["bench", "engine", "keeps-value", "--beside", text])
    error = capsys.readouterr().err.strip()
    assert status != 0 and "Traceback" not in error and len(error.splitlines()) == 1, error


def test_the_kinds_are_read_in_order() -> None:
    assert parse_beside("game, busy") == ("game", "busy")


def test_the_work_beside_ends_when_the_bench_is_killed_outright() -> None:
    """SIGKILL leaves the bench no time to end what runs beside it: each ends itself once its parent is gone."""
    import signal
    import subprocess
    import sys

    bench = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nfrom robot.cli.load_beside import running_beside\n"
            "with running_beside(('busy',)) as processes:\n"
            "    print(processes[0].pid, flush=True)\n    time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    busy = int(bench.stdout.readline())
    bench.send_signal(signal.SIGKILL)
    bench.wait()
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline and _alive(busy):
        time.sleep(0.2)
    assert not _alive(busy), "the busy process outlived the bench"
    bench.stdout.close()


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for a parent's wait (init reaps orphans, but a zombie counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
