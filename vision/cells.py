"""Cut a warped, square sudoku grid into 81 cells and isolate the digit in each.

The warp makes the outer border square, but a bent page or a slightly wrong corner leaves the
inner lines a few pixels off the ideal ninths. A blind 1/9 split then cuts through thick box
lines and digits. So we find the grid lines themselves, locally: each horizontal line is looked
for in nine vertical strips (and each vertical line in nine horizontal strips), and every cell
is bounded by the four line pieces that surround it.

Inside a cell the printed digit is the connected ink blob near the centre; line pixels (any
long straight stroke, wherever it runs) are removed first, remnants that touch the cell border
while long and thin are dropped, specks are small. Light is flattened first (each pixel is
divided by a local paper estimate), so shadows and uneven light do not look like ink, and the
ink threshold follows each photo's own contrast. Empty vs digit is decided twice: at the
photo's usual print level, then, only in empty cells whose middle stands out from the specks
of the other empty cells, at a lower level (a thin 1 faded by blur or glare). A found blob is
grown by hysteresis into the fainter ink connected to it (the light bar of a blurred 4).

The digit is then normalised for recognition: cropped to its ink, scaled so its longer side is
20 px, centred in a 28 x 28 square (MNIST-like), ink bright (255) on black, its darkness
stretched between the faint level and its own strong ink.

>>> import numpy as np
>>> cells = cut_cells(np.full((450, 450), 255, np.uint8))
>>> cells.images.shape, int(cells.ink.sum())
((81, 28, 28), 0)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.compiled import on_first_use

SIZE = 28  # side of a normalised digit image
FAINT = 0.5  # hysteresis: faint ink, connected to a found digit, is part of it
DIGIT_HEIGHT = 20  # height of the digit inside it (MNIST-like margins)
# How far from a cell's centre a digit's centre may lie, as a share of the cell: print is
# set in the middle; a hand often writes its entry to one side (`with_coloured_ink`)
CENTRAL, OFF_CENTRE = 0.3, 0.45


@dataclass(frozen=True)
class Cells:
    """The 81 cells of a warped grid, in reading order (row by row).

    images: (81, S, S) uint8, the isolated digit, ink 255 on 0; all zero for empty cells.
    ink: (81,) bool, True where a digit-like blob was found.
    boxes: (81, 4) int, x0, y0, x1, y1 of each cell in warped coordinates (inside the lines).
    contrast: (81,) float32, how dark the blob is against its paper (0 when empty);
        a faint blob (found only by the second, lower threshold) has a low one.
    ink_boxes: (81, 4) int, x0, y0, x1, y1 of the isolated ink itself in warped coordinates
        (0 where no ink was found): where the print sits and how tall it is, which the
        renderer sizes and places its digits by.
    marked: (81,) bool or None, where a digit-like blob of ink of any colour stands: `ink`,
        and coloured pen that the grey threshold missed (`with_coloured_ink`); None until
        looked for in colour.
    pen: Cells or None, the digits isolated in colour where the grey cut found none (its
        `ink` says where), kept apart: colour also finds the grain of a dim photo, so
        only those whose ink is the page's pen join the cells (`vision.read`).
    """

    images: np.ndarray
    ink: np.ndarray
    boxes: np.ndarray
    contrast: np.ndarray
    ink_boxes: np.ndarray
    marked: np.ndarray | None = None
    pen: Cells | None = None

    def rotated(self, k: int) -> Cells:
        """The same cells as if the warped grid had been turned k quarter turns
        counter-clockwise (np.rot90), without cutting again: cheap orientation trials."""
        k %= 4
        if k == 0:
            return self
        order = np.rot90(np.arange(81).reshape(9, 9), k).ravel()
        images = np.rot90(self.images[order], k, axes=(1, 2)).copy()
        marked = None if self.marked is None else self.marked[order]
        return Cells(
            images,
            self.ink[order],
            self.boxes[order],
            self.contrast[order],
            self.ink_boxes[order],
            marked,
            None if self.pen is None else self.pen.rotated(k),
        )

    def with_pen(self, cells: np.ndarray) -> Cells:
        """These cells with the pen's digits (`pen`) of `cells` (indices or a mask) joined:
        their images and boxes, `ink` left as the grey cut's."""
        images, contrast, ink_boxes = (
            self.images.copy(),
            self.contrast.copy(),
            self.ink_boxes.copy(),
        )
        images[cells], contrast[cells] = self.pen.images[cells], self.pen.contrast[cells]
        ink_boxes[cells] = self.pen.ink_boxes[cells]
        return replace(self, images=images, contrast=contrast, ink_boxes=ink_boxes)

    @property
    def blobs(self) -> np.ndarray:
        """(81,) bool: where a digit-like blob stands, in colour when it was looked for."""
        return self.ink if self.marked is None else self.marked


# ---------------------------------------------------------------- light


def darkness(gray: np.ndarray, k: int | None = None) -> np.ndarray:
    """Ink darkness in [0, 1]: 1 - pixel / local paper brightness (per channel for colour).

    The paper brightness is a grey closing (max filter then min filter) wider than any
    stroke, so it follows shadows and gradients but not the ink itself; `k`, its width,
    defaults to a thirtieth of the image (`paper_width`), so pass the whole image's when
    taking a part of it.
    """
    k = paper_width(gray) if k is None else k
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    paper = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, kernel)
    paper = cv2.blur(paper, (k, k)).astype(np.float32)
    paper += 1.0
    # in place, and only the floor: ink / paper >= 0, so 1 - it never exceeds 1 (the same
    # values as np.clip(1 - gray / paper, 0, 1) in half the time)
    dark = gray.astype(np.float32)
    dark /= paper
    np.subtract(1.0, dark, out=dark)
    return np.maximum(dark, 0.0, out=dark)


def ink_mask(dark: np.ndarray, level: float) -> np.ndarray:
    """uint8 255 where `dark` reaches `level`, else 0 (the bytes of the comparison scaled:
    `(dark >= level) * 255` made an int64 image first, eight times the memory)."""
    return (dark >= level).view(np.uint8) * np.uint8(255)


def paper_width(image: np.ndarray) -> int:
    """The width of `darkness`'s paper filter for an image: odd, a thirtieth of its side."""
    return max(3, (max(image.shape[:2]) // 30) | 1)


def ink_threshold(dark: np.ndarray) -> float:
    """A darkness threshold for this grid: a fraction of its strong ink (grid lines and digits
    are the darkest few percent), never below a noise floor."""
    strong = float(np.percentile(dark[::3, ::3], 99.0))
    return max(0.08, 0.4 * strong)


# ---------------------------------------------------------------- grid lines


def line_masks(ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal and vertical line pixels: ink that survives an opening by a thin kernel
    longer than any digit is wide or tall."""
    cell = ink.shape[0] / 9
    n = max(5, int(cell * 0.9))
    # outside the image counts as paper: by default erosion treats it as ink, and a digit
    # near the border would pass for the end of a line
    paper = dict(borderType=cv2.BORDER_CONSTANT, borderValue=0)
    horizontal = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, n), np.uint8), **paper)
    vertical = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((n, 1), np.uint8), **paper)
    return horizontal, vertical


def line_positions(profiles: np.ndarray, cell: float, strength: float) -> np.ndarray:
    """(10, k) line positions along k strips' smoothed profiles (line pixels per row).

    Each line is searched near where the previous line plus one cell puts it, which follows
    a gradual drift; where no line is strong enough, that guess is kept. All strips at once.
    """
    k, n = profiles.shape
    found = np.zeros((10, k))
    window = max(2, int(round(cell * 0.25)))
    offsets = np.arange(-window, window + 1)
    strip = np.arange(k)[:, None]
    for i in range(10):
        expected = np.full(k, i * cell) if i in (0, 9) else 0.5 * (i * cell + found[i - 1] + cell)
        idx = np.clip(expected.astype(int)[:, None] + offsets, 0, n - 1)
        seg = profiles[strip, idx]
        top = seg.max(axis=1)
        near_top = seg >= 0.8 * top[:, None]
        first = idx[np.arange(k), near_top.argmax(axis=1)]
        last = idx[np.arange(k), len(offsets) - 1 - near_top[:, ::-1].argmax(axis=1)]
        found[i] = np.where(top >= strength, 0.5 * (first + last), expected)
    return found


def strip_profiles(lines: np.ndarray, axis: int) -> np.ndarray:
    """(9, side) line pixels per row (axis=1) or column (axis=0) in each of nine strips,
    lightly smoothed."""
    side = lines.shape[0]
    starts = (np.arange(9) * side / 9).astype(int)
    if axis == 1:
        prof = np.add.reduceat(lines.astype(np.float32), starts, axis=1).T
    else:
        prof = np.add.reduceat(lines.astype(np.float32), starts, axis=0)
    return cv2.blur(prof / 255.0, (3, 1))


def grid_lines(horizontal: np.ndarray, vertical: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Local positions of the 10 horizontal and 10 vertical grid lines.

    Returns rows (10, 9): y of horizontal line i in column strip j, and cols (10, 9): x of
    vertical line i in row strip j. Outliers across strips are replaced by the median.
    """
    side = horizontal.shape[0]
    cell = side / 9
    strength = 0.3 * cell
    hprof = strip_profiles(horizontal, axis=1)
    vprof = strip_profiles(vertical, axis=0)
    both = line_positions(np.concatenate([hprof, vprof]), cell, strength)
    rows, cols = both[:, :9], both[:, 9:]
    return steady(rows, cell), steady(cols, cell)


def steady(lines: np.ndarray, cell: float) -> np.ndarray:
    """Replace a strip's line position that strays from its neighbours' median by more than
    a fifth of a cell: a digit or a smudge, not the line."""
    padded = np.pad(lines, ((0, 0), (2, 2)), mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, 5, axis=1)
    med = np.median(windows, axis=2)
    return np.where(np.abs(lines - med) > 0.2 * cell, med, lines)


# ---------------------------------------------------------------- cells


def cell_boxes(rows: np.ndarray, cols: np.ndarray, side: int) -> np.ndarray:
    """(81, 4) x0, y0, x1, y1 of each cell between its four surrounding line pieces."""
    r, c = np.divmod(np.arange(81), 9)
    boxes = np.stack([cols[c, r], rows[r, c], cols[c + 1, r], rows[r + 1, c]], axis=1)
    boxes = np.rint(boxes).astype(np.int32)
    return np.clip(boxes, 0, side)


def cut_cells(warped_gray: np.ndarray, size: int = SIZE, dark: np.ndarray | None = None) -> Cells:
    """Cut a warped square grid into 81 cells and isolate the digit in each.

    Parameters
    ----------
    warped_gray : ndarray of uint8, shape (side, side) or (side, side, 3)
        The upright grid, grey or BGR, side at least 90 pixels.
    size : int
        The side of each normalised digit image.
    dark : ndarray of float32, optional
        The grid's `darkness`, when the caller has it already (the reader's gate,
        `vision.gate`, looks at it too).

    Returns
    -------
    Cells
        The normalised digits, which cells hold ink, the cell and ink boxes.

    Examples
    --------
    >>> cells = cut_cells(np.full((450, 450), 255, np.uint8))
    >>> cells.images.shape, int(cells.ink.sum())
    ((81, 28, 28), 0)
    """
    gray = warped_gray
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    if gray.ndim != 2 or gray.shape[0] != gray.shape[1] or gray.shape[0] < 90:
        raise ValueError(f"cut_cells needs a square grid image of side >= 90, got {gray.shape}")
    side = gray.shape[0]
    dark = darkness(gray) if dark is None else dark
    level = ink_threshold(dark)
    strong = ink_mask(dark, level)
    horizontal, vertical = line_masks(strong)
    rows, cols = grid_lines(horizontal, vertical)
    boxes = cell_boxes(rows, cols, side)
    inner = interiors(boxes)
    # line pixels (wherever the lines really run) are not digit ink
    lines = cv2.dilate(horizontal | vertical, np.ones((3, 3), np.uint8))
    images = np.zeros((81, size, size), np.uint8)
    found = np.zeros(81, bool)
    contrast = np.zeros(81, np.float32)
    ink_boxes = np.zeros((81, 4), np.int32)

    def keep(digits) -> None:
        for i, image, strength, box in digits:
            images[i], contrast[i], ink_boxes[i], found[i] = image, strength, box, True

    # first the grid's usual print, then (when some empty cell's middle is darker than its
    # neighbours' specks) a second look at a lower threshold in those cells only
    ink = strong & ~lines
    keep(find_digits(dark, ink, lines, inner, level, ~found, size))
    second = faint_level(dark, lines, inner, level, found, ink_boxes)
    if second is not None:
        weak, look = second
        ink = without_lines(ink_mask(dark, weak), lines)
        keep(find_digits(dark, ink, lines, inner, weak, look, size))
    return Cells(images, found, boxes, contrast, ink_boxes)


def with_coloured_ink(warped_bgr: np.ndarray, cells: Cells) -> Cells:
    """The cells with `marked` set: their blobs, and the cells where coloured ink makes one.

    Red pen on a dim, yellowish photo is nearly as bright as its paper in grey (the red
    channel carries most of the grey), so the grey threshold that finds the print misses
    it; in its darkest channel it is as dark as print. Each channel's darkness against its
    own paper is taken, the darkest channel per pixel, and digit-shaped blobs are looked
    for in the cells where none was cut: `marked` says where, for the entries
    (`api.photo.entries.hand_marks`), and `pen` holds those digits isolated, apart from the grey
    cut's.

    >>> grid = np.full((450, 450, 3), 230, np.uint8)
    >>> _ = cv2.putText(grid, "7", (12, 42), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (40, 40, 200), 3)
    >>> cells = cut_cells(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY))
    >>> bool(cells.ink[0]), bool(with_coloured_ink(grid, cells).marked[0])
    (True, True)
    """
    if warped_bgr.ndim != 3:
        return without_coloured_ink(cells)
    pen = without_coloured_ink(cells).pen
    each = darkness(warped_bgr)  # each channel against its own paper
    # the darkest channel, taken on the channels' strided views (cv2.split copied them)
    dark = np.maximum(np.maximum(each[..., 0], each[..., 1]), each[..., 2])
    level = ink_threshold(dark)
    ink = ink_mask(dark, level)
    # the long strokes of this very mask: what `without_lines` would take out of it again
    lines = cv2.dilate(np.bitwise_or(*line_masks(ink)), np.ones((3, 3), np.uint8))
    size = cells.images.shape[1]
    inner = interiors(cells.boxes)
    for i, image, strength, box in find_digits(
        dark, ink & ~lines, lines, inner, level, ~cells.ink, size, OFF_CENTRE
    ):
        pen.images[i], pen.contrast[i], pen.ink_boxes[i], pen.ink[i] = image, strength, box, True
    return replace(cells, marked=cells.ink | pen.ink, pen=pen)


def without_coloured_ink(cells: Cells) -> Cells:
    """The cells as `with_coloured_ink` leaves them when colour shows no digit: `marked` their
    blobs, `pen` empty (a grey grid, or a page not looked at in colour)."""
    pen = Cells(
        np.zeros_like(cells.images),
        np.zeros(81, bool),
        cells.boxes,
        np.zeros(81, np.float32),
        np.zeros((81, 4), np.int32),
    )
    return replace(cells, marked=cells.ink.copy(), pen=pen)


def find_digits(dark, ink, lines, inner, strength, look, size: int = SIZE, reach=CENTRAL):
    """Isolate and normalise the digits of the cells in `look` (centred within `reach` of
    the cell): for each digit found, its cell, normalised image, contrast and ink box
    (x0, y0, x1, y1 in the square)."""
    # lines seen at the faint threshold (the edge of a blurred grid line, a fold, a pen
    # stroke across the page) are not part of a digit
    faint = None  # made at the first digit: most cells a colour look visits hold none
    for i, blob in digit_blobs(ink, inner, skip=~look, reach=reach).items():
        if faint is None:
            faint = without_lines(ink_mask(dark, FAINT * strength), lines)
        x0, y0, x1, y1 = inner[i]
        image, contrast, (bx, by, bw, bh) = digit_image(
            dark[y0:y1, x0:x1], faint[y0:y1, x0:x1], blob, FAINT * strength, size
        )
        yield i, image, contrast, (x0 + bx, y0 + by, x0 + bx + bw, y0 + by + bh)


def without_lines(mask: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """The mask less the grid lines and any other long straight stroke it holds."""
    own = cv2.dilate(np.bitwise_or(*line_masks(mask)), np.ones((3, 3), np.uint8))
    return mask & ~lines & ~own


def faint_level(
    dark: np.ndarray,
    lines: np.ndarray,
    inner: np.ndarray,
    level: float,
    found: np.ndarray,
    ink_boxes: np.ndarray,
):
    """A second, lower threshold for digits fainter than the grid's usual print (blur and
    glare fade a thin 1 or 7 in one corner of a photo), set well above the darkest speck of
    a typical empty cell. Returns it with the cells to look at again (empty cells whose
    middle reaches it), or None when no cell needs a second look.

    On a page filled in by hand nearly every cell holds ink, and a dark pen sets the first
    threshold, above a pale grey print: on one hand-filled Wicht photo 7 printed digits fell
    below it, and the 7 cells left were too few to tell the paper's specks by; on others
    20 to 27 printed digits fell below it, and were most of the cells left. So on a page
    with more digits found than blanks the specks are also measured on the paper around
    the found digits (each cell's middle less its digit's ink box, widened by 2 pixels), and
    the quieter of the two measures counts. (Not on a page of print alone: on a bent one
    the paper between the print is cleaner than its shadowed blanks, and the lower
    threshold took shadows in five blanks for digits.)
    """
    x0, y0, x1, y1 = inner.T
    mx, my = (x1 - x0) // 5, (y1 - y0) // 5  # the middle of a cell, clear of line edges
    middles = np.stack([x0 + mx, y0 + my, x1 - mx, y1 - my], axis=1)
    hand = found.sum() > len(found) // 2  # more digits than blanks: a page filled in by hand
    peaks, around = cell_peaks()(dark, lines, middles, ink_boxes, found & hand)
    samples = [peaks[~found]]
    if hand:
        samples.append(around[found & ~np.isnan(around)])
    specks = [float(np.median(x)) for x in samples if len(x) >= 20]
    if not specks or found.all():
        return None
    weak = max(3.0 * min(specks), 0.5 * level, 0.05)
    look = ~found & (peaks >= weak)
    if weak >= 0.9 * level or not look.any():
        return None
    return weak, look


def _cell_peaks(dark, lines, middles, ink_boxes, around_ink):
    """Each cell's darkest speck in its middle (`middles`: x0, y0, x1, y1), grid line pixels
    counting as paper (0 where the middle is empty); and where `around_ink`, the darkest
    outside its digit's ink box widened by 2 pixels (NaN where the digit covers the middle,
    or not asked). For `faint_level`. Compiled (`cell_peaks`): 81 slices and a masked max
    each, a millisecond on a page filled in by hand, in one pass."""
    peaks = np.zeros(len(middles))
    around = np.full(len(middles), np.nan)
    for i in range(len(middles)):
        a, b, c, d = middles[i]
        if c <= a or d <= b:
            continue
        peak = np.float32(0.0)  # darkness is never below 0
        for y in range(b, d):
            for x in range(a, c):
                if lines[y, x] == 0 and dark[y, x] > peak:
                    peak = dark[y, x]
        peaks[i] = peak
        if not around_ink[i]:
            continue
        bx0, by0 = max(ink_boxes[i, 0] - 2, a), max(ink_boxes[i, 1] - 2, b)
        bx1, by1 = max(ink_boxes[i, 2] + 2, a), max(ink_boxes[i, 3] + 2, b)
        seen, peak = False, np.float32(0.0)
        for y in range(b, d):
            for x in range(a, c):
                if by0 <= y < by1 and bx0 <= x < bx1:
                    continue  # the digit's box
                speck = dark[y, x] if lines[y, x] == 0 else np.float32(0.0)
                if not seen or speck > peak:
                    seen, peak = True, speck
        if seen:
            around[i] = peak
    return peaks, around


# `_cell_peaks` compiled on first use; `vision.read.warm_up` loads it
cell_peaks = on_first_use(_cell_peaks)


def interiors(boxes: np.ndarray) -> np.ndarray:
    """Each cell box shrunk by a margin that clears the grid line (lines are found at their
    centre, so half the line still lies inside the box)."""
    x0, y0, x1, y1 = boxes.T
    mx = np.maximum(1, (0.08 * (x1 - x0)).astype(int))
    my = np.maximum(1, (0.08 * (y1 - y0)).astype(int))
    inner = np.stack([x0 + mx, y0 + my, x1 - mx, y1 - my], axis=1)
    inner[:, 2] = np.maximum(inner[:, 2], inner[:, 0])
    inner[:, 3] = np.maximum(inner[:, 3], inner[:, 1])
    return inner


def digit_blobs(
    ink: np.ndarray, inner: np.ndarray, skip: np.ndarray, reach: float = CENTRAL
) -> dict[int, np.ndarray]:
    """The digit of each non-empty cell, as a mask over the cell's interior.

    One connected-components pass over the ink of all cell interiors (separated by the
    cleared line bands). A component belongs to the cell holding it; it is kept when it is
    not a speck, lies near the cell centre (within `reach` of the cell's width and height),
    and is not a line remnant (touching the interior border while long one way and thin the
    other: a hand's big 8 reaches from the top of its cell to the bottom too, and was once
    dropped so, 97 of Kubiesa's 560 entries, while a printed digit never does). A cell
    is empty when what it keeps is too small to be a printed digit, or fills the cell like
    a blot.
    """
    inside, owner = cell_interiors()(np.ascontiguousarray(ink), inner, skip)
    # Grana's algorithm: measured 0.7 ms here against 1.6 ms for the default
    n, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        inside, 8, cv2.CV_32S, cv2.CCL_GRANA
    )
    x, y, bw, bh, area = stats.T.astype(np.float32)
    cell = owner[stats[:, 1], stats[:, 0]]  # the top-left of a component's box is in its cell
    cx0, cy0, cx1, cy1 = inner[np.maximum(cell, 0)].T.astype(np.float32)
    cw, ch = np.maximum(cx1 - cx0, 1), np.maximum(cy1 - cy0, 1)
    x, y = x - cx0, y - cy0
    speck = (area < 0.004 * cw * ch) | (np.maximum(bw, bh) < 0.12 * ch)
    touches = (x <= 0) | (y <= 0) | (x + bw >= cw) | (y + bh >= ch)
    narrow = np.minimum(bw, bh) <= np.maximum(2, 0.08 * cw)
    thin = ((bw > 0.8 * cw) & (bh <= 0.3 * ch)) | ((bh > 0.9 * ch) & (bw <= 0.3 * cw)) | narrow
    off_x, off_y = np.abs(x + bw / 2 - cw / 2), np.abs(y + bh / 2 - ch / 2)
    central = (off_x <= reach * cw) & (off_y <= reach * ch)
    keep = ~speck & ~(touches & thin) & central & (cell >= 0)
    keep[0] = False  # background
    blobs = {}
    kept = np.flatnonzero(keep)
    if not kept.size:
        return blobs
    kept = kept[np.argsort(cell[kept], kind="stable")]
    owners, starts = np.unique(cell[kept], return_index=True)
    # each cell's kept components' joint box, from their stats, all cells at once
    left, top = stats[kept, 0], stats[kept, 1]
    h = np.maximum.reduceat(top + stats[kept, 3], starts) - np.minimum.reduceat(top, starts)
    w = np.maximum.reduceat(left + stats[kept, 2], starts) - np.minimum.reduceat(left, starts)
    x0, y0, x1, y1 = inner[owners].T
    short = np.minimum(y1 - y0, x1 - x0)
    # sizes compared whichever way up: photos may be stored sideways
    digit = (np.maximum(h, w) >= 0.3 * short) & (np.minimum(h, w) <= 0.85 * short)
    if not digit.any():
        return blobs
    mine = np.full(n, -1, np.int16)  # each kept component's cell, where it makes a digit
    mine[kept] = np.repeat(np.where(digit, owners, -1), np.diff([*starts, len(kept)]))
    for i in owners[digit].tolist():
        x0, y0, x1, y1 = inner[i]
        blobs[i] = mine[labels[y0:y1, x0:x1]] == i
    return blobs


def _cell_interiors(ink, inner, skip):
    """The ink of the cell interiors `inner` (x0, y0, x1, y1) not in `skip`, paper elsewhere,
    and which cell owns each pixel (-1 for none; a later cell over an earlier one). For
    `digit_blobs`. Compiled (`cell_interiors`): two slice copies for each of 81 cells took
    about 0.3 ms, the whole grid's pixels walked once far less."""
    height, width = ink.shape
    inside = np.zeros((height, width), ink.dtype)
    owner = np.full((height, width), -1, np.int16)
    for i in range(len(inner)):
        if skip[i]:
            continue
        x0, y0, x1, y1 = inner[i]
        for y in range(max(y0, 0), min(y1, height)):
            for x in range(max(x0, 0), min(x1, width)):
                inside[y, x] = ink[y, x]
                owner[y, x] = i
    return inside, owner


# `_cell_interiors` compiled on first use; `vision.read.warm_up` loads it
cell_interiors = on_first_use(_cell_interiors)


def digit_image(
    crop: np.ndarray, faint: np.ndarray, blob: np.ndarray, low: float, size: int = SIZE
) -> tuple[np.ndarray, float, tuple[int, int, int, int]]:
    """A cell's digit grown from its blob and normalised: the size x size image (ink 255 on
    0), its contrast and its box (x, y, width, height) in the cell.

    Grown by hysteresis (`_grown_ink`): the faint ink connected to the blob, since a
    blurred digit's thin strokes (the bar of a 4, the foot of a 2) are often lighter than
    the threshold that found it. Then centred and scaled into the square, its darkness
    stretched from the faint-ink level `low` to the digit's own strong darkness, so faint
    and bold print look alike while the grey shading of a blurred stroke (what tells a
    blurred 4 from a blot) survives. Pixels next to the digit (its anti-aliased edge) are
    kept, everything else is cleared.

    >>> crop = np.zeros((40, 40), np.float32); crop[8:32, 18:22] = 0.8   # a bar: a 1
    >>> blob = crop > 0.5
    >>> image, contrast, box = digit_image(crop, blob.view(np.uint8), blob, 0.2)
    >>> image.shape, round(contrast, 2), box
    ((28, 28), 0.8, (18, 8, 4, 24))
    """
    count, labels = cv2.connectedComponents(faint, connectivity=8)
    ink, strong, box = grown_ink()(blob, labels, count, crop, float(low))
    return (normalised(ink, size) * 255).astype(np.uint8), strong, box


def normalised(ink: np.ndarray, size: int = SIZE) -> np.ndarray:
    """A digit's ink (float32 in [0, 1], cropped to it) scaled so its longer side is
    `DIGIT_HEIGHT` of `size` and centred in a size x size square, MNIST-like.

    >>> normalised(np.ones((10, 4), np.float32)).shape
    (28, 28)
    """
    h, w = ink.shape
    side = int(round(size * DIGIT_HEIGHT / 28))
    scale = min(side / h, side / w)
    nh, nw = max(1, int(round(h * scale))), max(1, int(round(w * scale)))
    small = cv2.resize(ink, (nw, nh), interpolation=cv2.INTER_AREA)
    out = np.zeros((size, size), np.float32)
    top, left = (size - nh) // 2, (size - nw) // 2
    out[top : top + nh, left : left + nw] = small
    return out


def _grown_ink(blob, labels, count: int, crop, low: float):
    """The digit's stretched ink over its box (float32), its strong darkness and its box
    (x, y, width, height), for `digit_image`: the blob with every faint component
    (`labels`, `count` of them, 0 the paper) it touches, or the blob alone when that grew
    across nine tenths of the cell (it leaked into a shadow or a line); its strong darkness
    the 90th percentile of its pixels' in `crop`; its ink the crop where the digit or a
    neighbour of it is, stretched from `low` to that, in [0, 1]. Compiled (`grown_ink`):
    the same numbers as the numpy and OpenCV steps it replaced (a dozen small calls a
    digit, 30 digits a grid), in float32 where they were."""
    h, w = blob.shape
    touched = np.zeros(count, np.bool_)
    bx0, by0, bx1, by1 = w, h, -1, -1  # the blob's box
    for y in range(h):
        for x in range(w):
            if blob[y, x]:
                touched[labels[y, x]] = True
                bx0, bx1, by0, by1 = min(bx0, x), max(bx1, x), min(by0, y), y
    touched[0] = False
    digit = np.zeros((h, w), np.bool_)
    x0, y0, x1, y1 = w, h, -1, -1
    for y in range(h):
        for x in range(w):
            if blob[y, x] or touched[labels[y, x]]:
                digit[y, x] = True
                x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), y
    if y1 - y0 + 1 > 0.95 * h or x1 - x0 + 1 > 0.95 * w:
        digit[:, :] = blob
        x0, y0, x1, y1 = bx0, by0, bx1, by1
    bh, bw = y1 - y0 + 1, x1 - x0 + 1
    values = np.empty(bh * bw, np.float32)
    n = 0
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            if digit[y, x]:
                values[n] = crop[y, x]
                n += 1
    # the 90th percentile as np.partition finds it, by quickselect (numba's sort took
    # 14 us for a digit's 240 values)
    k, lo, hi = int(0.9 * (n - 1)), 0, n - 1
    while lo < hi:
        pivot = values[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while values[i] < pivot:
                i += 1
            while values[j] > pivot:
                j -= 1
            if i <= j:
                values[i], values[j] = values[j], values[i]
                i, j = i + 1, j - 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    strong = float(values[k])
    low32 = np.float32(low)
    spread = np.float32(max(strong - low, 1e-3))
    across = np.zeros((bh, bw), np.bool_)  # the digit widened by a pixel along rows
    for y in range(bh):
        for x in range(bw):
            if digit[y0 + y, x0 + x]:
                across[y, x] = True
                across[y, max(x - 1, 0)] = across[y, min(x + 1, bw - 1)] = True
    ink = np.zeros((bh, bw), np.float32)
    for y in range(bh):
        for x in range(bw):
            if across[y, x] or (y > 0 and across[y - 1, x]) or (y + 1 < bh and across[y + 1, x]):
                value = (crop[y0 + y, x0 + x] - low32) / spread
                ink[y, x] = min(max(value, np.float32(0.0)), np.float32(1.0))
    return ink, strong, (x0, y0, bw, bh)


# `_grown_ink` compiled on first use; `vision.read.warm_up` loads it
grown_ink = on_first_use(_grown_ink)
