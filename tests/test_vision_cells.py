"""Cutting a warped grid into cells: grid lines found where they really are, digits isolated,
empty cells left empty despite specks, line remnants and shadows."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cells import SIZE, Cells, cut_cells

SIDE = 450
CELL = SIDE // 9


def printed_grid(digits: np.ndarray, side: int = SIDE, thick: int = 5, thin: int = 2) -> np.ndarray:
    """A clean printed grid: digits (81,) with 0 = blank, drawn with OpenCV's Hershey font."""
    cell = side / 9
    img = np.full((side, side), 235, np.uint8)
    for i in np.flatnonzero(digits):
        r, c = divmod(int(i), 9)
        text = str(digits[i])
        scale = cell / 45
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        org = (int((c + 0.5) * cell - w / 2), int((r + 0.5) * cell + h / 2))
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, 30, 2, cv2.LINE_AA)
    for k in range(10):
        p = min(side - 1, int(round(k * cell)))
        w = thick if k % 3 == 0 else thin
        img[:, max(0, p - w // 2) : p - w // 2 + w] = 30
        img[max(0, p - w // 2) : p - w // 2 + w, :] = 30
    return img


def some_digits(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(1, 10, 81) * (rng.random(81) < 0.4)


def test_ink_marks_exactly_the_cells_with_digits():
    digits = some_digits()
    cells = cut_cells(printed_grid(digits))
    assert isinstance(cells, Cells)
    assert cells.images.shape == (81, SIZE, SIZE) and cells.images.dtype == np.uint8
    assert np.array_equal(cells.ink, digits > 0)
    assert not cells.images[~cells.ink].any()
    assert (cells.contrast[cells.ink] > 0.3).all()


def test_ink_boxes_hug_each_digit_and_turn_with_the_cells():
    """The ink box is the digit's own ink (what the renderer sizes its digits by): inside its
    cell, as tall as the printed digit, none in an empty cell, and reordered with the cells
    by a quarter turn (`vision.read` turns its coordinates)."""
    digits = some_digits(3)
    image = printed_grid(digits)
    cells = cut_cells(image)
    for i in np.flatnonzero(digits):
        x0, y0, x1, y1 = cells.ink_boxes[i]
        bx0, by0, bx1, by1 = cells.boxes[i]
        assert bx0 <= x0 < x1 <= bx1 and by0 <= y0 < y1 <= by1
        ink = np.argwhere(image[by0 + 3 : by1 - 3, bx0 + 3 : bx1 - 3] < 128)  # the print
        assert abs((y1 - y0) - (np.ptp(ink[:, 0]) + 1)) <= 2
    assert not cells.ink_boxes[digits == 0].any()
    order = np.rot90(np.arange(81).reshape(9, 9), 1).ravel()  # cell i of the turned grid
    assert np.array_equal(cells.rotated(1).ink_boxes, cells.ink_boxes[order])


def test_boxes_follow_lines_of_a_bent_page():
    """Lines displaced by a smooth bend of up to a fifth of a cell: each box still lies between
    its lines, where a blind ninth split would be off by the full bend."""
    digits = some_digits(1)
    flat = printed_grid(digits)
    yy, xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32)
    # inner vertical lines bow sideways; the outer border stays where the warp put it
    bend = 0.2 * CELL * np.sin(np.pi * yy / SIDE) * np.sin(np.pi * xx / SIDE)
    bent = cv2.remap(flat, xx - bend, yy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cells = cut_cells(bent)
    x0, y0, x1, y1 = cells.boxes.T
    rows = np.arange(81) // 9
    cols = np.arange(81) % 9
    centre_y = (rows + 0.5) * CELL

    def line_x(k):
        return k * CELL + 0.2 * CELL * np.sin(np.pi * centre_y / SIDE) * np.sin(np.pi * k / 9)

    assert np.abs(x0 - line_x(cols)).max() <= 0.1 * CELL
    assert np.abs(x1 - line_x(cols + 1)).max() <= 0.1 * CELL
    blind = np.abs(cols * CELL - line_x(cols)).max()
    assert blind > 0.15 * CELL  # what a ninth split would miss
    assert np.abs(y0 - rows * CELL).max() <= 0.1 * CELL
    assert np.array_equal(cells.ink, digits > 0)


def test_shadow_and_uneven_light_do_not_make_ink():
    digits = some_digits(2)
    img = printed_grid(digits).astype(np.float32)
    yy, xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32) / SIDE
    light = 1.0 - 0.35 * xx - 0.45 * np.exp(-((xx - 0.3) ** 2 + (yy - 0.7) ** 2) / 0.03)
    shaded = np.clip(img * light, 0, 255).astype(np.uint8)
    cells = cut_cells(shaded)
    assert np.array_equal(cells.ink, digits > 0)


def test_specks_and_line_remnants_stay_empty():
    digits = np.zeros(81, int)
    digits[40] = 5
    img = printed_grid(digits)
    # specks in two empty cells, and a grid line drawn a few pixels off in another
    cv2.circle(img, (int(2.5 * CELL), int(2.5 * CELL)), 2, 30, -1)
    cv2.circle(img, (int(6.3 * CELL), int(1.6 * CELL)), 1, 30, -1)
    cv2.line(img, (int(7 * CELL + 6), int(4 * CELL)), (int(7 * CELL + 6), int(5 * CELL)), 30, 2)
    cells = cut_cells(img)
    assert np.flatnonzero(cells.ink).tolist() == [40]


def test_digit_is_centred_and_scaled():
    digits = np.zeros(81, int)
    digits[10] = 7
    img = printed_grid(digits)
    # move the 7 towards the top-left corner of its cell and make it small
    small = np.full((CELL, CELL), 235, np.uint8)
    cv2.putText(small, "7", (7, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 30, 2, cv2.LINE_AA)
    img[CELL + 4 : 2 * CELL - 4, CELL + 4 : 2 * CELL - 4] = small[4:-4, 4:-4]
    cells = cut_cells(img)
    digit = cells.images[10]
    ys, xs = np.nonzero(digit > 64)
    assert abs((ys.min() + ys.max()) / 2 - SIZE / 2) <= 2
    assert abs((xs.min() + xs.max()) / 2 - SIZE / 2) <= 2
    assert max(ys.max() - ys.min(), xs.max() - xs.min()) + 1 >= 0.6 * SIZE


def test_rotated_cells_match_cutting_the_rotated_grid():
    digits = some_digits(3)
    img = printed_grid(digits)
    cells = cut_cells(img)
    for k in range(4):
        turned = cut_cells(np.ascontiguousarray(np.rot90(img, k)))
        quick = cells.rotated(k)
        assert np.array_equal(quick.ink, turned.ink)
        diff = np.abs(quick.images.astype(int) - turned.images.astype(int))
        assert diff.mean() < 8


def test_accepts_bgr_and_other_sizes():
    digits = some_digits(4)
    img = printed_grid(digits, side=270, thick=3, thin=1)
    cells = cut_cells(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
    assert np.array_equal(cells.ink, digits > 0)
    assert cells.boxes.max() <= 270


@pytest.mark.parametrize("shape", [(100, 120), (50, 50), (450,)])
def test_rejects_non_square_or_tiny_input(shape):
    with pytest.raises(ValueError, match="square grid image"):
        cut_cells(np.zeros(shape, np.uint8))


def test_faint_digit_is_found_by_a_second_look():
    """A digit printed much lighter than the rest (glare, a worn print) is still a digit."""
    digits = some_digits(5)
    img = printed_grid(digits)
    faint = int(np.flatnonzero(digits == 0)[3])
    r, c = divmod(faint, 9)
    cv2.putText(
        img,
        "7",
        (int((c + 0.3) * CELL), int((r + 0.78) * CELL)),
        cv2.FONT_HERSHEY_SIMPLEX,
        CELL / 45,
        165,
        2,
        cv2.LINE_AA,
    )
    cells = cut_cells(img)
    expected = digits > 0
    expected[faint] = True
    assert np.array_equal(cells.ink, expected)
    assert cells.contrast[faint] < 0.6 * np.median(cells.contrast[digits > 0])


def test_pale_print_on_a_page_filled_in_dark_pen_is_found():
    """A page filled in by hand in dark pen, its print and lines a pale grey: the pen sets
    the first threshold above the print, and with every blank written in there are no
    empty cells left to measure the paper's specks by, so the paper around the digits
    tells them."""
    rng = np.random.default_rng(11)
    printed = rng.random(81) < 0.3
    img = printed_grid(np.where(printed, rng.integers(1, 10, 81), 0))
    img = np.where(img < 200, 150, img).astype(np.uint8)  # the print and lines pale grey
    for i in np.flatnonzero(~printed):  # every blank written in, in dark pen
        r, c = divmod(int(i), 9)
        cv2.putText(
            img, str(rng.integers(1, 10)), (int((c + 0.3) * CELL), int((r + 0.75) * CELL)),
            cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, CELL / 40, 10, 3, cv2.LINE_AA,
        )  # fmt: skip
    noise = rng.normal(0, 2, img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)

    cells = cut_cells(img)

    assert cells.ink.all(), np.flatnonzero(~cells.ink)


def test_red_pen_on_a_dim_page_is_found_in_colour():
    """On dim yellowish paper a red 7 is nearly as bright as the paper in grey, so the grey
    cut finds only the black print; the colour look finds the pen too and nothing else, and
    leaves the digit images as they were."""
    from vision.cells import with_coloured_ink

    grid = np.zeros((SIDE, SIDE, 3), np.uint8)
    grid[:] = (110, 150, 160)
    for k in range(10):
        p = min(SIDE - 1, k * CELL)
        thick = 4 if k % 3 == 0 else 2
        cv2.line(grid, (p, 0), (p, SIDE - 1), (25, 25, 25), thick)
        cv2.line(grid, (0, p), (SIDE - 1, p), (25, 25, 25), thick)
    printed = {1: "3", 12: "5", 30: "8", 44: "1", 70: "6"}
    for cell, digit in printed.items():
        r, c = divmod(cell, 9)
        org = (c * CELL + 13, r * CELL + 40)
        cv2.putText(grid, digit, org, cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 20), 3)
    org = (4 * CELL + 13, 4 * CELL + 40)  # r5c5
    cv2.putText(grid, "7", org, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 1.2, (70, 95, 230), 3)
    noise = np.random.default_rng(1).normal(0, 4, grid.shape)
    grid = np.clip(grid + noise, 0, 255).astype(np.uint8)
    cells = cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY))
    assert np.flatnonzero(cells.ink).tolist() == sorted(printed)
    seen = with_coloured_ink(grid, cells)
    assert np.flatnonzero(seen.marked).tolist() == sorted([*printed, 40])
    assert np.array_equal(seen.images, cells.images) and np.array_equal(seen.ink, cells.ink)
    assert np.array_equal(seen.rotated(1).blobs, np.rot90(seen.marked.reshape(9, 9)).ravel())
    # the pen's digit is isolated apart, and joins the cells only when asked
    assert np.flatnonzero(seen.pen.ink).tolist() == [40] and seen.pen.images[40].any()
    joined = seen.with_pen([40])
    assert np.array_equal(joined.images[40], seen.pen.images[40])
    assert np.array_equal(joined.ink, cells.ink) and joined.ink_boxes[40].any()
    assert np.array_equal(seen.rotated(2).pen.ink, seen.pen.ink[::-1])


def test_an_entry_written_to_one_side_of_its_cell_is_found_in_colour():
    """Print sits in the middle of its cell, so the grey cut keeps only ink near the centre;
    a hand often writes its entry to one side. The colour look, which finds the entries,
    reaches further out: a blue 7 in the right half of its cell is found there, and no
    other cell gains a digit by it."""
    from vision.cells import CENTRAL, OFF_CENTRE, digit_blobs, with_coloured_ink

    grid = cv2.cvtColor(printed_grid(some_digits(3)), cv2.COLOR_GRAY2BGR)
    cell = 31  # r4c5, blank in some_digits(3)
    r, c = divmod(cell, 9)
    grid[r * CELL + 3 : (r + 1) * CELL - 3, c * CELL + 3 : (c + 1) * CELL - 3] = 235
    org = (c * CELL + 32, r * CELL + 33)  # the digit centred about 0.3 of a cell right
    cv2.putText(grid, "7", org, cv2.FONT_HERSHEY_SIMPLEX, 0.7, (200, 60, 30), 2, cv2.LINE_AA)
    cells = cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY))
    assert not cells.ink[cell]
    seen = with_coloured_ink(grid, cells)
    assert np.flatnonzero(seen.pen.ink).tolist() == [cell]
    ink = (cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY) < 128).astype(np.uint8) * 255
    inner = np.array([[c * CELL + 4, r * CELL + 4, (c + 1) * CELL - 4, (r + 1) * CELL - 4]])
    assert 0 not in digit_blobs(ink, inner, np.zeros(1, bool), reach=CENTRAL)
    assert 0 in digit_blobs(ink, inner, np.zeros(1, bool), reach=OFF_CENTRE)


def test_a_hand_digit_as_tall_as_its_cell_is_a_digit_not_a_line_remnant():
    """People write entries big: a hand's 8 that reaches from the top of its cell to the
    bottom touches the cell's interior edges and is taller than 0.9 of it, which the line
    remnant rule once took for a stub of grid line (on Kubiesa's photos 97 of 560 entries
    went uncut so, read by the cell model alone). A remnant is long and thin; an 8 is wide."""
    img = printed_grid(np.zeros(81, int))
    r, c = 4, 4
    top, left = r * CELL, c * CELL
    # two stacked loops in pencil grey, from edge to edge of the cell's height
    cv2.ellipse(img, (left + 25, top + 14), (9, 10), 0, 0, 360, 90, 2, cv2.LINE_AA)
    cv2.ellipse(img, (left + 25, top + 35), (11, 12), 0, 0, 360, 90, 2, cv2.LINE_AA)
    cells = cut_cells(img)
    assert cells.ink.tolist() == [i == r * 9 + c for i in range(81)]
    x0, y0, x1, y1 = cells.ink_boxes[r * 9 + c]
    assert y1 - y0 > 0.8 * CELL and x1 - x0 < 0.6 * CELL
    # a stub of grid line the same height stays empty
    line = printed_grid(np.zeros(81, int))
    line[top + 2 : top + CELL - 2, left + 5 : left + 8] = 30
    assert not cut_cells(line).ink.any()


def _digit_image_in_numpy(crop, faint, blob, low, size=SIZE):
    """What `digit_image` does, step by step in numpy and OpenCV (as the cut did it before
    its compiled kernel): hysteresis, the 90th percentile, a 3 x 3 dilation, the stretch."""
    n, labels = cv2.connectedComponents(faint, connectivity=8)
    touched = np.zeros(n, bool)
    touched[labels[blob]] = True
    touched[0] = False
    digit = touched[labels] | blob
    _, _, bw, bh = cv2.boundingRect(digit.view(np.uint8))
    if bh > 0.95 * blob.shape[0] or bw > 0.95 * blob.shape[1]:
        digit = blob
    x0, y0, bw, bh = cv2.boundingRect(digit.view(np.uint8))
    values = crop[digit]
    k = int(0.9 * (len(values) - 1))
    strong = float(np.partition(values, k)[k])
    near = cv2.dilate(digit.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    box = (slice(y0, y0 + bh), slice(x0, x0 + bw))
    ink = np.clip((np.where(near[box], crop[box], 0.0) - low) / max(strong - low, 1e-3), 0, 1)
    side = int(round(size * 20 / 28))
    scale = min(side / bh, side / bw)
    nh, nw = max(1, int(round(bh * scale))), max(1, int(round(bw * scale)))
    out = np.zeros((size, size), np.float32)
    top, left = (size - nh) // 2, (size - nw) // 2
    out[top : top + nh, left : left + nw] = cv2.resize(ink, (nw, nh), interpolation=cv2.INTER_AREA)
    return (out * 255).astype(np.uint8), strong, (x0, y0, bw, bh)


def test_the_compiled_digit_is_the_numpy_one_to_the_bit():
    """The cut's compiled kernel (`vision.cells.digit_image`) gives the very images,
    contrasts and boxes of the numpy steps it replaced, on crops with ties, leaks into a
    line, one-pixel blobs and crops that are views into a larger grid."""
    from vision.cells import digit_image

    rng = np.random.default_rng(44)
    for _ in range(400):
        h, w = (int(v) for v in rng.integers(2, 60, 2))
        crop = rng.random((h + 2, w + 3)).astype(np.float32)[1 : h + 1, 2 : w + 2]
        if rng.random() < 0.3:  # ties for the percentile
            crop = np.round(crop * 8) / 8
        faint = (rng.random((h, w)) < rng.random()).astype(np.uint8) * 255
        blob = (rng.random((h, w)) < 0.5 * rng.random()) & (faint > 0)
        blob[rng.integers(h), rng.integers(w)] = True
        low = float(0.6 * rng.random())
        image, strong, box = digit_image(crop, faint, blob, low)
        expected, expected_strong, expected_box = _digit_image_in_numpy(crop, faint, blob, low)
        assert np.array_equal(image, expected)
        assert (strong, box) == (expected_strong, expected_box)


def test_the_compiled_cell_peaks_are_numpys():
    """`vision.cells.cell_peaks` (the second look's specks) gives what slicing and masking
    in numpy gives: each middle's darkest pixel off the lines, and the darkest around each
    digit's widened ink box, NaN where the box covers the middle or the middle is empty."""
    from vision.cells import cell_peaks

    rng = np.random.default_rng(7)
    dark = rng.random((90, 90)).astype(np.float32) * (rng.random((90, 90)) < 0.3)
    lines = ((rng.random((90, 90)) < 0.1) * 255).astype(np.uint8)
    corner = rng.integers(0, 80, (81, 2))
    middles = np.concatenate([corner, corner + rng.integers(-1, 12, (81, 2))], axis=1)
    ink = np.concatenate([corner, corner + rng.integers(0, 10, (81, 2))], axis=1)
    ink = (ink + rng.integers(-4, 5, (81, 4))).astype(np.int32)
    asked = rng.random(81) < 0.7
    peaks, around = cell_peaks()(dark, lines, middles, ink, asked)
    free = np.where(lines == 0, dark, 0.0)
    for i, (a, b, c, d) in enumerate(middles):
        empty = c <= a or d <= b
        assert peaks[i] == (0.0 if empty else free[b:d, a:c].max())
        paper = np.ones((max(d - b, 0), max(c - a, 0)), bool)
        x0, y0, x1, y1 = ink[i] + (-2 - a, -2 - b, 2 - a, 2 - b)
        paper[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = False
        if empty or not asked[i] or not paper.any():
            assert np.isnan(around[i])
        else:
            assert around[i] == free[b:d, a:c][paper].max()


def test_the_compiled_cell_interiors_are_the_slices():
    """`vision.cells.cell_interiors` copies each asked interior's ink and owner as slicing
    in turn does, a later cell over an earlier one where boxes overlap."""
    from vision.cells import cell_interiors

    rng = np.random.default_rng(9)
    ink = ((rng.random((60, 70)) < 0.3) * 255).astype(np.uint8)
    corner = rng.integers(0, 60, (81, 2))
    inner = np.concatenate([corner, corner + rng.integers(0, 20, (81, 2))], axis=1)
    skip = rng.random(81) < 0.3
    inside, owner = cell_interiors()(ink, inner, skip)
    expected, owners = np.zeros_like(ink), np.full(ink.shape, -1, np.int16)
    for i, (x0, y0, x1, y1) in enumerate(inner):
        if not skip[i]:
            expected[y0:y1, x0:x1] = ink[y0:y1, x0:x1]
            owners[y0:y1, x0:x1] = i
    assert np.array_equal(inside, expected) and np.array_equal(owner, owners)
