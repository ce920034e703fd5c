"""Pencil candidates: a cell holding two or more separate small digits is never an entry.

People who get stuck note a cell's candidates in pencil, small, two or three to a cell
("34", "15", "178"), and the cell model sometimes takes such a cell for one written digit:
the 4 of "34" where the solution is 3, and the check then strikes out a mistake the person
never made. Three pages photographed up to three times each gave the same false strike in
every photo. The cell model weighs the whole cell; this looks at its pieces: separate marks
side by side, each of a digit's height but the smaller one far shorter than an entry, are
digits noted, not one digit written. So such a cell's written mass goes to candidates
(`as_candidates`), whatever the cell model's sureness and the size of the larger mark.

>>> import numpy as np, cv2
>>> cell = np.zeros((50, 50), np.uint8)
>>> _ = cv2.putText(cell, "3", (8, 20), cv2.FONT_HERSHEY_PLAIN, 1.0, 255, 1)
>>> _ = cv2.putText(cell, "4", (22, 20), cv2.FONT_HERSHEY_PLAIN, 1.0, 255, 1)
>>> separate_digits(cell > 0)
2
>>> big = np.zeros((50, 50), np.uint8)
>>> _ = cv2.putText(big, "4", (12, 40), cv2.FONT_HERSHEY_PLAIN, 2.4, 255, 3)
>>> separate_digits(big > 0)
1
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cells import (
    darkness,
    ink_mask,
    ink_threshold,
    interiors,
    line_masks,
    without_lines,
)

# A mark counts as a digit when it is at least TALLEST_SPECK of the cell's height (smaller
# is a dot, a crumb of a stroke, the bar of a 5 come loose) and is not a line's remnant.
# Two marks are digits noted side by side (`side_by_side`) when one stands beside the other
# (their boxes overlapping by at most OVERLAP of the narrower: separate marks, a slanted 1
# leaning over its neighbour), the shorter at least ALIKE of the taller and at most SMALL of
# the cell's height: the candidates people note are a fifth to a half of the cell high,
# side by side at its top, while the pieces of one broken stroke differ in height or lie
# across each other. With the joined pairs in the corner (`noted_joined`), on the
# hand-filled photos of ../shared (the split kept aside left out): 210 of the 240 candidate
# cells are found so (98 by pairs apart alone; the rest are single digits, left to the
# cell model), and 8 of 7,728 written entries and 6 of 5,790 printed digits look so (a
# noisy grey page's specks, a loop come loose).
TALLEST_SPECK = 0.22
ALIKE = 0.5
OVERLAP = 0.3
SMALL = 0.5
# One mark is digits noted joined when JOINED times as wide as tall, at most JOINED_TALL
# of the cell high, and starting in the cell's top left corner (within CORNER of its side
# from the top, at its left edge).
JOINED = 1.0
JOINED_TALL = 0.6
CORNER = 0.15
# the ink looked at: this share of the grid's print threshold, as the reader's hysteresis
# grows a faint digit (`vision.cells.FAINT`)
FAINT = 0.5


def digit_marks(ink: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The boxes (x, y, width, height) of the marks in a cell's ink (bool, its interior)
    that are of a digit's height and not a line's remnant."""
    h, w = ink.shape
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink.view(np.uint8), connectivity=8)
    marks = []
    for x, y, bw, bh, area in stats[1:].tolist():
        touches = x <= 0 or y <= 0 or x + bw >= w or y + bh >= h
        # a line's edge left inside the cell: along a side, thin or as long as the cell
        edge = min(bw, bh) <= max(2, 0.1 * w) or max(bw, bh) >= 0.8 * min(w, h)
        if bh < TALLEST_SPECK * h or area < 0.004 * w * h or (touches and edge):
            continue
        marks.append((x, y, bw, bh))
    return marks


def side_by_side(a, b, height: int) -> bool:
    """Whether two mark boxes (x, y, width, height) are two digits noted side by side: one
    beside the other across (their boxes may overlap by `OVERLAP` of the narrower, as a
    slanted 1 leans over the 9 beside it, but their middles lie apart by half a mark's
    width), of like heights (the shorter at least `ALIKE` of the taller, and at most `SMALL`
    of the cell's `height`), their rows overlapping by half the shorter."""
    (ax, ay, aw, ah), (bx, by, bw, bh) = sorted([a, b])
    across = (ax + aw) - bx  # how far the boxes overlap across (negative: a gap)
    apart = (bx + bw / 2) - (ax + aw / 2) >= (aw + bw) / 4
    overlap = min(ay + ah, by + bh) - max(ay, by)
    short, tall = min(ah, bh), max(ah, bh)
    return (
        across <= OVERLAP * min(aw, bw)
        and apart
        and short >= ALIKE * tall
        and short <= SMALL * height
        and overlap >= short / 2
    )


def noted_joined(mark, shape: tuple[int, int], height: int) -> bool:
    """Whether one mark (x, y, width, height) is digits noted joined ("79" in one stroke):
    at least `JOINED` times as wide as tall, no taller than `JOINED_TALL` of the cell's
    `height`,
    and tucked into the cell's top left corner where people note their candidates (an
    entry is written in the middle)."""
    x, y, w, h = mark
    return w >= JOINED * h and h <= JOINED_TALL * height and x <= 1 and y <= CORNER * shape[0]


def separate_digits(ink: np.ndarray, height: int | None = None) -> int:
    """How many separate small digits a cell's ink holds: the number of digit marks when
    some two of them are digits noted side by side (`side_by_side`), else 1 (or 0 when it
    holds no mark)."""
    marks = digit_marks(np.asarray(ink, bool))
    h = ink.shape[0] if height is None else height
    if len(marks) == 1 and noted_joined(marks[0], ink.shape, h):
        return 2
    for i, a in enumerate(marks):
        for b in marks[i + 1 :]:
            if side_by_side(a, b, h):
                return len(marks)
    return min(len(marks), 1)


def several_digits(warped: np.ndarray, boxes: np.ndarray, look: np.ndarray) -> np.ndarray:
    """(81,) bool: the cells of `look` whose ink holds two or more separate small digits.

    Parameters
    ----------
    warped : (side, side) or (side, side, 3) uint8
        The upright warped grid the cells were cut from.
    boxes : (81, 4) int
        Each cell's x0, y0, x1, y1 in it (`Cells.boxes`, turned as the grid is).
    look : (81,) bool
        The cells to look at (those that may hold hand-writing).
    """
    out = np.zeros(81, bool)
    if not look.any():
        return out
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped
    dark = darkness(gray)
    level = ink_threshold(dark)
    horizontal, vertical = line_masks(ink_mask(dark, level))
    lines = cv2.dilate(horizontal | vertical, np.ones((3, 3), np.uint8))
    # the lines as the print threshold sees them and as the faint one does (their blurred
    # edges), as `vision.cells.find_digits` clears them
    ink = without_lines(ink_mask(dark, FAINT * level), lines) > 0
    inner, heights = interiors(boxes).tolist(), (boxes[:, 3] - boxes[:, 1])
    for i in np.flatnonzero(look).tolist():
        x0, y0, x1, y1 = inner[i]
        if x1 - x0 >= 8 and y1 - y0 >= 8:
            out[i] = separate_digits(ink[y0:y1, x0:x1], int(heights[i])) >= 2
    return out


def as_candidates(kinds: np.ndarray, several: np.ndarray) -> np.ndarray:
    """The kinds with the written mass of the `several` cells moved to candidates: a cell of
    noted digits is never one written entry. Print and empty stay as they were.

    >>> kinds = np.zeros((2, 20), np.float32); kinds[:, 13] = 0.9; kinds[:, 19] = 0.1
    >>> [round(float(p), 2) for p in as_candidates(kinds, np.array([True, False]))[:, 19]]
    [1.0, 0.1]
    """
    out = np.array(kinds, np.float32, copy=True)
    out[several, 19] += out[several, 10:19].sum(axis=1)
    out[several, 10:19] = 0.0
    return out


def noted_candidates(warped: np.ndarray, boxes: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """The kinds with every cell that may hold a hand's entry (its written mass above a
    tenth) but holds separate small digits read as candidates (`several_digits`)."""
    look = kinds[:, 10:19].sum(axis=1) > 0.1
    return as_candidates(kinds, several_digits(warped, boxes, look))
