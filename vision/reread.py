"""A second look at an entry the check would call wrong: its digit cut again against its own
cell's paper and ink, and read by every hand model.

The reader cuts every digit of a grid at one threshold, a share of the grid's strongest ink
(`vision.cells.ink_threshold`), which the black print sets. A faint grey pencil digit on
pink paper under a shadow reaches it only where the pencil pressed hardest: what is cut is
part of the digit (the spine of a 3, which reads as a 1 at 0.9997), and the hand model
reads that part well. Cut again at a threshold set by the cell's own ink against its own
paper, the whole stroke is there. When the two cuts read as different digits, the reader
cannot say which the person wrote, and the check says so rather than strike it out.

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
    shows no mark.

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
    return normalised(ink.astype(np.float32))


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
