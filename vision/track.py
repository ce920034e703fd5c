"""Follow a grid from one video frame to the next, and tell cheaply whether its content changed.

The live camera mode answers many frames a second, and a full search for the grid (every
threshold, every contour, a score for each candidate) costs tens of milliseconds. Between two
frames the paper moves a little, so the grid is looked for only near where it was: the last
corners warp the frame to a square with a margin, and the ten evenly spaced lines of each
direction are fitted there (`vision.locate.fit_outer_lines`, the same fit that places the
corners of a photo), once coarse, once fine, and checked with the grid score. When that fails
(the paper moved too far, a hand hides it) the caller falls back to the full search.

The digits are read again only when the content changed: the `ink_signature` of a grid is
which of its 81 cells hold ink in their middles (a digit), which are empty and which are
unknown (in between, or outside the frame), from a small warp of 144 pixels a side.

>>> import numpy as np
>>> square = np.full((200, 200), 230, np.uint8)
>>> corners = np.float32([[10, 10], [190, 10], [190, 190], [10, 190]])
>>> int((ink_signature(square, corners) == EMPTY).sum())
81
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.locate import (
    FINE_CELL,
    MIN_SCORE,
    REFINE_CELL,
    Located,
    fit_outer_lines,
    grid_score,
    grid_side,
    square_homography,
)
from vision.occlusion import (
    OUTSIDE,
    PAPER_CELL,
    PAPER_MARGIN,
    PAPER_SIDE,
    SAME,
    cell_states,
    paper_gone,
    planes,
)

SIGNATURE_CELL = 16  # pixels per cell of the warp the signature is taken from
INK, EMPTY, UNKNOWN = 1, 0, -1
INKED = 0.10  # share of a cell's middle that is ink: above, a digit; below EMPTY_BELOW, none
EMPTY_BELOW = 0.04
MIN_SIDE = 45.0  # a grid smaller than this (pixels a side) is not tracked
# A tracked grid must look clearly like one (a full search accepts MIN_SCORE): a comb fitted
# a few cells off the grid, across its lines and the text beside it, can still pass that.
TRACK_SCORE = 0.5
CLEAR_COMB, FAINT_COMB = 0.25, 0.1  # mean strength of a fitted comb of lines (0 to 0.9)
HELD_CELLS = 0.35  # a faint fit is accepted this near (in cells) the expected corners


def track_grid(gray: np.ndarray, corners: np.ndarray) -> Located | None:
    """The grid near ``corners`` (within about half a cell), or None when it is not there.

    A hand or a pen over part of the grid hides some of its lines: when the clear fit
    fails, a lenient one (fainter combs, the full search's score) is accepted if it stays
    within HELD_CELLS of where the grid was expected, since so near the expected place a
    weaker fit cannot have jumped to the wrong lines.

    Parameters
    ----------
    gray : np.ndarray
        The frame, gray.
    corners : np.ndarray
        (4, 2) where the grid was (or is predicted to be), in any corner order: the result
        keeps that order, so a grid turned upright stays upright.

    Returns
    -------
    Located or None
        The fitted corners and their grid score; None when a comb of lines is missing or
        the score says it is not a sudoku grid.

    Examples
    --------
    >>> track_grid(np.full((100, 100), 255, np.uint8), np.float32([[0, 0], [9, 0], [9, 9], [0, 9]]))
    """
    corners = np.asarray(corners, np.float32)
    if grid_side(corners) < MIN_SIDE:
        return None
    found = fit_grid(gray, corners, CLEAR_COMB, TRACK_SCORE)
    if found is not None:
        return found
    found = fit_grid(gray, corners, FAINT_COMB, MIN_SCORE)
    if found is not None:
        moved = np.linalg.norm(found.corners - corners, axis=1).max()
        if moved <= HELD_CELLS * grid_side(corners) / 9:
            return found
    return None


def fit_grid(gray: np.ndarray, corners: np.ndarray, comb: float, score: float) -> Located | None:
    """The coarse then fine comb fit near ``corners``, if its combs reach ``comb`` strength
    and the grid score ``score``."""
    coarse = fit_outer_lines(
        gray, corners, REFINE_CELL, 0.5, 0.08, step=0.5, strict=True, min_strength=comb
    )
    if coarse is None:
        return None
    cell = int(np.clip(grid_side(coarse) / 18, REFINE_CELL, FINE_CELL))
    fine = fit_outer_lines(
        gray, coarse, cell, 1.5 / REFINE_CELL, 0.01, outer=True, strict=True, min_strength=comb
    )
    if fine is None:
        return None
    found = grid_score(gray, fine)
    return Located(fine.astype(np.float32), found) if found >= score else None


def ink_signature(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Which cells hold ink: (9, 9) int8 of INK, EMPTY or UNKNOWN, in the corners' order.

    A cell is UNKNOWN when its ink share lies between the two thresholds (a faint or cut
    digit that blur could tip either way) or its centre lies outside the frame.

    Parameters
    ----------
    gray : np.ndarray
        The frame, gray.
    corners : np.ndarray
        (4, 2) TL, TR, BR, BL of the grid as it should be read (row 0 along TL-TR).

    Returns
    -------
    np.ndarray
        (9, 9) int8.
    """
    cell = SIGNATURE_CELL
    side = 9 * cell
    homography = square_homography(corners, side)
    warped = cv2.warpPerspective(
        gray, homography, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    ink = cv2.adaptiveThreshold(
        warped, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 2 * cell + 1, 10
    )
    quarter = cell // 4
    middles = ink.reshape(9, cell, 9, cell)[
        :, quarter : cell - quarter, :, quarter : cell - quarter
    ]
    share = middles.mean(axis=(1, 3))
    signature = np.full((9, 9), UNKNOWN, np.int8)
    signature[share >= INKED] = INK
    signature[share < EMPTY_BELOW] = EMPTY
    centres = (np.arange(9) + 0.5) * cell
    xs, ys = np.meshgrid(centres, centres)
    square = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    points = cv2.perspectiveTransform(square, np.linalg.inv(homography)).reshape(9, 9, 2)
    height, width = gray.shape[:2]
    outside = (points[..., 0] < 0) | (points[..., 0] >= width)
    outside |= (points[..., 1] < 0) | (points[..., 1] >= height)
    signature[outside] = UNKNOWN
    return signature


def changes(signature: np.ndarray, reference: np.ndarray) -> tuple[int, int]:
    """(cells that differ, cells known in both): only cells known in both are compared.

    >>> a = np.array([[1, 0, -1]], np.int8); b = np.array([[1, 1, 0]], np.int8)
    >>> changes(a, b)
    (1, 2)
    """
    known = (signature != UNKNOWN) & (reference != UNKNOWN)
    return int((signature[known] != reference[known]).sum()), int(known.sum())


def best_turn(
    signature: np.ndarray,
    reference: np.ndarray,
    corners: np.ndarray | None = None,
    last: np.ndarray | None = None,
) -> tuple[int, int, int]:
    """The quarter turn k that makes ``signature`` most like ``reference``.

    np.rot90(signature, k) is the signature of the corners np.roll(corners, -k, axis=0):
    after a full search (which orders corners by where they lie in the frame, not by the
    grid's own up) the turn that matches the last known grid makes its corners upright
    again without reading it. Printed puzzles are mostly symmetric under a half turn, so two
    turns often match equally well: then the one whose corners lie nearest the ``last``
    known corners wins (the phone turned little while the grid was lost).

    Parameters
    ----------
    signature, reference : np.ndarray
        (9, 9) signatures: of the grid as found, and of the grid as known.
    corners, last : np.ndarray, optional
        (4, 2) the corners as found and the last known upright ones, to break ties.

    Returns
    -------
    tuple of int
        (k, cells that differ, cells compared) for the best k.

    Examples
    --------
    >>> ref = np.zeros((9, 9), np.int8); ref[0, 0] = ref[0, 1] = 1
    >>> best_turn(np.rot90(ref, -1), ref)[:2]
    (1, 0)
    """
    best = None
    for k in range(4):
        differ, known = changes(np.rot90(signature, k), reference)
        distance = 0.0
        if corners is not None and last is not None:
            turned = np.roll(np.asarray(corners, np.float64), -k, axis=0)
            distance = float(np.linalg.norm(turned - last, axis=1).sum())
        key = (differ / max(known, 1), distance, -known)
        if best is None or key < best[0]:
            best = (key, k, differ, known)
    return best[1], best[2], best[3]


# --- following the paper once the grid is known -------------------------------------------
# A hand over the grid hides some of its lines, and a comb fit then snaps to the wrong ones
# or fails. Once a grid is read its paper is kept (the frame warped to a square, see
# vision.occlusion) and each frame is matched to it instead: the frame is warped through the
# predicted corners, points of the paper (the corners of lines and digits) are followed into
# that warp with pyramidal Lucas-Kanade optical flow, a homography is fitted to them with
# RANSAC (OpenCV's USAC; its faster RHO let the bar's own edges win a frame), and what it says
# is checked cell by cell against the paper. A hand over a third of the grid leaves two
# thirds of the points, so the fit is as good as without it; the cells that differ from the
# paper are those the hand covers.

FEATURES = 160  # points of the paper followed
LK_WINDOW = (13, 13)
LK_LEVELS = 3  # pyramid levels: up to about 8 * 6 pixels of the square between frames
LK_CRITERIA = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 10, 0.05)
RANSAC_PIXELS = 1.5  # reprojection error of an inlier, in pixels of the square
MIN_INLIERS = 20
MIN_SAME = 18  # cells that must look as the paper did for the fit to count
SAME_SHARE = 0.45  # ... and this share of the cells in view
REFINE_AGREES = 0.6  # cells: a comb fit this near the followed corners refines the outline
SETTLED = 4.0  # pixels of the square: a correction this small needs no second pass


@dataclass(frozen=True)
class Followed:
    """The known grid found again: corners (4, 2) upright in the frame; states (9, 9) of its
    cells against the paper (vision.occlusion); inliers: points that agreed; to_frame: the
    homography from the paper's square to the frame; gone: something that lay on the paper
    when it was taken has gone, and nothing else differs (`vision.occlusion.paper_gone`)."""

    corners: np.ndarray
    states: np.ndarray
    inliers: int
    to_frame: np.ndarray
    gone: bool = False  # the frame differs from the paper only where it is lighter


def paper_view(image: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The frame warped to the paper's square through ``corners``, and which of its pixels
    came from inside the frame. A gray frame gives a gray view; a colour (BGR) one a view of
    its gray and tint (`vision.occlusion.planes`, taken after the warp: 220 pixels a side
    rather than the whole frame).

    >>> view, valid = paper_view(np.full((300, 300), 99, np.uint8),
    ...                          np.float32([[50, 50], [250, 50], [250, 250], [50, 250]]))
    >>> view.shape, bool(valid.all())
    ((220, 220), True)
    """
    side = PAPER_SIDE
    homography = square_homography(corners, 9 * PAPER_CELL, PAPER_MARGIN)
    view = cv2.warpPerspective(
        image, homography, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    height, width = image.shape[:2]
    bounds = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    valid = np.zeros((side, side), np.uint8)
    cv2.fillConvexPoly(
        valid, np.round(_through(homography, bounds) * 16).astype(np.int32), 1, shift=4
    )
    return planes(view), valid > 0


def paper_points(paper: np.ndarray) -> np.ndarray:
    """(N, 1, 2) float32 corners of ink on the paper worth following."""
    points = cv2.goodFeaturesToTrack(_gray(paper), FEATURES, 0.01, 7, blockSize=5)
    return np.zeros((0, 1, 2), np.float32) if points is None else points.astype(np.float32)


def follow_paper(
    gray: np.ndarray,
    corners: np.ndarray,
    paper: np.ndarray,
    points: np.ndarray | None = None,
    outline: np.ndarray | None = None,
) -> Followed | None:
    """The known grid near ``corners`` (predicted, upright), matched to its ``paper``; None
    when too little of it agrees (lost, or too much of it covered).

    Parameters
    ----------
    gray : np.ndarray
        The frame, gray, or in colour (BGR) to tell skin apart by its tint.
    corners : np.ndarray
        (4, 2) where the grid should be, TL, TR, BR, BL as the paper was taken.
    paper : np.ndarray
        (PAPER_SIDE, PAPER_SIDE) uint8, or with a second plane, the tint: the grid's paper
        (`paper_view` of a frame read, gray or in colour as ``gray``).
    points : np.ndarray, optional
        The paper's `paper_points`, when already known.
    outline : np.ndarray, optional
        (4, 2) where the grid's outer corners lie on the paper, as measured since it was
        taken (`refined_outline`); by default where the paper was taken from.

    Returns
    -------
    Followed or None
    """
    corners = np.asarray(corners, np.float32)
    if grid_side(corners) < MIN_SIDE or not np.isfinite(corners).all():
        return None
    if points is None:
        points = paper_points(paper)
    if len(points) < MIN_INLIERS:
        return None
    nominal = _grid_outline()
    outline = nominal if outline is None else np.float32(outline)
    # where the paper's own square lies in the frame, when the grid lies at `corners`
    square = _through(cv2.getPerspectiveTransform(outline, corners), nominal)
    inliers = 0
    for _ in range(2):
        view, valid = paper_view(gray, square)
        fit = _paper_motion(_gray(paper), _gray(view), points)
        if fit is None:
            return None
        motion, inliers = fit
        moved = _through(motion, nominal)
        shift = float(np.abs(moved - nominal).max())
        back = np.linalg.inv(square_homography(square, 9 * PAPER_CELL, PAPER_MARGIN))
        square = _through(back, moved)
        if shift < SETTLED:
            break
    if grid_side(square) < MIN_SIDE:
        return None
    view, valid = paper_view(gray, square)  # compared where the paper now lies
    states = cell_states(view, valid, paper)
    in_view = int((states != OUTSIDE).sum())
    same = int((states == SAME).sum())
    if same < MIN_SAME or same < SAME_SHARE * in_view:
        return None
    to_frame = cv2.getPerspectiveTransform(nominal, square)
    gone = bool((states != SAME).any()) and paper_gone(view, valid, paper)
    return Followed(_through(to_frame, outline), states, inliers, to_frame, gone)


def refined_outline(
    gray: np.ndarray, followed: Followed, outline: np.ndarray | None, weight: float = 0.35
) -> np.ndarray | None:
    """The grid's outline on the paper moved ``weight`` of the way towards where a comb fit
    of its lines puts it in this frame (`track_grid` from the followed corners), or None
    when the fit fails or lands over REFINE_AGREES cells away.

    The paper is taken through the corners of one reading, a tenth or two of a cell off on
    a blurred frame; every frame followed would carry that error on. Averaged over frames,
    the lines' fits take it away."""
    lines = track_grid(gray, followed.corners)
    if lines is None:
        return None
    cell = grid_side(followed.corners) / 9
    if np.linalg.norm(lines.corners - followed.corners, axis=1).max() > REFINE_AGREES * cell:
        return None
    measured = _through(np.linalg.inv(followed.to_frame), lines.corners)
    outline = _grid_outline() if outline is None else np.float32(outline)
    return (outline + weight * (measured - outline)).astype(np.float32)


def _through(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(4, 2) points through a homography."""
    moved = cv2.perspectiveTransform(np.float32(points).reshape(-1, 1, 2), homography)
    return moved.reshape(-1, 2)


def _gray(view: np.ndarray) -> np.ndarray:
    return view[..., 0] if view.ndim == 3 else view


def _grid_outline() -> np.ndarray:
    lo, hi = PAPER_MARGIN, PAPER_MARGIN + 9 * PAPER_CELL
    return np.float32([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])


def _paper_motion(paper, view, points) -> tuple[np.ndarray, int] | None:
    """The homography taking the paper to ``view`` (both squares), from points followed
    with optical flow and fitted robustly (USAC's RANSAC, then least squares over its
    inliers), and its inliers; None when too few."""
    ahead, ok, _ = cv2.calcOpticalFlowPyrLK(
        paper, view, points, None, winSize=LK_WINDOW, maxLevel=LK_LEVELS, criteria=LK_CRITERIA
    )
    good = ok.ravel() == 1
    if good.sum() < MIN_INLIERS:
        return None
    motion, mask = cv2.findHomography(
        points[good], ahead[good], cv2.USAC_DEFAULT, RANSAC_PIXELS, maxIters=500, confidence=0.995
    )
    if motion is None or int(mask.sum()) < MIN_INLIERS:
        return None
    inliers = mask.ravel() == 1
    source, target = points[good][inliers], ahead[good][inliers]
    refit, _ = cv2.findHomography(source, target, 0)  # least squares over the inliers
    return (motion if refit is None else refit), int(inliers.sum())
