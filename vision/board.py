"""What kind of board a located grid is: its boxes, its diagonals, and the kinds not solved.

The size comes from the lines (`vision.lattice`); the rest from the warped grid itself:

- **Boxes.** A 6x6's boxes are 2 rows by 3 columns: its thicker lines run every second
  row and every third column (or the other way round on a photo turned a quarter).
- **Diagonals.** A diagonal ("X") sudoku marks its two diagonals, as puzzle books do, by
  tinting their cells or drawing a line corner to corner through them.
- **Not solved here.** A killer sudoku's cages are dashed lines just inside the cells; a
  jigsaw's regions are thick lines off the boxes' places. Either is named, so the reader
  refuses it rather than answering a plain sudoku it is not.

Every measure is on the grid warped upright-or-not to a square (`vision.warp.warp_grid`),
grey, dark print on light paper.

>>> square = np.full((450, 450), 235, np.uint8)
>>> for k in range(10):
...     width = 4 if k % 3 == 0 else 1
...     square[:, max(0, 50 * k - width):50 * k + width] = 30
...     square[max(0, 50 * k - width):50 * k + width, :] = 30
>>> board_kind(square, 9)
Board(size=9, box_shape=(3, 3), variant='standard', refused=None)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CELL = 25  # pixels a cell in the square every measure is taken on (half the 9x9's warp)
# Box shapes by board size; a 6x6's may show turned (3, 2) on a photo turned a quarter.
BOXES = {6: ((2, 3), (3, 2)), 9: ((3, 3),), 16: ((4, 4),)}
# grey levels a diagonal's tinted cells lie below the rest of their box: 21 to 35 on
# rendered diagonal photos, at most 3 on the 400 labelled 9x9 photos
TINT = 10
DIAGONAL_LINE = 0.3  # more ink on a drawn diagonal than beside it: 0.66-0.79 drawn, <= 0.11 on 9x9s
DASHED_CELLS = 0.5  # share of a killer's cells that show a dashed cage side
JUMP = 1.8  # a line this much thicker on one cell's side than the next: a region's edge
# such turns that make a jigsaw: 45 to 73 on rendered jigsaw photos; at most 24 on the 400
# labelled 9x9 photos of ../shared (a blurred grid cut off at its top), 20 the next
JUMPS = 32


@dataclass(frozen=True)
class Board:
    """size: cells a side; box_shape: (rows, columns) of a box as the square shows it;
    variant: "standard" or "diagonal"; refused: the kind of puzzle it is when the project
    does not solve it ("killer", "jigsaw", "samurai"), else None."""

    size: int
    box_shape: tuple[int, int]
    variant: str = "standard"
    refused: str | None = None


def board_kind(square: np.ndarray, size: int) -> Board:
    """The board a grid of `size` cells a side is, from its warped grey square."""
    square = cv2.resize(square, (CELL * size, CELL * size), interpolation=cv2.INTER_AREA)
    across = int(0.3 * CELL) | 1  # wider than any line: the paper, its tint and shadow
    dark = cv2.morphologyEx(square, cv2.MORPH_BLACKHAT, np.ones((across, across), np.uint8))
    dark = dark.astype(np.float32)
    boxes = box_shape(line_masses(dark, size), size)
    if size == 9:
        ink = ink_mask(square)
        if killer_cages(ink):
            return Board(size, boxes, refused="killer")
        if jigsaw_regions(dark, size):
            return Board(size, boxes, refused="jigsaw")
    else:
        ink = None
    variant = "diagonal" if size in (9, 16) and diagonals_marked(square, size, ink) else "standard"
    return Board(size, boxes, variant)


def ink_mask(square: np.ndarray) -> np.ndarray:
    """The print's ink (0/1) against the paper around it, a cell across."""
    return cv2.adaptiveThreshold(
        square, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, CELL | 1, 8
    )


def line_masses(dark: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The ink on each of the size + 1 lines across and down: the darkness summed over a
    band a fifth of a cell wide round the line, averaged along it (a thick line holds
    more, whatever the print's contrast)."""
    side = dark.shape[0]
    cell = side / size
    reach = max(1, int(round(0.1 * cell)))
    rows, cols = dark.mean(axis=1), dark.mean(axis=0)
    out = []
    for profile in (rows, cols):
        at = np.rint(cell * np.arange(size + 1)).astype(int)
        out.append(
            np.array([profile[max(0, a - reach) : a + reach + 1].sum() for a in at], np.float32)
        )
    return out[0], out[1]


def box_shape(masses: tuple[np.ndarray, np.ndarray], size: int) -> tuple[int, int]:
    """(rows, columns) of a box: of the shapes a board of `size` has, the one whose box
    lines stand out most from its other inner lines."""
    shapes = BOXES[size]
    if len(shapes) == 1:
        return shapes[0]

    def contrast(mass: np.ndarray, every: int) -> float:
        inner = np.arange(1, size)
        box = inner[inner % every == 0]
        thin = inner[inner % every != 0]
        return float(mass[box].mean() - mass[thin].mean())

    rows, cols = masses
    return max(shapes, key=lambda s: contrast(rows, s[0]) + contrast(cols, s[1]))


def cell_papers(square: np.ndarray, size: int) -> np.ndarray:
    """(size, size) each cell's paper: the middle two of the four spots an eighth of a
    cell in from its corners (on a copy eight pixels a cell), between the lines and the
    digit, however bold."""
    small = cv2.resize(square, (8 * size, 8 * size), interpolation=cv2.INTER_AREA)
    spots = small.reshape(size, 8, size, 8)[:, [1, 6], :, :][:, :, :, [1, 6]]
    spots = np.sort(spots.transpose(0, 2, 1, 3).reshape(size, size, 4).astype(np.float32), axis=2)
    return spots[:, :, 1:3].mean(axis=2)


def diagonals_marked(square: np.ndarray, size: int, ink: np.ndarray | None = None) -> bool:
    """Whether both diagonals are marked: their cells tinted against the rest of their own
    box (a paper that shades whole boxes shades the diagonal's boxes too), or a line
    drawn through them."""
    return diagonal_tint(square, size) >= TINT or diagonal_line(square, size, ink) >= DIAGONAL_LINE


def diagonal_tint(square: np.ndarray, size: int) -> float:
    """How much darker (grey levels) the diagonals' cells are than the others of their box:
    the median over the diagonals' cells."""
    papers = cell_papers(square, size)
    b = int(round(size**0.5))
    idx = np.arange(size)
    on = np.zeros((size, size), bool)
    on[idx, idx] = on[idx, size - 1 - idx] = True
    boxes = papers.reshape(b, b, b, b).transpose(0, 2, 1, 3).reshape(b * b, -1)
    marks = on.reshape(b, b, b, b).transpose(0, 2, 1, 3).reshape(b * b, -1)
    counts = (~marks).sum(axis=1)  # the other cells of each box, sorted first
    if not counts.all():
        return 0.0
    ordered = np.sort(np.where(marks, np.inf, boxes), axis=1)
    rows = np.arange(b * b)
    rest = ((ordered[rows, (counts - 1) // 2] + ordered[rows, counts // 2]) / 2).reshape(b, b)
    drops = np.concatenate(
        [rest[idx // b, idx // b] - papers[idx, idx],
         rest[idx // b, (size - 1 - idx) // b] - papers[idx, size - 1 - idx]]
    )  # fmt: skip
    return float(np.median(drops))


def diagonal_line(square: np.ndarray, size: int, ink: np.ndarray | None = None) -> float:
    """The share of points on the diagonals, in each of their cells between its corner and
    its digit, that are ink, less the share on the same cell's other diagonal: about 0.8
    where lines are drawn corner to corner, near 0 where none are. The smaller of the two
    diagonals."""
    side = square.shape[0]
    cell = side / size
    ink = ink_mask(square) if ink is None else ink
    ink = cv2.dilate(ink, np.ones((3, 3), np.uint8))
    local = np.concatenate([np.linspace(0.14, 0.28, 5), np.linspace(0.72, 0.86, 5)])
    k = np.arange(size)[:, None]
    shares = []
    for flip in (False, True):
        x_on = (k + local).ravel() * cell
        x_off = (k + 1 - local).ravel() * cell
        y = (k + local).ravel() * cell
        if flip:
            x_on, x_off = side - 1 - x_on, side - 1 - x_off
        on = ink[_clip(y, side), _clip(x_on, side)].mean()
        off = ink[_clip(y, side), _clip(x_off, side)].mean()
        shares.append(float(on - off))
    return min(shares)


def diagonal_strokes(square: np.ndarray) -> np.ndarray | None:
    """The mask (uint8, 255) of the lines a diagonal sudoku draws corner to corner, to be
    lifted off the grid before its digits are cut (they run through the diagonal cells'
    digits); None when its diagonals are tinted, not lined. The ink within a few pixels of
    either diagonal that runs along it for a third of a cell, grown by a pixel."""
    size = 9
    if (
        diagonal_line(cv2.resize(square, (CELL * size,) * 2, interpolation=cv2.INTER_AREA), size)
        < DIAGONAL_LINE
    ):
        return None
    side = square.shape[0]
    cell = side / size
    ink = cv2.adaptiveThreshold(
        square, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, int(cell) | 1, 8
    )
    length = max(3, int(cell / 3))
    near = np.zeros_like(ink)
    reach = max(2, int(round(0.06 * cell)))
    for flip in (False, True):
        band = np.zeros_like(ink)
        idx = np.arange(side)
        for d in range(-reach, reach + 1):
            x = np.clip(idx + d, 0, side - 1)
            band[idx, side - 1 - x if flip else x] = 1
        kernel = np.eye(length, dtype=np.uint8)
        along = cv2.morphologyEx(ink & band, cv2.MORPH_OPEN, kernel[:, ::-1] if flip else kernel)
        near |= along
    near = cv2.dilate(near, np.ones((3, 3), np.uint8))
    return (near * 255).astype(np.uint8)


def _clip(values: np.ndarray, side: int) -> np.ndarray:
    return np.clip(np.rint(values).astype(int), 0, side - 1)


def killer_cages(ink: np.ndarray) -> bool:
    """Whether most cells show a dashed cage side: ink along a band just inside a cell's
    edge (0.07 to 0.17 of the cell in), covering a good part of the side in dashes. A
    sudoku's digits stand in the cells' middles; a killer's cages run round every cell.
    `ink`: the 9x9 grid's ink mask (`ink_mask`) at CELL pixels a cell."""
    cells = ink.reshape(9, CELL, 9, CELL).transpose(0, 2, 1, 3)  # (row, col, y, x)
    near, far = round(0.07 * CELL), round(0.17 * CELL)
    lo, hi = round(0.2 * CELL), round(0.8 * CELL)
    bands = np.stack(
        [
            cells[:, :, near:far, lo:hi].any(axis=2),
            cells[:, :, CELL - far : CELL - near, lo:hi].any(axis=2),
            cells[:, :, lo:hi, near:far].any(axis=3),
            cells[:, :, lo:hi, CELL - far : CELL - near].any(axis=3),
        ],
        axis=2,
    ).astype(np.int8)  # (row, col, side, along)
    cover = bands.mean(axis=3)
    runs = (np.diff(bands, axis=3, prepend=0) == 1).sum(axis=3)
    dashed = ((cover >= 0.3) & (cover <= 0.85) & (runs >= 3)).any(axis=2)
    return int(dashed.sum()) >= DASHED_CELLS * 81


def jigsaw_regions(dark: np.ndarray, size: int) -> bool:
    """Whether thick lines run off the boxes' lines, as a jigsaw's regions are drawn
    (`region_turns`)."""
    return region_turns(dark, size) >= JUMPS


def region_turns(dark: np.ndarray, size: int) -> int:
    """Whether the lines turn thick and thin along their length: each inner line cut into
    its cells' sides, the ink across each (a band a fifth of a cell wide, along its middle
    half), and the jumps by JUMP or more from one side to the next. A jigsaw's regions
    are drawn so; a sudoku's lines are each one width, however the light falls. `dark`:
    the grid's ink at CELL pixels a cell."""
    reach = round(0.1 * CELL)
    at = CELL * np.arange(1, size)
    band = at[:, None] + np.arange(-reach, reach + 1)  # (line, offset)
    across = dark[band, :].sum(axis=1)  # (line, x): ink across each horizontal line
    down = dark[:, band].sum(axis=2).T  # (line, y)
    sides = [
        p.reshape(size - 1, size, CELL)[:, :, CELL // 4 : 3 * CELL // 4] for p in (across, down)
    ]
    # a hairline a photo barely resolves holds next to no ink: its sides are as thin as
    # a fifth of the box lines, whatever they hold
    box_lines = np.concatenate([s.mean(axis=2)[k - 1] for s in sides for k in range(3, size, 3)])
    floor = 1.0 + 0.2 * float(np.median(box_lines))
    jumps = 0
    for side_ink in sides:
        masses = side_ink.mean(axis=2) + floor
        ratios = np.maximum(masses[:, 1:], masses[:, :-1]) / np.minimum(
            masses[:, 1:], masses[:, :-1]
        )
        jumps += int((ratios >= JUMP).sum())
    return jumps
