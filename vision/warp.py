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
    """The homography taking corners TL, TR, BR, BL to the square's corners."""
    square = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    return cv2.getPerspectiveTransform(np.float32(corners), square).astype(np.float64)


def warp_grid(
    image: np.ndarray, corners: np.ndarray, side: int = WARP_SIDE
) -> tuple[np.ndarray, np.ndarray]:
    """The grid as a (side, side) image (gray or BGR, like the input) and its homography.

    When the grid is much larger in the photo than the square (a 12 MP photo), the warp is
    done at twice the size and halved with area averaging, so thin lines and strokes are
    averaged rather than skipped by the sampling.
    """
    homography = grid_homography(corners, side)
    factor = 2 if grid_extent(corners) >= 2 * side else 1
    scaled = np.diag([factor, factor, 1.0]) @ homography
    warped = cv2.warpPerspective(
        image,
        scaled,
        (side * factor, side * factor),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    if factor > 1:
        warped = cv2.resize(warped, (side, side), interpolation=cv2.INTER_AREA)
    return warped, homography


def grid_extent(corners: np.ndarray) -> float:
    """The longest side of the quadrilateral, in image pixels."""
    corners = np.asarray(corners, np.float64)
    return float(max(np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)))


def to_image(points: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """Points (N, 2) of the warped square, in original-image pixels."""
    points = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(points, np.linalg.inv(homography)).reshape(-1, 2)


def to_square(points: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """Points (N, 2) of the original image, in warped-square pixels."""
    points = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(points, homography).reshape(-1, 2)


def quarter_turn_matrix(k: int, side: int) -> np.ndarray:
    """The map of the square onto itself turned k quarter turns counter-clockwise, as
    np.rot90(warped, k) turns it: (x, y) -> (y, side - x) once."""
    once = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, side], [0.0, 0.0, 1.0]])
    return np.linalg.matrix_power(once, k % 4)


def turn(
    corners: np.ndarray, homography: np.ndarray, side: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Corners and homography of the grid turned k quarter turns counter-clockwise: the
    old top-right corner becomes the top-left one after one turn."""
    corners = np.roll(np.asarray(corners, np.float32), -(k % 4), axis=0)
    return corners, quarter_turn_matrix(k, side) @ homography


def turn_boxes(boxes: np.ndarray, side: int, k: int) -> np.ndarray:
    """Boxes (N, 4) x0, y0, x1, y1 of the square, in the square turned k quarter turns."""
    boxes = np.asarray(boxes).copy()
    for _ in range(k % 4):
        x0, y0, x1, y1 = boxes.T
        boxes = np.stack([y0, side - x1, y1, side - x0], axis=1)
    return boxes
