"""`--voice`: the robot says its lines aloud through eSpeak NG (Debian's `espeak-ng`), never holding up the game.

Sentences wait in a queue that one background thread speaks in order; when they pile up (the game talks faster
than a voice can), the oldest waiting ones are dropped, so what is heard is about the board as it is. Without
eSpeak NG, or without a sound device, the game is told once and goes on silent. With `to_folder` every sentence
is spoken into a numbered WAV file instead of the speaker (for tests, and to keep what was said).
"""

from __future__ import annotations

import queue
import re
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

PROGRAM = "espeak-ng"
WORDS_PER_MINUTE = 160  # a little slower than eSpeak's 175: the robot's sentences are dense
MOST_WAITING = 2  # sentences queued behind the one being spoken; older ones are dropped
SENTENCE_TIMEOUT_S = 30.0
# The game's event kinds (robot.game.events.EventKind values) a person wants to hear: the robot's own lines,
# what it asks of the person, every notice, the start and the end; not the echo of a move already announced,
# nor file paths or the simulation's own checks.
SPOKEN_KINDS = frozenset(
    {
        "game_started",
        "game_resumed",
        "person_turn",
        "reminder",
        "person_moved",
        "robot_choice",
        "disc_elsewhere",
        "disc_fetched_again",
        "arm_restarted",
        "covered",
        "two_discs",
        "early_reply",
        "disc_removed",
        "wrong_colour",
        "floating_disc",
        "board_not_found",
        "board_unseen",
        "board_covered",
        "walked_away",
        "game_over",
    }
)
MISSING = f"--voice needs eSpeak NG (apt-get install {PROGRAM}), which is not installed: the game goes on silent."


def speakable(sentence: str) -> str:
    """The sentence as a voice should read it: no code quotes or markup, one line."""
    return " ".join(re.sub(r"[`*_#|<>]", " ", sentence).split())


def speak_to_wav(sentence: str, path: Path, program: str = PROGRAM) -> None:
    """Speak `sentence` into a WAV file (22,050 Hz mono). Raises OSError when eSpeak NG cannot."""
    command = [program, "-s", str(WORDS_PER_MINUTE), "-w", str(path), "--", speakable(sentence)]
    _run(command)


class Voice:
    """`say(sentence)` returns at once and the sentence is spoken in the background; `close()` finishes the
    last words (the end of the game) and stops the thread."""

    def __init__(self, tell: Callable[[str], None], to_folder: Path | None = None, program: str = PROGRAM) -> None:
        self.tell = tell
        self.to_folder = to_folder
        self.program = shutil.which(program)
        self.spoken = 0
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        if self.program is None:
            tell(MISSING)
            return
        self._thread = threading.Thread(target=self._speak_all, name="voice", daemon=True)
        self._thread.start()

    @property
    def silent(self) -> bool:
        """True once the voice cannot speak (no eSpeak NG, no sound device, closed)."""
        return self._thread is None

    def say(self, sentence: str) -> None:
        """Queue a sentence to be spoken; the oldest waiting ones go when more than MOST_WAITING wait."""
        if self.silent or not speakable(sentence):
            return
        while self._queue.qsize() >= MOST_WAITING:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._queue.put(sentence)

    def say_event(self, kind: str, message: str) -> None:
        """Say an event's sentence when its kind is one a person wants to hear (SPOKEN_KINDS)."""
        if kind in SPOKEN_KINDS:
            self.say(message)

    def close(self, wait_s: float = 15.0) -> None:
        """Speak what is queued (at most `wait_s` more), then stop."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._queue.put(None)
        thread.join(wait_s)

    def __enter__(self) -> Voice:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def _speak_all(self) -> None:
        while (sentence := self._queue.get()) is not None:
            try:
                self._speak(sentence)
            except OSError as error:
                self.tell(f"The voice stopped ({error}): the game goes on silent.")
                self._thread = None
                return

    def _speak(self, sentence: str) -> None:
        if self.to_folder is not None:
            self.spoken += 1
            speak_to_wav(sentence, self.to_folder / f"voice_{self.spoken:03d}.wav", self.program)
            return
        _run([self.program, "-s", str(WORDS_PER_MINUTE), "--", speakable(sentence)])
        self.spoken += 1


def _run(command: list[str]) -> None:
    """Run eSpeak NG; it exits 0 even when no sound device opens, so anything on stderr is its failure."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=SENTENCE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise OSError(f"{Path(command[0]).name} did not run: {error}") from None
    problem = (done.stderr or "").strip().splitlines()
    if done.returncode != 0 or problem:
        if "ALSA" in done.stderr or "pcm" in done.stderr.lower():
            reason = "no sound device to play on"
        else:
            reason = problem[-1] if problem else f"exit status {done.returncode}"
        raise OSError(f"{Path(command[0]).name} could not speak: {reason}")
