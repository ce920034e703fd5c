"""The hand model: which digit a hand wrote, read at three sizes in one network call."""

from __future__ import annotations

import cv2
import numpy as np

from tests.test_vision_cells import printed_grid
from vision.cells import cut_cells
from vision.kinds import (
    HAND_SIZES,
    SECOND_LOOK,
    hand_model_path,
    read_hand,
    run_network,
    second_hand_models,
    second_look,
)

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


def test_a_doubtful_digit_gets_a_second_look_and_a_sure_one_does_not():
    cells = cut_cells(hand_page())
    digits = cells.images[list(WRITTEN)].astype(np.float32) / 255
    model = hand_model_path()
    read = read_hand(model, digits)
    doubtful = read.max(axis=1) < SECOND_LOOK
    read[0] = np.eye(9)[3]  # a reading as sure as can be: no second look
    doubtful[0] = False
    read[1] = 0.5 * np.eye(9)[8] + 0.5 * np.eye(9)[3]  # torn between 9 and 4: looked at again
    doubtful[1] = True
    # the shipped model stands in for a second one: its readings are known here
    again = read_hand(model, digits)

    looked = second_look(read, digits, [model])

    assert np.array_equal(looked[~doubtful], read[~doubtful])
    assert np.allclose(looked[doubtful], (read[doubtful] + again[doubtful]) / 2, atol=1e-6)
    assert np.allclose(looked.sum(axis=1), 1, atol=1e-5)


def test_second_hand_models_are_those_beside_the_cell_model_in_a_row(tmp_path):
    cell = tmp_path / "fold0.onnx"
    for name in ("fold0.hand.onnx", "fold0.hand2.onnx", "fold0.hand3.onnx", "fold0.hand5.onnx"):
        (tmp_path / name).write_bytes(b"")
    assert second_hand_models(cell) == [
        tmp_path / "fold0.hand2.onnx",
        tmp_path / "fold0.hand3.onnx",
    ]
    assert second_hand_models(tmp_path / "other.onnx") == []
