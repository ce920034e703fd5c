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
    tinted = current.ndim == 3 and paper.ndim == 3
    if current.ndim == 3:
        current, tint = current[..., 0], current[..., 1]
    if paper.ndim == 3:
        paper, paper_tint = paper[..., 0], paper[..., 1]
    cell, margin = PAPER_CELL, PAPER_MARGIN
    inside = slice(margin, margin + 9 * cell)
    level = _paper_level(current[inside, inside], valid[inside, inside])
    reference = _paper_level(paper[inside, inside], None)
    gain = reference / max(level, 1.0)
    matched = np.clip(current.astype(np.float32) * gain, 0, 255)
    kernel = np.ones((3, 3), np.uint8)
    low = cv2.erode(paper, kernel).astype(np.float32)
    high = cv2.dilate(paper, kernel).astype(np.float32)
    differs = (matched < low - DIFFERS) | (matched > high + DIFFERS)
    if tinted:
        low, high = cv2.erode(paper_tint, kernel), cv2.dilate(paper_tint, kernel)
        # the camera's white balance drifts: the paper's tint is matched as its gray is
        seen = valid[inside, inside][::2, ::2]
        drift = np.median(tint[inside, inside][::2, ::2][seen]) if seen.any() else 128
        tint = tint.astype(np.int16) - int(drift - np.median(paper_tint[inside, inside][::2, ::2]))
        differs |= (tint < low.astype(np.int16) - TINT_DIFFERS) | (tint > high + TINT_DIFFERS)
    differs &= valid
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
    darker = lit < PAPER_DARKER * lit_paper
    states = np.full((9, 9), SAME, np.int8)
    states[share_near > CHANGED_SHARE] = CHANGED
    states[(share > COVERED_SHARE) | darker] = COVERED
    states[seen < 0.5] = OUTSIDE
    return states


def looks_bare(view: np.ndarray) -> bool:
    """Whether a view of a grid (`vision.track.paper_view`) looks like bare paper, fit to be
    kept as the grid's paper: no cell's paper much darker than the grid's usual (a hand, a
    shadow), nor of another tint (skin). A paper taken under a hand would hide that hand's
    cells as the paper itself, and show the cells it leaves as covered.

    >>> paper = np.full((220, 220), 200, np.uint8)
    >>> looks_bare(paper), looks_bare(np.where(np.arange(220) < 80, 90, paper).astype(np.uint8))
    (True, False)
    """
    cell, margin = PAPER_CELL, PAPER_MARGIN
    inside = slice(margin, margin + 9 * cell)
    gray = view[..., 0] if view.ndim == 3 else view
    lit = _per_cell(cv2.dilate(gray, np.ones((5, 5), np.uint8))[inside, inside].astype(np.float32))
    if (lit < BARE_DARKER * np.median(lit)).any():
        return False
    if view.ndim == 3:
        tint = _per_cell(view[inside, inside, 1].astype(np.float32))
        return bool((np.abs(tint - np.median(tint)) <= TINT_DIFFERS).all())
    return True


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
