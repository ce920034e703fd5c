"""The hand model: which digit a hand wrote, read at three sizes in one network call."""

from __future__ import annotations

import cv2
import numpy as np

from tests.test_vision_cells import printed_grid
from vision.cells import cut_cells
from vision.kinds import HAND_SIZES, hand_model_path, read_hand, run_network

CELL = 450 // 9
WRITTEN = {2: 4, 12: 9, 40: 7, 66: 1, 80: 5, 30: 2, 50: 3, 70: 6, 75: 8}


def hand_page() -> np.ndarray:
    """A warped grid with the digits 1-9 written in a script face, each a size its own."""
    grid = printed_grid(np.zeros(81, int))
    for n, (cell, digit) in enumerate(WRITTEN.items()):
        r, c = divmod(cell, 9)
        size = 0.9 + 0.08 * (n % 5)
        cv2.putText(
            grid, str(digit), (c * CELL + 13, r * CELL + 40),
            cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, size, 20, 2 + n % 2,
        )  # fmt: skip
    return grid


def test_written_digits_are_read_at_three_sizes_and_each_on_its_own():
    cells = cut_cells(hand_page())
    entries = list(WRITTEN)
    digits = cells.images[entries].astype(np.float32) / 255
    model = hand_model_path()

    read = read_hand(model, digits)

    assert read.shape == (len(entries), 9) and np.allclose(read.sum(axis=1), 1, atol=1e-5)
    assert (read.argmax(axis=1) + 1).tolist() == list(WRITTEN.values())
    # the average of the digit as cut and at each size, not of the first view alone
    as_cut = run_network(model, digits[:, None])
    assert len(HAND_SIZES) == 2 and not np.allclose(read, as_cut, atol=1e-3)
    # a digit's reading does not depend on the others read with it
    alone = read_hand(model, digits[3:4])
    assert np.allclose(alone, read[3:4], atol=1e-5)
