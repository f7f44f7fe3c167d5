"""Events are data: the log, the live view and the rooms bench count kinds and columns, never sentences; old logs
(sentences, version 1) still load; a log of an unknown version is refused in one sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robot.game import events
from robot.game.config import GameSettings, SimTableConfig
from robot.game.events import EventKind, GameEvent
from robot.game.log import GameLog
from robot.game.room_trials import EventJudge
from robot.view.live import LiveView
from tests.late_games import PERSON_TO_MOVE_ROBOT_WINS_NEXT, late_log

OLD_LOG = {  # as version 1 wrote it: events are sentences
    "version": 1,
    "rows": 6,
    "cols": 7,
    "moves": PERSON_TO_MOVE_ROBOT_WINS_NEXT[True],
    "winner": None,
    "robot_first": True,
    "turns": [{"column": 4, "landed": 4, "vision_s": 0.1, "engine_s": 0.2, "arm_s": 1.5}],
    "board_agreement": True,
    "events": ["Something covers column 3 of the board: I am waiting until I can see it."],
}


def test_an_event_round_trips_through_json_one_based() -> None:
    said = GameEvent(EventKind.TWO_DISCS, "two discs", (2, 4), ((0, 2), (1, 4)), 3.25)
    document = said.to_json()
    assert document == {
        "kind": "two_discs",
        "columns": [3, 5],
        "cells": [[1, 3], [2, 5]],
        "message": "two discs",
        "at_s": 3.25,
    }
    assert GameEvent.from_json(json.loads(json.dumps(document))) == said


@pytest.mark.parametrize(
    "document",
    [
        {"kind": "nonsense", "message": "x"},
        {"kind": "covered", "message": 3},
        {"kind": "covered", "message": "x", "columns": [0]},
        {"kind": "covered", "message": "x", "cells": [[1]]},
        {"kind": "covered", "message": "x", "at_s": True},
        [1, 2],
    ],
)
def test_a_damaged_event_is_named(document: object) -> None:
    with pytest.raises(ValueError, match="event"):
        GameEvent.from_json(document)


def test_every_kind_has_a_sentence() -> None:
    assert set(events.MESSAGES) == set(EventKind)


def test_an_old_log_of_sentences_still_loads_and_saves_as_the_new_version(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps(OLD_LOG))
    log = GameLog.load(path)
    assert log.move_string == OLD_LOG["moves"] and log.robot_first
    assert [(e.kind, e.message) for e in log.events] == [(EventKind.SAID, OLD_LOG["events"][0])]
    log.save(path)
    saved = json.loads(path.read_text())
    assert saved["version"] == 2 and saved["events"][0]["kind"] == "said"
    assert GameLog.load(path).events == log.events


def test_a_log_of_an_unknown_version_is_refused_in_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "new.json"
    path.write_text(json.dumps({**OLD_LOG, "version": 9}))
    with pytest.raises(ValueError, match="version 9 is not one this c4robot reads") as refused:
        GameLog.load(path)
    assert "\n" not in str(refused.value)


def test_an_old_log_resumes_in_the_simulation(tmp_path: Path) -> None:
    """`play --sim --resume` of a version 1 log: the discs put back, the game played on to its end."""
    from robot.game.play import play_sim_game, sim_settings

    path = tmp_path / "old.json"
    path.write_text(json.dumps(OLD_LOG))
    settings = sim_settings(GameSettings(time_budget_s=0.2, seed=3, ponder=False))
    summary = play_sim_game(SimTableConfig(seed=3), settings, lambda m: None, path, GameLog.load(path))
    assert summary["moves"].startswith(OLD_LOG["moves"]) and summary["winner"] == "robot"
    assert summary["events"][0] == {**GameEvent(EventKind.SAID, OLD_LOG["events"][0]).to_json()}


class _Counts:
    """What each observer counted: the log's notices by kind, the view's events by kind, the judge's."""

    def __init__(self, summary: dict, view: LiveView, judge: EventJudge) -> None:
        self.log = sorted((e["kind"], tuple(e["columns"])) for e in summary["events"])
        self.view = sorted((e["kind"], tuple(e["columns"])) for e in view.events if e["kind"] not in ROUTINE_NAMES)
        self.judged = sorted((str(m.event.kind), tuple(c + 1 for c in m.event.columns)) for m in judge.notices)
        self.false = len(judge.false_events)


ROUTINE_NAMES = {str(kind) for kind in events.ROUTINE}


def _counted_game(tmp_path: Path) -> _Counts:
    """The end of a simulated game with mischief (two discs at once), every observer watching."""
    from robot.game.sim_table import SimGame

    view, judge = LiveView(), EventJudge()
    with SimGame(SimTableConfig(seed=4), robot_first=False, tell=lambda m: None, mischief={0: "two_discs"}) as sim:
        judge.person = sim.table.person
        settings = GameSettings(time_budget_s=0.1, seed=4, ponder=False, level=3)
        game = sim.game(settings, tmp_path / "g.json", late_log())
        game.watch(view)
        game.watch(judge)
        summary = game.play().summary()
    view.close()
    return _Counts(summary, view, judge)


def test_rewording_every_message_changes_no_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _counted_game(tmp_path / "plain")
    assert plain.log, "the mischief went unnoticed"
    assert plain.log == plain.view[-len(plain.log) :] or plain.log == plain.view
    assert plain.log == plain.judged
    reworded = {kind: "Reworded! " + text.replace(" ", "_") for kind, text in events.MESSAGES.items()}
    monkeypatch.setattr(events, "MESSAGES", reworded)
    again = _counted_game(tmp_path / "reworded")
    assert (again.log, again.view, again.judged, again.false) == (plain.log, plain.view, plain.judged, plain.false)
