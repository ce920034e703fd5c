"""The print of a page has one colour; a hand's pen has its own: kinds weighed by ink colour.

The cell model reads each cell alone, so a neat red 7 can look printed to it (on fold 0's
held-out Wicht photos filled in by hand, 11 of the 42 misread cells were entries taken for
print, each in a photo whose entries are red or blue and whose print is black). A page
tells more than a cell: its printed digits share one ink, and its entries, written with
one or two pens, share theirs. So the cells the model is sure of teach the photo's two
inks, and every cell with a digit is weighed by how much its ink looks like each
(`kinds_by_colour`). Where the pen is black like the print the two inks coincide, the
weights are even and the model's reading stands.

Colour is CIELAB's a* (green-red) and b* (blue-yellow) of the darkest pixels of the
cell's ink, and how dark those pixels are against the paper of the ink's own box (a
shadow over the cell dims both alike). The hue tells red or blue pen from black print,
the darkness black pen from a grey or faded print (and a pencil from both): on the
hand-filled Wicht photos, whose print is often grey, it took entries for print in 3
cells where hue alone took them in 7 (fold models, held out), on Kubiesa's real pens it
moved 4 cells, 3 of them right. Where the pen is like the print in both, the weights are
even and the model's reading stands. Colour's say is bounded (`MOST_ODDS`): a hand may
take a second pen as pale as the print.

>>> import numpy as np
>>> kinds = np.zeros((81, 20), np.float32); kinds[:, 0] = 1
>>> kinds[:8] = 0; kinds[:8, 3] = 1            # eight sure printed 3s, grey ink
>>> kinds[8:16] = 0; kinds[8:16, 14] = 1       # eight sure written 5s, red ink
>>> kinds[16] = 0; kinds[16, 7] = 0.7; kinds[16, 16] = 0.3   # a red 7, taken for print
>>> colours = np.full((81, 2), np.nan, np.float32)
>>> colours[:8] = (0, 5); colours[8:17] = (35, 20)
>>> weighed = kinds_by_colour(kinds, colours)
>>> int(weighed[16].argmax()), round(float(weighed[16, 10:19].sum()), 2)   # written 7
(16, 0.96)
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cells import darkness, paper_width
from vision.kinds import weigh_print_against_hand

# A cell the model gives at least this much of one kind teaches the photo that kind's ink.
SURE = 0.9
# Fewer sure cells of a kind than this teach nothing (an ink from one or two cells may be a
# misreading or a stray mark).
FEW = 3
# Spread of one ink's a* or b* within a photo, at least (CIELAB units, 0-255 scale): the
# sure cells of one kind spread by 0.5 to 5 on the hand-filled Wicht photos; a floor keeps
# two nearly equal inks from looking different.
SPREAD = 1.5
# The ink's darkness (0 paper to 1 black) in units comparable to a* and b*: the floor
# spread of 1.5 is then 0.04 of darkness. 20 and 80 read the held-out photos alike.
DARKNESS_UNITS = 40.0
# a* and b*: the columns of the colours that are hue (the third is darkness)
HUE = 2
# Two inks closer than this (centres apart, in spreads) are one: black pen on black print.
# Then colour says nothing, and a cell on the edge must not be tipped by the noise.
APART = 1.5
# An ink's colour makes a cell at most this much likelier hand than print, or print than
# hand: a hand can write in a second pen as pale as the print (a pink 5 beside the page's
# red entries, on a page printed in pink), and the cell model's sure "written" must still
# count. Over the four folds' held-out readings (bench/handwriting.py), at most e (2.7),
# e^2, e^3, 50, e^5, e^8 and e^30 (no bound): Wicht's hand-filled photos every cell right
# 104, 108, 109, 109, 109, 109, 109 of 159, solved right from the print alone 147, 154,
# 156, 157, 156, 155, 155; the print-only photos and Kubiesa's alike at every bound from
# e^2 (Kubiesa's kinds 2,851 of 2,880 at e, 2,853 from e^2). Chosen on those same
# readings, so the 157 is a little kind; anywhere from e^3 to e^5 reads them alike but one.
MOST_ODDS = 50.0
# A digit found in colour alone joins the cells when its ink is this much likelier the pen's
# than the print's, and within this many spreads of the pen's centre.
PEN_ODDS = 20.0
PEN_SPREADS = 3.0
# Tails of an ink's colour (Student's t degrees of freedom): a cell whose ink mixes with a
# grid line or a shadow is an outlier, not proof.
TAILS = 4.0


def ink_colours(
    warped_bgr: np.ndarray, boxes: np.ndarray, by_colour: np.ndarray | None = None
) -> np.ndarray:
    """(N, 3) float32 a* and b* (0 = neutral grey) and darkness (`DARKNESS_UNITS`) of the
    ink in each of N boxes (x0, y0, x1, y1 in the warped grid, as `Cells.ink_boxes`; all
    zero where a cell has none), NaN where there is no ink. Only the boxes' pixels are
    converted to Lab.

    The ink is the cell's isolated blob, its pixels at least 0.6 of
    the darkest one's darkness against the brightest paper in the blob's box, weighted by
    darkness: the core of the stroke, where the pen's hue is strongest and the paper's
    least. The boxes `by_colour` marks ((N,) bool) hold ink that the colour look found
    (`vision.cells.with_coloured_ink`), which can be no darker in grey than its paper (red
    pen in shadow): their darkness is taken in each box's darkest channel instead, as that
    look took it, or their core would be the box's shadowed edge, with the paper's hue.
    """
    boxes = np.asarray(boxes)
    out = np.full((len(boxes), HUE + 1), np.nan, np.float32)
    if warped_bgr.ndim != 3:
        return out
    gray = cv2.cvtColor(warped_bgr, cv2.COLOR_BGR2GRAY)
    by_colour = np.zeros(len(boxes), bool) if by_colour is None else np.asarray(by_colour, bool)
    width = paper_width(warped_bgr)
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        if by_colour[i]:  # each channel against its paper, around the box as on the page
            top, left = max(0, y0 - width), max(0, x0 - width)
            around = warped_bgr[top : y1 + width, left : x1 + width]
            dark = darkness(around, width).max(axis=2)[y0 - top : y1 - top, x0 - left : x1 - left]
        else:
            box = gray[y0:y1, x0:x1].astype(np.float32)
            dark = 1.0 - box / (box.max() + 1.0)  # the blob's box holds paper between strokes
        core = dark >= 0.6 * dark.max()
        if dark.max() <= 0.05 or core.sum() < 4:
            continue
        weight = dark[core]
        # Lab of the box alone (pixel by pixel, as of the whole grid): a third of the time
        # went to converting the whole grid for the few boxes that hold ink
        lab = cv2.cvtColor(warped_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)
        ab = lab[..., 1:][core].astype(np.float32) - 128.0
        out[i, :HUE] = (ab * weight[:, None]).sum(axis=0) / weight.sum()
        out[i, HUE] = DARKNESS_UNITS * float(weight.mean())
    return out


def kinds_by_colour(kinds: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """The kinds with each cell's printed and written mass re-weighed by its ink's colour.

    The printed inks and the written inks of the photo are learnt from its sure cells
    (`SURE`; at least `FEW` of each): each is a median colour with a robust spread. Inks
    less than `APART` apart are one ink, and then the kinds are returned as they are. A
    cell's printed and written masses are then multiplied by how likely its colour is
    under each ink (Student's t, `TAILS`; the ratio bounded by `MOST_ODDS`) and
    shared out again: the cell keeps its mass of a digit, empty and candidates untouched,
    and each digit within a kind keeps its share.

    Parameters
    ----------
    kinds : (81, 20) float
        Class probabilities of `vision.kinds.CLASSES`.
    colours : (81, C) float
        `ink_colours` (or their hue alone), NaN where a cell has no ink.

    Returns
    -------
    (81, 20) float32
    """
    kinds = np.asarray(kinds, np.float32)
    colours = np.asarray(colours, np.float32)
    inks = page_inks(kinds, colours)
    if inks is None:
        return kinds
    seen = ~np.isnan(colours).any(axis=1)
    cells = np.flatnonzero(seen & (kinds[:, 1:19].sum(axis=1) > 0))
    if not len(cells):
        return kinds
    log_print, log_hand = (_log_likelihood(colours[cells], *ink) for ink in inks)
    most = np.log(MOST_ODDS)
    odds = np.exp(np.clip(log_hand - log_print, -most, most))
    return weigh_print_against_hand(kinds, cells, odds)


def pen_ink(kinds, colours, found, found_colours) -> np.ndarray:
    """(81,) bool: which of the digits found in colour alone (`found`, bool, with their
    `found_colours`) are in the page's pen, learnt like `kinds_by_colour`'s from the sure
    cells' `colours`: it must have one, apart from the print's (as in
    `kinds_by_colour`), and each digit's colour must be far likelier under the pen's ink
    than under the print's (`PEN_ODDS`) and within `PEN_SPREADS` of the pen's centre. A
    page with no entries in a pen has no pen ink, so the grain of a dim photo, which the
    colour look also finds, never joins the cells.
    """
    found = np.asarray(found, bool)
    # hue alone: a pen the grey cut missed is paler there than the entries it found
    colours = np.asarray(colours, np.float32)[:, :HUE]
    found_colours = np.asarray(found_colours, np.float32)[:, :HUE]
    out = np.zeros(len(found), bool)
    inks = page_inks(kinds, colours)
    if inks is None:
        return out
    pen_centre, pen_spread = inks[1]
    cells = np.flatnonzero(found & ~np.isnan(found_colours).any(axis=1))
    if not len(cells):
        return out
    x = found_colours[cells]
    odds = _log_likelihood(x, *inks[1]) - _log_likelihood(x, *inks[0])
    near = (np.abs(x - pen_centre) <= PEN_SPREADS * pen_spread).all(axis=1)
    out[cells[(odds >= np.log(PEN_ODDS)) & near]] = True
    return out


def may_show_a_pen(kinds: np.ndarray) -> bool:
    """Whether the page has enough cells read surely as a hand's (`SURE`, `FEW`) to learn
    a pen's ink from: without them `page_inks` finds none, so `kinds_by_colour` and
    `pen_ink` change nothing, and no cell's colour need be measured.

    >>> kinds = np.zeros((81, 20), np.float32); kinds[:, 0] = 1
    >>> kinds[:3], kinds[:3, 14] = 0, 1.0                     # three sure written 5s
    >>> may_show_a_pen(kinds), may_show_a_pen(kinds[1:])
    (True, False)
    """
    return int((np.asarray(kinds)[:, 10:19].sum(axis=1) >= SURE).sum()) >= FEW


def page_inks(kinds: np.ndarray, colours: np.ndarray) -> list[tuple] | None:
    """The print's ink and the pen's, each (centre, spread), learnt from the cells the model
    is sure of (`SURE`, at least `FEW` of each); None when either is missing or the two are
    one ink (less than `APART` apart)."""
    kinds = np.asarray(kinds, np.float32)
    colours = np.asarray(colours, np.float32)
    seen = ~np.isnan(colours).any(axis=1)
    masses = kinds[:, 1:10].sum(axis=1), kinds[:, 10:19].sum(axis=1)
    inks = [_ink(colours[seen & (mass >= SURE)]) for mass in masses]
    if any(ink is None for ink in inks) or _apart(*inks) < APART:
        return None
    return inks


def _ink(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Median colour and robust spread (per axis) of one kind's sure cells."""
    if len(samples) < FEW:
        return None
    centre = np.median(samples, axis=0)
    spread = 1.4826 * np.median(np.abs(samples - centre), axis=0)
    return centre, np.maximum(spread, SPREAD)


def _apart(one: tuple, other: tuple) -> float:
    """How far apart two inks' centres are, in the wider one's spreads."""
    return float(np.linalg.norm((one[0] - other[0]) / np.maximum(one[1], other[1])))


def _log_likelihood(x: np.ndarray, centre: np.ndarray, spread: np.ndarray) -> np.ndarray:
    z = (x - centre) / spread
    return (-(TAILS + 1) / 2 * np.log1p(z * z / TAILS) - np.log(spread)).sum(axis=1)
