"""Which cells of a known grid look as the paper did, and which are covered or changed.

Once a grid is read, the live mode keeps its *paper*: the frame warped to a square of
PAPER_CELL pixels a cell with a margin of one cell (`vision.track.paper_view`). A later frame,
warped the same way through its own corners, is compared with it cell by cell. A pixel
differs when, after the frames' brightness is matched, it is darker than the darkest or
lighter than the lightest paper pixel around it (3x3, so a pixel of misregistration or blur
is no difference) by more than DIFFERS gray levels, or its tint (red against blue) differs
so from the paper's by more than TINT_DIFFERS (skin over a dim page). Then each cell is

- SAME: as the paper was (the solution may be drawn into it);
- CHANGED: a few pixels differ in it or in a rim of a quarter cell around it (the paper's
  cells may lie a little off the true ones, and a hand at the edge of a cell is over it), as
  when a digit or a pen tip is new there;
- COVERED: many of its own pixels differ, or the paper itself went darker (a hand, a sleeve,
  a shadow): nothing may be drawn into it, and its ink says nothing about the puzzle;
- OUTSIDE: the cell's middle is not in the frame.

>>> paper = np.full((220, 220), 200, np.uint8)
>>> frame = paper.copy(); frame[20:60, 20:200] = 60  # a dark bar over the first two rows
>>> states = cell_states(frame, np.ones_like(frame, bool), paper)
>>> int((states == COVERED).sum()), int((states == CHANGED).sum())  # the row beside: its rim
(18, 9)
"""

from __future__ import annotations

import cv2
import numpy as np

PAPER_CELL = 20  # pixels per cell of the paper's square
PAPER_MARGIN = PAPER_CELL  # the paper's square reaches one cell past the grid on each side
PAPER_SIDE = 9 * PAPER_CELL + 2 * PAPER_MARGIN

SAME, CHANGED, COVERED, OUTSIDE = 0, 1, 2, 3
DIFFERS = 45  # gray levels past the paper's local range: a pixel that differs
TINT_DIFFERS = 12  # tint levels ((red - blue) / 2) past the paper's local range
CHANGED_SHARE = 0.03  # of a cell's pixels differing: the cell changed
COVERED_SHARE = 0.3  # ... the cell is covered (a digit's ink rarely reaches this share)
RIM = PAPER_CELL // 4
GONE_NOISE = 4  # pixels darker than the paper that still let it count as gone (noise)
PAPER_DARKER = 0.8  # the cell's paper (its lightest pixels) this much darker: covered
# A page's own light falls off to 0.77 of its middle's at a grid's corners (Wicht's dim
# photos): a cell darker than this share of the grid's usual is not bare paper (skin is told
# by its tint before that).
BARE_DARKER = 0.6


def planes(image: np.ndarray) -> np.ndarray:
    """(H, W, 2) uint8: the gray image and its tint, (red - blue) / 2 + 128, which tells skin
    (and a red or blue pen) from gray paper where the gray levels alone hardly differ (a hand
    over a dim page). A gray image (or one already of two planes) is returned as it is.

    >>> skin = np.full((2, 2, 3), (60, 80, 120), np.uint8)  # blue, green, red
    >>> planes(skin)[0, 0].tolist()
    [90, 158]
    """
    if image.ndim == 2 or image.shape[2] == 2:
        return image
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    red, blue = image[..., 2].astype(np.int16), image[..., 0].astype(np.int16)
    tint = np.clip((red - blue) // 2 + 128, 0, 255).astype(np.uint8)
    return np.dstack([gray, tint])


def cell_states(current: np.ndarray, valid: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """(9, 9) int8 SAME, CHANGED, COVERED or OUTSIDE for each cell of ``current`` against
    ``paper`` (both PAPER_SIDE square views, gray or gray and tint (`planes`); ``valid``: the
    pixels of ``current`` that came from inside the frame)."""
    darker, lighter, matched = _differences(current, valid, paper)
    differs = darker | lighter
    if paper.ndim == 3:
        paper = paper[..., 0]
    cell, margin = PAPER_CELL, PAPER_MARGIN
    inside = slice(margin, margin + 9 * cell)
    # a cell is judged with a rim of a quarter cell around it: the paper's cells may lie a
    # little off the true ones, and a hand at the edge of a cell is over it
    near = cv2.dilate(differs.astype(np.uint8), np.ones((2 * RIM + 1,) * 2, np.uint8))
    share = _per_cell(differs[inside, inside].astype(np.float32))
    share_near = _per_cell(near[inside, inside].astype(np.float32))
    seen = _per_cell(valid[inside, inside].astype(np.float32))
    # the paper under the ink: the lightest pixel around each, averaged over the cell
    around = np.ones((5, 5), np.uint8)
    lit = _per_cell(cv2.dilate(matched, around)[inside, inside])
    lit_paper = _per_cell(cv2.dilate(paper, around)[inside, inside].astype(np.float32))
    dimmed = lit < PAPER_DARKER * lit_paper
    states = np.full((9, 9), SAME, np.int8)
    states[share_near > CHANGED_SHARE] = CHANGED
    states[(share > COVERED_SHARE) | dimmed] = COVERED
    states[seen < 0.5] = OUTSIDE
    return states


def _differences(current: np.ndarray, valid: np.ndarray, paper: np.ndarray):
    """(darker, lighter, matched): the pixels of ``current`` that differ from the paper by
    being darker or redder than it (what lies over a page: a hand, a shadow, a pen), and
    by being lighter or less red (what lay on the paper when it was taken has gone); and
    the current gray matched to the paper's brightness."""
    tinted = current.ndim == 3 and paper.ndim == 3
    if current.ndim == 3:
        current, tint = current[..., 0], current[..., 1]
    if paper.ndim == 3:
        paper, paper_tint = paper[..., 0], paper[..., 1]
    inside = slice(PAPER_MARGIN, PAPER_MARGIN + 9 * PAPER_CELL)
    level = _paper_level(current[inside, inside], valid[inside, inside])
    reference = _paper_level(paper[inside, inside], None)
    gain = reference / max(level, 1.0)
    matched = np.clip(current.astype(np.float32) * gain, 0, 255)
    kernel = np.ones((3, 3), np.uint8)
    darker = matched < cv2.erode(paper, kernel).astype(np.float32) - DIFFERS
    lighter = matched > cv2.dilate(paper, kernel).astype(np.float32) + DIFFERS
    if tinted:
        low, high = cv2.erode(paper_tint, kernel), cv2.dilate(paper_tint, kernel)
        # the camera's white balance drifts: the paper's tint is matched as its gray is
        seen = valid[inside, inside][::2, ::2]
        drift = np.median(tint[inside, inside][::2, ::2][seen]) if seen.any() else 128
        tint = tint.astype(np.int16) - int(drift - np.median(paper_tint[inside, inside][::2, ::2]))
        darker |= tint > high.astype(np.int16) + TINT_DIFFERS
        lighter |= tint < low.astype(np.int16) - TINT_DIFFERS
    return darker & valid, lighter & valid, matched


def paper_gone(current: np.ndarray, valid: np.ndarray, paper: np.ndarray) -> bool:
    """Whether ``current`` differs from the paper only by being lighter (or less red) than
    it, in a few cells' worth of pixels at least, and nowhere darker or redder: something
    lay on the paper when it was taken (a hand's edge entering a cell passes unseen in a
    frame) and has gone. Nothing that comes over a page makes it lighter, so such a frame
    may give the grid a new paper; without one the cells would stay hidden for good.

    >>> paper = np.full((220, 220), 200, np.uint8); paper[20:40, 180:200] = 90  # a hand's edge
    >>> bare, everywhere = np.full_like(paper, 200), np.ones((220, 220), bool)
    >>> paper_gone(bare, everywhere, paper), paper_gone(paper, everywhere, bare)
    (True, False)
    """
    darker, lighter, _ = _differences(current, valid, paper)
    judged = slice(PAPER_MARGIN - RIM, PAPER_MARGIN + 9 * PAPER_CELL + RIM)  # cells and rims
    darker, lighter = darker[judged, judged], lighter[judged, judged]
    return bool(darker.sum() <= GONE_NOISE and lighter.sum() >= CHANGED_SHARE * PAPER_CELL**2)


def looks_bare(view: np.ndarray) -> bool:
    """Whether a view of a grid (`vision.track.paper_view`) looks like bare paper, fit to be
    kept as the grid's paper: every cell does (`bare_cells`). A paper taken under a hand
    would hide that hand's cells as the paper itself, and show the cells it leaves as
    covered.

    >>> paper = np.full((220, 220), 200, np.uint8)
    >>> looks_bare(paper), looks_bare(np.where(np.arange(220) < 80, 90, paper).astype(np.uint8))
    (True, False)
    """
    return bool(bare_cells(view).all())


def bare_cells(view: np.ndarray) -> np.ndarray:
    """(9, 9) bool: the cells of a view of a grid that look like bare paper, judged without a
    paper to compare with: the cell's paper (its lightest pixels) not much darker than the
    grid's usual (a hand, a shadow), nor of another tint than the page's own, which may fall
    off smoothly towards the picture's corners (`_smooth_page`), as skin's does not. A cell
    only partly covered may pass: what a known paper tells (`cell_states`) is finer.

    >>> paper = np.full((220, 220), 200, np.uint8)
    >>> int(bare_cells(np.where(np.arange(220) < 80, 90, paper).astype(np.uint8)).sum())
    54
    """
    cell, margin = PAPER_CELL, PAPER_MARGIN
    inside = slice(margin, margin + 9 * cell)
    gray = view[..., 0] if view.ndim == 3 else view
    lit = _per_cell(cv2.dilate(gray, np.ones((5, 5), np.uint8))[inside, inside].astype(np.float32))
    bare = lit >= BARE_DARKER * np.median(lit)
    if view.ndim == 3:
        tint = _per_cell(view[inside, inside, 1].astype(np.float32))
        bare &= np.abs(tint - _smooth_page(tint)) <= TINT_DIFFERS
    return bare


def _smooth_page(values: np.ndarray, keep: float = 0.6, rounds: int = 3) -> np.ndarray:
    """(9, 9): the smooth surface (a quadratic in the cell's row and column) that the
    ``values`` of most cells lie on, fitted to the ``keep`` share of cells nearest it, again
    and again (a hand over the rest is no part of the page).

    A lens's colour falls off from the middle of the picture: on a bare page of Wicht's
    image1 the corner cells' tint lies 12 to 14 levels below the middle's, so the page's
    median said its corner was not paper, and the paper was first taken with a hand's edge
    on it. The cells of that bare page lie within 6 levels of this surface (3 on the other
    videos of bench/live.py); a bar of skin two cells wide is no quadratic.

    >>> rows, cols = np.mgrid[0:9, 0:9]
    >>> page = 140.0 - (rows - 4) ** 2 - (cols - 4) ** 2 / 2
    >>> hand = page.copy(); hand[:, 6:8] += 25
    >>> float(np.abs(_smooth_page(page) - page).max()) < 1e-3
    True
    >>> int((np.abs(hand - _smooth_page(hand)) > 12).sum())
    18
    """
    rows, cols = (np.mgrid[0:9, 0:9].astype(np.float64) / 8 - 0.5).reshape(2, 81)
    terms = np.stack([np.ones(81), rows, cols, rows**2, rows * cols, cols**2], axis=1)
    target = values.ravel().astype(np.float64)
    used = np.ones(81, bool)
    for _ in range(rounds):
        fit, *_ = np.linalg.lstsq(terms[used], target[used], rcond=None)
        miss = np.abs(target - terms @ fit)
        used = miss <= np.quantile(miss, keep)
    return (terms @ fit).reshape(9, 9)


def _paper_level(view: np.ndarray, valid: np.ndarray | None) -> float:
    """The brightness of the paper: the 90th percentile (a hand is darker than paper, and
    covers less than nine tenths of the grid when the grid can be followed at all), of every
    other pixel each way."""
    values = view[::2, ::2] if valid is None else view[::2, ::2][valid[::2, ::2]]
    return float(np.percentile(values, 90)) if values.size else 0.0


def _per_cell(view: np.ndarray) -> np.ndarray:
    """The mean of each cell of a (9 * PAPER_CELL) square, (9, 9)."""
    cell = PAPER_CELL
    return view.reshape(9, cell, 9, cell).mean(axis=(1, 3))


def hidden_cells(states: np.ndarray) -> str:
    """The cells the solution must not be drawn into, as 81 characters ('1' hidden) in
    reading order: what the live page is told.

    >>> hidden_cells(np.eye(9, dtype=np.int8))[:11]
    '10000000001'
    """
    return "".join("1" if s != SAME else "0" for s in np.asarray(states).reshape(81))
