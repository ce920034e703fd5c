"""Tell print, pen and pencil apart: per cell, what kind of mark it holds and which digit.

Most photos people take are of a puzzle they have started: beside the printed givens stand
their own entries, in pen or pencil, and small pencil candidates. Only the printed digits are
the puzzle. So every cell gets a probability for each of 20 classes (`CLASSES`): empty,
printed 1-9, written 1-9, and candidates (several small pencil digits).

The network sees three 32 x 32 channels per cell (`cell_channels`):

- the whole cell's darkness, scaled by the photo's own strong ink, so the size, place,
  weight and darkness of the mark survive (a pencil 5 is small and grey, a printed 5 fills
  the cell the same way in every cell of the photo);
- the whole cell's colour (chroma): blue and red pens stand out from black print;
- the isolated digit as the reader normalised it (`vision.cells`): what the digit is.

It is a small convolutional network trained by `python -m api.train_cells` (PyTorch, an
optional extra) and shipped as ONNX (`vision/models/cells.onnx`, about 200 KB), run here
by OpenCV's DNN module: one batched call for the 81 cells, no torch at run time.

>>> import numpy as np
>>> probs = np.zeros((3, 20), np.float32)
>>> probs[0, 0] = probs[1, 4] = probs[2, 13] = 1  # empty, printed 4, written 4
>>> printed_probabilities(probs).argmax(axis=1).tolist()  # the puzzle sees a 4 in one cell
[0, 4, 0]

Until a trained model is installed at `MODEL` (or named by $SUDOKU_LENS_CELL_MODEL),
`vision.read` reads as before, without kinds: print only.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import cv2
import numpy as np

from vision.cells import Cells, darkness

MODEL = Path(__file__).resolve().parent / "models" / "cells.onnx"
SIDE = 32  # pixels per channel and side
CHANNELS = 3
# class index: 0 empty, 1..9 printed digit, 10..18 written digit, 19 candidates
EMPTY, CANDIDATES = 0, 19
CLASSES = ("empty",) + tuple(f"printed {d}" for d in range(1, 10))
CLASSES += tuple(f"written {d}" for d in range(1, 10)) + ("candidates",)


def cell_channels(warped_bgr: np.ndarray, cells: Cells) -> np.ndarray:
    """(81, 3, 32, 32) float32 network input for the 81 cells of a warped grid.

    Parameters
    ----------
    warped_bgr : (side, side, 3) uint8
        The warped grid in colour (gray is accepted and has no colour channel).
    cells : vision.cells.Cells
        The cut cells of the same warped grid.

    Returns
    -------
    (81, 3, 32, 32) float32 in [0, 1]: darkness, colour, normalised digit.
    """
    if warped_bgr.ndim == 2:
        gray, chroma = warped_bgr, np.zeros(warped_bgr.shape, np.float32)
    else:
        gray = cv2.cvtColor(warped_bgr, cv2.COLOR_BGR2GRAY)
        channels = warped_bgr.astype(np.float32)
        chroma = (channels.max(axis=2) - channels.min(axis=2)) / (channels.max(axis=2) + 16.0)
    dark = darkness(gray)
    strong = max(float(np.percentile(dark[::3, ::3], 99.0)), 0.1)
    dark = np.clip(dark / strong, 0.0, 1.0)
    out = np.zeros((81, CHANNELS, SIDE, SIDE), np.float32)
    for i, (x0, y0, x1, y1) in enumerate(cells.boxes):
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        size = (SIDE, SIDE)
        out[i, 0] = cv2.resize(dark[y0:y1, x0:x1], size, interpolation=cv2.INTER_AREA)
        out[i, 1] = cv2.resize(chroma[y0:y1, x0:x1], size, interpolation=cv2.INTER_AREA)
    digit = cells.images.astype(np.float32) / 255.0
    pad = (SIDE - digit.shape[1]) // 2
    out[:, 2, pad : pad + digit.shape[1], pad : pad + digit.shape[2]] = digit
    # colour only where there is ink: paper tint and white balance say nothing
    out[:, 1] *= np.clip(out[:, 0] * 2.0, 0.0, 1.0)
    return out


@functools.lru_cache(maxsize=4)
def _network(path: Path) -> cv2.dnn.Net:
    if not path.is_file():
        raise FileNotFoundError(f"cell model {path} is missing: run `python -m api.train_cells`")
    net = cv2.dnn.readNetFromONNX(str(path))
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    return net


def model_path() -> Path:
    """The shipped model, or the one named by $SUDOKU_LENS_CELL_MODEL (to measure a
    retrained or held-out model)."""
    return Path(os.environ.get("SUDOKU_LENS_CELL_MODEL") or MODEL)


def classify_cells(channels: np.ndarray, path: Path | None = None) -> np.ndarray:
    """(N, 20) class probabilities for N cells' channels, one network call."""
    net = _network(path or model_path())
    net.setInput(np.ascontiguousarray(channels, np.float32))
    logits = net.forward().reshape(len(channels), len(CLASSES)).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)


def turned_channels(channels: np.ndarray, k: int) -> np.ndarray:
    """The channels of the 81 cells as if the warped grid had been turned k quarter turns
    counter-clockwise (np.rot90), like `Cells.rotated(k)`: cells reordered, each turned."""
    order = np.rot90(np.arange(81).reshape(9, 9), k).ravel()
    return np.rot90(channels[order], k, axes=(2, 3))


def upright_kinds(
    warped_bgr: np.ndarray, cells: Cells, path: Path | None = None
) -> tuple[int, np.ndarray]:
    """The quarter turn k in which the grid stands upright, and the cells' kinds so turned.

    A photo stored sideways or upside down must be turned before it is read. On a page
    filled in by hand the digits alone are a poor guide (a hand-written 6 upside down is a
    fine 9, and hand-writing may outnumber the print); the cell model has learnt print,
    pen and pencil upright, so the turn in which it is surest of all 81 cells wins. All four
    turns go through the network in one call.

    Returns
    -------
    k : int
        Quarter turns counter-clockwise (`Cells.rotated(k)`, `np.rot90(warped, k)`).
    kinds : (81, 20) float32
        Class probabilities of the turned cells.
    """
    channels = cell_channels(warped_bgr, cells)
    turned = np.concatenate([turned_channels(channels, k) for k in range(4)])
    probs = classify_cells(turned, path).reshape(4, 81, len(CLASSES))
    sure = np.log(probs.max(axis=2) + 1e-6).mean(axis=1)
    k = int(np.argmax(sure))
    return k, probs[k]


def printed_probabilities(kinds: np.ndarray) -> np.ndarray:
    """(N, 10) the puzzle's view of each cell: column 0 "no printed digit" (empty, written or
    candidates), columns 1..9 printed digits. What the solver and the correction read."""
    out = np.empty((len(kinds), 10), np.float32)
    out[:, 0] = kinds[:, EMPTY] + kinds[:, 10:19].sum(axis=1) + kinds[:, CANDIDATES]
    out[:, 1:] = kinds[:, 1:10]
    return out
