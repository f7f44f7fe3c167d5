"""The `c4robot` program: argument parsing and printing; each command calls into a package function."""

from robot.cli.main import main

__all__ = ["main"]
