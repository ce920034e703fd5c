"""How many cells a grid has a side, from where its lines run.

A 6x6 sudoku (children's books), the 9x9 and the 16x16 "super sudoku" (puzzle magazines)
are all a square of evenly spaced lines: 7, 10 or 17 each way. Which lattice a grid is
shows in the profile of its long strokes (`vision.locate.line_profiles`): ink on each
expected line and none on the cells' middles between them. A 9x9 seen as a 6x6 puts half
its lines on 9x9 cells' middles; a 9x9 seen as a 16x16 misses most of its lines by more
than a stroke's width: each board explains its own lines best.

>>> side, margin = 180, 10
>>> profile = np.zeros(side + 2 * margin)
>>> profile[margin + np.rint(np.arange(7) * side / 6).astype(int)] = 0.9   # seven lines
>>> best_lattice(profile, profile, side, margin)
6
"""

from __future__ import annotations

import cv2
import numpy as np

SIZES = (6, 9, 16)  # the boards the solver and the sheet printer know, read from a photo
# A samurai's five overlapping 9x9s fill a square of 21 x 21 cells, its outline: judged so
# too, to be refused by name rather than read as some other board.
SAMURAI = 21
# A lattice other than 9 must explain the lines this much better than the 9x9 does: a
# 9x9 warped a little off still explains its own lines best, and every figure of the 9x9
# reading stays as it was.
OTHER_GAIN = 0.12


def lattice_evidence(profile: np.ndarray, side: int, margin: int, n: int) -> float:
    """Mean ink on the n + 1 expected lines (capped at 0.9, so a thick border cannot make
    up for missing inner lines) less the mean ink near the n cells' middles, for a profile
    of a grid warped to `side` pixels inside a `margin`. Both take the most ink within a
    sixth of a cell: a coarser lattice laid over a finer one finds lines near its middles.

    >>> p = np.zeros(200); p[10 + 20 * np.arange(10)] = 1.0
    >>> round(lattice_evidence(p, 180, 10, 9), 2), round(lattice_evidence(p, 180, 10, 16), 2)
    (0.9, 0.1)
    """
    lines, middles = _near_lines(profile, side, margin, n)
    return float(np.minimum(lines, 0.9).mean() - np.minimum(middles, 0.9).mean())


def _near_lines(profile: np.ndarray, side: int, margin: int, n: int):
    """The most ink within a sixth of a cell of each expected line, and of each cell's
    middle (a running maximum, `cv2.dilate`, read at those places)."""
    cell = side / n
    reach = int(min(max(1, cell // 6), margin))
    near = cv2.dilate(
        np.asarray(profile, np.float32).reshape(-1, 1), np.ones((2 * reach + 1, 1), np.uint8)
    ).ravel()
    last = len(near) - 1
    lines = np.clip(np.rint(margin + cell * np.arange(n + 1)).astype(int), 0, last)
    middles = np.clip(np.rint(margin + cell * (np.arange(n) + 0.5)).astype(int), 0, last)
    return near[lines].astype(np.float64), near[middles].astype(np.float64)


def lines_present(profile: np.ndarray, side: int, margin: int, n: int) -> float:
    """The share of the n + 1 expected lines that show clearly above the cells' middles: a
    board shows them all, where a 9x9's 3 x 3 box seen as a 6x6 lacks every second one.

    >>> p = np.zeros(200); p[10 + 60 * np.arange(4)] = 1.0     # a box's four lines
    >>> lines_present(p, 180, 10, 6)
    0.5714285714285714
    """
    lines, middles = _near_lines(profile, side, margin, n)
    return float((lines >= float(np.median(middles)) + 0.2).mean())


def evidence_by_size(rows: np.ndarray, cols: np.ndarray, side: int, margin: int) -> dict:
    """{size: evidence across and down, averaged} for every size of SIZES."""
    return {
        n: (lattice_evidence(rows, side, margin, n) + lattice_evidence(cols, side, margin, n)) / 2
        for n in (*SIZES, SAMURAI)
    }


def best_lattice(rows: np.ndarray, cols: np.ndarray, side: int, margin: int) -> int:
    """The board size whose lattice explains the lines best (SAMURAI for a samurai's
    outline); 9 unless another does so by OTHER_GAIN. A 6x6 must show every line
    (`lines_present`): a 9x9 whose hairlines a dim photo lost keeps only its box lines,
    every other line of a 6x6's lattice."""
    evidence = evidence_by_size(rows, cols, side, margin)
    if min(lines_present(rows, side, margin, 6), lines_present(cols, side, margin, 6)) < 0.85:
        del evidence[6]
    other = max((n for n in evidence if n != 9), key=evidence.get)
    return other if evidence[other] >= evidence[9] + OTHER_GAIN else 9


def stroke_profiles(ink: np.ndarray, margin: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """The share of each row and column of a warped grid's ink mask (0/1, the grid inside
    `margin`) that runs `length` pixels or more along it: longer than any digit, so only
    the lines are left."""
    inside = slice(margin, ink.shape[0] - margin)
    across = cv2.morphologyEx(
        cv2.dilate(ink, np.ones((3, 1), np.uint8)), cv2.MORPH_OPEN, np.ones((1, length), np.uint8)
    )
    down = cv2.morphologyEx(
        cv2.dilate(ink, np.ones((1, 3), np.uint8)), cv2.MORPH_OPEN, np.ones((length, 1), np.uint8)
    )
    return across[:, inside].mean(axis=1), down[inside, :].mean(axis=0)
