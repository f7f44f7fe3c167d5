"""`c4robot solve`, `analyze` and `bench engine` through robot.cli.main, as a person or a script uses them."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from robot.cli import main
from robot.cli.main import build_parser, command_parsers

LATE = "2252576253462244111563365343671351441"  # L3_R1 line 1, score -1; columns 1 to 5 are full


def test_solve_answers_every_good_line_and_reports_the_bad_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = f"{LATE}\n44a\n\n7422341735647741166133573473242566 1\n1212121\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    assert main(["solve"]) == 2
    out, err = capsys.readouterr()
    answers = [line.split() for line in out.splitlines()]
    assert [a[:2] for a in answers] == [[LATE, "-1"], ["7422341735647741166133573473242566", "1"]]
    assert all(a[2].isdigit() and a[3].isdigit() for a in answers)
    errors = err.splitlines()
    assert len(errors) == 2
    assert "line 2 '44a'" in errors[0] and "digits 1 to 7" in errors[0]
    assert "line 5" in errors[1] and "over" in errors[1]


def test_solve_weak(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("7422341735647741166133573473242566\n"))
    assert main(["solve", "--weak"]) == 0
    assert capsys.readouterr().out.split()[1] == "1"


def test_analyze_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", LATE, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["columns"][:5] == [None] * 5
    assert report["columns"][5] == {"column": 6, "score": -1, "outcome": "loss in 2"}
    assert report["columns"][6] == {"column": 7, "score": -2, "outcome": "loss in 1"}
    assert report["best"] == 6 and report["score"] == -1 and report["to_move"] == 2
    assert main(["analyze", LATE]) == 0
    out = capsys.readouterr().out
    assert "column 1: full" in out and "best move: column 6 (loss in 2)" in out


def test_analyze_of_the_first_plies_comes_from_the_books(capsys: pytest.CaptureFixture[str]) -> None:
    """Solving the empty board's columns takes minutes; the opening book knows them exactly (Pons' scores),
    and the early book knows every column's outcome two plies in (Allis: after 4 4 only the centre wins)."""
    assert main(["analyze", "", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [column["score"] for column in report["columns"]] == [-2, -1, 0, 1, 0, -1, -2]
    assert report["best"] == 4 and report["columns"][3]["outcome"] == "win in 21"
    assert main(["analyze", "44", "--weak", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [column["score"] for column in report["columns"]] == [-1, -1, -1, 1, -1, -1, -1]


def test_analyze_bad_moves_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "4x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'x'" in err


def test_bench_engine_prints_a_row_per_set(shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "bench",
                "engine",
                "sets",
                "--lines",
                "3",
                "--sets",
                "L3_R1,L2_R1",
                "--testsets",
                str(shared_dir / "engine" / "testsets"),
            ]
        )
        == 0
    )
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("L")]
    assert [(row[0], row[1], row[2]) for row in rows] == [("L3_R1", "3", "yes"), ("L2_R1", "3", "yes")]
    assert "0.0011" in " ".join(rows[0])  # the reference median beside ours


def test_bench_engine_without_test_sets_fails_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "sets", "--testsets", str(tmp_path / "missing")]) == 1
    assert "--testsets" in capsys.readouterr().err
    assert main(["bench", "engine", "sets", "--sets", "L9_R9"]) == 2


@pytest.mark.parametrize("mode", ["sets", "versus c4solver", "play", "keeps-value"])
def test_bench_engine_refuses_an_empty_list_of_sets(mode: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", *mode.split(), "--sets", " , "]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "names no set" in err


@pytest.mark.parametrize(
    ("mode", "option"),
    [
        ("sets", "--games"),
        ("sets", "--openings"),
        ("versus c4solver", "--warm"),
        ("play", "--weak"),
        ("play", "--table-mb"),
        ("budget", "--sets"),
        ("budget", "--no-book"),
        ("keeps-value", "--lines"),
        ("keeps-value", "--warm"),
    ],
)
def test_bench_engine_modes_refuse_options_they_do_not_use(
    mode: str, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "engine", *mode.split(), option, "1"]) == 2
    assert f"unrecognized arguments: {option}" in capsys.readouterr().err


def test_bench_engine_names_its_modes_and_no_help_begins_with_a_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine"]) == 2
    assert "sets|versus|play|budget|keeps-value" in capsys.readouterr().err
    modes = [p for _, p in command_parsers(build_parser()) if p.prog.startswith("c4robot bench engine ")]
    assert sorted(p.prog.split()[-1] for p in modes) == ["budget", "keeps-value", "play", "sets", "versus"]
    helps = [action.help or "" for mode in modes for action in mode._actions]
    assert len(helps) > 20 and not [text for text in helps if text.lower().startswith("with --")]


def test_bench_engine_budget_times_answers_of_whole_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "budget", "--answers", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    answers, proven, median, p99, p999, slowest, over = lines[-2].split()
    assert int(over) <= int(answers)
    assert int(answers) >= 5 and 0.0 <= float(proven) <= 100.0
    assert float(median) <= float(p99) <= float(p999) <= float(slowest)
    assert lines[-1].startswith(f"slowest answer {slowest} ms")
    assert main(["bench", "engine", "budget", "--answers", "0"]) == 2


def test_bench_engine_budget_plays_bigger_boards_from_the_empty_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["bench", "engine", "budget", "--answers", "3", "--width", "9", "--height", "7", "--openings", "0"]) == 0
    )
    out = capsys.readouterr().out
    assert "9x7 board, 0-ply random openings" in out
    assert main(["bench", "engine", "budget", "--answers", "3", "--openings", "-1"]) == 2
    assert main(["bench", "engine", "budget", "--answers", "3", "--width", "20"]) == 2


def test_solve_takes_what_the_books_know(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The first plies would take the solver minutes: the opening book knows '4' exactly (the robot's line
    as second player), its replies' children give '44', and the early book knows the outcomes
    of '3' (a draw) and '1' (won by the side to move)."""
    monkeypatch.setattr("sys.stdin", io.StringIO("4\n44\n"))
    assert main(["solve"]) == 0
    assert [line.split()[:3] for line in capsys.readouterr().out.splitlines()] == [["4", "-1", "0"], ["44", "1", "0"]]
    monkeypatch.setattr("sys.stdin", io.StringIO("3\n1\n"))
    assert main(["solve", "--weak"]) == 0
    assert [line.split()[:3] for line in capsys.readouterr().out.splitlines()] == [["3", "0", "0"], ["1", "1", "0"]]


def _stand_in_reference(folder: Path, timed: bool, wrong: bool = False) -> Path:
    """An executable that answers like Pons' c4solver (with or without its timing main), from the test set's
    own scores: the protocol is what is tested here, the C++ binary is not built in CI."""
    script = folder / "c4solver"
    fields = "line, score, 7, 2.5" if timed else "line, score"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"known = {{row.split()[0]: int(row.split()[1]) for row in open({str(folder / 'scores')!r})}}\n"
        "for line in sys.stdin:\n"
        "    line = line.strip()\n"
        f"    score = known[line]{' + 1' if wrong else ''}\n"
        f"    print(*({fields}), flush=True)\n"
    )
    script.chmod(0o755)
    return script


@pytest.mark.parametrize(("timed", "weak"), [(True, False), (False, False), (True, True)])
def test_bench_versus_runs_the_reference_on_the_same_lines(
    shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], timed: bool, weak: bool
) -> None:
    """Weak: the stand-in answers full scores, as Pons' weak solve does for a win at once; they agree."""
    testsets = shared_dir / "engine" / "testsets"
    scores = (testsets / "Test_L3_R1").read_text().rstrip("\n")
    (tmp_path / "scores").write_text(f"{scores}\n112233 18\n")  # + the pipe's baseline position
    binary = _stand_in_reference(tmp_path, timed)
    status = main(["bench", "engine", "versus", str(binary), "--sets", "L3_R1", "--lines", "5"] + ["--weak"] * weak)
    assert status == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    row = next(line.split() for line in out.splitlines() if line.startswith("L3_R1"))
    assert row[1] == "5" and row[-1] == "yes"
    if timed:
        assert float(row[4]) == 0.0025  # the reference's own 2.5 us, in ms
    assert ("its own clock" if timed else "round trips") in out


def test_bench_versus_names_a_reference_that_disagrees_or_is_missing(
    shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "scores").write_text((shared_dir / "engine" / "testsets" / "Test_L3_R1").read_text())
    binary = _stand_in_reference(tmp_path, timed=True, wrong=True)
    assert main(["bench", "engine", "versus", str(binary), "--sets", "L3_R1", "--lines", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[3].split()[-1] == "NO"
    assert main(["bench", "engine", "versus", str(tmp_path / "absent"), "--sets", "L3_R1", "--lines", "3"]) == 1
    assert "build_pons.sh" in capsys.readouterr().err


def test_bench_engine_keeps_value_judges_every_move(shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    testsets = str(shared_dir / "engine" / "testsets")
    status = main(["bench", "engine", "keeps-value", "--sets", "L3_R1", "--randoms", "3", "--testsets", testsets])
    out = capsys.readouterr().out
    assert "3 positions: 0 test-set lines of up to 12 plies (L3_R1), 3 random ones" in out
    lost = int(re.search(r"3 moves, (\d+) lost the value", out).group(1))
    assert status == (1 if lost else 0)
