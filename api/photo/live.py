"""Live camera mode: a stream of video frames in, where the grid is and its solution out.

Two halves. `frame` is the work on one frame, done in a solver process like a photo: decode,
find the grid, take the ink signature of its cells, and read and solve it only when asked
to, or when the signature says its content changed. Before a grid is known it is found by
its lines (tracked near the last corners, a full search when that fails); once it is known,
by its paper (`vision.track.follow_paper`: points of the paper followed with optical flow, a
homography fitted robustly, every cell compared with the paper as it was read), so a hand
over part of the grid changes nothing but which cells are drawn (`hidden`). `LiveSession` is
the small state of one connection, kept where the socket is: the last corners (and how they
moved, to predict the next), the grid known so far and its paper, and a reading waiting for
a second one to agree. It decides what each frame's job is and what the client is told:

- a grid counts as read when two consecutive reads agree on its digits and it has one
  solution, so one blurred frame cannot show a wrong solution;
- its solution is sent once (a `grid` message); after that, each frame answers with the
  corners only, whether the grid shown is still that one, and which of its cells are hidden
  (covered, or changed since it was read: nothing is drawn into them);
- reading happens only for a new grid, a pending reading, or a known grid whose visible ink
  changed in a frame where nothing covers it (a new entry), never because a hand covers it;
- a known grid the paper does not confirm is not shown (`lost`, no corners): the full search
  runs every LOST_SEARCH frames until the paper is found again, and a grid it finds whose ink
  is not the known grid's is read as a new puzzle.

A page may hold several grids (a puzzle book's, a newspaper's puzzles beside yesterday's
solution): the full search finds every grid in view (`vision.locate.locate_grids`) and a new
grid is the whole one nearest the frame's centre, the one the phone is pointed at; the
others are counted (`others_in_view`, so the page can say a photo would solve them all).
They are counted only when the full search runs (a grid found anew, or lost), never on the
frames that follow a grid, which stay as fast as before.

>>> session = LiveSession()
>>> job = session.job()
>>> job.read, job.corners is None
('always', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from api.photo.schema import PhotoResultModel

READ_ALWAYS, READ_ON_CHANGE = "always", "on_change"
# A grid found by the full search is another puzzle when more than this share of the cells
# compared differ in ink from the known grid, and enough cells were compared.
SAME_GRID_SHARE = 0.25
SAME_GRID_MIN_KNOWN = 27
# While a known grid is lost the full search (tens of milliseconds) runs on every LOST_SEARCH-th
# frame, starting with the first: the frames between only try to follow the paper from where
# it was seen last, so a hand over the whole grid does not make every frame slow.
LOST_SEARCH = 3
# The known grid's outline on its paper is refined by a comb fit of its lines on every
# REFINE_EVERY-th frame where nothing covers it (a comb fit: 5 to 25 ms, by the load).
REFINE_EVERY = 3
# ... and the paper taken again through the refined corners once they moved this share of a
# cell from where it was taken.
RETAKE = 0.15
PAPER_SETTLES = 3  # frames with nothing over the grid before a paper taken again is kept
# A frame whose ink changed in more cells than this is not read for a new entry (a hand's
# edge over the grid changes a row of cells; a new digit one, and its neighbours' rims).
NEW_ENTRY_CELLS = 4
# A grid about to be read found by its lines this far (in cells) from where it was expected is
# looked for by the full search too (see `far`).
FAR_CELLS = 0.5
# Fields of a reading that the client is sent once per grid.
GRID_FIELDS = (
    "status",
    "message",
    "givens",
    "solution",
    "entries",
    "kinds",
    "mistakes",
    "hint",
    "mode",
)


@dataclass(frozen=True)
class FrameJob:
    """What to do with one frame (pickled to a solver process with the frame's bytes beside).

    corners: where the grid is expected (upright order), None to search the whole frame.
    reference: the (9, 9) ink signature of the grid known so far, None when there is none.
    last: the last upright corners known, to choose between turns a full search leaves open.
    read: READ_ALWAYS or READ_ON_CHANGE (when the signature differs from `reference`).
    paper, points: the known grid's paper and the points followed on it
    (`vision.track.follow_paper`), None before a grid is known.
    search: whether a full search may run when the known grid is not where expected.
    outline: where the known grid's corners lie on its paper, as refined so far (None: where
    the paper was taken from). refine: whether to refine it on this frame, if clean.
    changed: the last frame showed the known grid's ink changed with nothing over it; a
    change seen so twice running is read (one frame's flicker of a faint mark is not).
    take_paper: the known grid has no paper yet (every reading's frame had a hand over it):
    take it from this frame if it looks bare.
    heal: no new paper is waiting to be kept: one may be taken from a frame where something
    that lay on the paper has gone (`Followed.gone`).
    """

    corners: np.ndarray | None = None
    reference: np.ndarray | None = None
    last: np.ndarray | None = None
    read: str = READ_ALWAYS
    mode: str = "solve"
    engine: str = ""
    max_pixels: int = 4_000_000
    paper: np.ndarray | None = None
    points: np.ndarray | None = None
    search: bool = True
    outline: np.ndarray | None = None
    refine: bool = False
    changed: bool = False
    take_paper: bool = False
    heal: bool = False


@dataclass(frozen=True)
class FrameAnswer:
    """What one frame showed.

    size: (width, height). corners: (4, 2) upright corners, None when no grid was found.
    tracked: found near the expected corners (no full search). differ, known: cells whose
    ink differs from the job's reference, and cells compared. result: the reading, solved,
    when the frame was read (its `corners` are those of this frame). digit_height: the
    print's height as a share of a cell, when read and measured. states: (9, 9) of the
    known grid's cells against its paper (`vision.occlusion`), when followed by its paper.
    paper, points: this frame's paper and its points, when it was read and solved (the
    session keeps them for the grid it confirms). outline: the known grid's outline on its
    paper, refined on this frame. unbare: (9, 9) bool, for a grid known (or in reading)
    without a paper, the cells not to draw into (`unbare_cells`). timings: milliseconds.
    others: the whole grids in view besides this one, when the full search ran on this
    frame (None: it did not, and the count is as before).
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
    states: np.ndarray | None = None
    paper: np.ndarray | None = None
    points: np.ndarray | None = None
    outline: np.ndarray | None = None
    unbare: np.ndarray | None = None
    others: int | None = None


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

    from api.photo.failures import failure_of
    from api.service.jobs import Refused
    from vision.errors import VisionError
    from vision.load import load_image
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
    others = None  # whole grids in view besides this one: counted when the full search runs
    if job.paper is not None:
        followed, located, others = find_known(image, gray, job)
        if followed is not None:
            timings["locate"] = _ms(lap)
            answer = known_frame(image, gray, job, followed, size, timings, started)
            return answer if others is None else replace(answer, others=others)
        if located is None:  # lost: nothing is shown rather than something wrong
            timings["locate"] = _ms(lap)
            timings["total"] = _ms(started)
            return FrameAnswer(size, timings=timings, others=others)
        tracked = False  # a grid the paper does not confirm: told apart by its ink below
    else:
        located = None if job.corners is None else track_grid(gray, job.corners)
        tracked = located is not None
        if tracked and job.read == READ_ALWAYS and far(located.corners, job.corners):
            # a grid about to be read (its corners become its paper's) found far from where it
            # was expected: the comb may have settled on lines beside it; the full search's
            # grid there is kept when it scores better
            grids = whole_grids(gray)
            searched = same_grid(grids, located.corners)
            if searched is not None and searched.score > located.score:
                located, tracked = searched, False
            others = others_beside(grids, located.corners)
        if located is None:
            grids = whole_grids(gray)
            located = nearest_centre(grids, size)
            if located is None:
                timings["locate"] = _ms(lap)
                timings["total"] = _ms(started)
                return FrameAnswer(size, timings=timings, others=0)
            others = len(grids) - 1
    corners = located.corners
    signature = ink_signature(gray, corners)
    differ = known = 0
    if job.reference is not None:
        k = 0
        if not tracked:  # a full search orders corners by the frame, not by the grid's up
            k, _, _ = best_turn(signature, job.reference, corners, job.last)
        corners = np.roll(corners, -k, axis=0)
        signature = np.rot90(signature, k)
        if job.paper is not None:  # cells a hand covers say nothing of which puzzle it is
            signature = uncovered(image, gray, job.paper, corners, signature)
        differ, known = changes(signature, job.reference)
    timings["locate"] = _ms(lap)
    if job.paper is not None and not (
        other_grid(differ, known) and bare_paper(image, corners)["paper"] is not None
    ):
        # the known grid, too covered to be followed; or a grid with something over it, whose
        # ink cannot say it is another puzzle
        timings["total"] = _ms(started)
        return FrameAnswer(size, timings=timings, others=others)

    answer = FrameAnswer(
        size, np.asarray(corners, np.float32), signature, tracked, differ, known, others=others
    )
    unbare = None
    if job.paper is None and job.reference is not None:
        # a grid known (or about to be) with no paper to compare with: nothing is drawn
        # into it while it does not look bare
        unbare = unbare_cells(image, answer.corners)
    # a known grid's ink changed where it does not look bare: a hand, not a new entry
    covered = job.read == READ_ON_CHANGE and unbare is not None and bool(unbare.all())
    if job.read == READ_ALWAYS or job.reference is None or (differ > 0 and not covered):
        answer = read_frame(image, gray, job, answer, located.score, timings)
    elif job.take_paper:
        answer = replace(answer, **bare_paper(image, answer.corners))
    if unbare is not None:
        answer = replace(answer, unbare=unbare)
    timings["total"] = _ms(started)
    return replace(answer, timings=timings)


def far(found: np.ndarray, expected: np.ndarray) -> bool:
    """Whether corners found lie over FAR_CELLS of a cell from those expected.

    Frames a phone moved over a cell between (a busy server answers fewer): tracked from
    the last frame's corners, a comb fit settled 0.48 of a cell off a Kubiesa grid whose
    full search found it 0.14 off, and scored better (0.695 against 0.622)."""
    from vision.locate import grid_side

    cell = grid_side(np.asarray(expected, np.float32)) / 9
    return bool(np.linalg.norm(found - expected, axis=1).max() > FAR_CELLS * cell)


def whole_grids(gray: np.ndarray) -> list:
    """Every whole grid in the frame (`vision.locate.locate_grids`, those the frame's edge
    does not cut off), the most sudoku-like first; [] when there is none."""
    from vision.errors import NoGridFound
    from vision.locate import locate_grids

    try:
        return [grid for grid in locate_grids(gray) if not grid.cut_off]
    except NoGridFound:
        return []


def _centre(corners: np.ndarray) -> np.ndarray:
    return np.asarray(corners, np.float64).mean(axis=0)


def nearest_centre(grids: list, size: tuple[int, int]):
    """The grid whose centre lies nearest the frame's (size: width, height), None when
    there is none: on a page of several, the one the phone is pointed at.

    >>> from vision.locate import Located
    >>> square = np.float32([[0, 0], [100, 0], [100, 100], [0, 100]])
    >>> grids = [Located(square, 0.8), Located(square + 250, 0.5)]
    >>> nearest_centre(grids, (640, 480)).score
    0.5
    """
    middle = np.float64(size) / 2
    return min(
        grids, key=lambda g: float(np.linalg.norm(_centre(g.corners) - middle)), default=None
    )


def same_grid(grids: list, corners: np.ndarray):
    """The grid among `grids` that is the one at `corners` (they overlap), nearest it; None."""
    from vision.locate import overlap

    at = [g for g in grids if overlap(g.corners, corners)]
    mine = _centre(corners)
    return min(at, key=lambda g: float(np.linalg.norm(_centre(g.corners) - mine)), default=None)


def others_beside(grids: list, corners: np.ndarray) -> int:
    """How many of `grids` are not the grid at `corners` (they do not overlap it)."""
    from vision.locate import overlap

    return sum(not overlap(g.corners, corners) for g in grids)


def find_known(image: np.ndarray, gray: np.ndarray, job: FrameJob):
    """(Followed, None, others) when the known grid's paper is found in the frame; else
    (None, the grid nearest the frame's centre, others) when the full search ran and found
    one; else (None, None, others). `others` counts the whole grids in view besides the one
    returned, None when the full search did not run.

    The paper is looked for where the grid should be, then where a comb fit of its lines
    puts it, then (when `job.search`) in the grids of the full search whose ink is the
    known grid's (the best matching first, whatever its ink), in each quarter turn, the
    turn its ink matches first: every candidate must agree with the paper to be shown."""
    from vision.track import best_turn, follow_paper, ink_signature, track_grid

    seen = image if job.paper.ndim == 3 else gray  # in colour when the paper has its tint

    def follow(corners):
        return follow_paper(seen, corners, job.paper, job.points, job.outline)

    if job.corners is not None:
        followed = follow(job.corners)
        if followed is not None:
            return followed, None, None
        lines = track_grid(gray, job.corners)
        if lines is not None and (followed := follow(lines.corners)) is not None:
            return followed, None, None
    if not job.search:
        return None, None, None
    grids = whole_grids(gray)
    turned = []
    for grid in grids:
        signature = ink_signature(gray, grid.corners)
        k, differ, known = best_turn(signature, job.reference, grid.corners, job.last)
        turned.append((differ / max(known, 1), k, differ, known, grid))
    turned.sort(key=lambda t: t[0])
    for rank, (_, k, differ, known, grid) in enumerate(turned):
        if rank and other_grid(differ, known):
            continue  # another puzzle of the page: its ink says so
        for turn in (k, k + 2, k + 1, k + 3):
            followed = follow(np.roll(grid.corners, -(turn % 4), axis=0))
            if followed is not None:
                return followed, None, others_beside(grids, followed.corners)
    size = (gray.shape[1], gray.shape[0])
    return None, nearest_centre(grids, size), max(len(grids) - 1, 0)


def uncovered(image, gray, paper: np.ndarray, corners: np.ndarray, signature: np.ndarray):
    """The signature with the cells that look covered against the known paper left out."""
    from vision.occlusion import COVERED, cell_states
    from vision.track import UNKNOWN, paper_view

    view, valid = paper_view(image if paper.ndim == 3 else gray, corners)
    signature = signature.copy()
    signature[cell_states(view, valid, paper) == COVERED] = UNKNOWN
    return signature


def other_grid(differ: int, known: int) -> bool:
    """Whether a grid's ink says it is not the known grid (a new puzzle in view)."""
    return known >= SAME_GRID_MIN_KNOWN and differ > SAME_GRID_SHARE * known


def known_frame(image, gray, job: FrameJob, followed, size, timings, started) -> FrameAnswer:
    """The answer for a frame where the known grid's paper was found: its corners, which
    cells are hidden, and a reading when asked for or when ink changed where nothing covers
    the grid, in this frame and the last (a new entry); the ink of covered cells is not
    compared."""
    from vision.occlusion import COVERED, OUTSIDE
    from vision.track import UNKNOWN, changes, ink_signature

    corners = followed.corners
    signature = ink_signature(gray, corners)
    signature[followed.states >= COVERED] = UNKNOWN
    differ, known = changes(signature, job.reference)
    answer = FrameAnswer(size, corners, signature, True, differ, known, states=followed.states)
    if job.read == READ_ALWAYS or (differ > 0 and job.changed and clean(followed.states)):
        answer = read_frame(image, gray, job, answer, 1.0, timings)
    elif job.refine and clean(followed.states):
        lap = time.perf_counter()
        answer = refined(image, gray, job, followed, answer)
        timings["refine"] = _ms(lap)
    elif job.heal and followed.gone and differ == 0 and (followed.states != OUTSIDE).all():
        # the paper was taken with something over it (a hand's edge entering a cell passes
        # unseen for a frame): this frame, where only that has gone, gives a new one
        answer = replace(answer, **bare_paper(image, corners))
    timings["total"] = _ms(started)
    return replace(answer, timings=timings)


def refined(image, gray, job: FrameJob, followed, answer: FrameAnswer) -> FrameAnswer:
    """The answer with the grid's outline on its paper refined by this frame's lines; once
    it lies RETAKE of a cell or more from where the paper was taken, and nothing on the grid
    differs from the paper, the paper is taken again through the refined corners (so that
    its cells, which say what is hidden, are the grid's cells)."""
    from vision.occlusion import PAPER_CELL, SAME
    from vision.track import paper_points, paper_view, refined_outline

    outline = refined_outline(gray, followed, job.outline)
    if outline is None:
        return answer
    nominal = square_outline()
    if np.abs(outline - nominal).max() < RETAKE * PAPER_CELL or (followed.states != SAME).any():
        return replace(answer, outline=outline)
    corners = cv2_through(followed.to_frame, outline)
    paper, _ = paper_view(image, corners)
    return replace(answer, corners=corners, paper=paper, points=paper_points(paper))


def bare_paper(image: np.ndarray, corners: np.ndarray) -> dict:
    """{paper, points} of the grid at ``corners`` when its view looks like bare paper (in
    gray and tint, to tell skin apart), else both None."""
    from vision.occlusion import PAPER_CELL, PAPER_MARGIN, RIM, looks_bare
    from vision.track import paper_points, paper_view

    paper, valid = paper_view(image, corners)
    # the grid and a rim around it must be in the frame: the replicated edge of the frame
    # kept as paper would differ from the page once the page is seen there
    rim = slice(PAPER_MARGIN - RIM, PAPER_MARGIN + 9 * PAPER_CELL + RIM)
    if not (valid[rim, rim].all() and looks_bare(paper)):
        return {"paper": None, "points": None}
    return {"paper": paper, "points": paper_points(paper)}


def unbare_cells(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """(9, 9) bool: the cells not to draw into, for a grid at ``corners`` with no paper to
    compare with: every cell when one in the frame does not look like bare paper
    (`vision.occlusion.bare_cells`), else those outside the frame.

    Without a paper a hand is told only by its tint and darkness, cell by cell, and on a
    dim page that misses most of its cells (frames of Wicht's image1 read first with the
    bar over them: 4 to 9 of 12 to 31 covered cells told): so nothing is drawn until the
    grid looks bare, and that frame gives it its paper."""
    from vision.occlusion import PAPER_CELL, PAPER_MARGIN, bare_cells
    from vision.track import paper_view

    view, valid = paper_view(image, corners)
    inside = slice(PAPER_MARGIN, PAPER_MARGIN + 9 * PAPER_CELL)
    outside = valid[inside, inside].reshape(9, PAPER_CELL, 9, PAPER_CELL).mean(axis=(1, 3)) < 0.5
    if (~bare_cells(view) & ~outside).any():
        return np.ones((9, 9), bool)
    return outside


def square_outline() -> np.ndarray:
    from vision.occlusion import PAPER_CELL, PAPER_MARGIN

    lo, hi = PAPER_MARGIN, PAPER_MARGIN + 9 * PAPER_CELL
    return np.float32([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])


def cv2_through(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    import cv2

    moved = cv2.perspectiveTransform(np.float32(points).reshape(-1, 1, 2), homography)
    return moved.reshape(-1, 2).astype(np.float32)


def read_frame(
    image, gray, job: FrameJob, answer: FrameAnswer, score: float, timings
) -> FrameAnswer:
    """The answer with the frame read and solved; a reading that solved also brings the
    paper (and its points) the session keeps for the grid."""
    from api.photo.pipeline import judged, told_apart
    from vision.locate import Located
    from vision.read import read_located
    from vision.track import ink_signature

    lap = time.perf_counter()
    corners, signature = answer.corners, answer.signature
    reading = read_located(
        image, gray, Located(corners, score), engine=job.engine, gate=job.mode == "solve"
    )
    reading, solved = judged(reading, reading.timings, mode=job.mode, engine=job.engine)
    solved = told_apart(solved)  # a printed solution in view is complete, never solved
    paper = points = None
    if (solved.solved or job.reference is None) and answer.states is None:
        # the reader's turn of the grid (by its digits) is trusted when it solved it; a
        # known grid followed by its paper keeps the paper's up
        corners = np.asarray(reading.corners, np.float32)
        signature = ink_signature(gray, corners)
    if solved.solved:
        paper, points = bare_paper(image, corners).values()
    timings["read"] = _ms(lap)
    return replace(
        answer,
        corners=np.asarray(corners, np.float32),
        signature=signature,
        result=solved.to_model(),
        digit_height=print_height(reading),
        paper=paper,
        points=points,
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
    its ink signature, the reading the client is sent, and its paper (what it looked like
    when read, and the points followed on it)."""

    id: int
    key: str
    signature: np.ndarray
    result: PhotoResultModel
    digit_height: float | None = None
    paper: np.ndarray | None = None
    points: np.ndarray | None = None
    outline: np.ndarray | None = None  # its corners on the paper, as refined (None: as taken)


def clean(states: np.ndarray | None) -> bool:
    """Whether a frame shows every cell of the known grid with nothing over it: none covered
    or outside, and changed in a few cells at most (a new entry, not the edge of a hand)."""
    from vision.occlusion import CHANGED, COVERED, OUTSIDE

    if states is None or ((states == COVERED) | (states == OUTSIDE)).any():
        return False
    return int((states == CHANGED).sum()) <= NEW_ENTRY_CELLS


def content_key(result: PhotoResultModel) -> str | None:
    """What two readings must share to agree: in solve mode the solution (two readings that
    lead to the same one solution show it rightly, even when one took a pen's digit for a
    printed one, as pen and print are told apart less surely than digits are read), else
    the printed digits, and in check and hint modes the user's own entries too. None when
    nothing was read."""
    if result.givens is None:
        return None
    if result.mode == "solve":
        return result.solution or result.givens
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
        self.lost = 0  # frames since the known grid was last found
        self.frames = 0
        self.changed = False  # the last frame showed new ink on the known grid, uncovered
        self.new_paper = None  # (paper, points, frames to wait, cells then differing) not yet kept
        self.others = 0  # whole grids in view besides the one followed, as last counted

    def reset(self, mode: str | None = None) -> None:
        """Forget the grid (a new mode re-reads and sends its grid message anew)."""
        self.__init__(mode or self.mode)

    def job(self, engine: str = "", max_pixels: int = 4_000_000) -> FrameJob:
        """The next frame's job: where the grid should be and whether to read it."""
        predicted = self.corners
        if self.corners is not None and self.previous is not None:
            predicted = self.corners + (self.corners - self.previous)  # keeps moving
        if predicted is None and self.known is not None:
            predicted = self.last  # lost: the paper is looked for where it was seen last
        reference = self.known or self.pending
        paper = self.known is not None and self.known.paper is not None
        return FrameJob(
            corners=predicted,
            reference=None if reference is None else reference.signature,
            last=self.last,
            read=READ_ON_CHANGE if self.known and not self.pending else READ_ALWAYS,
            mode=self.mode,
            engine=engine,
            max_pixels=max_pixels,
            paper=self.known.paper if paper else None,
            points=self.known.points if paper else None,
            search=self.lost % LOST_SEARCH == 0,
            outline=self.known.outline if paper else None,
            refine=self.frames % REFINE_EVERY == 0,
            changed=self.changed,
            take_paper=self.known is not None
            and self.known.paper is None
            and self.new_paper is None,
            heal=self.new_paper is None,
        )

    def answer(self, found: FrameAnswer) -> list[dict]:
        """The messages for the client after one frame (a `grid` message first when a grid
        was just confirmed), and the state moved on."""
        messages: list[dict] = []
        self.frames += 1
        if found.others is not None:  # counted when the full search ran; else as before
            self.others = found.others
        self.adopt_paper(found)
        self.changed = found.result is None and found.differ > 0 and clean(found.states)
        if found.outline is not None and self.known is not None:
            self.known.outline = found.outline
        self.previous = self.corners if found.corners is not None else None
        self.corners = found.corners
        if found.corners is None:
            self.pending = None  # the next read is not consecutive with it
            if self.known is not None:
                self.lost += 1
                return [self.frame_message(found, None, "lost")]
            return [self.frame_message(found, None, "searching")]
        self.last = found.corners
        self.lost = 0
        shown = None
        if self.known is not None and (found.states is not None or self.shows_known(found)):
            shown = self.known.id
        if found.result is not None:
            self.reads += 1
            confirmed = self.judge(found)
            if confirmed is not None:
                shown = confirmed.id
                if confirmed is not self.known:
                    self.known = confirmed
                    messages.append(self.grid_message(confirmed))
                elif found.result.entries != confirmed.result.entries:
                    confirmed.result = found.result  # the user's entries changed
                    messages.append(self.grid_message(confirmed))
            elif self.pending is not None:  # other digits, solved: not the known grid
                shown = None
        state = "known" if shown is not None else "reading"
        messages.append(self.frame_message(found, shown, state))
        return messages

    def adopt_paper(self, found: FrameAnswer) -> None:
        """A paper taken again through refined corners (or at last bare, or where something
        that lay on the old one has gone) is kept once the next PAPER_SETTLES frames show
        nothing over the grid (no cell differing from the old paper but those that differed
        when it was taken): a hand's first edge entering a cell may pass unseen for a frame,
        and a paper with it would hide that cell for good."""
        if self.known is None:
            self.new_paper = None
            return
        if found.paper is not None and found.result is None:
            if self.known.paper is None:  # the first (bare) paper: nothing to check it by
                self.known.paper, self.known.points, self.known.outline = (
                    found.paper,
                    found.points,
                    None,
                )
                return
            differed = found.states != 0 if found.states is not None else np.zeros((9, 9), bool)
            self.new_paper = (found.paper, found.points, PAPER_SETTLES, differed)
            return
        if self.new_paper is None:
            return
        paper, points, wait, differed = self.new_paper
        if found.states is None or ((found.states != 0) & ~differed).any():  # 0: SAME
            self.new_paper = None  # something came over the grid: that paper may show it
            return
        self.new_paper = (paper, points, wait - 1, differed) if wait > 1 else None
        if wait == 1:
            self.known.paper, self.known.points, self.known.outline = paper, points, None

    @staticmethod
    def shows_known(found: FrameAnswer) -> bool:
        """Without a paper to compare with (a grid confirmed by its ink alone): the frame's
        ink matches the known grid's, give or take a hand."""
        return found.known >= SAME_GRID_MIN_KNOWN and not other_grid(found.differ, found.known)

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
            if found.paper is not None and found.states is not None:
                self.known.paper, self.known.points = found.paper, found.points
                self.known.outline = None  # the new paper is taken through its corners
            self.pending = None
            return self.known
        if self.pending is not None and key == self.pending.key:
            self.pending = None
            self.ids += 1
            return Grid(
                self.ids,
                key,
                found.signature,
                found.result,
                found.digit_height,
                found.paper,
                found.points,
            )
        self.pending = Grid(0, key, found.signature, found.result, found.digit_height)
        return None

    def grid_message(self, grid: Grid) -> dict:
        fields = grid.result.model_dump(mode="json", include=set(GRID_FIELDS))
        return {"type": "grid", "id": grid.id, **fields, "digit_height": grid.digit_height}

    def frame_message(self, found: FrameAnswer, shown: int | None, state: str) -> dict:
        """One frame's answer. A known grid is shown only where its paper confirmed it
        (`hidden`: its cells covered or changed, '1' in reading order); a reading that
        failed is reported only while no grid is known (once solved, a covered frame's
        reading says nothing the user can act on)."""
        from vision.occlusion import hidden_cells

        corners = None
        solved = found.result is not None and found.result.status == "solved"
        if found.corners is not None and (shown is not None or solved):
            # a grid not yet read whole may be a wrong quad (a box, paper and hand): its
            # outline is shown only once its digits read as a puzzle with one solution
            corners = [[round(float(x), 1), round(float(y), 1)] for x, y in found.corners]
        message = {
            "type": "frame",
            "state": state,
            "size": list(found.size),
            "corners": corners,
            "grid": shown,
            "tracked": found.tracked,
            "read": found.result is not None,
            "others_in_view": self.others,
        }
        if shown is not None and found.states is not None:
            message["hidden"] = hidden_cells(found.states)
        elif shown is not None and found.unbare is not None:
            message["hidden"] = "".join("1" if u else "0" for u in found.unbare.reshape(81))
        failed = found.result is not None and found.result.status != "solved"
        if failed and self.known is None:
            message["status"] = found.result.status
            message["message"] = found.result.message
        return message


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
