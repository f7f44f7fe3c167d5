"""Property-based fuzzing of `c4robot` and of the files it reads (Hypothesis): every bad input is one sentence.

Each property runs the CLI in-process through robot.cli.main with a generated argv (or a generated
calibration file / game log) and asserts the promise of tests/cli/one_sentence.py: a non-zero exit
within a bound, one line, no traceback, no existing file changed. C4_FUZZ_EXAMPLES raises the number of
examples per property (CI: the default; a long hunt: e.g. C4_FUZZ_EXAMPLES=5000).
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from one_sentence import assert_one_sentence, assert_unchanged, run_in_process, snapshot

from calibration import store
from calibration.store import ArmPose, BoardCalibration, CameraCalibration, ColourCalibration, Setup
from engine import Position
from robot.cli.main import build_parser, command_parsers
from robot.game.log import GameLog, RobotTurn

EXAMPLES = int(os.environ.get("C4_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
# Positionals a command needs before its flags are even read (values that pass on their own).
POSITIONALS = {"match": ["5", "6"], "read": ["board.png"], "analyze": ["44"], "move": ["44"]}


def _bounded_flags(parser) -> list[tuple[tuple[str, ...], str]]:
    """(command path, option) of every number flag in the whole command tree, found by walking the parser."""
    return [
        (path, action.option_strings[-1])
        for path, command in command_parsers(parser)
        for action in command._actions
        if action.option_strings
        and getattr(action.type, "__qualname__", "").split(".")[0] in ("bounded_int", "finite_float")
    ]


NUMBER_FLAGS = _bounded_flags(build_parser())


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# A value no number flag accepts: no number at all, nan/inf, or beyond every flag's range.
BAD_NUMBERS = st.one_of(
    st.sampled_from(["nan", "NaN", "inf", "-inf", "1e400", "-1e400", "", " ", "ten", "0x10", "1,5", "--", "١٢x"]),
    st.text(max_size=200).filter(lambda text: not _is_number(text)),
    st.integers().filter(lambda n: abs(n) > 2**64).map(str),
    st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not math.isfinite(x) or abs(x) > 1e13).map(repr),
)


def test_the_parser_has_number_flags_to_fuzz() -> None:
    assert len(NUMBER_FLAGS) > 30, NUMBER_FLAGS


@FUZZ
@given(flag=st.sampled_from(NUMBER_FLAGS), value=BAD_NUMBERS)
def test_a_bad_number_for_any_flag_is_one_sentence(flag: tuple[tuple[str, ...], str], value: str) -> None:
    path, option = flag
    argv = [*path, *POSITIONALS.get(path[-1], []), f"{option}={value}"]
    status, _, err = run_in_process(argv)
    assert_one_sentence(status, err, argv)


VOCABULARY = sorted(
    {
        *(word for path, _ in NUMBER_FLAGS for word in path),
        *(option for _, option in NUMBER_FLAGS),
        "--sim",
        "--json",
        "--config",
        "--log",
        "--resume",
        "--corners",
        "--overlay",
        "--opponent",
        "--chessboard",
        "-v",
    }
)


@FUZZ
@given(argv=st.lists(st.one_of(st.sampled_from(VOCABULARY), st.text(max_size=30)), min_size=1, max_size=6))
def test_any_argv_the_parser_refuses_is_one_sentence(argv: list[str]) -> None:
    assume(not any(word in ("-h", "--help") for word in argv))
    try:
        build_parser().parse_args(argv)
    except SystemExit:
        pass
    else:
        assume(False)  # a valid command line runs a command: the other properties cover what runs
    status, _, err = run_in_process(argv)
    assert_one_sentence(status, err, argv)


def _refused_move_string(text: str, width: int = 7, height: int = 6) -> bool:
    try:
        Position.from_moves(text, width, height)
    except ValueError:
        return True
    return False


MOVE_TEXT = st.one_of(
    st.text(alphabet="0123456789", min_size=1, max_size=60),
    st.text(max_size=60),
    st.text(alphabet="1234567", min_size=43, max_size=20_000),
)


@FUZZ
@given(command=st.sampled_from(["move", "analyze"]), moves=MOVE_TEXT)
def test_a_bad_move_string_is_one_short_sentence(command: str, moves: str) -> None:
    assume(_refused_move_string(moves) and not moves.startswith("-"))
    status, _, err = run_in_process([command, moves])
    assert_one_sentence(status, err, (command, moves[:50]))
    assert len(err) < 500, "the error quotes the whole input"


@FUZZ
@given(line=MOVE_TEXT.filter(lambda s: "\n" not in s and "\r" not in s and s.strip()))
def test_a_bad_solve_line_is_one_short_sentence(line: str) -> None:
    assume(_refused_move_string(line.split()[0]) if line.split() else False)
    status, _, err = run_in_process(["solve"], stdin_text=line + "\n")
    assert_one_sentence(status, err, line[:50])
    assert len(err) < 500


# --- the calibration file ---------------------------------------------------------------------------


def _valid_setup() -> Setup:
    drops = tuple(ArmPose(0.2, -0.1 + 0.0347 * column, 0.25, 0.0) for column in range(7))
    return Setup(
        camera=CameraCalibration(
            ((800.0, 0.0, 320.0), (0.0, 800.0, 240.0), (0.0, 0.0, 1.0)), (0.0,) * 5, (640, 480), 0.2
        ),
        board=BoardCalibration(
            6, 7, ((100, 100), (500, 100), (500, 400), (100, 400)), rvec_rad=(0, 0, 0), tvec_m=(0, 0, 0.5)
        ),
        colours=ColourCalibration("Y", "R", (10, 150, 180), (10, 10, 150)),
        drops=drops,
        pick=ArmPose(0.1, 0.2, 0.05, 0.0),
        arm={"port": "/dev/null"},
    )


VALID_CALIBRATION = tomllib.loads(store.format_setup(_valid_setup()))
BAD_VALUES = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, 0, -1, 0.0, -1e9, 1e300, 100_000, "", "no", True, [], {}]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(),
    st.text(max_size=300),
    st.lists(st.floats(allow_nan=True), max_size=5),
)
DELETE = object()


def _leaf_paths(node: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(node, dict):
        return [p for key, value in node.items() for p in _leaf_paths(value, (*path, key))] + ([path] if path else [])
    if isinstance(node, list):
        return [p for index, value in enumerate(node) for p in _leaf_paths(value, (*path, index))] + [path]
    return [path]


def _mutated(document: Any, path: tuple, value: Any) -> Any:
    copy = json.loads(json.dumps(document))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    if value is DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return copy


def _numbers_of(value: Any) -> list[float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)]
    if isinstance(value, (list, tuple)):
        return [n for item in value for n in _numbers_of(item)]
    if hasattr(value, "__dataclass_fields__"):
        return [n for name in value.__dataclass_fields__ for n in _numbers_of(getattr(value, name))]
    return []


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@FUZZ
@given(path=st.sampled_from(_leaf_paths(VALID_CALIBRATION)), value=st.one_of(BAD_VALUES, st.just(DELETE)))
def test_a_calibration_file_is_refused_with_its_key_or_holds_only_finite_numbers(
    workdir: Path, path: tuple, value: Any
) -> None:
    document = _mutated(VALID_CALIBRATION, path, value)
    try:
        text = store.format_toml(document)
    except TypeError:
        assume(False)
    try:
        setup = store.parse(text)
    except store.CalibrationError as error:
        assert "\n" not in str(error) and len(str(error)) < 400
        file = workdir / "setup.toml"
        file.write_text(text, encoding="utf-8")
        before = snapshot(workdir)
        status, _, err = run_in_process(["calibrate", "show", "--config", str(file)])
        assert_one_sentence(status, err, path)
        assert_unchanged(before, workdir)
        return
    numbers = _numbers_of([setup.camera, setup.board, setup.colours, setup.pick, *setup.drops])
    assert all(math.isfinite(n) for n in numbers), f"{path} = {value!r} was accepted"
    if setup.camera is not None:
        assert min(setup.camera.focal_px) > 0
    if setup.board is not None:
        assert 2 <= setup.board.rows <= 20 and 2 <= setup.board.cols <= 20


@FUZZ
@given(text=st.one_of(st.text(max_size=500), st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
def test_any_text_as_a_calibration_file_parses_or_is_one_error(text: str) -> None:
    try:
        setup = store.parse(text)
    except store.CalibrationError as error:
        assert "\n" not in str(error)
        return
    assert all(math.isfinite(n) for n in _numbers_of([setup.camera, setup.board, setup.pick, *setup.drops]))


# --- the game log ------------------------------------------------------------------------------------


def _valid_log_document() -> dict:
    from robot.game.events import EventKind, GameEvent

    notice = GameEvent(EventKind.COVERED, "hello", (2, 3), ((0, 2),), 1.5)
    log = GameLog(True, 6, 7, [3, 3, 2], [RobotTurn(3, 3, 0.1, 0.2, 1.5), RobotTurn(2, 2, 0.1, 0.2, 1.5)], [notice])
    return {"version": 2, "rows": 6, "cols": 7, **log.summary()}


VALID_LOG = _valid_log_document()


@FUZZ
@given(path=st.sampled_from(_leaf_paths(VALID_LOG)), value=st.one_of(BAD_VALUES, st.just(DELETE)))
def test_a_game_log_is_refused_with_its_key_or_read_with_the_right_types(
    workdir: Path, path: tuple, value: Any
) -> None:
    document = _mutated(VALID_LOG, path, value)
    try:
        log = GameLog.from_document(document)
    except ValueError:
        file = workdir / "game.json"
        file.write_text(json.dumps(document), encoding="utf-8")
        before = snapshot(workdir)
        status, _, err = run_in_process(["play", "--sim", "--resume", "--log", str(file)])
        assert_one_sentence(status, err, path)
        assert_unchanged(before, workdir)
        return
    assert isinstance(log.robot_first, bool) and isinstance(log.board_agreement, bool)
    assert Position.from_moves(log.move_string, log.cols, log.rows) is not None or True
    assert all(0 <= column < log.cols for column in log.moves)
    assert all(math.isfinite(t.vision_s + t.engine_s + t.arm_s) for t in log.turns)
    assert log.winner in (None, "robot", "opponent", "draw")


@FUZZ
@given(text=st.one_of(st.text(max_size=300), st.sampled_from(["[]", "[1, 2]", "null", "3", '"x"', "{", "[" * 5000])))
def test_any_text_as_a_game_log_is_refused_in_one_sentence(workdir: Path, text: str) -> None:
    file = workdir / "any.json"
    file.write_text(text, encoding="utf-8")
    try:
        GameLog.load(file)
    except ValueError as error:
        assert "\n" not in str(error)
    else:
        assume(False)
    before = snapshot(workdir)
    status, _, err = run_in_process(["play", "--sim", "--resume", "--log", str(file)])
    assert_one_sentence(status, err, text[:50])
    assert_unchanged(before, workdir)
