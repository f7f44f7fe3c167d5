"""`c4robot` subcommands of the calibration area (filled in by the calibration work)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add this area's subcommands and benchmark targets (none yet)."""
