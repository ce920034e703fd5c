"""The overlay renderer: digits land on their cells in perspective, print and the rest of the
photo stay untouched, corrected cells are marked, images encode and decode.

The renderer draws from the reader's own results (homography, cell boxes, the ink found in
each cell), so every photo here is read first; where the test checks placement, it measures
against the generator's true corners, not the reader's."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from samples.synthetic import make_photo
from vision.read import read_image
from vision.render import Overlay, Style, draw_solution, encode

SIDE = 450
STEP = SIDE / 9


def flat_photo(seed: int, **style):
    """A generated photo of a flat page, so the corners' homography is exact everywhere."""
    return make_photo(seed, size=(800, 600), curl=0, curl_skew=0, side_bow=0, **style)


def draw(image: np.ndarray, digits: np.ndarray, style: Style = Style(), **marks) -> np.ndarray:
    """`image` read by the reader, with `digits` and `marks` drawn by the renderer."""
    return draw_solution(read_image(image), Overlay(digits, **marks), style)


def homography(corners: np.ndarray) -> np.ndarray:
    """Photo -> upright square of SIDE pixels, the way the reader defines it."""
    square = np.array([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]], np.float32) - 0.5
    return cv2.getPerspectiveTransform(np.asarray(corners, np.float32), square)


def changed(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Pixels the renderer changed at all (bool mask)."""
    return (before != after).any(2)


def ink_boxes(mask_in_square: np.ndarray, cells) -> dict:
    """Per cell, the bounding box centre (x, y) and height of what was drawn in it."""
    found = {}
    for r, c in cells:
        y0, x0 = round(r * STEP), round(c * STEP)
        ys, xs = np.nonzero(mask_in_square[y0 : round(y0 + STEP), x0 : round(x0 + STEP)])
        if len(xs):
            found[r, c] = (x0 + (xs.min() + xs.max()) / 2, y0 + (ys.min() + ys.max()) / 2)
            found[r, c] += (ys.max() - ys.min() + 1,)
    return found


@pytest.mark.parametrize(("seed", "font"), [(51, "default"), (52, "default"), (53, None)])
def test_drawn_digits_are_centred_on_their_cells(seed, font):
    photo = flat_photo(seed)
    h = homography(photo.corners)
    digits = np.where(photo.givens == 0, photo.solution, 0)
    out = draw(photo.image, digits, Style(font=font, soften=False))
    strong = (np.abs(out.astype(int) - photo.image.astype(int)).sum(2) > 60).astype(np.uint8)
    in_square = cv2.warpPerspective(strong, h, (SIDE, SIDE), flags=cv2.INTER_NEAREST)
    cells = list(zip(*np.nonzero(digits), strict=True))
    found = ink_boxes(in_square, cells)
    assert len(found) == len(cells)
    for (r, c), (x, y, _) in found.items():
        centre = ((c + 0.5) * STEP - 0.5, (r + 0.5) * STEP - 0.5)
        assert abs(x - centre[0]) <= 3 and abs(y - centre[1]) <= 3, ((r, c), (x, y), centre)


@pytest.mark.parametrize("font", ["default", None])
def test_digits_are_blue_and_sized_like_the_print(font):
    for printed in (0.5, 0.68):
        photo = flat_photo(54, digit_height=printed, blur=0.01)
        h = homography(photo.corners)
        digits = np.where(photo.givens == 0, photo.solution, 0)
        out = draw(photo.image, digits, Style(font=font))
        moved = changed(photo.image, out)
        b, g, r = out[moved].astype(float).mean(0)
        assert b > r + 40 and b > g  # blue, unlike the grey print
        strong = (np.abs(out.astype(int) - photo.image.astype(int)).sum(2) > 60).astype(np.uint8)
        in_square = cv2.warpPerspective(strong, h, (SIDE, SIDE), flags=cv2.INTER_NEAREST)
        found = ink_boxes(in_square, zip(*np.nonzero(digits), strict=True))
        heights = [height / STEP for _, _, height in found.values()]
        assert abs(np.median(heights) - printed) < 0.08, (printed, np.median(heights))


def cell_quads(h: np.ndarray, cells, grow: float = 0.0) -> list[np.ndarray]:
    """The photo polygons of the given cells (optionally grown by `grow` cells each side)."""
    inverse = np.linalg.inv(h)
    quads = []
    for r, c in cells:
        x0, y0 = (c - grow) * STEP, (r - grow) * STEP
        x1, y1 = (c + 1 + grow) * STEP, (r + 1 + grow) * STEP
        box = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float64)
        quads.append(cv2.perspectiveTransform(box, inverse)[0])
    return quads


def test_only_the_drawn_cells_change():
    photo = make_photo(55, size=(800, 600), kind="newspaper")  # curled: the reader's homography
    h = homography(photo.corners)
    digits = np.where(photo.givens == 0, photo.solution, 0)
    out = draw(photo.image, digits)
    allowed = np.zeros(photo.image.shape[:2], np.uint8)
    drawn = list(zip(*np.nonzero(digits), strict=True))
    for quad in cell_quads(h, drawn):
        cv2.fillPoly(allowed, [np.round(quad).astype(np.int32)], 1)
    allowed = cv2.dilate(allowed, np.ones((3, 3), np.uint8))
    moved = changed(photo.image, out)
    assert moved.any()
    assert not (moved & (allowed == 0)).any()  # givens, lines and everything outside stay
    grid = np.zeros_like(allowed)
    cv2.fillPoly(grid, [np.round(photo.corners).astype(np.int32)], 1)
    outside = cv2.erode(1 - grid, np.ones((5, 5), np.uint8)).astype(bool)
    assert np.array_equal(out[outside], photo.image[outside])


def test_corrected_given_gets_an_orange_ring_and_keeps_its_print():
    photo = flat_photo(56)
    h = homography(photo.corners)
    r, c = np.argwhere(photo.givens > 0)[0]
    corrected = np.zeros((9, 9), bool)
    corrected[r, c] = True
    digits = np.where((photo.givens == 0) | corrected, photo.solution, 0)
    plain = draw(photo.image, np.where(corrected, 0, digits))
    marked = draw(photo.image, digits, corrected=corrected)
    moved = changed(plain, marked)
    assert moved.any()
    (quad,) = cell_quads(h, [(r, c)], grow=0.1)
    cell = np.zeros(moved.shape, np.uint8)
    cv2.fillPoly(cell, [np.round(quad).astype(np.int32)], 1)
    assert not (moved & (cell == 0)).any()
    b, g, red = marked[moved].astype(float).mean(0)
    assert red > b + 40  # orange, not the blue of solved digits
    (inner,) = cell_quads(h, [(r, c)], grow=-0.3)  # the printed digit in the middle stays
    middle = np.zeros(moved.shape, np.uint8)
    cv2.fillPoly(middle, [np.round(inner).astype(np.int32)], 1)
    change = np.abs(marked.astype(int) - plain.astype(int)).max(2)
    assert change[middle == 1].max() < 12  # at most the ring's soft edge, no digit over it


def test_a_cleared_cell_gets_its_digit_drawn_over_the_ink_and_a_ring():
    # the rules dropped what was read in a cell holding ink that was not print (pencil marks
    # read as a digit): the cell still needs its answer, drawn in orange over that ink
    photo = flat_photo(59)
    h = homography(photo.corners)
    r, c = np.argwhere(photo.givens == 0)[0]
    (quad,) = cell_quads(h, [(r, c)])
    (x0, y0), (x1, y1) = quad.min(0), quad.max(0)
    marks = photo.image.copy()
    scale = 0.45 * (y1 - y0) / 22  # Hershey simplex digits are 22 units high
    at = (round(x0 + 0.2 * (x1 - x0)), round((y0 + y1) / 2 + 11 * scale))
    cv2.putText(marks, "39", at, cv2.FONT_HERSHEY_SIMPLEX, scale, (60, 60, 60), 2, cv2.LINE_AA)
    corrected = np.zeros((9, 9), bool)
    corrected[r, c] = True
    digits = np.where(photo.givens == 0, photo.solution, 0)
    ringed = draw(marks, digits, corrected=corrected)
    drawn = draw(marks, digits, corrected=corrected, cleared=corrected)
    (inner,) = cell_quads(h, [(r, c)], grow=-0.3)
    middle = np.zeros(marks.shape[:2], np.uint8)
    cv2.fillPoly(middle, [np.round(inner).astype(np.int32)], 1)
    middle = middle == 1
    change = np.abs(drawn.astype(int) - ringed.astype(int)).max(2)
    assert change[middle].max() > 100  # a digit now stands in the middle of the cell
    orange = changed(marks, drawn) & middle
    b, g, red = drawn[orange].astype(float).mean(0)
    assert red > b + 40  # in the colour of corrections, not the blue of solved digits
    outside = np.ones(marks.shape[:2], np.uint8)  # beyond the cell and its ring's soft edge
    (near,) = cell_quads(h, [(r, c)], grow=0.15)
    cv2.fillPoly(outside, [np.round(near).astype(np.int32)], 0)
    others = np.where(corrected, 0, digits)
    assert np.array_equal(drawn[outside == 1], draw(marks, others)[outside == 1])


def test_outline_follows_the_corners():
    photo = flat_photo(57)
    out = draw(photo.image, np.zeros((9, 9), int), Style(outline=True))
    moved = changed(photo.image, out)
    for a, b in zip(photo.corners, np.roll(photo.corners, -1, 0), strict=True):
        middle = np.round((a + b) / 2).astype(int)
        assert moved[middle[1] - 2 : middle[1] + 3, middle[0] - 2 : middle[0] + 3].any()
    centre = np.round(photo.corners.mean(0)).astype(int)
    assert not moved[centre[1] - 50 : centre[1] + 50, centre[0] - 50 : centre[0] + 50].any()


def test_input_image_is_not_modified():
    photo = flat_photo(58)
    reading = read_image(photo.image)
    before = reading.image.copy()
    answers = Overlay(np.where(photo.givens == 0, photo.solution, 0))
    out = draw_solution(reading, answers)
    assert np.array_equal(before, reading.image)
    again = draw_solution(reading, answers, Style(inplace=True))
    assert again is reading.image and np.array_equal(again, out)  # asked to, it draws in place


def test_png_round_trip_is_exact_and_jpeg_close():
    photo = make_photo(59, size=(320, 240))
    png = encode(photo.image, "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    back = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(back, photo.image)
    jpeg = encode(photo.image, "jpeg", quality=95)
    assert jpeg[:3] == b"\xff\xd8\xff"
    back = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert back.shape == photo.image.shape
    assert np.abs(back.astype(int) - photo.image.astype(int)).mean() < 3
    assert len(encode(photo.image, "jpeg", quality=30)) < len(jpeg)


def test_bad_arguments_are_named():
    image = np.zeros((100, 100, 3), np.uint8)
    with pytest.raises(ValueError, match="digits must have shape"):
        Overlay(np.zeros((8, 9), int))
    with pytest.raises(ValueError, match="0 .draw nothing. or 1..9"):
        Overlay(np.full((9, 9), 12))
    with pytest.raises(ValueError, match="wrong must have shape"):
        Overlay(np.zeros((9, 9), int), wrong=np.zeros((81, 3), bool))
    with pytest.raises(ValueError, match="format"):
        encode(image, "gif")


def test_digits_follow_the_print_when_the_cells_are_found_a_little_off():
    photo = flat_photo(62)
    h = homography(photo.corners)
    reading = read_image(photo.image)
    shift = np.array([0.15, -0.12, 0.15, -0.12]) * STEP  # the cells, not the print, moved
    off = dataclasses.replace(reading, cell_boxes=reading.cell_boxes + shift)
    digits = np.where(photo.givens == 0, photo.solution, 0)
    out = draw_solution(off, Overlay(digits), Style(soften=False))
    strong = (np.abs(out.astype(int) - photo.image.astype(int)).sum(2) > 60).astype(np.uint8)
    in_square = cv2.warpPerspective(strong, h, (SIDE, SIDE), flags=cv2.INTER_NEAREST)
    found = ink_boxes(in_square, zip(*np.nonzero(digits), strict=True))
    errors = [
        max(abs(x - ((c + 0.5) * STEP - 0.5)), abs(y - ((r + 0.5) * STEP - 0.5)))
        for (r, c), (x, y, _) in found.items()
    ]
    assert np.median(errors) <= 2.5  # on the true cells, not 0.15 of a cell away


def reddish(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Pixels the renderer turned red (the mistake colour)."""
    diff = after.astype(int) - before.astype(int)
    return (np.abs(diff).sum(2) > 40) & (after[..., 2].astype(int) > after[..., 0].astype(int) + 40)


def test_a_wrong_entry_is_struck_out_in_red_with_the_right_digit_only_when_given():
    photo = flat_photo(61)
    h = homography(photo.corners)
    r, c = map(int, np.argwhere(photo.givens == 0)[0])
    wrong = np.zeros((9, 9), bool)
    wrong[r, c] = True
    with_digit = np.zeros((9, 9), int)
    with_digit[r, c] = photo.solution[r, c]
    struck = draw(photo.image, np.zeros((9, 9), int), wrong=wrong)
    shown = draw(photo.image, with_digit, wrong=wrong)
    for out in (struck, shown):
        red = cv2.warpPerspective(reddish(photo.image, out).astype(np.uint8), h, (SIDE, SIDE))
        ys, xs = np.nonzero(red)
        assert len(xs) > 20  # a stroke, in this cell only
        assert (xs // STEP == c).all() and (ys // STEP == r).all()

    # the right digit adds red ink in the cell's lower right quarter; the strike alone does not
    def lower_right(out):
        red = cv2.warpPerspective(reddish(photo.image, out).astype(np.uint8), h, (SIDE, SIDE))
        y0, x0 = round((r + 0.62) * STEP), round((c + 0.62) * STEP)
        return int(red[y0 : round((r + 1) * STEP), x0 : round((c + 1) * STEP)].sum())

    assert lower_right(shown) > lower_right(struck) + 10


def test_highlighted_cells_are_framed_and_nothing_else_changes():
    photo = flat_photo(62)
    h = homography(photo.corners)
    highlight = np.zeros((9, 9), bool)
    highlight[4, 4] = highlight[4, 5] = True
    out = draw(photo.image, np.zeros((9, 9), int), highlight=highlight)
    moved = cv2.warpPerspective(changed(photo.image, out).astype(np.uint8), h, (SIDE, SIDE))
    ys, xs = np.nonzero(moved)
    assert len(xs) > 50
    assert set((xs // STEP).astype(int)) <= {4, 5} and set((ys // STEP).astype(int)) == {4}


def test_unclear_entries_are_framed_in_amber_not_violet():
    photo = flat_photo(62)
    h = homography(photo.corners)
    unclear = np.zeros((9, 9), bool)
    unclear[2, 6] = True
    out = draw(photo.image, np.zeros((9, 9), int), unclear=unclear)
    moved = cv2.warpPerspective(changed(photo.image, out).astype(np.uint8), h, (SIDE, SIDE))
    ys, xs = np.nonzero(moved)
    assert len(xs) > 50
    assert set((xs // STEP).astype(int)) == {6} and set((ys // STEP).astype(int)) == {2}
    b, g, r = (out.astype(int) - photo.image.astype(int))[changed(photo.image, out)].mean(axis=0)
    assert r > b  # amber: red over blue, where the violet hint frame is blue over red
