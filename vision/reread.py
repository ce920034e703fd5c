"""A cell cut again against its own paper and ink: faint pencil the print's threshold
missed, and a second look at an entry the check would call wrong.

The reader cuts every digit of a grid at one threshold, a share of the grid's strongest ink
(`vision.cells.ink_threshold`), which the black print sets. A faint grey pencil digit on
pink paper under a shadow reaches it only where the pencil pressed hardest, or nowhere:
what is cut is part of the digit (the spine of a 3, which reads as a 1 at 0.9997), or
nothing, and the entry goes unseen. Cut again at a threshold set by the cell's own ink
against its own paper, the whole stroke is there. So a cell the cell model sees a hand's
mark in but the cut found no digit is cut so and read by the hand models
(`faint_entries`); and when an entry's two cuts read as different digits, the reader
cannot say which the person wrote, and the check says so rather than strike it out
(`reread_entries`, `api.photo.entries.doubt_the_reader`).

>>> import numpy as np, cv2
>>> cell = np.full((50, 50), 230, np.uint8)
>>> _ = cv2.putText(cell, "3", (14, 38), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 170, 2)
>>> digit = own_paper_digit(cell)
>>> digit.shape, digit.dtype, bool(digit.max() > 0.9)
((28, 28), dtype('float32'), True)
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cells import darkness, normalised, paper_width

# The cell's own ink: its darkness at the 98th percentile (a digit fills a few percent of
# a cell); a pixel is ink at OWN_LEVEL of it, and never below NOISE (the grain of paper)
OWN_LEVEL = 0.4
NOISE = 0.04
# a mark of less than this share of the cell's area is a speck
SPECK = 0.004


def own_paper_digit(cell_gray: np.ndarray, margin: float = 0.1) -> np.ndarray | None:
    """The digit of a cell (grey, about its box) cut at its own ink's level: (28, 28)
    float32 in [0, 1], ink bright, as `vision.cells` normalises a digit; None when the cell
    shows no mark (`own_paper_cut`)."""
    cut = own_paper_cut(cell_gray, margin)
    return None if cut is None else cut[0]


def own_paper_cut(cell_gray: np.ndarray, margin: float = 0.1) -> tuple[np.ndarray, float] | None:
    """The digit of a cell cut at its own ink's level (`own_paper_digit`) and that ink's
    darkness against its paper (the 98th percentile of the cell's), or None.

    The paper is the cell's own (a closing wider than a stroke, so a shadow's edge is
    followed), the threshold a share of the cell's own strongest ink, and every mark of a
    digit's size away from the cell's edge is kept (`margin` of the side is dropped
    around, where the grid lines run).
    """
    h, w = cell_gray.shape
    dark = darkness(cell_gray, paper_width(np.zeros((9 * h, 9 * w), np.uint8)))
    my, mx = int(margin * h), int(margin * w)
    inner = dark[my : h - my, mx : w - mx]
    if inner.size == 0:
        return None
    strong = float(np.percentile(inner, 98))
    level = max(OWN_LEVEL * strong, NOISE)
    mask = (inner >= level).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    ih, iw = inner.shape
    keep = np.zeros(n, bool)
    for i, (x, y, bw, bh, area) in enumerate(stats.tolist()):
        if i == 0 or area < SPECK * ih * iw or max(bw, bh) < 0.15 * ih:
            continue
        edge = x <= 0 or y <= 0 or x + bw >= iw or y + bh >= ih
        if edge and min(bw, bh) <= max(2, 0.1 * iw):  # a line's edge
            continue
        keep[i] = True
    digit = keep[labels]
    if not digit.any():
        return None
    ys, xs = np.nonzero(digit)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    ink = np.clip((inner[y0:y1, x0:x1] - level) / max(strong - level, 1e-3), 0, 1)
    ink *= cv2.dilate(digit[y0:y1, x0:x1].astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    return normalised(ink.astype(np.float32)), strong


def reread_entries(
    warped: np.ndarray, boxes: np.ndarray, cells: list[int], hand_models: list[Path]
) -> np.ndarray:
    """(len(cells), 9) the hand models' mean probabilities of 1-9 for the digits of `cells`
    cut against their own paper (`own_paper_digit`); a row of zeros where no mark was cut.

    Parameters
    ----------
    warped : (side, side) or (side, side, 3) uint8
        The upright warped grid.
    boxes : (81, 4) int
        Each cell's x0, y0, x1, y1 in it.
    cells : list of int
        The cells to read again.
    hand_models : list of Path
        The hand models (`vision.kinds.hand_model_path`, `second_hand_models`).
    """
    from vision.kinds import read_hand

    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped
    out = np.zeros((len(cells), 9), np.float32)
    digits, rows = [], []
    for row, cell in enumerate(cells):
        x0, y0, x1, y1 = (int(v) for v in boxes[cell])
        digit = own_paper_digit(gray[y0:y1, x0:x1])
        if digit is not None:
            digits.append(digit)
            rows.append(row)
    models = [m for m in hand_models if m.is_file()]
    if digits and models:
        stack = np.stack(digits)
        out[rows] = np.mean([read_hand(m, stack) for m in models], axis=0)
    return out


# A cell whose mark the cell model sees (no more than EMPTY_AT empty, and at least HAND_AT a
# hand's: written or candidates) where the grey cut found no digit is cut against its own
# paper; a mark darker than MARK against its paper is a digit (the grain of a page and the
# show-through of the next one stay below it), and one fainter than PENCIL of the page's
# print is no print (a press prints every digit in one ink): its printed mass is a hand's.
EMPTY_AT = 0.5
HAND_AT = 0.3
MARK = 0.08
PENCIL = 0.6


def faint_entries(
    warped: np.ndarray, boxes: np.ndarray, kinds: np.ndarray, blobs: np.ndarray, print_ink: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kinds with the faint marks the grey cut missed read by the hand models, where
    they were found, and their ink's darkness.

    Parameters
    ----------
    warped : (side, side, 3) or (side, side) uint8
        The upright warped grid.
    boxes : (81, 4) int
        The cells' boxes in it.
    kinds : (81, 20) float32
        The cell model's kinds (`vision.kinds.CLASSES`), upright.
    blobs : (81,) bool
        Where a digit was cut (`Cells.blobs`).
    print_ink : float
        The page's print's darkness against its paper (the median `Cells.contrast` of its
        printed digits; 0 when unknown).

    Returns
    -------
    kinds : (81, 20) float32
    found : (81,) bool
    contrast : (81,) float32
        The found marks' darkness (0 elsewhere).
    """
    from vision.kinds import hand_model_path, read_hand, second_hand_models, second_look

    hand = kinds[:, 10:].sum(axis=1)
    look = ~np.asarray(blobs, bool) & (kinds[:, 0] <= EMPTY_AT) & (hand >= HAND_AT)
    found = np.zeros(81, bool)
    contrast = np.zeros(81, np.float32)
    model = hand_model_path()
    if not look.any() or not model.is_file():
        return kinds, found, contrast
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped
    digits = []
    for i in np.flatnonzero(look).tolist():
        x0, y0, x1, y1 = (int(v) for v in boxes[i])
        cut = own_paper_cut(gray[y0:y1, x0:x1])
        if cut is not None and cut[1] >= MARK:
            found[i], contrast[i] = True, cut[1]
            digits.append(cut[0])
    if not found.any():
        return kinds, found, contrast
    out = np.array(kinds, np.float32, copy=True)
    cells = np.flatnonzero(found)
    if print_ink > 0:  # fainter than the page's print: a hand's, whatever its shape
        faint = cells[contrast[cells] < PENCIL * print_ink]
        out[faint, 10:19] += out[faint, 1:10]
        out[faint, 1:10] = 0.0
    stack = np.stack(digits)
    read = second_look(read_hand(model, stack), stack, second_hand_models())
    out[cells, 10:19] = out[cells, 10:19].sum(axis=1, keepdims=True) * read
    return out, found, contrast
