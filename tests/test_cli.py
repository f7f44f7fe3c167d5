"""The command line's own behaviour: help, and one clear line with a non-zero exit on bad usage."""

from __future__ import annotations

import pytest

from robot.cli import main
from robot.cli.main import build_parser, command_parsers


def test_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "bench" in capsys.readouterr().out


def test_unknown_command_is_one_line_and_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("c4robot: ") and "--help" in err


def _numeric_actions(parser):
    for path, command in command_parsers(parser):
        for action in command._actions:
            if action.type in (int, float):
                yield " ".join(path), action.option_strings or [action.dest]


def test_every_number_a_person_types_is_bounded() -> None:
    """A plain int/float flag accepts nan, inf or 10**9: each number goes through bounded_int or finite_float."""
    assert list(_numeric_actions(build_parser())) == []


def test_book_depths_reach_past_the_shipped_early_book_but_stop_at_the_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    assert parser.parse_args(["book", "early", "--depth", "11"]).depth == 11
    assert parser.parse_args(["book", "build", "--depth", "14"]).depth == 14  # the shipped opening book's
    assert main(["book", "early", "--depth", "13"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "13 is out of range: give 1 to 12" in err


def test_adding_solved_positions_to_a_book_reports_the_count_or_one_sentence(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.early_book import build_early_book

    small = {"width": 5, "height": 4}
    build_early_book(2, tmp_path / "work.npz", tmp_path / "early.npz", processes=1, **small)
    build_early_book(3, tmp_path / "deep-work.npz", tmp_path / "deep.npz", processes=1, **small)
    book_args = ["book", "early", "--add-solved", "--out", str(tmp_path / "early.npz"), "--work"]
    assert main([*book_args, str(tmp_path / "deep-work.npz")]) == 0
    out = capsys.readouterr().out
    assert "solved positions added past its 2 plies" in out and not out.startswith("book: 0 ")
    saved = (tmp_path / "early.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(b"PK\x03\x04 not a whole file")
    assert main([*book_args, str(tmp_path / "cut.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is damaged" in err and "Traceback" not in err
    assert (tmp_path / "early.npz").read_bytes() == saved
