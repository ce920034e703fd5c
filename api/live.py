"""Live camera mode: a stream of video frames in, where the grid is and its solution out.

Two halves. `frame` is the work on one frame, done in a solver process like a photo: decode,
find the grid (tracked near the last corners, a full search when that fails), take the ink
signature of its cells, and read and solve it only when asked to, or when the signature says
its content changed. `LiveSession` is the small state of one connection, kept where the
socket is: the last corners (and how they moved, to predict the next), the grid known so far,
and a reading waiting for a second one to agree. It decides what each frame's job is and what
the client is told:

- a grid counts as read when two consecutive reads agree on its digits and it has one
  solution, so one blurred frame cannot show a wrong solution;
- its solution is sent once (a `grid` message); after that, each frame answers with the
  corners only, and whether the grid shown is still that one;
- reading happens only for a new grid, a grid whose ink changed, or a pending reading;
- a known grid lost for a frame or three (a hand passing over it) is carried on by its last
  motion (`coasting`), then given up.

>>> session = LiveSession()
>>> job = session.job()
>>> job.read, job.corners is None
('always', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from api.schema import PhotoResultModel

READ_ALWAYS, READ_ON_CHANGE = "always", "on_change"
# A frame shows the known grid when at most this share of the cells compared differ (a hand
# or a pen over some cells) and enough cells were compared (not just a sliver in view).
SAME_GRID_SHARE = 0.25
SAME_GRID_MIN_KNOWN = 27
# Frames without a grid (a hand over its lines) bridged by the grid's last motion before the
# client is told it is lost: 3 frames are 0.12 s at 25 frames a second.
COAST_FRAMES = 3
# Fields of a reading that the client is sent once per grid.
GRID_FIELDS = ("status", "message", "givens", "solution", "entries", "mistakes", "hint", "mode")


@dataclass(frozen=True)
class FrameJob:
    """What to do with one frame (pickled to a solver process with the frame's bytes beside).

    corners: where the grid is expected (upright order), None to search the whole frame.
    reference: the (9, 9) ink signature of the grid known so far, None when there is none.
    last: the last upright corners known, to choose between turns a full search leaves open.
    read: READ_ALWAYS or READ_ON_CHANGE (when the signature differs from `reference`).
    """

    corners: np.ndarray | None = None
    reference: np.ndarray | None = None
    last: np.ndarray | None = None
    read: str = READ_ALWAYS
    mode: str = "solve"
    engine: str = ""
    max_pixels: int = 4_000_000


@dataclass(frozen=True)
class FrameAnswer:
    """What one frame showed.

    size: (width, height). corners: (4, 2) upright corners, None when no grid was found.
    tracked: found near the expected corners (no full search). differ, known: cells whose
    ink differs from the job's reference, and cells compared. result: the reading, solved,
    when the frame was read (its `corners` are those of this frame). digit_height: the
    print's height as a share of a cell, when read and measured. timings: milliseconds.
    """

    size: tuple[int, int]
    corners: np.ndarray | None = None
    signature: np.ndarray | None = None
    tracked: bool = False
    differ: int = 0
    known: int = 0
    result: PhotoResultModel | None = None
    digit_height: float | None = None
    timings: dict[str, float] = field(default_factory=dict)


def frame(data: bytes, job: FrameJob):
    """Find, and if asked or changed, read and solve the grid in one video frame.

    Parameters
    ----------
    data : bytes
        The frame: a JPEG (or PNG, WebP) image.
    job : FrameJob
        Where to look and whether to read.

    Returns
    -------
    FrameAnswer, or api.service.jobs.Refused when the bytes are not a usable image.
    """
    import cv2

    from api.failures import failure_of
    from api.pipeline import judge_reading
    from api.service.jobs import Refused
    from vision.errors import NoGridFound, VisionError
    from vision.load import load_image
    from vision.locate import Located, locate_grid
    from vision.read import read_located
    from vision.track import best_turn, changes, ink_signature, track_grid

    timings: dict[str, float] = {}
    started = time.perf_counter()
    try:
        image = load_image(data, max_pixels=job.max_pixels)
    except VisionError as error:
        return Refused(failure_of(error))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    size = (int(image.shape[1]), int(image.shape[0]))
    timings["decode"] = _ms(started)

    lap = time.perf_counter()
    located = None if job.corners is None else track_grid(gray, job.corners)
    tracked = located is not None
    if located is None:
        try:
            located = locate_grid(gray)
        except NoGridFound:
            timings["locate"] = _ms(lap)
            timings["total"] = _ms(started)
            return FrameAnswer(size, timings=timings)
    corners = located.corners
    signature = ink_signature(gray, corners)
    differ = known = 0
    if job.reference is not None:
        k = 0
        if not tracked:  # a full search orders corners by the frame, not by the grid's up
            k, _, _ = best_turn(signature, job.reference, corners, job.last)
        corners = np.roll(corners, -k, axis=0)
        signature = np.rot90(signature, k)
        differ, known = changes(signature, job.reference)
    timings["locate"] = _ms(lap)

    result = digit_height = None
    if job.read == READ_ALWAYS or job.reference is None or differ > 0:
        lap = time.perf_counter()
        reading = read_located(image, gray, Located(corners, located.score), engine=job.engine)
        solved = judge_reading(reading, reading.timings, mode=job.mode)
        if solved.solved or job.reference is None:
            # the reader's turn of the grid (by its digits) is trusted when it solved it;
            # a failed read (a hand over the digits) keeps the tracked grid's up
            corners = np.asarray(reading.corners, np.float32)
            signature = ink_signature(gray, corners)
        result = solved.to_model()
        digit_height = print_height(reading)
        timings["read"] = _ms(lap)
    timings["total"] = _ms(started)
    return FrameAnswer(
        size,
        np.asarray(corners, np.float32),
        signature,
        tracked,
        differ,
        known,
        result,
        digit_height,
        timings,
    )


def print_height(reading) -> float | None:
    """The printed digits' height as a share of the cell (median), to draw the solution at
    the print's size; None when too few were measured. From the reader's own ink boxes, as
    the renderer measures it (`vision.render.printed_height`)."""
    from vision.render import cell_centres, ink_boxes, printed_height

    _, heights = cell_centres(reading.side, reading.cell_boxes)
    prints = {cell: box for cell, box in ink_boxes(reading).items() if reading.givens[cell]}
    height = printed_height(prints, heights)
    return None if height is None else round(height, 3)


@dataclass
class Grid:
    """A grid read (and solved) from a frame: its id, what identifies its content (`key`),
    its ink signature and the reading the client is sent."""

    id: int
    key: str
    signature: np.ndarray
    result: PhotoResultModel
    digit_height: float | None = None


def content_key(result: PhotoResultModel) -> str | None:
    """What two readings must share to agree: the printed digits, and in check and hint
    modes the user's own entries too. None when nothing was read."""
    if result.givens is None:
        return None
    if result.mode == "solve":
        return result.givens
    return f"{result.givens}/{result.entries or ''}"


class LiveSession:
    """The state of one live connection (see the module docstring).

    Parameters
    ----------
    mode : str
        solve, check or hint: what a grid message reveals.

    Examples
    --------
    >>> session = LiveSession("hint")
    >>> session.answer(FrameAnswer((640, 480)))[0]["state"]
    'searching'
    """

    def __init__(self, mode: str = "solve"):
        self.mode = mode
        self.corners: np.ndarray | None = None  # the last frame's, None when it had no grid
        self.previous: np.ndarray | None = None  # the frame's before, for the motion
        self.last: np.ndarray | None = None  # the last corners ever found
        self.known: Grid | None = None  # the grid confirmed by two agreeing reads
        self.pending: Grid | None = None  # a read waiting for the next one to agree
        self.ids = 0
        self.reads = 0
        self.coasted = 0  # frames bridged since the grid was last found

    def reset(self, mode: str | None = None) -> None:
        """Forget the grid (a new mode re-reads and sends its grid message anew)."""
        self.__init__(mode or self.mode)

    def job(self, engine: str = "", max_pixels: int = 4_000_000) -> FrameJob:
        """The next frame's job: where the grid should be and whether to read it."""
        predicted = self.corners
        if self.corners is not None and self.previous is not None:
            predicted = self.corners + (self.corners - self.previous)  # keeps moving
        reference = self.known or self.pending
        return FrameJob(
            corners=predicted,
            reference=None if reference is None else reference.signature,
            last=self.last,
            read=READ_ON_CHANGE if self.known and not self.pending else READ_ALWAYS,
            mode=self.mode,
            engine=engine,
            max_pixels=max_pixels,
        )

    def answer(self, found: FrameAnswer) -> list[dict]:
        """The messages for the client after one frame (a `grid` message first when a grid
        was just confirmed), and the state moved on."""
        messages: list[dict] = []
        if found.corners is None and self.coasting():
            return [self.coast(found)]
        self.coasted = 0
        self.previous = self.corners if found.corners is not None else None
        self.corners = found.corners
        if found.corners is None:
            self.pending = None  # the next read is not consecutive with it
            return [self.frame_message(found, None, "searching")]
        self.last = found.corners
        shown = self.known.id if self.known is not None and self.shows_known(found) else None
        if found.result is not None:
            self.reads += 1
            confirmed = self.judge(found)
            if confirmed is not None:
                shown = confirmed.id
                if confirmed is not self.known:
                    self.known = confirmed
                    messages.append(self.grid_message(confirmed))
            elif self.pending is not None:  # other digits, solved: not the known grid
                shown = None
        state = "known" if shown is not None else "reading"
        messages.append(self.frame_message(found, shown, state))
        return messages

    def coasting(self) -> bool:
        """Whether a frame without a grid may be bridged: a known grid was followed in the
        last frames, moving (a hand passing over the paper hides its lines for a moment)."""
        return (
            self.known is not None
            and self.corners is not None
            and self.previous is not None
            and self.coasted < COAST_FRAMES
        )

    def coast(self, found: FrameAnswer) -> dict:
        """The grid where its motion would have taken it, said to be so (`coasting`)."""
        self.coasted += 1
        self.pending = None
        moved = self.corners + (self.corners - self.previous)
        self.previous, self.corners = self.corners, moved
        message = self.frame_message(replace(found, corners=moved), self.known.id, "known")
        message["coasting"] = True
        return message

    @staticmethod
    def shows_known(found: FrameAnswer) -> bool:
        """The frame's ink matches the known grid's (its reference), give or take a hand."""
        return found.known >= SAME_GRID_MIN_KNOWN and found.differ <= SAME_GRID_SHARE * found.known

    def judge(self, found: FrameAnswer) -> Grid | None:
        """A reading against the known grid and the pending one: the grid it confirms (the
        known one or a new one), or None while it waits for agreement."""
        key = content_key(found.result)
        if key is None or found.result.status != "solved":
            # nothing read, or a reading with no one solution (a hand over some digits, a
            # blur): the frame message says so; it never replaces a grid
            self.pending = None
            return None
        if self.known is not None and key == self.known.key:
            self.known.signature = found.signature  # the same grid, as the ink is now
            self.pending = None
            return self.known
        if self.pending is not None and key == self.pending.key:
            self.pending = None
            self.ids += 1
            return Grid(self.ids, key, found.signature, found.result, found.digit_height)
        self.pending = Grid(0, key, found.signature, found.result, found.digit_height)
        return None

    def grid_message(self, grid: Grid) -> dict:
        fields = grid.result.model_dump(mode="json", include=set(GRID_FIELDS))
        return {"type": "grid", "id": grid.id, **fields, "digit_height": grid.digit_height}

    def frame_message(self, found: FrameAnswer, shown: int | None, state: str) -> dict:
        corners = None
        if found.corners is not None:
            corners = [[round(float(x), 1), round(float(y), 1)] for x, y in found.corners]
        message = {
            "type": "frame",
            "state": state,
            "size": list(found.size),
            "corners": corners,
            "grid": shown,
            "tracked": found.tracked,
            "read": found.result is not None,
        }
        if found.result is not None and found.result.status != "solved":
            message["status"] = found.result.status
            message["message"] = found.result.message
        return message


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
