"""A bent page's grid as a mesh of curved lines, and the piecewise warp that straightens it.

One homography from four corners makes a flat page's grid square. A curled newspaper or a
page folded in half bends the grid lines: warped by the corners alone, the middle of a row
sits up to a cell away from where a straight cut expects it, so a printed digit near a box
edge falls into its neighbour. So each of the twenty grid lines is traced as a curve in a
probe warp of the located grid (a dynamic-programming path through the ink of narrow strips
that follows a line as it bows but not a digit's bar beside it: outer borders first, inner
lines near where the borders put them, and a border that ran along a stroke outside the
grid moved in to where the lines' spacing puts it), the 100 crossings of those curves are
the mesh, and each cell is warped by the homography of its own four crossings: a piecewise
warp that follows the bend and is exactly the corner homography on a flat page.

A page the corners already straighten to within `FLAT` of a cell gets no mesh (None), so
every flat photo is read as before.

>>> import numpy as np
>>> square = np.full((300, 300), 255, np.uint8)
>>> for i in range(10):
...     square[15 + 30 * i, 15:286] = square[15:286, 15 + 30 * i] = 0
>>> corners = np.float32([[15, 15], [285, 15], [285, 285], [15, 285]])
>>> grid_mesh(square, corners) is None  # flat: the corners say it all
True
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cells import darkness, ink_threshold
from vision.compiled import on_first_use
from vision.warp import grid_homography

PROBE_CELL = 32  # pixels per cell in the square the lines are traced in
STRIPS_PER_CELL = 4  # a line's position is measured in strips a quarter of a cell wide
BORDER_REACH = 1.25  # cells an outer border may bow away from the chord between its corners
CORNER_REACH = 0.2  # ... and at its ends, where the located corners hold it
INNER_REACH = 0.35  # cells an inner line may stray from where the borders put it
REFINE_REACH = 0.25  # cells any line may stray in the square the first mesh straightened
BORDER_STEP_COST = 0.01  # ink per probe pixel a border's offset changes between strips,
BORDER_BEND_COST = 0.01  # ... and per squared pixel: a bow is smooth, a jump to a rule is not
INNER_STEP_COST = 0.08  # ... an inner line's: it follows the borders' bend for free
AGREE = 0.08  # cells: a traced strip this far from its line's smooth fit was led astray
LINE_SPAN = 0.9  # cells: a stroke shorter both ways is a digit or a letter, not a line
FLAT = 0.2  # cells: a grid straightened this well by its corners needs no mesh
EDGE_REACH = 0.15  # cells: how far out of its traced middle a border's outer edge may lie
UNEVEN = 0.2  # share of the usual width an outer row of cells may differ by before it is doubted
CLEAR = 0.2  # cells a border traced again keeps from the stroke it was first traced along


def grid_mesh(gray: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
    """The crossings of the grid's curved lines, in the photo's pixels; None on a flat page.

    Parameters
    ----------
    gray : ndarray of uint8
        The photo in grey.
    corners : ndarray, shape (4, 2)
        The located grid's TL, TR, BR, BL.

    Returns
    -------
    ndarray of float64, shape (10, 10, 2), or None
        x, y of the crossing of horizontal line i and vertical line j at [i, j]; None when
        the corners' homography already puts every crossing within `FLAT` of a cell, or the
        traced lines do not make a plausible grid (then the corners are all there is).
    """
    cell, margin = PROBE_CELL, PROBE_CELL
    side = 9 * cell + 2 * margin
    shift = np.array([[1, 0, margin], [0, 1, margin], [0, 0, 1]])
    to_probe = shift @ grid_homography(corners, 9 * cell)
    probe = cv2.warpPerspective(
        gray, to_probe, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    crossings = traced_crossings(probe, BORDER_REACH, INNER_REACH)
    regular = margin + cell * np.stack(np.meshgrid(np.arange(10), np.arange(10)), -1)
    if np.abs(crossings - regular).max() < FLAT * cell or not plausible(crossings, cell):
        return None
    first = cv2.perspectiveTransform(crossings.reshape(1, -1, 2), np.linalg.inv(to_probe))
    first = first.reshape(10, 10, 2)
    # a second look in the square the first mesh straightens: where a line's spacing along
    # a bow differs from the borders' (foreshortening), the first trace was led a little off
    homographies = cell_homographies(first, 9 * cell)
    probe = warp_mesh(gray, homographies, 9 * cell, margin=margin)
    crossings = traced_crossings(probe, REFINE_REACH, REFINE_REACH)
    if not plausible(crossings, cell):
        return first
    crossings = on_outer_edge(crossings, line_ink(darkness(probe), cell), cell)
    return square_to_photo(crossings.reshape(-1, 2) - margin, homographies, 9 * cell).reshape(
        10, 10, 2
    )


def on_outer_edge(crossings: np.ndarray, ink: np.ndarray, cell: int) -> np.ndarray:
    """The crossings with the outer ring moved out from the border's middle, where it was
    traced, to its outer edge (at most `EDGE_REACH` of a cell): a grid's located corners
    are that edge, and a flat grid's warp from them holds the whole border in its outer
    cells, so a digit there sits in its cell as on a flat page (the cell model reads a
    border's stroke along a cell's side as a hand's).

    The edge is where the line's ink, across it, falls below half its strength.

    >>> ink = np.zeros((352, 352), np.float32)
    >>> ink[28:37, 28:324] = ink[315:324, 28:324] = 1   # top and bottom borders, 9 px thick
    >>> ink[28:324, 28:37] = ink[28:324, 315:324] = 1   # left and right
    >>> ticks = 32.0 + 32 * np.arange(10)
    >>> traced = np.stack(np.meshgrid(ticks, ticks), -1)   # traced through the middles
    >>> moved = on_outer_edge(traced, ink, 32)
    >>> moved[0, 4].tolist(), moved[9, 9].tolist(), moved[4, 4].tolist()
    ([160.0, 28.0], [323.0, 323.0], [160.0, 160.0])
    """
    out = crossings.copy()
    reach = int(round(EDGE_REACH * cell))
    side = ink.shape[0]

    def outward(x: float, y: float, dx: int, dy: int) -> int:
        """Pixels from (x, y) out along (dx, dy) the line's ink still holds."""
        steps = 0
        for step in range(1, reach + 1):
            px, py = int(round(x + dx * step)), int(round(y + dy * step))
            lo_x, lo_y = max(0, px - 2 * abs(dy)), max(0, py - 2 * abs(dx))
            across = ink[
                lo_y : min(side, py + 2 * abs(dx) + 1), lo_x : min(side, px + 2 * abs(dy) + 1)
            ]
            if not across.size or across.mean() < 0.5:
                break
            steps = step
        return steps

    # each crossing walks out on its own (a bent page's border is not everywhere as
    # sharp), but a corner no further than the line's other crossings: past the grid's
    # corner the walk may run on into whatever ink lies beyond it
    inner = slice(1, 9)
    for i, dy in ((0, -1), (9, 1)):  # top and bottom lines move up and down
        steps = np.array([outward(*crossings[i, k], 0, dy) for k in range(10)], np.float64)
        steps[[0, 9]] = np.minimum(steps[[0, 9]], steps[inner].max())
        out[i, :, 1] += dy * steps
    for j, dx in ((0, -1), (9, 1)):  # left and right lines move left and right
        steps = np.array([outward(*crossings[k, j], dx, 0) for k in range(10)], np.float64)
        steps[[0, 9]] = np.minimum(steps[[0, 9]], steps[inner].max())
        out[:, j, 0] += dx * steps
    return out


def traced_crossings(probe: np.ndarray, border_reach: float, inner_reach: float) -> np.ndarray:
    """(10, 10, 2) the line crossings traced in a probe square of `PROBE_CELL` pixels a cell
    inside a margin of one cell."""
    cell = margin = PROBE_CELL
    ink = line_ink(darkness(probe), cell)
    rows = trace_lines(ink, cell, margin, border_reach, inner_reach)  # y of horizontal lines
    cols = trace_lines(ink.T, cell, margin, border_reach, inner_reach)  # x of vertical lines
    return line_crossings(rows, cols, cell, margin)


def line_ink(dark: np.ndarray, cell: int) -> np.ndarray:
    """Ink (0..1) of the strokes that run at least `LINE_SPAN` of a cell in one direction:
    the grid's lines, joined into one shape, stay; digits and text, each a small shape of
    its own, go, so a faint thin line is not outweighed by the bold digit beside it."""
    level = ink_threshold(dark)
    strokes = (dark >= 0.5 * level).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(strokes, connectivity=8)
    span = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    keep = span >= LINE_SPAN * cell
    keep[0] = False  # the paper
    return np.where(keep[labels], np.clip(dark / level, 0, 1), 0).astype(np.float32)


def trace_lines(
    ink: np.ndarray, cell: int, margin: int, border_reach: float, inner_reach: float
) -> np.ndarray:
    """(10, strips) position of each of the ten lines running along the probe's x axis, at
    the middle of each strip: the two borders first (up to `border_reach` cells off their
    straight place in the middle, `CORNER_REACH` at the ends), then each inner line within
    `inner_reach` of the place between them its index puts it."""
    strips = 9 * STRIPS_PER_CELL
    width = cell // STRIPS_PER_CELL
    band = ink[:, margin : margin + strips * width]
    profiles = band.reshape(ink.shape[0], strips, width).mean(axis=2).T  # (strips, y)
    profiles = cv2.blur(profiles, (3, 1))  # along y: a sloping line spreads over rows
    borders = margin + cell * np.array([[0.0], [9.0]]).repeat(strips, axis=1)
    # the corners are found, so a border may bow away from its chord in its middle only
    t = (np.arange(strips) + 0.5) / strips
    ends = min(CORNER_REACH, border_reach)
    reach = cell * (ends + (border_reach - ends) * 4 * t * (1 - t))
    top, bottom = best_paths(profiles, borders, reach, BORDER_STEP_COST, BORDER_BEND_COST)
    lines = inner_lines(profiles, top, bottom, cell, inner_reach)
    top, bottom = border_inside(profiles, lines, cell), border_inside(profiles, lines[::-1], cell)
    if not (np.array_equal(top, lines[0]) and np.array_equal(bottom, lines[9])):
        lines = inner_lines(profiles, top, bottom, cell, inner_reach)  # a border moved in
    return cv2.blur(lines, (3, 1), borderType=cv2.BORDER_REPLICATE)  # along the strips


def inner_lines(
    profiles: np.ndarray, top: np.ndarray, bottom: np.ndarray, cell: int, reach: float
) -> np.ndarray:
    """(10, strips) the two borders and the eight lines traced between them, each within
    `reach` cells of where its index puts it."""
    prior = top + (bottom - top) * np.arange(1, 9)[:, None] / 9
    traced = best_paths(profiles, prior, reach * cell, INNER_STEP_COST)
    return np.vstack([top, prior + smooth_offsets(traced - prior, cell), bottom])


def border_inside(profiles: np.ndarray, lines: np.ndarray, cell: int) -> np.ndarray:
    """The border `lines[0]`, or a line further in when the border was traced along a long
    stroke outside the grid (the page's edge or gutter, a rule boxing the puzzle). Then the
    outer two rows of cells are not as wide as the others (`UNEVEN`): the stroke makes the
    outer row too wide, or the real border is taken for the first line, the outer row too
    narrow and the next too wide. The border belongs two of the grid's rows in from the
    third line; a line at least half as strong as the stroke, clear of it, must run there.

    >>> profiles = np.zeros((8, 400)); profiles[:, [10, *range(40, 330, 32)]] = 1
    >>> rows = lambda *ys: np.vstack([np.full(8, float(y)) for y in ys])
    >>> inner = range(104, 330, 32)
    >>> ruled = rows(10, 72, *inner), rows(10, 40, *inner)  # 10 is a rule outside the grid
    >>> [float(border_inside(profiles, lines, 32)[0]) for lines in ruled]
    [40.0, 40.0]
    >>> even = rows(40, 72, *inner)
    >>> np.array_equal(border_inside(profiles, even, 32), even[0])
    True
    """
    border = lines[0]
    gaps = np.median(np.abs(np.diff(lines, axis=0)), axis=1)
    usual = np.median(gaps)
    if (np.abs(gaps[:2] - usual) <= UNEVEN * usual).all():
        return border
    inward = np.sign(np.median(lines[1] - border))
    beyond = inward * (np.arange(profiles.shape[1]) - border[:, None]) < CLEAR * cell
    prior = (lines[2] - 2 * (lines[3] - lines[2]))[None]
    inside_only = np.where(beyond, 0, profiles)
    inside = best_paths(inside_only, prior, INNER_REACH * cell, INNER_STEP_COST)[0]
    if ink_along(profiles, inside) < 0.5 * ink_along(profiles, border):
        return border
    return inside


def ink_along(profiles: np.ndarray, path: np.ndarray) -> float:
    """Mean ink a traced path collects, strip by strip."""
    positions = np.clip(np.rint(path).astype(int), 0, profiles.shape[1] - 1)
    return float(profiles[np.arange(len(path)), positions].mean())


def smooth_offsets(offsets: np.ndarray, cell: float) -> np.ndarray:
    """Each inner line's offsets from where the borders put it (lines, strips), as a
    parabola fitted to the strips that agree with it: the borders already carry the page's
    bend, so what is left varies slowly along a line, and a stretch where the trace was
    drawn to a digit touching the line (a hand-written entry crossing it) is left out.

    >>> offsets = np.zeros((1, 12)); offsets[0, 5:7] = 9  # two strips pulled to a digit
    >>> smooth_offsets(offsets, 32).round(3).tolist()
    [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
    """
    t = np.linspace(-1, 1, offsets.shape[1])
    smooth = np.empty_like(offsets)
    for i, line in enumerate(offsets):
        agree = np.ones(len(line), bool)
        for _ in range(3):
            fit = np.polyval(np.polyfit(t[agree], line[agree], 2), t)
            agreed = np.abs(line - fit) <= AGREE * cell
            if agreed.sum() < len(line) // 2:  # no steady line to follow: keep the prior
                fit = np.zeros_like(line)
                break
            if np.array_equal(agreed, agree):  # the same strips would give the same fit
                break
            agree = agreed
        smooth[i] = fit
    return smooth


def best_paths(
    profiles: np.ndarray,
    priors: np.ndarray,
    reach: float | np.ndarray,
    step_cost: float,
    bend_cost: float = 0.0,
) -> np.ndarray:
    """For each prior, the path through the strips within `reach` of it that collects the
    most ink less `step_cost` per pixel (and `bend_cost` per squared pixel) it strays
    further from (or back to) its prior between strips (Viterbi over offsets): a line is ink in every strip, a digit's stroke
    only in a few, and where the prior already bends with the page the line follows it free.

    Parameters
    ----------
    profiles : ndarray, shape (strips, n)
        Ink per position across the lines, in each strip.
    priors : ndarray, shape (lines, strips)
        Where each line is expected.
    reach : float or ndarray, shape (strips,)
        How far (pixels) a line may stray from its prior, everywhere or per strip.
    step_cost : float
        Ink given up per pixel of change in the offset from the prior between strips.
    bend_cost : float
        ... and per squared pixel of it: many small steps (a bow) cost less than one jump.

    Returns
    -------
    ndarray, shape (lines, strips)

    Examples
    --------
    >>> profiles = np.zeros((5, 20)); profiles[:, 8] = 1; profiles[2, 12] = 1.2
    >>> best_paths(profiles, np.full((1, 5), 10.0), 5, 0.03).tolist()
    [[8.0, 8.0, 8.0, 8.0, 8.0]]
    """
    strips, n = profiles.shape
    reach = np.broadcast_to(np.asarray(reach, np.float64), (strips,))
    widest = int(reach.max())
    offsets = np.arange(-widest, widest + 1)
    positions = np.clip(np.rint(priors).astype(int)[..., None] + offsets, 0, n - 1)  # (L, s, k)
    gain = profiles[np.arange(strips)[:, None], positions]
    gain = np.where(np.abs(offsets) <= reach[:, None], gain, -np.inf)
    change = np.abs(offsets[:, None] - offsets[None, :])
    step = step_cost * change + bend_cost * change**2  # (k, k)
    path = viterbi()(np.ascontiguousarray(gain, np.float64), step)
    return np.take_along_axis(positions, path[..., None], axis=2)[..., 0].astype(np.float64)


def _viterbi(gain: np.ndarray, step: np.ndarray) -> np.ndarray:
    """`best_paths`' dynamic programme: for each line (gain (lines, strips, k), the ink at
    each of k offsets in each strip), the offset index of its best path in each strip
    (lines, strips), less `step` (k, k) for each move, the first of equals winning. The
    same float64 operations in the same order as numpy's `(total[:, None, :] -
    step).argmax(axis=2)` and `.max(axis=2) + gain[:, s]` strip by strip, so the same paths
    bit for bit."""
    lines, strips, k = gain.shape
    back = np.zeros((lines, strips, k), np.intp)
    total = np.empty((lines, k))
    new = np.empty(k)
    for line in range(lines):
        for j in range(k):
            total[line, j] = gain[line, 0, j]
        for s in range(1, strips):
            for i in range(k):
                best = total[line, 0] - step[i, 0]
                arg = 0
                for j in range(1, k):
                    value = total[line, j] - step[i, j]
                    if value > best:
                        best = value
                        arg = j
                back[line, s, i] = arg
                new[i] = best + gain[line, s, i]
            for i in range(k):
                total[line, i] = new[i]
    path = np.zeros((lines, strips), np.intp)
    for line in range(lines):
        last = 0
        for j in range(1, k):
            if total[line, j] > total[line, last]:
                last = j
        path[line, strips - 1] = last
        for s in range(strips - 1, 0, -1):
            path[line, s - 1] = back[line, s, path[line, s]]
    return path


# `_viterbi` compiled on first use: a bent-page trace's paths in 0.5 ms instead of 5.6
# (numpy made a (lines, k, k) array per strip); `vision.read.warm_up` loads it
viterbi = on_first_use(_viterbi)


def line_crossings(rows: np.ndarray, cols: np.ndarray, cell: int, margin: int) -> np.ndarray:
    """(10, 10, 2) x, y where horizontal line i (y along x, sampled at strip middles) meets
    vertical line j (x along y): a few rounds of each line's position at the other's."""
    middles = margin + (np.arange(rows.shape[1]) + 0.5) * (cell / STRIPS_PER_CELL)
    x = np.tile(margin + cell * np.arange(10.0), (10, 1))  # [i, j]
    y = x.T.copy()
    for _ in range(4):
        y = np.stack([extended_interp(x[i], middles, rows[i]) for i in range(10)])
        x = np.stack([extended_interp(y[:, j], middles, cols[j]) for j in range(10)]).T
    return np.stack([x, y], -1)


def extended_interp(at: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """np.interp, continued beyond the ends along the last two samples' slope (a grid's
    corners lie an eighth of a cell outside the first and last strip middles)."""
    inside = np.interp(at, xs, ys)
    left = ys[0] + (at - xs[0]) * (ys[1] - ys[0]) / (xs[1] - xs[0])
    right = ys[-1] + (at - xs[-1]) * (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
    return np.where(at < xs[0], left, np.where(at > xs[-1], right, inside))


def plausible(crossings: np.ndarray, cell: float) -> bool:
    """Every cell of the mesh a convex quadrilateral with sides of half to one and a half
    cells: a grid, not a line that jumped to a neighbour or to text."""
    across = np.diff(crossings, axis=1)  # (10, 9, 2)
    down = np.diff(crossings, axis=0)  # (9, 10, 2)
    sides = np.concatenate([np.hypot(*across.T).ravel(), np.hypot(*down.T).ravel()])
    if sides.min() < 0.5 * cell or sides.max() > 1.5 * cell:
        return False
    tl, tr = crossings[:-1, :-1], crossings[:-1, 1:]
    br, bl = crossings[1:, 1:], crossings[1:, :-1]
    quads = np.stack([tl, tr, br, bl], 2)  # (9, 9, 4, 2)
    edges = np.roll(quads, -1, axis=2) - quads
    after = np.roll(edges, -1, axis=2)
    turns = edges[..., 0] * after[..., 1] - edges[..., 1] * after[..., 0]
    return bool((turns > 0).all())


def cell_homographies(mesh: np.ndarray, side: int) -> np.ndarray:
    """(9, 9, 3, 3): for each cell, photo pixels -> the upright square of `side` pixels, by
    the cell's own four crossings.

    >>> mesh = np.stack(np.meshgrid(np.arange(10.0), np.arange(10.0)), -1) * 5 + 7
    >>> h = cell_homographies(mesh, 90)
    >>> np.allclose(h[4, 2] @ [7 + 5 * 2, 7 + 5 * 4, 1], [20, 40, 1])
    True
    """
    step = side / 9
    out = np.empty((9, 9, 3, 3))
    for r in range(9):
        for c in range(9):
            quad = np.float32([mesh[r, c], mesh[r, c + 1], mesh[r + 1, c + 1], mesh[r + 1, c]])
            x0, y0, x1, y1 = c * step, r * step, (c + 1) * step, (r + 1) * step
            square = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
            out[r, c] = cv2.getPerspectiveTransform(quad, square)
    return out


def warp_mesh(
    image: np.ndarray, homographies: np.ndarray, side: int, margin: int = 0
) -> np.ndarray:
    """The grid as an upright square, each cell warped by its own homography (one remap);
    a margin around it is warped by the nearest edge cell's.

    As `vision.warp.warp_grid`, a grid much larger in the photo than the square is sampled
    at twice the size and halved with area averaging.

    Parameters
    ----------
    image : ndarray of uint8
        The photo, grey or BGR.
    homographies : ndarray, shape (9, 9, 3, 3)
        Photo -> square per cell, as `cell_homographies` gives them.
    side : int
    margin : int
        Pixels of the photo around the grid to keep on each side.

    Returns
    -------
    ndarray of uint8, shape (side + 2 margin,) * 2, with the image's channels

    Examples
    --------
    >>> mesh = np.stack(np.meshgrid(np.arange(10.0), np.arange(10.0)), -1) * 10 + 5
    >>> photo = np.zeros((110, 110), np.uint8); photo[5:96, 5:96] = 200
    >>> warped = warp_mesh(photo, cell_homographies(mesh, 90), 90, margin=3)
    >>> warped.shape, int(warped[3, 3]), int(warped[1, 1])
    ((96, 96), 200, 0)
    """
    corners = np.float64([[0, 0], [side, 0], [side, side], [0, side]])
    inverse = np.linalg.inv(homographies)
    outline = np.stack(
        [
            to_points(inverse[i, j], corners[k : k + 1])[0]
            for k, (i, j) in enumerate([(0, 0), (0, 8), (8, 8), (8, 0)])
        ]
    )
    extent = max(np.linalg.norm(outline[k] - outline[(k + 1) % 4]) for k in range(4))
    factor = 2 if extent >= 2 * side else 1
    size = (side + 2 * margin) * factor
    map_x = np.empty((size, size), np.float32)
    map_y = np.empty((size, size), np.float32)
    edges = np.rint((margin + np.arange(10) * side / 9) * factor).astype(int)
    edges[0], edges[-1] = 0, size
    for r in range(9):
        for c in range(9):
            y0, y1, x0, x1 = edges[r], edges[r + 1], edges[c], edges[c + 1]
            xs, ys = np.meshgrid(np.arange(x0, x1), np.arange(y0, y1))
            pts = np.stack([xs, ys], -1).reshape(-1, 2) / factor - margin  # as warp_grid samples
            photo = to_points(inverse[r, c], pts).reshape(y1 - y0, x1 - x0, 2)
            map_x[y0:y1, x0:x1], map_y[y0:y1, x0:x1] = photo[..., 0], photo[..., 1]
    warped = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if factor > 1:
        warped = cv2.resize(warped, (side + 2 * margin,) * 2, interpolation=cv2.INTER_AREA)
    return warped


def to_points(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points (N, 2) mapped by a homography."""
    pts = np.asarray(points, np.float64).reshape(1, -1, 2)
    return cv2.perspectiveTransform(pts, homography).reshape(-1, 2)


def cell_under(points: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of the cell each square point (N, 2) lies in (clipped to the grid)."""
    step = side / 9
    points = np.asarray(points, np.float64).reshape(-1, 2)
    cols = np.clip((points[:, 0] // step).astype(int), 0, 8)
    rows = np.clip((points[:, 1] // step).astype(int), 0, 8)
    return rows, cols


def square_to_photo(points: np.ndarray, homographies: np.ndarray, side: int) -> np.ndarray:
    """Points (N, 2) of the upright square in the photo, each through its own cell's map.

    >>> mesh = np.stack(np.meshgrid(np.arange(10.0), np.arange(10.0)), -1) * 5 + 7
    >>> square_to_photo(np.array([[25.0, 45.0]]), cell_homographies(mesh, 90), 90).round(6).tolist()
    [[19.5, 29.5]]
    """
    points = np.asarray(points, np.float64).reshape(-1, 2)
    rows, cols = cell_under(points, side)
    inverse = np.linalg.inv(homographies[rows, cols])  # (N, 3, 3)
    mapped = np.einsum("nij,nj->ni", inverse, np.column_stack([points, np.ones(len(points))]))
    return mapped[:, :2] / mapped[:, 2:]
