"""The simulated person: named on the command line, takes its wins, blocks, likes the centre, and at the
default level makes a real game that the robot (the engine) still wins."""

from __future__ import annotations

import random
import statistics

import pytest

from engine import Limit, Position, search
from robot.game.opponents import EngineOpponent, RandomOpponent, TypedOpponent, parse_opponent
from robot.game.person_policy import DEFAULT_SKILL, SKILLS, PersonOpponent


def _parse(text: str):
    return parse_opponent(text, random.Random(0), input, print)


def test_names_on_the_command_line() -> None:
    assert _parse("person").name == f"person:{DEFAULT_SKILL}"
    assert _parse("person:5").level == 5
    assert isinstance(_parse("random"), RandomOpponent)
    assert isinstance(_parse("human"), TypedOpponent)
    assert isinstance(_parse("engine:4"), EngineOpponent)


@pytest.mark.parametrize("text", ["person:0", f"person:{max(SKILLS) + 1}", "person:x", "persons", "engine:11", ""])
def test_unknown_names_are_refused_in_one_sentence(text: str) -> None:
    with pytest.raises(ValueError, match="unknown opponent"):
        _parse(text)


def test_takes_its_win() -> None:
    position = Position.from_moves("445566")  # the person (first) has three on the bottom row, both ends open
    choices = {PersonOpponent(4, random.Random(seed)).choose(position) for seed in range(20)}
    assert choices <= {2, 6}


def test_blocks_the_robots_four() -> None:
    position = Position.from_moves("142576")  # the robot has columns 4-6 on the bottom row; 3 is the only block
    assert all(PersonOpponent(5, random.Random(seed)).choose(position) == 2 for seed in range(20))


def test_a_beginner_sometimes_misses_the_block() -> None:
    position = Position.from_moves("142576")
    choices = [PersonOpponent(1, random.Random(seed)).choose(position) for seed in range(40)]
    assert 2 in choices and any(choice != 2 for choice in choices)


def test_prefers_the_centre_on_an_empty_board() -> None:
    choices = [PersonOpponent(DEFAULT_SKILL, random.Random(seed)).choose(Position.empty()) for seed in range(40)]
    assert choices.count(3) > len(choices) / 2
    assert len(set(choices)) > 1  # a person, not a table: other columns now and then


def _plies_against_the_engine(level: int, seed: int) -> tuple[int, bool]:
    """A game, the person first (as `play --sim` starts), against the robot's engine; (plies, robot won)."""
    person = PersonOpponent(level, random.Random(seed))
    position = Position.empty()
    while not position.is_over():
        if position.moves_played % 2 == 0:
            column = person.choose(position)
        else:
            column = search(position, Limit(time=0.05), rng=random.Random(seed)).column
        position = position.play(column)
    return position.moves_played, position.winner() == 2


def test_the_default_person_makes_a_real_game_the_robot_wins() -> None:
    games = [_plies_against_the_engine(DEFAULT_SKILL, seed) for seed in range(10)]
    assert statistics.median(plies for plies, _ in games) >= 20
    assert sum(robot_won for _, robot_won in games) >= 8


def test_a_stronger_person_lasts_longer() -> None:
    def plies(level: int) -> list[int]:
        return [_plies_against_the_engine(level, seed)[0] for seed in range(10)]

    assert statistics.median(plies(1)) < statistics.median(plies(DEFAULT_SKILL))
    assert min(plies(max(SKILLS))) >= 20  # the strongest never falls to a quick trick


def test_a_stronger_person_beats_a_weaker_one() -> None:
    points = 0.0
    for seed in range(20):
        default, beginner = PersonOpponent(DEFAULT_SKILL, random.Random(seed)), PersonOpponent(1, random.Random(-seed))
        first, second = (default, beginner) if seed % 2 == 0 else (beginner, default)
        position = Position.empty()
        while not position.is_over():
            position = position.play((first if position.moves_played % 2 == 0 else second).choose(position))
        winner = {1: first, 2: second}.get(position.winner())
        points += 1.0 if winner is default else 0.5 if winner is None else 0.0
    assert points >= 15
