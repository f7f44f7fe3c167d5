"""The game's eyes: camera frames in, stable readings out (`BoardWatcher`), or the sentence that says why none came.

Readings are in players' values once the game compares them (vision.moves); here they are only made steady
(vision.Stabiliser): a reading is handed out when several frames agree, and when none does within the
timeout, `BoardUnseenError` carries what to tell the person (the board out of view, something in front of it,
cells the reader is unsure of and why).

One photo cannot always prove a hole empty (a wooden table nearly a disc's colour seen through it in warm light),
but the game knows more: given a frame of the empty board (`set_empty_reference`) and the board the game knows
(`known_board`), a hole the game knows is empty that still looks as it did then is empty
(vision.unchanged); its unsure reading (empty, or a disc the room behind may be) is read sure and empty before the
stabiliser sees it. A disc the game knows that reads gone while its hole does not look as on the empty board is
behind something (a dark sleeve): its hole is read covered.

The disc colours are learnt from the whole game (vision.colour_model): every board the game comes to know (`know`,
after the camera confirmed a move) teaches each player's colour from the frame that showed it, and the next frames
are read with the colours learnt. A frame whose light has moved past those colours (vision.stale_colours) is
re-learnt from the discs the game knows in it; where the game knows none to learn from, the change of light is
named (`notify`, EventKind.LIGHT_CHANGED), as are colours too close to tell apart (COLOURS_TOO_CLOSE).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence

import numpy as np

from robot.game.events import EventKind
from vision import BoardReading, Stabiliser, read
from vision.cameras import Camera
from vision.colour_model import ColourModel
from vision.hole_samples import face_colour, sample_holes
from vision.localise import BoardNotFoundError, locate_board
from vision.moves import players_grid
from vision.neighbour_looks import trust_looks_beside_discs
from vision.reading import COVERED_BOARD
from vision.reliability import SURE
from vision.stale_colours import STALE_COLOURS
from vision.unchanged import (
    as_on_empty_board,
    cover_unproven_removals,
    disc_patches,
    doubt_changed_empties,
    expected_disc_from_change,
    face_rays_as_on_empty_board,
    insides_as_on_empty_board,
    person_disc_from_change,
    reference_patches,
    refreshed_reference,
    trust_unchanged_discs,
    trust_unchanged_empties,
    with_looks_above_new_discs,
)

# Frames of the empty board taken for its reference: their mean lowers the reference's own noise.
EMPTY_REFERENCE_FRAMES = 4
# The light has moved when the board face's colour (weighted Lab) has moved this much since the last confirmed frame:
# a change of exposure by a tenth moves it by about 5, a webcam's noise and the clutter round a board by under 2.
LIGHT_MOVED = 4.0


class BoardUnseenError(TimeoutError):
    """The camera gave no stable reading of the board in time; the message is the sentence for the person
    (board out of frame, unsure cells and why: dim light, colours alike). `covers_board`: the last frame showed
    something in front of the whole board."""

    def __init__(self, message: str, covers_board: bool = False, board_moved_px: float | None = None) -> None:
        super().__init__(message)
        self.covers_board = covers_board
        self.board_moved_px = board_moved_px  # how far the board seen now is from where calibration found it


class BoardWatcher:
    """Turns camera frames into stable readings in players' values (1 the first player, 2 the second).

    `colours` are the reference disc colours (BGR) of the first and the second player, from calibration (None: the
    first moves teach them). `frame_observer` (set by `Game.watch`) is called with each frame and its reading (a
    live view, a recording). `known_board` (players' values, row 0 at the bottom; given by the game through `know`)
    is the board the game knows; with an empty reference its empty holes that have not changed since are read as
    sure, and `expected` (column, player), the robot's disc the game waits for, is read from its hole's change where
    the reader cannot tell it (vision.unchanged). `notify(kind, **params)` (set by the game) names what the person
    should know of the colours and the light.
    """

    def __init__(
        self,
        camera: Camera,
        shape: tuple[int, int],
        corners: np.ndarray | None,
        colours: tuple[tuple[float, float, float], tuple[float, float, float]] | None,
        stable_frames: int = 3,
    ) -> None:
        self.camera = camera
        self.shape = shape
        self.corners = corners
        self.colour_model = ColourModel(shape, calibrated=colours)
        self.stabiliser = Stabiliser(frames_needed=stable_frames)
        self.last_frame: np.ndarray | None = None
        self.last_reading: BoardReading | None = None
        self.frame_observer: Callable[[np.ndarray, BoardReading], None] | None = None
        self.known_board: np.ndarray | None = None
        self.empty_reference: np.ndarray | None = None
        self.face: tuple[int, int, int] | None = None
        self.notify: Callable[..., None] | None = None
        self._named: set[str] = set()  # what was named and still holds: said once, not every frame
        self._relearnt_at: np.ndarray | None = None  # the known board the colours were last re-learnt at
        self._face_seen: np.ndarray | None = None  # the face (weighted Lab) in the last confirmed frame
        self._face_at_start: np.ndarray | None = None  # and in the empty board's frames, in the calibrated light
        self.expected: tuple[int, int] | None = None  # (column, player) of the robot's disc the game waits for
        self.person: int | None = None  # the player whose disc the game waits for from the person
        self.disc_reference: np.ndarray | None = None  # how the known discs looked when confirmed (disc_patches)
        # The light the known discs' looks are kept in and compared in: the empty board's frames at set-up, never
        # refreshed (each refresh of the empty look keeps what its light correction missed; a disc's look kept in one
        # refresh's light and compared in a later one's would seem to change as the light drifts).
        self._disc_light: np.ndarray | None = None
        self.clock: Callable[[], float] = time.monotonic  # the table's time, in seconds: the game's patience counts it

    @property
    def colours(self) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
        """The players' disc colours the next frames are read with (BGR, the first player's first), None while
        neither calibration nor the game has shown both."""
        return self.colour_model.colours()

    def know(self, board: np.ndarray) -> None:
        """The board the game now knows (players' values, row 0 at the bottom): its colours are learnt from the
        frame that showed it (the last one read), but for holes covered or read otherwise there."""
        before = self.known_board
        self.known_board = np.asarray(board)
        frame, reading = self.last_frame, self.last_reading
        if frame is None or reading is None or not reading.is_board_found:
            return
        self._keep_disc_looks(frame, reading, before)
        self._keep_empty_looks(frame, reading, before)
        moved = STALE_COLOURS in reading.problems  # the light of this frame replaces the colours learnt before
        unlike = self._unlike_known(reading)
        # An empty hole read as a disc still shows what is behind it: kept, as not told apart; only a disc read
        # otherwise, or a hole something covers, would teach a wrong colour.
        skip = reading.covered_holes | (unlike & (self.known_board != 0))
        told = ~unlike & (reading.confidence >= SURE)
        self.colour_model.learn(frame, self._lattice(reading), self.known_board, skip, relearn=moved, told=told)
        self._follow_face(frame, reading)
        if reading.covered is None or not reading.covered.any():
            self._face_seen = sample_holes(frame, self._lattice(reading), self.shape).face
        problem = self.colour_model.separation_problem()
        if problem is not None:
            self._name(EventKind.COLOURS_TOO_CLOSE, detail=problem[0].upper() + problem[1:] + ".")
        else:
            self._named.discard(EventKind.COLOURS_TOO_CLOSE)

    def _lattice(self, reading: BoardReading) -> np.ndarray:
        """Where the holes are for what the watcher learns from a frame: the calibrated corners, where the board the
        game knows was judged (vision.unchanged) and where a thick face's discs show in their lenses, else the
        reading's own. A reader may refine calibrated corners onto a tunnel's lit wall, off the discs."""
        return self.corners if self.corners is not None else reading.corners

    def _keep_disc_looks(self, frame: np.ndarray, reading: BoardReading, before: np.ndarray | None) -> None:
        """Keep how the discs new to the game look in the frame that confirmed them (nothing in front of them), and
        the discs it knew that this frame reads surely as known: a disc dropped next to one, seen past its rim
        through a clear face, changes the face round its neighbour's hole."""
        if self.corners is None:
            return
        kept = self.known_board != 0
        if before is not None:
            kept &= (before == 0) | (~self._unlike_known(reading) & (reading.confidence >= SURE))
        kept &= ~reading.covered_holes
        if not kept.any():
            return
        looks = disc_patches(frame, self.corners, self.shape, kept, self._disc_light)
        if self.disc_reference is None:
            self.disc_reference = looks
        else:  # only holes the game knows hold a disc are ever compared: older looks elsewhere are never read
            self.disc_reference[kept.ravel()] = looks[kept.ravel()]

    def _keep_empty_looks(self, frame: np.ndarray, reading: BoardReading, before: np.ndarray | None) -> None:
        """The empty board's look taken again for the holes the game now knows empty that the confirming frame showed
        surely empty (vision.unchanged.refreshed_reference): the edge of a disc next to a hole, and light that drifted
        since the game began, are part of how an empty hole looks now; so is the top of a disc new to the game seen
        through the hole just above it (vision.unchanged.with_looks_above_new_discs)."""
        if self.empty_reference is None or self.corners is None:
            return
        empty = (self.known_board == 0) & (reading.grid == 0) & (reading.confidence >= SURE) & ~reading.covered_holes
        self.empty_reference = refreshed_reference(self.empty_reference, frame, self.corners, self.shape, empty)
        new = (self.known_board != 0) & (True if before is None else before == 0)
        above = empty & np.vstack([np.zeros((1, self.shape[1]), bool), new[:-1]])
        self.empty_reference = with_looks_above_new_discs(self.empty_reference, frame, self.corners, self.shape, above)

    def _has_light_moved(self, frame: np.ndarray, reading: BoardReading, since_start: bool = False) -> bool:
        """Whether the board's face shows other light than in the last confirmed frame (LIGHT_MOVED): the colours'
        check alone also fails in steady light, on a board with few discs; nothing is said while something covers
        the board or it is not found. `since_start`: and other light than on the empty board too, in the light the
        colours were calibrated in (light that drifts away and back has not changed for the person)."""
        if self._face_seen is None or not reading.is_board_found or reading.covered.any():
            return False
        face = sample_holes(frame, self._lattice(reading), self.shape).face
        since = [self._face_seen] + ([self._face_at_start] if since_start and self._face_at_start is not None else [])
        return all(float(np.linalg.norm(face - each)) > LIGHT_MOVED for each in since)

    def _follow_face(self, frame: np.ndarray, reading: BoardReading) -> None:
        """The board face's colour taken again from a frame with nothing in front of the board: the colours are
        looked for in the light the face shows, and a face kept from the empty board's frames goes stale as the
        light drifts."""
        if self.face is not None and (reading.covered is None or not reading.covered.any()):
            self.face = face_colour([frame], self._lattice(reading), self.shape)

    def _unlike_known(self, reading: BoardReading) -> np.ndarray:
        """(rows, cols) bool: the holes whose pixels do not show what the game knows there (covered, read otherwise)."""
        return reading.covered_holes | (players_grid(self.known_board, reading.grid) != self.known_board)

    def _name(self, kind: EventKind, **params: object) -> None:
        """Tell the game once, until it no longer holds."""
        if kind not in self._named and self.notify is not None:
            self.notify(kind, **params)
        self._named.add(kind)

    def set_empty_reference(self, frames: Sequence[np.ndarray]) -> None:
        """Remember how the empty board looks: a few frames of it, nothing in front, in the light of the game (only
        with calibrated corners: the holes must be sampled where they were), and the colour of its face, which a
        hand over most of the board would otherwise pass for."""
        if self.corners is None:
            raise ValueError("an empty reference needs the board's corners from calibration")
        samples = [sample_holes(frame, self.corners, self.shape) for frame in frames]
        self.empty_reference = self._disc_light = reference_patches(samples)
        self.face = face_colour(frames, self.corners, self.shape)
        self._face_seen = np.median([each.face for each in samples], axis=0)
        self._face_at_start = self._face_seen

    def _read(self, frame: np.ndarray) -> BoardReading:
        """The reader's reading of `frame`, then what the game knows (vision.unchanged): holes known empty that look as
        on the empty board are empty, a changed one where a disc could land is never sure and empty, known discs
        that look as when confirmed are still there, the robot's awaited disc is read from its hole's change, holes
        whose look changed only on the side that faces a disc next to them are as the game knows them (a thick clear
        face shows a disc past its rim: vision.neighbour_looks), and known discs read gone are covered unless their
        holes look as on the empty board."""
        reading = self._read_with(frame, self.known_board)
        is_unsure = bool((reading.confidence < SURE).any())
        if STALE_COLOURS in reading.problems or (is_unsure and self._has_light_moved(frame, reading)):
            reading = self._relearnt(frame, reading)
        else:
            self._named.discard(EventKind.LIGHT_CHANGED)
        if self.empty_reference is None or self.known_board is None:
            return reading
        reading = trust_unchanged_empties(reading, frame, self.corners, self.known_board == 0, self.empty_reference)
        reading = doubt_changed_empties(reading, frame, self.corners, self.known_board, self.empty_reference)
        if self.disc_reference is not None:
            reading = trust_unchanged_discs(
                reading, frame, self.corners, self.known_board, self.disc_reference, self._disc_light
            )
        if self.expected is not None and self.colours is not None:
            column, player = self.expected
            reading = expected_disc_from_change(
                reading, frame, self.corners, self.known_board, self.empty_reference, column, player, self.colours
            )
        if self.person is not None and self.colours is not None:
            reading = person_disc_from_change(
                reading, frame, self.corners, self.known_board, self.empty_reference, self.person, self.colours
            )
        reading = trust_looks_beside_discs(
            reading, frame, self.corners, self.known_board, self.disc_reference, self._disc_light, self.empty_reference
        )
        return cover_unproven_removals(reading, frame, self.corners, self.known_board != 0, self.empty_reference)

    def _read_with(self, frame: np.ndarray, known: np.ndarray | None) -> BoardReading:
        """vision.read with the colours and face of now, the board the game knows, and the holes that look as on the
        empty board (nothing is in front of them)."""
        clear = insides = rays = None
        if self.empty_reference is not None and self.corners is not None:
            clear = as_on_empty_board(frame, self.corners, self.shape, self.empty_reference)
            rays = face_rays_as_on_empty_board(frame, self.corners, self.shape, self.empty_reference)
            if known is not None:  # nothing is in front of a hole known empty whose inside looks as then
                inside = insides_as_on_empty_board(frame, self.corners, self.shape, self.empty_reference)
                insides = (np.asarray(known) == 0) & inside
        return read(
            frame,
            self.shape,
            self.corners,
            self.colours,
            self.face,
            known=known,
            as_on_empty_board=clear,
            empty_insides=insides,
            unchanged_rays=rays,
        )

    def _relearnt(self, frame: np.ndarray, reading: BoardReading) -> BoardReading:
        """A frame in light the colours no longer fit (the check against the frame's own colours says so, or it
        reads unsure while the board's face shows other light than the last confirmed frame):
        the colours and the face re-learnt from the discs the game knows in it and the frame read again with them,
        once per board the game knows; kept unless that reading is less sure than the checked one (discs burnt at
        the camera's ceiling fit no colour well), and later frames in that light are read as this one was. Where the
        game knows no disc of a player in view, the change of light is named (when the board's face shows it) and
        the checked reading stands."""
        known = self.known_board
        if known is None:
            return reading
        if self._relearnt_at is not None and np.array_equal(self._relearnt_at, known):
            return reading
        unlike = self._unlike_known(reading)
        if not all((known[~unlike] == player).any() for player in (1, 2)):
            if self._has_light_moved(frame, reading, since_start=True):
                self._name(EventKind.LIGHT_CHANGED)
            return reading
        kept_model, kept_face = copy.deepcopy(self.colour_model), self.face
        self.colour_model.learn(
            frame, self._lattice(reading), known, unlike, relearn=True, told=~unlike & (reading.confidence >= SURE)
        )
        self._follow_face(frame, reading)
        self._relearnt_at = known.copy()
        self._named.discard(EventKind.LIGHT_CHANGED)
        again = self._read_with(frame, known)
        if (again.confidence < SURE).sum() <= (reading.confidence < SURE).sum():
            return again
        self.colour_model, self.face = kept_model, kept_face
        return reading

    def look(self, timeout_s: float) -> BoardReading:
        """The next reading that stays the same over several frames. Raises BoardUnseenError after `timeout_s`."""
        self.stabiliser.reset()
        deadline = self.clock() + timeout_s
        while self.clock() < deadline:
            frame = self.camera.read()
            reading = self._read(frame)
            self.last_frame, self.last_reading = frame, reading
            if self.frame_observer is not None:
                self.frame_observer(frame, reading)
            stable = self.stabiliser.update(reading)
            if stable is not None:
                return stable
        why = self.stabiliser.complaint or f"I have seen no steady view of the board for {timeout_s:.0f} s."
        last = self.last_reading
        covers = last is not None and COVERED_BOARD in last.problems
        moved_px = None if covers else self.board_moved_px()
        raise BoardUnseenError(why, covers_board=covers, board_moved_px=moved_px)

    def board_moved_px(self, frame: np.ndarray | None = None) -> float | None:
        """How far (px, the largest corner's shift) the board lies from the calibrated corners, when it is found
        elsewhere by a third of a hole's pitch or more in `frame` (default: the last frame) and in the camera's next
        frames alike; None when it is where calibration found it, cannot be found, or is found in different places
        (a hand passing in front makes a lattice of its own, never the same twice), does not read clean where it is
        found, or reads there with no fewer unsure cells than at the calibrated corners (the lattice found is then a
        pattern of the board's own, holes of a dark face seen aside or ring discs, not the board elsewhere)."""
        frame = self.last_frame if frame is None else frame
        if self.corners is None or frame is None:
            return None
        calibrated = np.asarray(self.corners, dtype=float)
        pitch_px = np.linalg.norm(calibrated[1] - calibrated[0]) / max(self.shape[1] - 1, 1)
        try:
            found = [locate_board(each, self.shape) for each in (frame, *(self.camera.read() for _ in range(2)))]
        except BoardNotFoundError:
            return None
        if max(float(np.max(np.linalg.norm(each - found[0], axis=1))) for each in found) > pitch_px / 4:
            return None
        shift_px = min(float(np.max(np.linalg.norm(each - calibrated, axis=1))) for each in found)
        if shift_px < pitch_px / 3:
            return None
        there = read(frame, self.shape, found[0], self.colours)
        if not there.is_board_found or (there.covered is not None and there.covered.any()):
            return None  # the board found elsewhere must read clean there: a hand in front is no moved board
        here = read(frame, self.shape, calibrated, self.colours)
        unsure = [int(((each.confidence < SURE) | each.covered_holes).sum()) for each in (here, there)]
        return shift_px if not here.is_board_found or unsure[1] < unsure[0] else None
