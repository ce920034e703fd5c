"""Warp the located grid to an upright square, and carry points and turns between the two.

The homography H maps original-image pixels to the warped square: corner TL goes to (0, 0),
TR to (side, 0), BR to (side, side), BL to (0, side). Its inverse takes anything found in the
square (cell boxes, where to draw a digit) back into the photo.

>>> import numpy as np
>>> corners = np.float32([[10, 20], [110, 25], [105, 130], [5, 120]])
>>> warped, homography = warp_grid(np.zeros((200, 200), np.uint8), corners, side=90)
>>> warped.shape, np.allclose(to_image(np.float32([[0, 0]]), homography), corners[:1], atol=1e-3)
((90, 90), True)
"""

from __future__ import annotations

import cv2
import numpy as np

WARP_SIDE = 450  # 50 px per cell: enough for any digit a phone resolves


def grid_homography(corners: np.ndarray, side: int) -> np.ndarray:
    """The homography taking corners TL, TR, BR, BL to the square's corners.

    Parameters
    ----------
    corners : ndarray, shape (4, 2)
        TL, TR, BR, BL in image pixels.
    side : int
        The square's side in pixels.

    Returns
    -------
    ndarray, shape (3, 3)
        Image pixels -> square pixels.

    Examples
    --------
    >>> corners = np.float32([[10, 10], [110, 10], [110, 110], [10, 110]])
    >>> to_square(corners[2:3], grid_homography(corners, 90)).round(1).tolist()
    [[90.0, 90.0]]
    """
    square = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    return cv2.getPerspectiveTransform(np.float32(corners), square).astype(np.float64)


def warp_grid(
    image: np.ndarray, corners: np.ndarray, side: int = WARP_SIDE, *, nearest: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The grid as an upright square image, and the homography that made it.

    When the grid is much larger in the photo than the square (a 12 MP photo), the warp is
    done at twice the size and halved with area averaging, so thin lines and strokes are
    averaged rather than skipped by the sampling.

    Parameters
    ----------
    image : ndarray of uint8
        The photo, grey or BGR.
    corners : ndarray, shape (4, 2)
        The grid's TL, TR, BR, BL corners in the photo's pixels.
    side : int
        The square's side in pixels.
    nearest : bool
        When sampling at twice the size, take each sample from its nearest pixel rather
        than blending four: the area average of four such samples is smooth all the same
        (0.5 grey levels from the blended warp on average, 12 MP photos) and a colour photo
        warps in 3.3 ms instead of 8.2. The colour grid, which only the cell model reads,
        is warped so; the grey one, which the print is read from, is not.

    Returns
    -------
    warped : ndarray of uint8, shape (side, side) or (side, side, 3)
        Grey or BGR, like `image`.
    homography : ndarray, shape (3, 3)
        Photo pixels -> the square's pixels.

    Examples
    --------
    >>> photo = np.zeros((200, 300), np.uint8)
    >>> corners = np.float32([[50, 20], [250, 20], [250, 180], [50, 180]])
    >>> warped, homography = warp_grid(photo, corners, side=90)
    >>> warped.shape, to_square(corners[:1], homography).round(1).tolist()
    ((90, 90), [[0.0, 0.0]])
    """
    homography = grid_homography(corners, side)
    factor = 2 if grid_extent(corners) >= 2 * side else 1
    scaled = np.diag([factor, factor, 1.0]) @ homography
    warped = cv2.warpPerspective(
        image,
        scaled,
        (side * factor, side * factor),
        flags=cv2.INTER_NEAREST if nearest and factor > 1 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    if factor > 1:
        warped = cv2.resize(warped, (side, side), interpolation=cv2.INTER_AREA)
    return warped, homography


def grid_extent(corners: np.ndarray) -> float:
    """The longest side of the quadrilateral, in image pixels.

    Parameters
    ----------
    corners : ndarray, shape (4, 2)

    Returns
    -------
    float

    Examples
    --------
    >>> grid_extent(np.float32([[0, 0], [30, 0], [30, 40], [0, 40]]))
    40.0
    """
    corners = np.asarray(corners, np.float64)
    return float(max(np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)))


def to_image(points: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """Points of the warped square, in original-image pixels: `to_square` undone.

    Parameters
    ----------
    points : ndarray, shape (N, 2)
        x, y in the square.
    homography : ndarray, shape (3, 3)
        The same image -> square map `to_square` takes.

    Returns
    -------
    ndarray, shape (N, 2)

    Examples
    --------
    >>> shift = np.array([[1.0, 0, -5], [0, 1, -5], [0, 0, 1]])  # the image 5 px off
    >>> to_image(np.array([[0.0, 0.0]]), shift).tolist()
    [[5.0, 5.0]]
    """
    return to_square(points, np.linalg.inv(homography))


def to_square(points: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """Points of the original image, in warped-square pixels.

    Parameters
    ----------
    points : ndarray, shape (N, 2)
        x, y in the image.
    homography : ndarray, shape (3, 3)
        Image -> square, as `warp_grid` returns it.

    Returns
    -------
    ndarray, shape (N, 2)

    Examples
    --------
    >>> to_square(np.array([[5.0, 5.0]]), np.diag([2.0, 2.0, 1.0])).tolist()
    [[10.0, 10.0]]
    """
    points = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(points, homography).reshape(-1, 2)


def quarter_turn_matrix(k: int, side: int) -> np.ndarray:
    """The map of the square onto itself turned k quarter turns counter-clockwise, as
    np.rot90(warped, k) turns it: (x, y) -> (y, side - x) once.

    Parameters
    ----------
    k : int
        Quarter turns counter-clockwise (any integer; taken modulo 4).
    side : int

    Returns
    -------
    ndarray, shape (3, 3)

    Examples
    --------
    >>> (quarter_turn_matrix(1, 10) @ [2, 3, 1]).tolist()
    [3.0, 8.0, 1.0]
    """
    once = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, side], [0.0, 0.0, 1.0]])
    return np.linalg.matrix_power(once, k % 4)


def turn(
    corners: np.ndarray, homography: np.ndarray, side: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Corners and homography of the grid turned k quarter turns counter-clockwise: the
    old top-right corner becomes the top-left one after one turn.

    Parameters
    ----------
    corners : ndarray, shape (4, 2)
        TL, TR, BR, BL in image pixels.
    homography : ndarray, shape (3, 3)
        Image -> the square of `side` pixels.
    side : int
    k : int

    Returns
    -------
    corners : ndarray of float32, shape (4, 2)
    homography : ndarray, shape (3, 3)
        Image -> the turned square.

    Examples
    --------
    >>> corners = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    >>> turned, _ = turn(corners, np.eye(3), 9, 1)
    >>> turned[0].tolist()  # the old top-right
    [9.0, 0.0]
    """
    corners = np.roll(np.asarray(corners, np.float32), -(k % 4), axis=0)
    return corners, quarter_turn_matrix(k, side) @ homography


def turn_boxes(boxes: np.ndarray, side: int, k: int) -> np.ndarray:
    """Boxes of the square, in the square turned k quarter turns counter-clockwise.

    Parameters
    ----------
    boxes : ndarray, shape (N, 4)
        x0, y0, x1, y1, the ends exclusive.
    side : int
    k : int

    Returns
    -------
    ndarray, shape (N, 4)
        The same pixels after `np.rot90(square, k)`.

    Examples
    --------
    >>> turn_boxes(np.array([[0, 0, 3, 2]]), 9, 1).tolist()  # the top-left corner's box
    [[0, 6, 2, 9]]
    """
    boxes = np.asarray(boxes).copy()
    for _ in range(k % 4):
        x0, y0, x1, y1 = boxes.T
        boxes = np.stack([y0, side - x1, y1, side - x0], axis=1)
    return boxes


def reading_order(outlines: list[np.ndarray], homography: np.ndarray) -> list[int]:
    """The order a person reads a page's grids in: top to bottom, then left to right,
    along the page's own axes, which `homography` (photo -> one grid's upright square)
    gives; a page photographed turned or tilted reads as printed, not as the photo lies.

    Two grids stand in one row when their extents down the page overlap by half of the
    smaller one's: a newspaper's puzzle and the small solution grid beside it.

    Parameters
    ----------
    outlines : list of ndarray, each (4, 2)
        Each grid's corners in the photo.
    homography : ndarray, shape (3, 3)

    Returns
    -------
    list of int
        Indices into `outlines`.

    Examples
    --------
    >>> square = np.float32([[0, 0], [10, 0], [10, 10], [0, 10]])
    >>> grids = [square + (20, 0), square + (0, 2), square + (0, 20)]
    >>> reading_order(grids, np.eye(3))
    [1, 0, 2]
    >>> turned = np.array([[0, 1, 0], [-1, 0, 100], [0, 0, 1]], float)  # photo turned a quarter
    >>> reading_order(grids, turned)
    [0, 1, 2]
    """
    boxes = []
    for outline in outlines:
        upright = to_square(outline, homography)
        boxes.append((*upright.min(axis=0), *upright.max(axis=0)))  # left, top, right, bottom
    rows: list[list[int]] = []
    for i in sorted(range(len(boxes)), key=lambda i: boxes[i][1]):
        top, bottom = boxes[i][1], boxes[i][3]
        if rows:
            first = boxes[rows[-1][0]]
            shared = min(bottom, first[3]) - max(top, first[1])
            if shared > 0.5 * min(bottom - top, first[3] - first[1]):
                rows[-1].append(i)
                continue
        rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda i: boxes[i][0])]
