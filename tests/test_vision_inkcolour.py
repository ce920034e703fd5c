"""Kinds weighed by ink colour: a photo's print has one ink, its entries their pen's."""

from __future__ import annotations

import shutil

import cv2
import numpy as np

from vision.cells import cut_cells, with_coloured_ink
from vision.inkcolour import ink_colours, kinds_by_colour
from vision.kinds import CLASSES

SIDE = 450
CELL = SIDE // 9
PRINTED = {0: "3", 10: "5", 20: "8", 30: "1", 50: "6", 60: "2"}
WRITTEN = {2: "4", 12: "9", 40: "7", 66: "1", 80: "5"}


def page(
    pen_bgr: tuple[int, int, int], paper=(235, 235, 235), print_bgr=(20, 20, 20)
) -> np.ndarray:
    """A warped grid on white (or `paper`) paper: black (or `print_bgr`) print, entries in
    `pen_bgr`."""
    grid = np.full((SIDE, SIDE, 3), paper, np.uint8)
    for k in range(10):
        p = min(SIDE - 1, k * CELL)
        cv2.line(grid, (p, 0), (p, SIDE - 1), (20, 20, 20), 4 if k % 3 == 0 else 2)
        cv2.line(grid, (0, p), (SIDE - 1, p), (20, 20, 20), 4 if k % 3 == 0 else 2)
    for marks, font, colour in (
        (PRINTED, cv2.FONT_HERSHEY_SIMPLEX, print_bgr),
        (WRITTEN, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, pen_bgr),
    ):
        for cell, digit in marks.items():
            r, c = divmod(cell, 9)
            cv2.putText(grid, digit, (c * CELL + 13, r * CELL + 40), font, 1.2, colour, 3)
    noise = np.random.default_rng(3).normal(0, 3, grid.shape)
    return np.clip(grid + noise, 0, 255).astype(np.uint8)


def kinds_as_read(doubtful: int, printed_share: float) -> np.ndarray:
    """The cell model's reading of `page`: sure of every cell but `doubtful`, an entry it
    takes for print with `printed_share`."""
    kinds = np.zeros((81, len(CLASSES)), np.float32)
    kinds[:, 0] = 1
    for cells, first in ((PRINTED, 1), (WRITTEN, 10)):
        for cell, digit in cells.items():
            kinds[cell] = 0
            kinds[cell, first + int(digit) - 1] = 0.97
            kinds[cell, 0] = 0.03
    digit = int(WRITTEN[doubtful])
    kinds[doubtful] = 0
    kinds[doubtful, digit] = printed_share
    kinds[doubtful, 9 + digit] = 1 - printed_share - 0.02
    kinds[doubtful, 0] = 0.02
    return kinds


def test_ink_colours_tell_red_and_blue_pen_from_black_print():
    for pen, axis, sign in (((40, 40, 210), 1, 1), ((200, 60, 30), 1, -1)):  # red b*>0, blue b*<0
        grid = page(pen)
        colours = ink_colours(grid, cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)).ink_boxes)
        printed = colours[list(PRINTED), :2]  # the hue
        written = colours[list(WRITTEN), :2]
        assert np.abs(printed).max() < 4, printed
        assert (sign * written[:, axis] > 20).all(), written
        assert np.isnan(colours[[1, 44]]).all()  # no ink, no colour


def test_red_pen_in_shadow_found_in_colour_is_measured_red():
    """Red pen in a dim cell is as bright as its paper in grey; only the colour look finds
    it, and its colour must be taken where that look saw it, not at the darkest grey (the
    cell's shadowed edge, neutral)."""
    grid = page((40, 40, 210))
    row, col = 8, 4
    x0, y0 = col * CELL + 3, row * CELL + 3
    grid[y0 : SIDE - 3, x0 : x0 + CELL - 6] = (55, 62, 70)  # a dim cell
    grid[SIDE - 12 : SIDE - 3, x0 : x0 + CELL - 6] = (30, 34, 38)  # its shadowed edge
    cv2.putText(
        grid, "6", (x0 + 10, y0 + 35), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 1.2, (28, 30, 130), 3
    )
    cells = with_coloured_ink(grid, cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)))
    cell = row * 9 + col
    assert not cells.ink[cell] and cells.pen.ink[cell]

    by_colour = ink_colours(grid, cells.pen.ink_boxes, by_colour=np.ones(81, bool))[cell]
    by_grey = ink_colours(grid, cells.pen.ink_boxes)[cell]

    assert by_colour[0] > 15 and by_colour[1] > 10, by_colour  # red: a* and b* high
    assert abs(by_grey[0]) < 5, by_grey  # what the grey core measured: the shadow


def test_colour_alone_does_not_overrule_a_sure_written_reading():
    """A hand may write in an ink like the print's: the colour's say is bounded, so a
    digit the cell model is sure is written stays written."""
    grid = page((40, 40, 210))
    row, col = divmod(40, 9)
    grid[row * CELL + 4 : (row + 1) * CELL - 4, col * CELL + 4 : (col + 1) * CELL - 4] = 235
    script = cv2.FONT_HERSHEY_SCRIPT_SIMPLEX
    cv2.putText(grid, "7", (col * CELL + 13, row * CELL + 40), script, 1.2, (20, 20, 20), 3)
    colours = ink_colours(grid, cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)).ink_boxes)
    kinds = kinds_as_read(40, printed_share=0.005)  # written 7 at 0.975

    weighed = kinds_by_colour(kinds, colours)

    assert weighed[40, 10:19].sum() > 0.75, weighed[40]
    assert weighed[40, 10:19].sum() < kinds[40, 10:19].sum()  # the colour still counts


def test_a_red_entry_taken_for_print_is_read_as_written():
    grid = page((40, 40, 210))
    colours = ink_colours(grid, cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)).ink_boxes)
    kinds = kinds_as_read(40, printed_share=0.7)

    weighed = kinds_by_colour(kinds, colours)

    assert CLASSES[int(weighed[40].argmax())] == "written 7"
    assert np.allclose(weighed.sum(axis=1), kinds.sum(axis=1), atol=1e-5)  # mass kept
    assert np.allclose(weighed[:, 0], kinds[:, 0])  # empty untouched
    for cell in PRINTED:  # print stays print
        assert weighed[cell, 1:10].sum() > 0.95


def test_black_pen_on_black_print_leaves_the_reading_alone():
    grid = page((25, 25, 25))
    colours = ink_colours(grid, cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)).ink_boxes)
    kinds = kinds_as_read(40, printed_share=0.55)

    assert np.array_equal(kinds_by_colour(kinds, colours), kinds)


def test_a_black_entry_on_a_page_of_grey_print_is_read_as_written_by_its_darkness():
    """No hue tells black pen from a grey (faded, or printed grey) print, but its darkness
    against the paper does."""
    grid = page((25, 25, 25), print_bgr=(130, 130, 130))
    colours = ink_colours(grid, cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)).ink_boxes)
    assert (colours[list(WRITTEN), 2].min() - colours[list(PRINTED), 2].max()) > 10, colours[:, 2]
    kinds = kinds_as_read(40, printed_share=0.7)

    weighed = kinds_by_colour(kinds, colours)

    assert CLASSES[int(weighed[40].argmax())] == "written 7"
    for cell in PRINTED:
        assert weighed[cell, 1:10].sum() > 0.95
    # by hue alone the two inks are one, and the reading stands
    assert np.array_equal(kinds_by_colour(kinds, colours[:, :2]), kinds)


def test_an_ink_learnt_from_too_few_cells_teaches_nothing():
    grid = page((40, 40, 210))
    colours = ink_colours(grid, cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)).ink_boxes)
    kinds = kinds_as_read(40, printed_share=0.7)
    for cell in list(WRITTEN)[2:]:  # only two sure entries left
        kinds[cell, 10:19] = 0
        kinds[cell, 0] = 1

    assert np.array_equal(kinds_by_colour(kinds, colours), kinds)


def test_a_digit_found_in_colour_alone_joins_only_in_the_pages_pen():
    """Colour finds pale red pen that grey missed, and also the grain of a dim photo: only a
    digit whose ink is the page's pen joins the cells, and a page without a pen takes none."""
    from vision.inkcolour import pen_ink

    grid = page((40, 40, 210))
    colours = ink_colours(grid, cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)).ink_boxes)
    kinds = kinds_as_read(40, printed_share=0.05)  # every entry sure: the pen is known
    found = np.zeros(81, bool)
    found[[5, 6, 7]] = True
    found_colours = np.full((81, 3), np.nan, np.float32)
    found_colours[5] = colours[40] + (1.0, 1.0, -15.0)  # red, as the entries, paler in grey
    found_colours[6] = (-4.0, 25.0, colours[40, 2])  # yellowish grain
    found_colours[7] = colours[0]  # grey, as the print

    assert np.flatnonzero(pen_ink(kinds, colours, found, found_colours)).tolist() == [5]

    no_pen = kinds.copy()
    no_pen[list(WRITTEN)] = 0
    no_pen[list(WRITTEN), 0] = 1  # a print-only page
    assert not pen_ink(no_pen, colours, found, found_colours).any()


def test_a_digit_grey_missed_is_read_by_the_hand_model_from_its_colour(tmp_path):
    """Red pen on a dim green page is as dark as its paper in grey, so the grey cut isolates
    no digit there and the hand model had nothing to read: the cell model's own guess of
    the written digit stood. The digit the colour look isolated is read instead, and the
    cell model's written mass is kept, only shared out by the hand model's answer."""
    from vision.cells import with_coloured_ink
    from vision.kinds import (
        cell_channels,
        hand_model_path,
        read_hand,
        second_hand_models,
        second_look,
        written_digits,
    )

    grid = page((50, 40, 160), paper=(60, 110, 70))
    cells = with_coloured_ink(grid, cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)))
    entries = list(WRITTEN)
    assert not cells.ink[entries].any() and cells.pen.ink[entries].all()
    guess = np.zeros((81, len(CLASSES)), np.float32)
    guess[:, 0] = 1
    guess[entries] = 0
    guess[entries, 0] = 0.1
    guess[entries, 10:19] = 0.1  # written, but which digit the cell model cannot say

    pen = cells.pen.images / np.float32(255)
    # the hand model alone, beside a cell model with no second look: every digit as written
    alone = tmp_path / "cells.onnx"
    shutil.copy(hand_model_path(), hand_model_path(alone))
    read = written_digits(guess, cell_channels(grid, cells), alone, pen_digits=pen)

    digits = [int(read[i, 10:19].argmax()) + 1 for i in entries]
    assert digits == [int(WRITTEN[i]) for i in entries]
    assert np.allclose(read[entries, 10:19].sum(axis=1), 0.9)
    # the shipped models, second look and all: the written mass shared out by their reading
    # of the colour look's digit (the script face's 1, with its flag and foot, read 1 at 0.54
    # alone, is a 2 to the second look: a font's 1, no hand's)
    shipped = written_digits(guess, cell_channels(grid, cells), pen_digits=pen)
    looked = pen[entries]
    own = second_look(read_hand(hand_model_path(), looked), looked, second_hand_models())
    assert np.allclose(shipped[entries, 10:19], 0.9 * own, atol=1e-6)
    unread = written_digits(guess, cell_channels(grid, cells))
    assert np.array_equal(unread[entries], guess[entries])
