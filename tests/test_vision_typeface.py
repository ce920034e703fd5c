"""Kinds weighed by typeface: a printed digit has near-identical twins, a hand's does not."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cells import cut_cells
from vision.kinds import CANDIDATES, CLASSES
from vision.typeface import kinds_by_typeface, kinds_unlike_the_print, twin_likeness

SIDE = 450
CELL = SIDE // 9
PRINTED = {0: "8", 13: "8", 26: "8", 40: "4", 53: "4", 70: "6"}
WRITTEN = {4: "8", 31: "8", 77: "4"}  # each drawn differently, as a hand does


def page() -> np.ndarray:
    grid = np.full((SIDE, SIDE), 235, np.uint8)
    for k in range(10):
        p = min(SIDE - 1, k * CELL)
        cv2.line(grid, (p, 0), (p, SIDE - 1), 20, 4 if k % 3 == 0 else 2)
        cv2.line(grid, (0, p), (SIDE - 1, p), 20, 4 if k % 3 == 0 else 2)
    for cell, digit in PRINTED.items():
        r, c = divmod(cell, 9)
        cv2.putText(
            grid, digit, (c * CELL + 13, r * CELL + 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 20, 3
        )
    for n, (cell, digit) in enumerate(WRITTEN.items()):
        r, c = divmod(cell, 9)
        hand = np.full((CELL, CELL), 255, np.uint8)
        cv2.putText(
            hand, digit, (12, 38), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 1.1 + 0.1 * n, 0, 2 + n % 2
        )
        turn = cv2.getRotationMatrix2D((CELL / 2, CELL / 2), 12 * (n - 1), 1.0)
        hand = cv2.warpAffine(hand, turn, (CELL, CELL), borderValue=255)
        box = grid[r * CELL : (r + 1) * CELL, c * CELL : (c + 1) * CELL]
        np.minimum(box, np.where(hand < 128, 20, 255).astype(np.uint8), out=box)
    return grid


def test_printed_digits_have_close_twins_and_hand_written_ones_do_not():
    likeness = twin_likeness(cut_cells(page()).images)

    assert all(likeness[c] > 0.97 for c in PRINTED if c != 70), likeness[list(PRINTED)]
    assert all(likeness[c] < 0.95 for c in WRITTEN), likeness[list(WRITTEN)]
    assert likeness[70] < 0.95  # a printed 6 that appears once has no twin
    assert np.isnan(likeness[1])  # an empty cell


def test_a_twin_raises_print_and_a_lone_digit_keeps_its_reading():
    images = cut_cells(page()).images
    kinds = np.zeros((81, len(CLASSES)), np.float32)
    kinds[:, 0] = 1
    for cell, digit in {**PRINTED, **WRITTEN}.items():  # the model unsure of every digit
        kinds[cell] = 0
        kinds[cell, int(digit)] = 0.45  # printed
        kinds[cell, 9 + int(digit)] = 0.55  # written

    weighed = kinds_by_typeface(kinds, images)

    for cell in PRINTED:
        if cell != 70:
            assert weighed[cell, 1:10].sum() > 0.9, (cell, weighed[cell])
    for cell in [*WRITTEN, 70]:
        assert np.allclose(weighed[cell], kinds[cell])
    assert np.allclose(weighed.sum(axis=1), kinds.sum(axis=1), atol=1e-5)


def test_a_digit_in_doubt_unlike_the_pages_sure_print_of_it_is_weighed_towards_hand():
    images = cut_cells(page()).images
    kinds = np.zeros((81, len(CLASSES)), np.float32)
    kinds[:, 0] = 1
    for cell, digit in PRINTED.items():  # the model sure of the print
        kinds[cell] = 0
        kinds[cell, int(digit)] = 0.97
        kinds[cell, 9 + int(digit)] = 0.03
    for cell, digit in WRITTEN.items():  # and fooled by the hand, unsurely
        kinds[cell] = 0
        kinds[cell, int(digit)] = 0.6
        kinds[cell, 9 + int(digit)] = 0.4
    # a page of print alone: an odd glyph is odd print, the model's reading stands
    assert np.allclose(kinds_unlike_the_print(kinds, images), kinds)
    kinds[60] = 0
    kinds[60, CANDIDATES] = 1.0  # pencil marks somewhere: the page shows a hand

    weighed = kinds_unlike_the_print(kinds, images)

    for cell in (4, 31):  # two sure printed 8s show the press's 8: these are a hand's
        assert weighed[cell, 10:19].sum() > 0.5, (cell, weighed[cell])
    # the hand's 4 is drawn much as the press sets it (0.94 alike): the model's reading stands
    assert np.allclose(weighed[77], kinds[77])
    for cell in PRINTED:  # sure cells are left as they are
        assert np.allclose(weighed[cell], kinds[cell])
    assert np.allclose(weighed.sum(axis=1), kinds.sum(axis=1), atol=1e-5)

    # a digit with a single sure printed copy on the page has nothing to be compared with
    alone = kinds.copy()
    alone[[13, 26]] = alone[4]  # two of the three printed 8s now in doubt too
    assert np.allclose(kinds_unlike_the_print(alone, images), alone)
    # and a printed copy in doubt is like its sure twins, so it stays print
    twin = kinds.copy()
    twin[26] = 0
    twin[26, 8], twin[26, 17] = 0.6, 0.4
    assert weighed[26, 1:10].sum() > 0.9 and kinds_unlike_the_print(twin, images)[26, 8] > 0.55


def test_a_stub_of_line_cut_with_a_printed_digit_leaves_it_like_its_twins():
    images = cut_cells(page()).images.copy()
    stubbed = images[13].copy()
    stubbed[8:22, 26] = 255  # a thin stub of grid line taken in at the side
    images[13] = stubbed
    images[26, 13:15, :] = np.maximum(images[26, 13:15, :], 60)  # a faint crease across

    likeness = twin_likeness(images)

    assert likeness[13] > 0.97 and likeness[26] > 0.97, likeness[[0, 13, 26]]
    assert all(likeness[c] < 0.95 for c in WRITTEN), likeness[list(WRITTEN)]
