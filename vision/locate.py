"""Locate the sudoku grid in a photo: four corners (TL, TR, BR, BL) and a score.

The naive method, "the largest four-sided contour", finds the grid in only about half of real
photos: the border is broken or touches the photo edge, text touches the grid, a small printed
solution grid or a neighbouring puzzle sits beside it. So we:

1. propose many candidate quadrilaterals, from contours of the ink at several thresholds and
   from the long straight lines in the photo (which survive a broken or cut border);
2. verify each one by what makes a sudoku a sudoku: warped to a square, it shows ten evenly
   spaced dark lines in each direction and little ink on the lines between them;
3. keep the best-scoring one, larger grids winning near-ties (the puzzle beside its own
   smaller solution grid), and refine its corners on the full-resolution image.

>>> located = locate_grid(image)                       # doctest: +SKIP
>>> located.corners.round()                            # doctest: +SKIP
array([[101., 270.], [885., 272.], [872., 1060.], [105., 1053.]], dtype=float32)
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.compiled import on_first_use
from vision.errors import NoGridFound
from vision.lattice import (
    best_lattice,
    lattice_evidence,
    lines_present,
    stroke_profiles,
)
from vision.load import downscale
from vision.mesh import cell_homographies, grid_mesh, warp_mesh

LOCATE_SIDE = 800  # longest side of the copy the grid is searched in
CHECK_CELL = 20  # pixels per cell in the square a candidate is verified in
MIN_SCORE = 0.30  # below this no candidate looks like a sudoku grid
MAX_SCORE = 0.9  # no grid scores more (`line_evidence` caps its lines there)
GOOD_SCORE = 0.55  # above this, stop looking
BENT_TRIES = 3  # larger candidates whose lines are traced as curves
STRAIGHT_ENOUGH = 0.85  # a grid scoring this with straight lines is not traced as curves
BENT_GAIN = 0.05  # how much better a curved mesh must explain the lines than straight ones
# A refinement whose coarse pass costs the grid this share of its score moved it onto
# other ink: on a page filled in by hand in black, the entries' strokes half a cell from
# the lines (Wicht's mixed image1045: 0.357 -> 0.218). Of the 392 straight grids of Wicht's
# and Kubiesa's photos, every other one lost at most 12.3% (most gain or lose a little).
REFINE_LOSS = 0.25


@dataclass(frozen=True)
class Located:
    """Where the grid is: corners (4, 2) float32 TL, TR, BR, BL in image pixels; its score;
    on a bent page the crossings of its curved lines (10, 10, 2) in image pixels
    (`vision.mesh`), else None. cut_off: a page's other grid that runs off the photo's
    edge (`locate_grids`): its corners are those of the part in view, and it is not read.
    size: the cells a side its lines show (`vision.lattice`): 6, 9 or 16, or 21 for a
    samurai's outline (refused when read).
    """

    corners: np.ndarray
    score: float
    mesh: np.ndarray | None = None
    cut_off: bool = False
    size: int = 9


def locate_grid(image: np.ndarray, *, max_side: int = LOCATE_SIDE) -> Located:
    """The most sudoku-like quadrilateral in the image.

    Parameters
    ----------
    image : ndarray of uint8
        The photo, BGR or grey.
    max_side : int
        The long side of the copy the grid is looked for in (the corners are then refined
        at full resolution).

    Returns
    -------
    Located
        corners (4, 2) TL, TR, BR, BL in the image's pixels, and how sudoku-like it looked.

    Raises
    ------
    NoGridFound
        When nothing in the image looks like a sudoku grid.

    Examples
    --------
    >>> from vision.load import load_image
    >>> located = locate_grid(load_image("samples/sheet-01.jpg"))
    >>> located.corners.shape, bool(0 < located.score <= 1)
    ((4, 2), True)
    """
    small, scale = downscale(image, max_side)
    best = best_candidate(small)
    if best is None:
        raise NoGridFound(NO_GRID)
    return at_full_size(image, small, scale, best)


NO_GRID = "no sudoku grid found in the photo (no 9×9 line pattern anywhere)"
# A page's other grids may be much smaller than its main one (yesterday's solution beside
# today's puzzle, six puzzles on a sheet): their outlines are looked for down to this share
# of the photo's area, a grid a sixteenth of the photo's side.
PAGE_MIN_AREA = 0.004
MAX_GRIDS = 12  # no page prints more; a photo showing more is a wallpaper of grids
# A main grid covering less of a large photo than this is a page's (a photo of one grid
# fills the frame): the page's other grids are looked for more closely (`more_grids`).
PAGE_SHARE = 0.08
# ... and a board covering less than this, a page's (a sheet prints two 16x16s a page)
BOARD_PAGE_SHARE = 0.25


def locate_grids(
    image: np.ndarray, *, max_side: int = LOCATE_SIDE, limit: int = MAX_GRIDS
) -> list[Located]:
    """Every sudoku grid in the image, the most sudoku-like first.

    People photograph pages: a puzzle book prints two to six grids a page, a newspaper an
    easy and a hard one beside yesterday's small solution. The main grid is the one
    `locate_grid` takes (so a photo of one grid is located exactly as before); the others
    are every candidate that is a grid on a closer look (`closer_look_at`) and overlaps no
    grid taken before it (`page_grids`). A grid that holds two or more smaller grids is a
    block of them (a sheet's frame, four touching grids), never one grid: its grids are
    taken instead. On a page (two whole grids, or a main grid small in a large photo) the
    search goes on on a copy twice as fine (`more_grids`). A grid running off the photo's
    edge, not the main one, is marked `cut_off` with the corners of its part in view.

    Raises
    ------
    NoGridFound
        When nothing in the image looks like a sudoku grid.

    Examples
    --------
    >>> from vision.load import load_image
    >>> [round(g.score, 1) > 0 for g in locate_grids(load_image("samples/sheet-01.jpg"))]
    [True]
    """
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    small, scale = downscale(gray, max_side)

    def closer_look(copy: np.ndarray, copy_scale: float):
        """A closer look at a page's other grids found in `copy` (`closer_look_at`): on the
        copy where their cells are ten pixels wide or more, else on the full-resolution
        photo (a small solution grid)."""

        def square_of(quad: np.ndarray) -> np.ndarray:
            if grid_side(quad) >= 90 or copy_scale == 1.0:
                return check_square(copy, quad)
            return check_square(gray, (quad + 0.5) / copy_scale - 0.5)

        return lambda candidate: closer_look_at(copy, candidate, square_of)

    grids = page_grids(small, closer_look(small, scale))
    boards = boards_instead(small, grids)
    if boards:
        # a 6x6's or 16x16's page: its smaller boards, whose outlines join their captions
        # on this copy, are looked for again on one twice as fine (as `more_grids` does)
        if scale < 1.0 and quad_area(boards[0].corners) < BOARD_PAGE_SHARE * small.size:
            finer, fine_scale = downscale(gray, 2 * max_side)
            ratio = fine_scale / scale
            for board in other_boards(finer):
                board = scaled(board, 1 / ratio)
                if not any(overlap(board.corners, b.corners) for b in boards):
                    boards.append(board)
        # the page's 9x9s beside them stay
        grids = boards + [
            g for g in grids[1:] if not any(overlap(g.corners, b.corners) for b in boards)
        ]
    if not grids:
        raise NoGridFound(NO_GRID)
    whole = [grid for grid in grids if not touches_frame(grid.corners, small.shape)]
    small_main = scale < 1.0 and quad_area(grids[0].corners) < PAGE_SHARE * small.size
    if (len(whole) >= 2 or small_main) and not boards:
        # a page: its smaller grids, their outlines joined to the text beside them at this
        # scale, are looked for again on a copy twice as fine (or this one, for a small photo)
        finer, fine_scale = (small, scale) if scale == 1.0 else downscale(gray, 2 * max_side)
        ratio = fine_scale / scale
        seen = [scaled(grid, ratio) for grid in grids]
        more = more_grids(finer, seen, closer_look(finer, fine_scale))
        grids += [scaled(grid, 1 / ratio) for grid in more]
    grids = grids[:limit]
    found = [at_full_size(gray, small, scale, grids[0])]
    for grid in grids[1:]:
        if touches_frame(grid.corners, small.shape):  # only a part of it is in view
            found.append(replace(scaled(grid, 1 / scale), cut_off=True))
        else:
            found.append(at_full_size(gray, small, scale, grid))
    return found


LATTICE_SIDE, LATTICE_MARGIN = 288, 16  # the square a grid's lattice is judged in
# strokes this long in it are lines: longer than a digit of any board (a 6x6's: 35 px)
LATTICE_STROKE = 40
MIN_LINES_PRESENT = 0.85  # of a board's lines each way: a 9x9's box as a 6x6 shows 4 of 7
MIN_BOARD_SCORE = 0.3  # a 6x6's or 16x16's own lattice explains its lines this well


def lattice_profiles(gray: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The long strokes' profiles across and down a quad warped to LATTICE_SIDE."""
    homography = square_homography(quad, LATTICE_SIDE, LATTICE_MARGIN)
    side = LATTICE_SIDE + 2 * LATTICE_MARGIN
    square = cv2.warpPerspective(gray, homography, (side, side), flags=cv2.INTER_AREA)
    ink = cv2.adaptiveThreshold(square, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 15, 6)
    return stroke_profiles(ink, LATTICE_MARGIN, LATTICE_STROKE)


def lattice_score(rows: np.ndarray, cols: np.ndarray, n: int) -> float:
    """How well a lattice of n cells a side explains the profiles across and down."""
    return (
        lattice_evidence(rows, LATTICE_SIDE, LATTICE_MARGIN, n)
        + lattice_evidence(cols, LATTICE_SIDE, LATTICE_MARGIN, n)
    ) / 2


def board_score(gray: np.ndarray, quad: np.ndarray, n: int) -> float:
    """`grid_score` for a board of n cells a side: its lattice's line evidence."""
    if quad_area(quad) < 1.0:
        return 0.0
    return lattice_score(*lattice_profiles(gray, quad), n)


def boards_instead(gray: np.ndarray, grids: list[Located]) -> list[Located]:
    """The page's 6x6 or 16x16 boards (or a samurai's outline) when its grids are not
    9x9s, else [].

    The 9x9's search finds none on a 6x6, and on a 16x16 the outline of one whose lines
    say otherwise (`vision.lattice.best_lattice`). A main grid that misses some of a 9x9's lines may be a
    board taken for one (a bent 16x16, a samurai's page, a sheet of 6x6s seen whole): the
    boards that overlap it replace it. A clear 9x9 photo pays one look at its main grid's lines."""
    if not grids:
        return other_boards(gray)
    rows, cols = lattice_profiles(gray, grids[0].corners)
    size = best_lattice(rows, cols, LATTICE_SIDE, LATTICE_MARGIN)
    if size != 9:  # a 16x16's own outline, when no other shows its lines as well
        found = other_boards(gray)
        return found or ([replace(grids[0], size=size, mesh=None)] if size == 16 else [])
    whole = min(
        lines_present(rows, LATTICE_SIDE, LATTICE_MARGIN, 9),
        lines_present(cols, LATTICE_SIDE, LATTICE_MARGIN, 9),
    )
    if grids[0].score >= GOOD_SCORE and whole >= MIN_LINES_PRESENT:
        return []
    main = grids[0].corners
    boards = [board for board in other_boards(gray) if overlap(board.corners, main)]
    # the main grid is a board taken for a 9x9, or the page round one (a quarter of it or
    # more), or the outline of a page of boards (holding two or more)
    large = [b for b in boards if quad_area(b.corners) >= 0.25 * quad_area(main)]
    held = [b for b in boards if holds(main, b.corners)]
    return large[:1] or (held if len(held) >= 2 else [])


def other_boards(gray: np.ndarray) -> list[Located]:
    """Every 6x6 and 16x16 grid (and samurai outline) in a small grey copy of a photo, the
    best ranked first.

    Their outlines are the 9x9's (every threshold's squarish quads down to PAGE_MIN_AREA
    of the photo); each is a board of the size its lines show best (`best_lattice`) when
    that lattice explains them by MIN_BOARD_SCORE, and the taken ones overlap none (a
    board's boxes, a block of its cells)."""
    area = gray.shape[0] * gray.shape[1]
    tolerance = 0.02 * max(gray.shape)
    seen: list[np.ndarray] = []
    found: list[Located] = []
    for binary in binarisations(gray):
        quads = contour_quads(outlines(binary, PAGE_MIN_AREA * area)[0], 0.0)
        for quad in deduplicate(quads, tolerance, seen):
            if not squarish(quad, PAGE_SQUARISH):
                continue
            rows, cols = lattice_profiles(gray, quad)
            size = best_lattice(rows, cols, LATTICE_SIDE, LATTICE_MARGIN)
            if size == 9:
                continue
            score = lattice_score(rows, cols, size)
            whole = min(
                lines_present(rows, LATTICE_SIDE, LATTICE_MARGIN, size),
                lines_present(cols, LATTICE_SIDE, LATTICE_MARGIN, size),
            )
            # a 9x9's box looks like a 6x6 but for every second line; a 16x16's hairlines
            # and a samurai's gaps leave lines unseen, and nothing else looks like them
            least = MIN_LINES_PRESENT if size == 6 else 0.0
            if score >= MIN_BOARD_SCORE and whole >= least:
                found.append(Located(quad, score, size=size))
    taken: list[Located] = []
    for board in sorted(found, key=rank, reverse=True):
        if not any(overlap(board.corners, t.corners) for t in taken):
            taken.append(board)
    return taken


SAMURAI_SCORE = 0.45  # a 9x9 grid's score; a plain grid's corner box alone scores < 0.2
# a samurai's other grids lie two thirds of a grid from the one found, diagonally
SAMURAI_STEPS = ((-2 / 3, -2 / 3), (2 / 3, -2 / 3), (-2 / 3, 2 / 3), (2 / 3, 2 / 3))


def _square(x0: float, y0: float, side: float) -> np.ndarray:
    return np.float32([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]])


def samurai_around(gray: np.ndarray, corners: np.ndarray) -> bool:
    """Whether a 9x9 grid is one of a samurai's five: a whole 9x9 grid two thirds of a grid
    away diagonally, sharing a 3 x 3 box with it (the middle grid has four such, each
    corner grid one), whose six rows and columns beyond the shared box run on as a lattice
    of their own. A plain grid's box alone, seen as a grid, scores far below one; a page's
    grids beside it (a sheet of six) lie elsewhere than that lattice."""
    to_photo = np.linalg.inv(square_homography(corners, 1.0))
    for dx, dy in SAMURAI_STEPS:
        quad = cv2.perspectiveTransform(_square(dx, dy, 1.0).reshape(-1, 1, 2), to_photo)
        quad = quad.reshape(4, 2)
        if touches_frame(quad, gray.shape) or grid_score(gray, quad) < SAMURAI_SCORE:
            continue
        # the part beyond the shared box: the far six rows and columns, a 6 x 6 lattice
        far = _square(dx + (1 / 3 if dx > 0 else 0), dy + (1 / 3 if dy > 0 else 0), 2 / 3)
        far = cv2.perspectiveTransform(far.reshape(-1, 1, 2), to_photo).reshape(4, 2)
        rows, cols = lattice_profiles(gray, far)
        present = min(
            lines_present(rows, LATTICE_SIDE, LATTICE_MARGIN, 6),
            lines_present(cols, LATTICE_SIDE, LATTICE_MARGIN, 6),
        )
        if present >= MIN_LINES_PRESENT:
            return True
    return False


# A printed digit stands about 0.6 of its cell high (0.5 to 0.8 on every grid of the
# samples, Wicht's and Kubiesa's pages and the sheets), a box of a small grid's taken for
# a grid 1.8, the text in a framed box 0.3.
MIN_DIGIT_HEIGHT, MAX_DIGIT_HEIGHT = 0.4, 1.2
# A grid's box lines show long strokes on at least 0.76 of their length more than its cell
# middles do (every whole grid of the samples, Wicht's and Kubiesa's photos and the
# sheets, three lines of four each way); a framed box of text 0.02, the cut part of a
# grid 0.3 or less.
MIN_BOX_LINES = 0.4


def at_full_size(image: np.ndarray, small: np.ndarray, scale: float, best: Located) -> Located:
    """A grid found in the small copy, its corners refined on the full-resolution image."""
    corners = (best.corners + 0.5) / scale - 0.5  # pixel centres of the small copy
    if best.mesh is not None:  # a bent grid: its corners are the mesh's, no straight fit
        mesh = (best.mesh + 0.5) / scale - 0.5
        return Located(corners.astype(np.float32), best.score, mesh)
    if scale == 1.0:  # searched at full size: the small copy is the grey image, and the
        gray = small  # candidate's score already that of these corners
        known = best.score if np.array_equal(corners, best.corners) else None
    else:
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        known = None
    corners = refine_corners(gray, corners, known, best.size)
    return Located(corners.astype(np.float32), best.score, size=best.size)


def best_candidate(gray: np.ndarray, others: list[Located] | None = None) -> Located | None:
    """The best-scoring candidate above MIN_SCORE, else None.

    Thresholds are tried from the most to the least often right; the search stops as soon
    as a clearly sudoku-like grid is found (most photos need only the first). The winner
    may then be traced as a bent grid (`bent_grid`) or, flat and doubtful, grown to the
    whole grid it is part of (`grown_grid`).

    `others`, when given, is filled with every candidate scored and with the page's other
    grids (`page_grids`): the squarish outlines outside the best, down to `PAGE_MIN_AREA`
    of the photo, that would not have been scored for being too small to outrank it. The
    best is chosen exactly as without them.
    """
    area = gray.shape[0] * gray.shape[1]
    min_area = 0.02 * area
    tolerance = 0.02 * max(gray.shape)
    seen: list[np.ndarray] = []
    seen_small: list[np.ndarray] = []
    best: Located | None = None
    candidates = []
    page = others is not None
    for binary in binarisations(gray):
        contours, areas = outlines(binary, PAGE_MIN_AREA * area if page else min_area)
        large = [c for c, a in zip(contours, areas, strict=True) if a >= min_area]
        fresh = deduplicate(contour_quads(large, min_area), tolerance, seen)
        for quad in sorted(fresh, key=lambda q: -quad_area(q)):  # largest first: see below
            if best is not None and MAX_SCORE + 0.1 * np.log(quad_area(quad)) < rank(best):
                # too small to outrank the best even as a perfect grid (a box, a cell, the
                # small solution grid): its score would change nothing, so it is not taken
                # (about 0.6 ms each); `bent_grid` and `grown_grid` look only at larger ones
                candidates.append(Located(quad, 0.0))
                if others is not None and another_grid(quad, best):
                    others.append(Located(quad, grid_score(gray, quad)))
                continue
            candidate = Located(quad, grid_score(gray, quad))
            candidates.append(candidate)
            if candidate.score >= MIN_SCORE and (best is None or rank(candidate) > rank(best)):
                best = candidate
        if others is not None:
            outside = None if best is None else best.corners
            smaller = [c for c, a in zip(contours, areas, strict=True) if a < min_area]
            small = contour_quads(smaller, 0.0, below=min_area, outside=outside)
            for quad in deduplicate(small, tolerance, seen_small):
                if squarish(quad, PAGE_SQUARISH):
                    others.append(Located(quad, grid_score(gray, quad)))
        if best is not None and best.score >= GOOD_SCORE:
            break
    if others is not None:
        others.extend(c for c in candidates if c.score > 0)
    located = bent_grid(gray, candidates, best) or best
    if located is not None and located.mesh is None and located.score < GOOD_SCORE:
        grown = grown_grid(gray, located)
        if grown is not None and grown.score > located.score + GROWN_GAIN:
            return grown
    return located


# A grid photographed at an angle is less square than flat; a page's other grids are
# scored when their outline is no more than this much longer one way than the other.
PAGE_SQUARISH = 1.6


def another_grid(quad: np.ndarray, best: Located) -> bool:
    """Whether a quad too small to outrank the best may be a page's other grid: squarish,
    and not within the best (its boxes and cells)."""
    return not inside(quad.mean(axis=0), best.corners) and squarish(quad, PAGE_SQUARISH)


def page_grids(gray: np.ndarray, look=None) -> list[Located]:
    """Every grid in a small grey copy of a photo: the main one (`best_candidate`), then
    each other candidate scoring as a grid, best ranked first, that overlaps none taken.

    The main grid is dropped for the grids it holds when it holds two that are apart from
    each other and no larger than half of it: a sheet's frame round its six grids, or four
    touching grids whose outline, seen as one grid, puts a line where every cell's middle
    should be. Its lines then score low, but grown from one of its grids (`grown_grid`)
    or traced through a sheet's lines it can win.

    `look(candidate)`, when given, is a candidate other than the main grid on a closer look
    (`closer_look_at`): the grid it is, its corners settled on its lines, or None. Without
    it, every candidate scoring MIN_SCORE is a grid.
    """
    scored: list[Located] = []
    main = best_candidate(gray, scored)
    if main is None:
        return []
    if look is None:
        floor, look = MIN_SCORE, lambda candidate: candidate
    else:
        floor = NEAR_SCORE
    near = sorted((c for c in scored if c.score >= floor), key=rank, reverse=True)
    held = [
        g
        for c in near
        if holds(main.corners, c.corners) and not a_box_of(main, c) and (g := look(c)) is not None
    ]
    apart = any(not overlap(a.corners, b.corners) for a, b in itertools.combinations(held, 2))
    taken = [] if apart else [main]
    for candidate in near:
        if any(overlap(candidate.corners, t.corners) for t in taken):
            continue
        if apart and sum(holds(candidate.corners, h.corners) for h in held) >= 2:
            continue  # the block again, as another threshold outlined it
        grid = look(candidate)
        if grid is not None and not any(overlap(grid.corners, t.corners) for t in taken):
            taken.append(grid)
    return taken + touching_grids(gray, taken, look)


def more_grids(gray: np.ndarray, taken: list[Located], look) -> list[Located]:
    """On a page of several grids, those the search for the main grid passed over.

    That search stops at the first threshold that shows a clear grid, on a copy of the
    photo some 800 pixels long, where a page's smaller grids' outlines join the caption or
    text that touches them, so their quads miss them by more than settling mends. Every
    threshold's outlines, on `gray` (a finer copy), are looked at outside the grids taken
    (`look`, as in `page_grids`)."""
    area = gray.shape[0] * gray.shape[1]
    found: list[Located] = []
    for binary in binarisations(gray):
        quads = contour_quads(outlines(binary, PAGE_MIN_AREA * area)[0], 0.0)
        for quad in sorted(quads, key=quad_area, reverse=True):  # a grid before its boxes
            if not squarish(quad, PAGE_SQUARISH) or any(
                overlap(quad, t.corners) for t in taken + found
            ):
                continue
            candidate = Located(quad, grid_score(gray, quad))
            grid = look(candidate) if candidate.score >= NEAR_SCORE else None
            if grid is not None and not any(
                overlap(grid.corners, t.corners) for t in taken + found
            ):
                found.append(grid)
    return found


def scaled(grid: Located, ratio: float) -> Located:
    """A grid found on one copy of the photo, on a copy `ratio` times as large (pixel
    centres kept)."""
    corners = (grid.corners + 0.5) * ratio - 0.5
    mesh = None if grid.mesh is None else (grid.mesh + 0.5) * ratio - 0.5
    return replace(grid, corners=corners.astype(np.float32), mesh=mesh)


# A page's other grid photographed small or blurred can score under MIN_SCORE on the corners
# its outline gives (the sheet's blurred page of six: 0.23 before its corners are settled on
# its lines, 0.44 after): from this score it is given a closer look.
NEAR_SCORE = 0.15
# A part of a grid cut off by the photo's edge scores 0.34 to 0.57 (Wicht's and the
# samples' yesterday's solutions); a framed advertisement at the edge 0.30.
CUT_OFF_SCORE = 0.33


def closer_look_at(gray: np.ndarray, candidate: Located, square_of) -> Located | None:
    """A candidate for a page's other grid, as the grid it is on a closer look, or None.

    The grid score averages the ten lines each way; a closer look asks what a grid holds:
    marks of a printed digit's size in its cells (`digit_marks`: a 3 x 3 box of a small
    grid taken for a grid holds digits three of its would-be cells high, a framed text box
    letters a third of one), and its box lines (`box_lines`: a framed box has its border
    and nothing across it). A grid running off the photo's edge must score as a grid as
    it is and show the box lines along the cut. A candidate scoring low, or whose box
    lines do not show, has its
    corners settled on its lines first (the coarse pass of `refine_corners`, on `gray`) and
    is looked at again. `square_of(quad)` warps a quad of `gray` as `check_square` does,
    from whichever copy of the photo resolves its cells.
    """
    quad = candidate.corners
    if not plausible_digits(square := square_of(quad)):
        return None
    across, down = box_lines(square)
    if touches_frame(quad, gray.shape):  # its part in view: scored as it is, never settled
        cut_off_grid = candidate.score >= CUT_OFF_SCORE and max(across, down) >= MIN_BOX_LINES
        return candidate if cut_off_grid else None
    if candidate.score >= MIN_SCORE and min(across, down) >= MIN_BOX_LINES:
        return candidate
    settled = fit_outer_lines(gray, quad, REFINE_CELL, reach=0.5, stretch=0.08, step=0.5)
    score = grid_score(gray, settled)
    if score < MIN_SCORE or not plausible_digits(square := square_of(settled)):
        return None
    return Located(settled, score) if min(box_lines(square)) >= MIN_BOX_LINES else None


def plausible_digits(square: np.ndarray) -> bool:
    """Whether the marks in a candidate's cells stand as high as printed digits do, and,
    standing high or with one three would-be cells high among a few, are no box's digits
    among specks (`cell_lines`)."""
    height, tallest, digits = digit_marks(square)
    if not MIN_DIGIT_HEIGHT <= height <= MAX_DIGIT_HEIGHT:
        return False
    box_like = height >= BOX_DIGITS or (tallest >= BOX_TALLEST and digits < BOX_MARKS)
    return not box_like or cell_lines(square) > MAX_BOX_CELL_LINES


# A box of a sparse grid, its few digits measured among specks of a grey page, can pass
# for digits (0.65 to 1.8 on the sheets' boxes; a grid's printed digits 0.5 to 0.75): it
# does from this high, or with a digit this tall among its marks (a box's stand 1.75, a
# grid's own below 1.2, but a printed solution's, its digits run together, as tall among
# some sixty marks of a digit's height, a box's specks fewer than thirty); it then shows at
# most six of a grid's twelve thin lines, a grid nearly always more.
BOX_DIGITS, BOX_TALLEST, BOX_MARKS, MAX_BOX_CELL_LINES = 0.8, 1.5, 30, 6


SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))  # right, left, below, above: in a grid's square
# the square beside a grid's own towards each side, in its square's units
NEIGHBOURS = np.float32(
    [[[dx, dy], [dx + 1, dy], [dx + 1, dy + 1], [dx, dy + 1]] for dx, dy in SIDES]
).reshape(-1, 1, 2)


def touching_grids(gray: np.ndarray, taken: list[Located], look) -> list[Located]:
    """The grids printed edge to edge with those taken, and with those in turn.

    Grids that touch share their border: their ink is one outline, and no contour closes
    round any one of them but the block's, which is no grid (`page_grids`). So beside each
    grid whose border runs on past its corners (`borders_running_on`), the square of its own
    size and perspective is scored as a candidate and looked at closer (`look`, as in
    `page_grids`)."""
    found: list[Located] = []
    queue = list(taken)
    while queue:
        grid = queue.pop()
        to_photo = np.linalg.inv(square_homography(grid.corners, 1.0))
        beside = cv2.perspectiveTransform(NEIGHBOURS, to_photo).reshape(4, 4, 2)
        # a neighbour would run off the photo (a photo of one grid fills it): not probed
        inside_photo = [not touches_frame(quad, gray.shape) for quad in beside]
        if not any(inside_photo):
            continue
        for side in borders_running_on(gray, to_photo):
            quad = beside[SIDES.index(side)]
            if not inside_photo[SIDES.index(side)] or any(
                overlap(quad, t.corners) for t in taken + found
            ):
                continue
            candidate = Located(quad.astype(np.float32), grid_score(gray, quad))
            if candidate.score >= NEAR_SCORE and (grid := look(candidate)) is not None:
                found.append(grid)
                queue.append(grid)
    return found


# (x, y) offsets of a 5 x 5 patch, and where along a border line (in grid sides) it is
# sampled: on the grid, past its side, and a half cell inside it (paper)
PATCH = np.stack(np.meshgrid(np.arange(-2, 3), np.arange(-2, 3)), -1).reshape(-1, 2)
ALONG, PAST = np.linspace(0.05, 0.95, 24), np.linspace(1.03, 1.5, 24)


@functools.cache
def probe_points() -> np.ndarray:
    """(4, 6 x 24, 2) the points of the grid's square `borders_running_on` samples towards
    each of SIDES: on each of the two border lines that meet that side, along the grid,
    past it, and along the paper half a cell inside."""
    points = []
    for edge in (0.0, 1.0):  # the two borders across the right side
        inward = abs(edge - 1 / 18)
        for along, across in ((ALONG, edge), (PAST, edge), (ALONG, inward)):
            points.append(np.stack([along, np.full(len(along), across)], 1))
    right = np.concatenate(points)
    left = right.copy()
    left[:, 0] = 1 - left[:, 0]  # mirrored about the square's middle
    below = right[:, ::-1]  # the same with the axes swapped
    above = left[:, ::-1]
    return np.stack([right, left, below, above]).astype(np.float32)


def borders_running_on(gray: np.ndarray, to_photo: np.ndarray) -> list[tuple[int, int]]:
    """The sides (of SIDES) past which both border lines of a grid that meet that side run
    on for half a grid, as dark as they are along the grid: a neighbour's border.

    Sampled at 24 points on each line, each the darkest pixel of the 5 x 5 around it (the
    corners of a candidate are its outline's, up to two pixels off the line's middle on
    the small copy), against the ink of the grid's own border and the paper in its first
    cells' middles; every side in one lookup (asked of every grid of every photo)."""
    points = probe_points()
    xy = cv2.perspectiveTransform(points.reshape(-1, 1, 2), to_photo).reshape(-1, 2)
    height, width = gray.shape[:2]
    x = np.clip(np.rint(xy[:, 0]).astype(int), 2, width - 3)
    y = np.clip(np.rint(xy[:, 1]).astype(int), 2, height - 3)
    darkest = gray[y[:, None] + PATCH[:, 1], x[:, None] + PATCH[:, 0]].min(axis=1)
    # (side, border, on / past / paper, point)
    levels = darkest.astype(np.float32).reshape(4, 2, 3, len(ALONG))
    ordered = np.sort(levels[:, :, [0, 2]], axis=3)  # medians of 24: the mean of the middle two
    ink, paper = ordered[..., 11:13].mean(axis=3).transpose(2, 0, 1)
    dark = (levels[:, :, 1] < ((ink + paper) / 2)[..., None]).mean(axis=2)
    runs_on = ((paper - ink) >= 20) & (dark >= 0.8)
    return [side for side, both in zip(SIDES, runs_on.all(axis=1), strict=True) if both]


def a_box_of(grid: Located, candidate: Located) -> bool:
    """Whether a candidate is one of a grid's 3 x 3 boxes (or two or four of them): every
    corner on a crossing of the grid's box lines, within a twentieth of its side. A box
    with few digits and a speck passes a closer look; a page's grids held in a block of
    them stand apart, their corners off those crossings (a sheet's margins and captions,
    a block of four touching grids' halves)."""
    in_square = cv2.perspectiveTransform(
        candidate.corners.reshape(-1, 1, 2), square_homography(grid.corners, 3.0)
    ).reshape(-1, 2)
    return bool((np.abs(in_square - np.rint(in_square)) < 0.15).all())


def inside(point: np.ndarray, outline: np.ndarray) -> bool:
    """Whether a point (x, y) lies within the outline (a convex quadrilateral)."""
    x, y = float(point[0]), float(point[1])
    return cv2.pointPolygonTest(outline.reshape(-1, 1, 2), (x, y), False) >= 0


def holds(outline: np.ndarray, quad: np.ndarray) -> bool:
    """Whether `quad` is a grid within `outline` no larger than half of it."""
    return inside(quad.mean(axis=0), outline) and quad_area(quad) <= 0.5 * quad_area(outline)


def overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two quadrilaterals share more than a tenth of the smaller one's area: a
    grid and a part of it or the grid grown round it, never two grids of a page (at most
    their borders touch)."""
    a, b = np.float32(a).reshape(-1, 1, 2), np.float32(b).reshape(-1, 1, 2)
    shared, _ = cv2.intersectConvexConvex(a, b)
    return shared > 0.1 * min(quad_area(a.reshape(4, 2)), quad_area(b.reshape(4, 2)))


# how much better than the chosen grid a whole grid grown from it must score
GROWN_GAIN = 0.1
# a part of the grid bounded by its thick box lines spans 3 or 6 of its 9 rows (or columns);
# (start, end) of the whole grid along one side, in units of the part's side
SPANS = ((0, 1), (0, 1.5), (-0.5, 1), (0, 3), (-2, 1), (-1, 2))


def grown_grid(gray: np.ndarray, part: Located) -> Located | None:
    """The best-scoring whole grid that a flat candidate may be a part of, if any.

    The outline of ink that closes around the grid can close early along a thick box line
    (an entry written across the border breaks the outer line, a shadow fades it): the
    contour then holds six of the nine rows, or a 3 x 3 box, and the best candidate scores
    low. Such a part spans whole boxes, so it is grown, in the perspective of its own
    corners, to 1.5 or 3 times its side in each direction, and each grown quad that is
    about as wide as tall (a sudoku is square) is scored like any candidate. A bent grid
    is not grown: its mesh was traced from the whole grid's own lines.
    """
    height, width = gray.shape[:2]
    frame = np.float32([[-0.02 * width, -0.02 * height], [1.02 * width, 1.02 * height]])
    to_photo = np.linalg.inv(square_homography(part.corners, 1.0))
    best = None
    for (x0, x1), (y0, y1) in itertools.product(SPANS, SPANS):
        if (x0, x1, y0, y1) == (0, 1, 0, 1):
            continue
        square = np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]])
        quad = cv2.perspectiveTransform(square, to_photo)[0]
        if (quad < frame[0]).any() or (quad > frame[1]).any() or not squarish(quad):
            continue
        grown = Located(quad.astype(np.float32), grid_score(gray, quad))
        if grown.score >= MIN_SCORE and (best is None or grown.score > best.score):
            best = grown
    return best


def squarish(quad: np.ndarray, tolerance: float = 1.33) -> bool:
    """Whether a quad's mean width and mean height differ by less than `tolerance` times.

    >>> squarish(np.float32([[0, 0], [90, 0], [90, 100], [0, 100]]))
    True
    >>> squarish(np.float32([[0, 0], [150, 0], [150, 100], [0, 100]]))
    False
    """
    edges = quad[[1, 2, 3, 0]] - quad  # each corner to the next (np.roll, at a tenth the cost)
    sides = np.sqrt((edges.astype(np.float64) ** 2).sum(axis=1))
    width, height = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return bool(max(width, height) < tolerance * max(min(width, height), 1e-6))


def bent_grid(gray: np.ndarray, candidates: list[Located], best: Located | None) -> Located | None:
    """A candidate that is a grid once its curved lines are followed, if one beats `best`.

    On a curled page the whole grid's lines leave the straight ones its corners promise and
    it scores low, while one of its 3x3 boxes, or the small printed solution beside it, is
    flat enough to win. So the larger candidates are tried whatever their straight score (a
    grid bowed by a cell scores about 0), largest first: any larger one, and the best itself,
    when the best's lines are not all where its corners put them (a curl's best straight
    fit may be two thirds of the grid), else those twice its size; each costs a trace
    of its lines (`vision.mesh.grid_mesh`). Outlines that reach the photo's edge are not
    traced (`touches_frame`): on a curled page they are the page itself, and they took
    the tries from the grid inside it. A mesh must explain the lines clearly better than
    the straight warp did (`BENT_GAIN`): on a flat page a traced line a pixel off would
    only blur the cut.
    """
    unsure = best is None or best.score < STRAIGHT_ENOUGH
    floor = 0.0 if best is None else quad_area(best.corners) * (1.1 if unsure else 2.0)
    larger = [
        c
        for c in candidates
        if quad_area(c.corners) > floor and not touches_frame(c.corners, gray.shape)
    ]
    tries = sorted(larger, key=lambda c: -quad_area(c.corners))[:BENT_TRIES]
    if best is not None and unsure:
        tries.append(best)
    for candidate in tries:
        bent = bent_version(gray, candidate)
        if bent is None or bent.score < max(MIN_SCORE, candidate.score + BENT_GAIN):
            continue
        if best is None or rank(bent) > rank(best):
            return bent
    return None


def touches_frame(corners: np.ndarray, shape: tuple[int, ...], gap: float = 2.0) -> bool:
    """Whether a quadrilateral reaches the photo's edge (within `gap` pixels): on a curled
    page, the page's own outline cut by the frame. A grid cropped that tightly is still
    traced when it is the best straight candidate (`bent_grid` tries the best itself).

    >>> touches_frame(np.float32([[0, 10], [50, 10], [50, 60], [0, 60]]), (100, 100))
    True
    """
    height, width = shape[:2]
    x, y = corners[:, 0], corners[:, 1]
    return bool(
        (x < gap).any()
        or (y < gap).any()
        or (x > width - 1 - gap).any()
        or (y > height - 1 - gap).any()
    )


def bent_version(gray: np.ndarray, candidate: Located) -> Located | None:
    """The candidate with its lines traced as curves and scored through that mesh, or None
    where its lines are straight enough (or too unlike a grid) to trace."""
    mesh = grid_mesh(gray, candidate.corners)
    if mesh is None:
        return None
    side, margin = 9 * CHECK_CELL, CHECK_CELL // 2
    square = warp_mesh(gray, cell_homographies(mesh, side), side)
    square = cv2.copyMakeBorder(square, *(margin,) * 4, cv2.BORDER_REPLICATE)
    corners = np.float32([mesh[0, 0], mesh[0, 9], mesh[9, 9], mesh[9, 0]])
    return Located(corners, square_score(square), mesh)


def rank(candidate: Located) -> float:
    """Score with a small bonus for size: the puzzle beats its own small solution grid."""
    return candidate.score + 0.1 * np.log(quad_area(candidate.corners))


# --- candidates ----------------------------------------------------------------------------


def binarisations(gray: np.ndarray) -> Iterator[np.ndarray]:
    """Masks to find the grid's outline in, cheapest and most often right first.

    Ink at three local-threshold scales (thin lines, thick borders, uneven light), then the
    long straight lines of the first one: text touching the grid is dropped from them and
    gaps in a broken border are bridged, so the grid's outline closes again.
    """
    blurred = cv2.GaussianBlur(gray, (5, 5), 0)
    side = max(gray.shape)
    first = None
    for block, offset in ((side // 40, 7), (side // 15, 10), (side // 80, 4)):
        block = max(3, block | 1)
        mask = cv2.adaptiveThreshold(
            blurred, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, offset
        )
        first = mask if first is None else first
        yield mask
    yield line_mask(first)


def line_mask(ink: np.ndarray) -> np.ndarray:
    """Only the long, nearly axis-aligned lines of an ink mask, with their gaps bridged.

    Morphological line extraction: an opening with a thin kernel 1/25 of the shorter side
    long keeps what runs that far horizontally (or vertically) and drops digits and text;
    a closing along the same direction then bridges gaps of up to 1/40 of the side (a
    border broken by a fold, glare or a pen stroke). Lines tilted more than a few degrees
    fade out here, but those photos are found by the contour masks.
    """
    short = min(ink.shape)
    length, gap = max(9, short // 25), max(5, short // 40)
    horizontal = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, length), np.uint8))
    vertical = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((length, 1), np.uint8))
    horizontal = cv2.morphologyEx(horizontal, cv2.MORPH_CLOSE, np.ones((1, gap), np.uint8))
    vertical = cv2.morphologyEx(vertical, cv2.MORPH_CLOSE, np.ones((gap, 1), np.uint8))
    return horizontal | vertical


def outlines(binary: np.ndarray, min_area: float) -> tuple[list[np.ndarray], list[float]]:
    """Every contour of a mask enclosing at least `min_area` pixels, and their areas."""
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    areas = [cv2.contourArea(c) for c in contours]
    kept = [k for k, a in enumerate(areas) if a >= min_area]
    return [contours[k] for k in kept], [areas[k] for k in kept]


def contour_quads(
    contours: list[np.ndarray],
    min_area: float,
    below: float = np.inf,
    outside: np.ndarray | None = None,
) -> list[np.ndarray]:
    """A quadrilateral fitted to every contour's convex hull of `min_area` or more (and
    under `below`), the contours centred within `outside` (a grid found), or twice as
    long one way as the other, passed over before their hull is taken: a grid's own cells
    and boxes, lines of text."""
    quads = []
    for contour in contours:
        if outside is not None:  # before the hull: most such contours are its cells, or
            x, y, w, h = cv2.boundingRect(contour)  # lines of text, twice as wide as tall
            if max(w, h) > 2 * min(w, h) or inside(np.float32([x + w / 2, y + h / 2]), outside):
                continue
        hull = cv2.convexHull(contour)
        if not min_area <= cv2.contourArea(hull) < below:
            continue
        quad = hull_quad(hull.reshape(-1, 2).astype(np.float32))
        if quad is not None:
            quads.append(quad)
    return quads


def hull_quad(hull: np.ndarray) -> np.ndarray | None:
    """The largest quadrilateral with corners on the hull: a grid's outline even when a
    corner is clipped, a digit bulges out, or the hull has many points."""
    points = hull
    epsilon = 0.005 * cv2.arcLength(hull.reshape(-1, 1, 2), True)
    while len(points) > 14:
        points = cv2.approxPolyDP(hull.reshape(-1, 1, 2), epsilon, True).reshape(-1, 2)
        epsilon *= 1.5
    if len(points) < 4:
        return None
    quads = points[four_of(len(points))]  # (k, 4, 2), each in hull (convex) order
    x, y = quads[..., 0], quads[..., 1]
    after = [1, 2, 3, 0]  # each corner's next (np.roll by -1, at a tenth of its cost)
    areas = np.abs((x * y[:, after] - y * x[:, after]).sum(axis=1))
    best = quads[int(np.argmax(areas))]
    return order_corners(best)


@functools.cache
def four_of(n: int) -> np.ndarray:
    """Every way of choosing 4 of n hull points, in order: (C(n, 4), 4) indices."""
    return np.array(list(itertools.combinations(range(n), 4)), np.intp)


def deduplicate(
    quads: list[np.ndarray], tolerance: float, seen: list[np.ndarray]
) -> list[np.ndarray]:
    """The quads not within ``tolerance`` (every corner) of one seen before; adds them to seen."""
    fresh = []
    for quad in quads:
        if all(np.abs(quad - other).max() > tolerance for other in seen):
            seen.append(quad)
            fresh.append(quad)
    return fresh


# --- geometry helpers --------------------------------------------------------------------


def order_corners(points: np.ndarray) -> np.ndarray:
    """Four points as TL, TR, BR, BL: clockwise on screen, starting nearest the top left.

    >>> order_corners(np.array([[9, 9], [0, 0], [0, 9], [9, 0]], float)).tolist()
    [[0.0, 0.0], [9.0, 0.0], [9.0, 9.0], [0.0, 9.0]]
    """
    points = np.asarray(points, np.float32).reshape(4, 2)
    center = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - center[1], points[:, 0] - center[0])
    clockwise = points[np.argsort(angles)]  # y points down, so increasing angle is clockwise
    start = int(np.argmin(clockwise.sum(axis=1)))
    return clockwise[(np.arange(4) + start) % 4]  # np.roll(clockwise, -start, axis=0)


def quad_area(quad: np.ndarray) -> float:
    """Area of a simple polygon (shoelace). (Each point's next taken by slicing: np.roll
    cost more than the rest, and the locator asks this some 40 times a photo.)"""
    x, y = quad[:, 0], quad[:, 1]
    x1, y1 = np.concatenate((x[1:], x[:1])), np.concatenate((y[1:], y[:1]))
    return 0.5 * abs(float(np.dot(x, y1) - np.dot(y, x1)))


def square_homography(corners: np.ndarray, side: float, margin: float = 0.0) -> np.ndarray:
    """Homography taking the corners to a square of ``side`` pixels offset by ``margin``."""
    lo, hi = margin, margin + side
    square = np.float32([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])
    return cv2.getPerspectiveTransform(np.float32(corners), square)


# --- verification ------------------------------------------------------------------------


def check_square(gray: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The quad warped to 9 cells of CHECK_CELL pixels inside a margin of half a cell: the
    square every check of a candidate looks at."""
    cell = CHECK_CELL
    side, margin = 9 * cell, cell // 2
    homography = square_homography(quad, side, margin)
    return cv2.warpPerspective(gray, homography, (side + 2 * margin,) * 2, flags=cv2.INTER_AREA)


def grid_score(gray: np.ndarray, quad: np.ndarray) -> float:
    """How much the quad's inside looks like a sudoku: 10 + 10 evenly spaced dark lines.

    Warps the quad to a square of 9 cells of CHECK_CELL pixels, keeps the ink strokes longer
    than half a cell (lines, not digits), and compares them along each expected grid line
    with those along the middles of the cells. About 0.8 for a sudoku, filled in or not;
    near 0 for text or a photo; a misfit quad (off by half a cell, a 3×3 box, the grid plus
    a margin) misses lines and scores low.
    """
    if quad_area(quad) < 1.0:
        return 0.0
    return square_score(check_square(gray, quad))


def square_score(warped: np.ndarray) -> float:
    """`grid_score` of a grid already warped to 9 cells of CHECK_CELL pixels inside a margin
    of half a cell."""
    rows, cols = line_profiles(warped)
    margin = CHECK_CELL // 2
    return (line_evidence(rows, CHECK_CELL, margin) + line_evidence(cols, CHECK_CELL, margin)) / 2


def line_profiles(warped: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The share of each row and each column of a grid warped as `square_score` takes it
    that is long strokes: lines, not digits."""
    cell = CHECK_CELL
    side, margin = 9 * cell, cell // 2
    ink = cv2.adaptiveThreshold(
        warped, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, cell | 1, 6
    )
    inside = slice(margin, margin + side)
    rows = long_strokes(ink, horizontal=True, length=cell * 3 // 5)[:, inside].mean(axis=1)
    cols = long_strokes(ink, horizontal=False, length=cell * 3 // 5)[inside, :].mean(axis=0)
    return rows, cols


def cell_lines(square: np.ndarray) -> int:
    """How many of a candidate's twelve thin lines (those between the cells of a box, six
    each way) show long strokes clearly above its cell middles.

    A 3 x 3 box of a grid taken for a grid has its four lines each way where a grid's box
    lines are and nothing between them: none of the twelve. A grid shows most of them even
    where a photo of a whole page blurs its hairlines to a few."""
    cell, margin = CHECK_CELL, CHECK_CELL // 2
    reach = min(max(1, cell // 6), margin)
    thin = np.array([1, 2, 4, 5, 7, 8])
    count = 0
    for profile in line_profiles(square):
        windows = np.lib.stride_tricks.sliding_window_view(profile, 2 * reach + 1)
        lines = windows[margin - reach + cell * thin].max(axis=1)
        middles = windows[margin - reach + cell * np.arange(9) + cell // 2].mean(axis=1)
        count += int(np.count_nonzero(lines >= middles.mean() + 0.1))
    return count


def box_lines(square: np.ndarray) -> tuple[float, float]:
    """The second weakest of a candidate's four box lines across, and of its four down (its
    border and the lines between its boxes), each less the mean of its cell middles: one
    of the four may fade (a cut's edge, a fold, a lamp's glare), two may not.

    The thick lines are a sudoku's mark whatever the print: a sheet's hairlines blur away
    in a photo of the whole page, but its box lines stay. A framed box of text (an
    advertisement beside the puzzle) has its border but no lines across its middle, and
    `grid_score`, an average, can still pass it: a page's other grids must show three of
    the four each way (`locate_grids`). A grid cut off by the photo's edge shows the four that run along the
    cut. `square`: the candidate as `check_square` warps it.
    """
    cell, margin = CHECK_CELL, CHECK_CELL // 2
    reach = min(max(1, cell // 6), margin)
    weakest = []
    for profile in line_profiles(square):
        windows = np.lib.stride_tricks.sliding_window_view(profile, 2 * reach + 1)
        lines = windows[margin - reach + cell * np.arange(0, 10, 3)].max(axis=1)
        middles = windows[margin - reach + cell * np.arange(9) + cell // 2].mean(axis=1)
        weakest.append(float(np.sort(lines)[1] - middles.mean()))
    return weakest[0], weakest[1]


def digit_marks(square: np.ndarray) -> tuple[float, float, int]:
    """The median height of the ink marks inside a candidate (the longer side of each, as
    the page may be turned), in its cells; NaN where there are none.

    A grid of printed digits: about 0.6. A 3 x 3 box of a small grid taken for a grid:
    about 2 (each digit spans three of the box's would-be cells); a framed box of text:
    0.3; NaN for a crossword, whose black squares are a fifth of its marks or more.
    `grid_score` averages the lines, so each can pass for a grid: a page's other
    grids must hold digits of their cells' size (`locate_grids`). `square`: the candidate
    as `check_square` warps it.
    """
    cell, margin = CHECK_CELL, CHECK_CELL // 2
    # ink a quarter of the way from the paper to the print's darkest: a grey page's sensor
    # noise, which a fixed offset takes for specks the size of a digit, stays paper
    paper, darkest = np.percentile(square, [50, 2])
    offset = max(6.0, 0.25 * float(paper - darkest))
    ink = cv2.adaptiveThreshold(
        square, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, cell | 1, offset
    )
    long = 5 * cell // 2  # longer than any digit of either: the lines go, the digits stay
    lines = long_strokes(ink, horizontal=True, length=long) | long_strokes(
        ink, horizontal=False, length=long
    )
    marks = ink & ~cv2.dilate(lines, np.ones((3, 3), np.uint8))
    _, _, stats, _ = cv2.connectedComponentsWithStats(marks[margin:-margin, margin:-margin])
    stats = stats[1:]
    # a page photographed sideways turns its digits: their height is the longer side
    tall, wide = stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_WIDTH]
    heights = np.maximum(tall, wide)
    kept = (heights >= cell // 4) & (stats[:, cv2.CC_STAT_AREA] >= cell)
    if not kept.any():
        return float("nan"), float("nan"), 0
    # a crossword's black squares: solid, square, a third of a cell wide or more (less the
    # lines' ink): no digit is all three
    solid = stats[:, cv2.CC_STAT_AREA] >= 0.9 * tall * wide
    blocks = kept & solid & (np.minimum(tall, wide) >= 0.75 * heights) & (heights >= cell // 3)
    tallest = float(heights[kept].max()) / cell
    digits = int(np.count_nonzero(kept & (heights <= MAX_DIGIT_HEIGHT * cell)))
    if blocks.sum() >= 0.2 * kept.sum():
        return float("nan"), tallest, digits
    # a box of a sparse grid holds a few digits three would-be cells high among specks of
    # dirt the median would go by: marks that tall are its digits when they are a third
    tall_marks = kept & (heights > MAX_DIGIT_HEIGHT * cell)
    if tall_marks.sum() >= 0.3 * kept.sum():
        return float(np.median(heights[tall_marks])) / cell, tallest, digits
    return float(np.median(heights[kept])) / cell, tallest, digits


def long_strokes(ink: np.ndarray, horizontal: bool, length: int) -> np.ndarray:
    """Ink that runs at least ``length`` pixels along one direction: grid lines stay,
    printed and hand-written digits (narrower than a cell) go. Thickened across first, so
    a line tilted by a misfit corner or a curled page still runs long enough."""
    across = np.ones((3, 1) if horizontal else (1, 3), np.uint8)
    along = np.ones((1, length) if horizontal else (length, 1), np.uint8)
    return cv2.morphologyEx(cv2.dilate(ink, across), cv2.MORPH_OPEN, along)


def line_evidence(profile: np.ndarray, cell: int, margin: int) -> float:
    """Mean ink on the 10 expected lines minus ink on the 9 cell middles, lines capped so
    one thick border cannot make up for missing inner lines."""
    reach = min(max(1, cell // 6), margin)
    windows = np.lib.stride_tricks.sliding_window_view(profile, 2 * reach + 1)
    lines = windows[margin - reach + cell * np.arange(10)].max(axis=1)
    middles = windows[margin - reach + cell * np.arange(9) + cell // 2].mean(axis=1)
    return float(np.minimum(lines, 0.9).mean() - middles.mean())


# --- refinement --------------------------------------------------------------------------


REFINE_CELL = 24  # pixels per cell in the square the corners are first refined in
FINE_CELL = 64  # ... and then, for a large grid, refined again in


def refine_corners(
    gray: np.ndarray, corners: np.ndarray, score: float | None = None, n: int = 9
) -> np.ndarray:
    """Corners moved onto the grid's outer lines, measured on the full-resolution image.

    The candidate's corners come from a hull on a small copy: a pixel off there is several
    pixels at full size, and a corner clipped by the photo edge or hidden by a shadow is
    further off. Warped to a square with a one-cell margin, each half of the grid shows its
    ten lines; fitting an evenly spaced comb of ten lines to each half's ink profile places
    the outer lines from the whole grid's evidence, not from four corner pixels. The corners
    are where the fitted outer lines (through the line centres) meet, mapped back through the
    homography. A coarse pass (24 px per cell, up to half a cell off) is followed by a fine
    one (one square pixel for two photo pixels, 24 to 64 px per cell, within a coarse pixel)
    that moves the corners to the border's outer edge, so a 12 MP grid is placed to a pixel
    or two rather than to a tenth of a cell. A coarse pass that costs the grid more than
    `REFINE_LOSS` of its score has fitted its combs to something else, and the corners stay.
    `score`, when known, is `grid_score(gray, corners)`. A board of `n` cells a side other
    than 9 (`vision.lattice`) is fitted with combs of n + 1 lines and judged by `board_score`.
    """
    coarse = fit_outer_lines(gray, corners, REFINE_CELL, reach=0.5, stretch=0.08, step=0.5, n=n)
    if n == 9:
        score = grid_score(gray, corners) if score is None else score
        kept = grid_score(gray, coarse) >= (1 - REFINE_LOSS) * score
    else:
        kept = board_score(gray, coarse, n) >= (1 - REFINE_LOSS) * board_score(gray, corners, n)
    if not kept:
        return corners  # the combs fitted something else than the grid's lines
    cell = int(np.clip(grid_side(coarse) / (2 * n), REFINE_CELL, FINE_CELL))  # 1 px: 2 photo px
    return fit_outer_lines(
        gray, coarse, cell, reach=1.5 / REFINE_CELL, stretch=0.01, outer=True, n=n
    )


def grid_side(corners: np.ndarray) -> float:
    """Mean side length of the quadrilateral in pixels."""
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))


def fit_outer_lines(
    gray: np.ndarray,
    corners: np.ndarray,
    cell: int,
    reach: float,
    stretch: float,
    outer: bool = False,
    step: float = 0.25,
    strict: bool = False,
    min_strength: float = 0.25,
    n: int = 9,
) -> np.ndarray | None:
    """One refinement pass: combs within ``reach`` cells and ``stretch`` of spacing.

    With ``outer`` the corners go to the outside edge of the border line rather than its
    middle, where a person puts them (and where the labels of real photos are). When some
    half of the grid shows no clear comb (mean line strength under ``min_strength``) the
    corners are kept as they are, or, ``strict`` (tracking, where keeping them would leave
    the grid behind), None is returned. `n`: the cells a side (combs of n + 1 lines).
    """
    side = n * cell
    homography = square_homography(corners, side, cell)
    size = side + 2 * cell
    warped = cv2.warpPerspective(
        gray, homography, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    # 0/1 bytes, dilated as bytes and made floats only where averaged: the same means as of
    # the whole float image (sums of 0s and 1s are exact in any order), at a quarter of the
    # memory (a fine pass's 704-pixel square, twice a 12 MP photo)
    ink = cv2.adaptiveThreshold(
        warped, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, cell | 1, 6
    )
    rows = cv2.dilate(ink, np.ones((3, 1), np.uint8))
    cols = cv2.dilate(ink, np.ones((1, 3), np.uint8))
    part = side // 2 if not outer else side // 4
    first, second = slice(cell, cell + part), slice(cell + side - part, cell + side)
    q1, q3 = cell + part / 2, cell + side - part / 2

    def across(mask: np.ndarray, band: slice, axis: int) -> np.ndarray:
        """The mean of the mask over `band` of its columns (axis 1) or rows (axis 0): the
        same float32 means as numpy's of the band made floats (whole sums, one division),
        without the float copy (a fine pass's 12 profiles 0.8 -> 0.2 ms)."""
        part = mask[:, band] if axis == 1 else mask[band, :]
        sums = cv2.reduce(part, axis, cv2.REDUCE_SUM, dtype=cv2.CV_32S).ravel()
        return sums.astype(np.float32) / np.float32(part.shape[axis])

    fits = [
        comb_fit(across(rows, first, 1), cell, reach, stretch, step, n),  # horizontal, left end
        comb_fit(across(rows, second, 1), cell, reach, stretch, step, n),  # horizontal, right end
        comb_fit(across(cols, first, 0), cell, reach, stretch, step, n),  # vertical, top end
        comb_fit(across(cols, second, 0), cell, reach, stretch, step, n),  # vertical, bottom end
    ]
    if min(f[2] for f in fits) < min_strength:  # some half shows no clear comb
        return None if strict else corners
    if outer:
        profiles = (
            across(ink, first, 1),
            across(ink, second, 1),
            across(ink, first, 0),
            across(ink, second, 0),
        )
        fits = [outer_edges(p, f, cell) for p, f in zip(profiles, fits, strict=True)]
    (top_l, bottom_l, _), (top_r, bottom_r, _) = fits[0], fits[1]
    (left_t, right_t, _), (left_b, right_b, _) = fits[2], fits[3]
    top = ((q1, top_l), (q3, top_r))
    bottom = ((q1, bottom_l), (q3, bottom_r))
    left = ((left_t, q1), (left_b, q3))
    right = ((right_t, q1), (right_b, q3))
    square = np.float32(
        [
            intersect(top, left),
            intersect(top, right),
            intersect(bottom, right),
            intersect(bottom, left),
        ]
    )
    refined = cv2.perspectiveTransform(square.reshape(-1, 1, 2), np.linalg.inv(homography))
    return refined.reshape(4, 2).astype(np.float32)


def outer_edges(profile: np.ndarray, fit: tuple, cell: int) -> tuple[float, float, float]:
    """The fitted first and last lines moved out to the outside edges of their ink."""
    first, last, strength = fit
    return (
        line_edge(profile, first, -1, max(2, cell // 12)),
        line_edge(profile, last, +1, max(2, cell // 12)),
        strength,
    )


def line_edge(profile: np.ndarray, centre: float, step: int, limit: int) -> float:
    """Walk from a line's centre in direction ``step`` while the profile stays inky; the
    pixel boundary where the ink ends (at most ``limit`` pixels away)."""
    i = int(round(centre))
    if not 0 <= i < len(profile) or profile[i] < 0.3:
        return centre
    level = 0.5 * profile[i]
    for _ in range(limit):
        nxt = i + step
        if not 0 <= nxt < len(profile) or profile[nxt] < level:
            break
        i = nxt
    return i + 0.5 * step


def comb_fit(
    profile: np.ndarray, cell: int, reach: float, stretch: float, step: float = 0.25, n: int = 9
) -> tuple[float, float, float]:
    """Ten evenly spaced lines best matching an ink profile: (first, last, mean strength).

    The expected comb starts at ``cell`` with spacing ``cell``; offsets within ``reach``
    cells and spacings within ``stretch`` are searched, offsets in steps of ``step`` pixels
    and spacings in steps that move the last line by one pixel. Each comb's strength is
    the mean of its ten lines' profile (linearly interpolated, capped at 0.9): `comb_totals`.
    A board of `n` cells a side other than 9 has combs of n + 1 lines (`lattice_totals`).
    """
    offsets = np.arange(-reach * cell, reach * cell + 0.01, step)
    spacings = cell * np.arange(1 - stretch, 1 + stretch + 1e-6, 0.25 / (9 * cell) * 4)
    if n == 9:
        total = comb_totals()(profile, float(cell), offsets, spacings)
    else:
        total = lattice_totals(profile, float(cell), offsets, spacings, n)
    # capped profiles have plateaus: take the middle of the best ones, not the first
    best = total >= total.max() - 1e-3
    o, s = np.nonzero(best)
    first = cell + float(offsets[o].mean())
    return first, first + n * float(spacings[s].mean()), float(total.max())


def lattice_totals(profile, start, offsets, spacings, n: int) -> np.ndarray:
    """`_comb_totals` for combs of n + 1 lines, in numpy (other boards than 9x9 are few)."""
    positions = start + offsets[:, None, None] + spacings[None, :, None] * np.arange(n + 1)
    x = np.clip(positions, 0.0, len(profile) - 1.0)
    inked = np.interp(x, np.arange(len(profile)), profile.astype(np.float64))
    return np.minimum(inked, 0.9).mean(axis=2)


def _comb_totals(profile, start, offsets, spacings):
    """(offsets, spacings) the mean strength of each comb of ten lines, the first at
    `start` + offset, `profile` interpolated between whole pixels (flat past its ends) and
    capped at 0.9: the very numbers of numpy's `np.minimum(np.interp(positions, ...), 0.9)
    .mean(axis=2)` over the (offsets, spacings, 10) positions, the ten summed as its
    pairwise sum adds them. Compiled (`comb_totals`): the coarse refinement asks 17,000
    points a comb, eight combs a photo (1.06 -> 0.43 ms a 640x480 photo)."""
    n = len(profile)
    total = np.empty((len(offsets), len(spacings)))
    line = np.empty(10)
    for o in range(len(offsets)):
        first = start + offsets[o]
        for s in range(len(spacings)):
            for k in range(10):
                x = min(max(first + spacings[s] * k, 0.0), n - 1.0)
                j = int(x)  # x >= 0: the floor
                low = np.float64(profile[j])
                high = np.float64(profile[min(j + 1, n - 1)])
                line[k] = min((high - low) * (x - j) + low, 0.9)
            eight = ((line[0] + line[1]) + (line[2] + line[3])) + (
                (line[4] + line[5]) + (line[6] + line[7])
            )
            total[o, s] = (eight + line[8] + line[9]) / 10
    return total


# `_comb_totals` compiled on first use; `vision.read.warm_up` loads it
comb_totals = on_first_use(_comb_totals)


def intersect(a: tuple, b: tuple) -> tuple[float, float]:
    """Where the line through a's two points meets the line through b's two points."""
    (x1, y1), (x2, y2) = a
    (x3, y3), (x4, y4) = b
    d = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    if abs(d) < 1e-9:
        return (x1, y1)
    p = x1 * y2 - y1 * x2
    q = x3 * y4 - y3 * x4
    return ((p * (x3 - x4) - (x1 - x2) * q) / d, (p * (y3 - y4) - (y1 - y2) * q) / d)
