"""Playing one whole game from configs: on the simulated table or the real one. The CLI, the benches and the tests
all come through here, each with the configs they built."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from robot.game.config import (
    SIM_GIVE_UP_S,
    SIM_REMIND_AFTER_S,
    GameSettings,
    RealTableConfig,
    SimTableConfig,
)
from robot.game.events import EventKind, GameObserver
from robot.game.log import GameLog

VIEW_FILM_FPS = 3.0  # the live view's table camera: enough to see the arm move, cheap to render


def sim_settings(settings: GameSettings, give_up_s: float | None = None) -> GameSettings:
    """`settings` with the simulated person's patience: reminded sooner, given up on after `give_up_s` (default
    `SIM_GIVE_UP_S`)."""
    return dataclasses.replace(settings, remind_after_s=SIM_REMIND_AFTER_S, give_up_after_s=give_up_s or SIM_GIVE_UP_S)


def play_sim_game(
    table: SimTableConfig,
    settings: GameSettings,
    tell: Callable[[str], None],
    log_path: Path | None,
    previous: GameLog | None = None,
    observers: tuple[GameObserver, ...] = (),
    mischief: dict[int, str] | None = None,
    resume_command: str | None = None,
) -> dict:
    """A whole game in a fresh simulated world; its summary. A `previous` log is resumed (who starts comes from
    it); `observers` watch the game (a live view, a bench's judge)."""
    from robot.game.sim_table import SimGame
    from sim.video import Film

    settings = _resumed(settings, previous)
    with SimGame(table, settings.robot_first, tell, mischief) as game_setup:
        game = game_setup.game(settings, log_path, previous, resume_command)
        films = []
        for observer in observers:
            game.watch(observer)
            if hasattr(observer, "wants_film"):  # a live view: the table with the arm, while a page watches
                wanted = lambda watcher=observer: watcher.wants_film  # noqa: E731
                world = game_setup.world
                films.append(Film(world, VIEW_FILM_FPS, observer.on_film, world.seed, wanted, with_webcam=False))
        try:
            summary = game.play().summary()
            game_setup.park()
            return summary
        finally:
            for film in films:
                film.close()


def play_real_game(
    table: RealTableConfig,
    settings: GameSettings,
    tell: Callable[[str], None],
    log_path: Path | None,
    previous: GameLog | None = None,
    observers: tuple[GameObserver, ...] = (),
    confirm: Callable[[str], bool] | None = None,
    resume_command: str | None = None,
) -> dict:
    """A whole game on the real table (the arm on its serial port, the camera, the calibration); its summary.
    `confirm(question)` asks the person yes or no (None where no one can answer)."""
    from robot.game.real_table import RealGame

    settings = _resumed(settings, previous)
    with RealGame(table, tell, confirm) as game_setup:
        game = game_setup.game(settings, log_path, previous, resume_command)
        for observer in observers:
            game.watch(observer)
            if hasattr(observer, "on_arm"):  # a live view: no camera films the arm, so it is drawn from its joints
                game_setup.show_arm_to(observer.on_arm)
        played = game.play()
        game_setup.park(servo_hot=any(event.kind == EventKind.SERVO_HOT for event in played.events))
        return played.summary()


def _resumed(settings: GameSettings, previous: GameLog | None) -> GameSettings:
    """A resumed game keeps who started."""
    return settings if previous is None else dataclasses.replace(settings, robot_first=previous.robot_first)
