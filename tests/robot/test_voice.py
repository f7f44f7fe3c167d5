"""--voice: eSpeak NG speaks each sentence in the background, into WAV files here; without it, one sentence."""

from __future__ import annotations

import shutil
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from robot.game.voice import MISSING, MOST_WAITING, Voice, speak_to_wav, speakable

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None,
    reason="Debian's espeak-ng is not installed (apt-get install espeak-ng; .ci/run installs it)",
)


def _speech(path: Path) -> tuple[float, float]:
    """(seconds, share of 20 ms windows louder than a whisper) of a 16-bit mono WAV file."""
    with wave.open(str(path)) as sound:
        assert (sound.getnchannels(), sound.getsampwidth()) == (1, 2)
        rate = sound.getframerate()
        samples = np.frombuffer(sound.readframes(sound.getnframes()), np.int16).astype(float)
    window = rate // 50
    frames = samples[: len(samples) // window * window].reshape(-1, window)
    loud = np.sqrt((frames**2).mean(axis=1)) > 500
    return len(samples) / rate, float(loud.mean())


def test_sentences_lose_their_markup() -> None:
    assert speakable("Run `c4robot play --sim`\n  now.") == "Run c4robot play --sim now."


@needs_espeak
def test_a_sentence_is_spoken_at_the_pace_of_speech(tmp_path: Path) -> None:
    short, long = tmp_path / "short.wav", tmp_path / "long.wav"
    speak_to_wav("I play column four.", short)
    speak_to_wav("I play column four. You played column three. I win: the four is in the bottom row.", long)
    short_s, short_voiced = _speech(short)
    long_s, long_voiced = _speech(long)
    assert 0.8 < short_s < 3.0
    assert 3.5 < long_s < 9.0 and long_s > 2.5 * short_s
    assert short_voiced > 0.4 and long_voiced > 0.4  # speech, not silence or a click


@needs_espeak
def test_saying_never_waits_and_closing_speaks_the_last_words(tmp_path: Path) -> None:
    told: list[str] = []
    voice = Voice(told.append, to_folder=tmp_path)
    started = time.perf_counter()
    voice.say("I play column four.")
    voice.say("The robot wins.")
    assert time.perf_counter() - started < 0.05
    voice.close()
    assert told == []
    spoken = sorted(tmp_path.glob("voice_*.wav"))
    assert [path.name for path in spoken] == ["voice_001.wav", "voice_002.wav"]
    assert all(_speech(path)[0] > 0.5 for path in spoken)


@needs_espeak
def test_only_the_kinds_a_person_wants_to_hear_are_spoken(tmp_path: Path) -> None:
    voice = Voice(lambda message: None, to_folder=tmp_path)
    voice.say_event("robot_moved", "I played column 4.")  # the echo of the choice already said
    voice.say_event("log_kept_aside", "The game in /tmp/x.json was not finished.")
    voice.say_event("game_over", "I win!")
    voice.close()
    assert voice.spoken == 1


@needs_espeak
def test_a_pile_of_sentences_keeps_the_newest(tmp_path: Path) -> None:
    voice = Voice(lambda message: None, to_folder=tmp_path)
    for column in range(1, 8):
        voice.say(f"Column {column}.")
    voice.close()
    assert 2 <= voice.spoken <= 1 + MOST_WAITING  # the one being spoken and the newest, not a backlog


def test_without_espeak_one_sentence_and_silence(tmp_path: Path) -> None:
    told: list[str] = []
    voice = Voice(told.append, to_folder=tmp_path, program="espeak-ng-that-is-not-installed")
    voice.say("I play column four.")
    voice.close()
    assert told == [MISSING]
    assert voice.silent and list(tmp_path.iterdir()) == []


@needs_espeak
@pytest.mark.skipif(Path("/dev/snd").exists(), reason="this machine has a sound device")
def test_without_a_sound_device_one_sentence_and_silence() -> None:
    told: list[str] = []
    voice = Voice(told.append)
    voice.say("I play column four.")
    voice.say("Your turn.")
    voice.close()
    assert len(told) == 1 and "no sound device" in told[0] and "silent" in told[0]
