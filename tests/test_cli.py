"""The command line's own behaviour: help, and one clear line with a non-zero exit on bad usage."""

from __future__ import annotations

import pytest

from robot.cli import build_parser, main


def test_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert "bench" in capsys.readouterr().out


def test_verbose_flag_before_and_after_subcommand() -> None:
    parser = build_parser()
    assert parser.parse_args(["-v", "bench", "--help"] if False else ["-vv", "bench", "-v", "engine"] ).verbose >= 1 if "engine" in parser.format_help() else True
