"""Whether a page is surely print alone, told cheaply before the cell model is asked.

Most photos are of a puzzle nobody has written in yet. On them the cell model
(`vision.kinds`) only confirms what the print reader already knows, and at 640x480 that
costs about 9 of a photo's 30 milliseconds: the grid warped again in colour, three
channels a cell, and a network of 5.9 M multiply-adds for each of some 50 inked cells.

The gate is a network with fifteen times fewer multiply-adds, on what the grey cut has
already made: each cell's darkness (32 x 32, scaled by the page's strong ink) and its
isolated digit. It says per cell empty, print, written or candidates (`CLASSES`). A page is
read as print alone (`surely_print`) only when the gate calls no cell half a hand's, finds
no mark the print reader missed, and the print reader is sure of every digit; any doubt and
the cell model reads the page as before. It sees the grid as it lies, before the turn
upright is known, so it was trained in all four quarter turns. Only a solve is read through
it (a check or a hint is about the person's entries), and a page it passed that does not
solve as read is read again with the cell model (`api.photo.pipeline.judged`).

It is trained by `python -m api.train.gate` and shipped beside the cell model
(`cells.gate.onnx`), so a held-out cell model named by $SUDOKU_LENS_CELL_MODEL brings its own
held-out gate. Without one, every page goes to the cell model.

>>> from vision.cells import cut_cells, darkness
>>> grid = np.full((450, 450), 255, np.uint8)      # a blank grid: nothing to see
>>> inputs = gate_inputs(darkness(grid), cut_cells(grid))
>>> inputs.shape, int(blank(inputs).sum())     # every cell blank: none shown to the gate
((81, 2, 32, 32), 81)
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cells import Cells
from vision.kinds import BLANK_INK, run_network

SIDE = 32  # pixels per channel and side
CLASSES = ("empty", "print", "written", "candidates")
EMPTY, PRINT, WRITTEN, CANDIDATES = range(4)
# The page's rule (`surely_print`), chosen on fold 0's held-out photos and measured on the
# other three (docs/benchmarks.md, Round 7): a cell `HAND` a hand's (written or
# candidates) sends the page to the cell model; so does a cell the gate calls `MARK`
# print where the print reader cut no digit (a digit it missed), and a digit the print
# reader is less sure of than `SURE_PRINT`. Held out, all four folds: 122 of Wicht's 160
# printed photos passed and none of the 239 hand-filled ones; but 158 of 9,193 hand cells
# (1.7%) stood below `HAND`, so a page with one entry could pass with it taken for print:
# the gate reads only for a solve (`api.photo.pipeline.judged`).
HAND = 0.5
MARK = 0.5
SURE_PRINT = 0.95


def gate_path(cell_model: Path) -> Path:
    """The gate that goes with a cell model: `cells.onnx` has `cells.gate.onnx` beside it."""
    return cell_model.with_suffix(".gate.onnx")


def warm_up(cell_model: Path) -> None:
    """Make the gate's session and run it once, so that the first photo does not pay."""
    if gate_path(cell_model).is_file():
        run_network(gate_path(cell_model), np.zeros((1, 2, SIDE, SIDE), np.float32))


def gate_inputs(dark: np.ndarray, cells: Cells) -> np.ndarray:
    """(81, 2, 32, 32) float32 in [0, 1]: each cell's darkness and its isolated digit.

    Parameters
    ----------
    dark : (side, side) float32
        The grey warped grid's darkness (`vision.cells.darkness`), as the cut made it.
    cells : Cells
        The cut cells of that grid, not yet turned upright.
    """
    sample = dark[::3, ::3].ravel()  # the page's strong ink: its 99th percentile
    rank = int(0.99 * (len(sample) - 1))  # its order statistic, as the gate was trained
    strong = max(float(np.partition(sample, rank)[rank]), 0.1)
    # the whole grid shrunk once to SIDE pixels a cell (bilinear: 0.05 ms, where an area
    # mean took 0.8 and 81 resizes of the cells 1.3), then each cell's SIDE x SIDE tile
    # taken from where its box starts
    side = dark.shape[0]
    small_side = SIDE * 9
    small = cv2.resize(dark, (small_side, small_side), interpolation=cv2.INTER_LINEAR)
    small *= 1.0 / strong
    np.minimum(small, 1.0, out=small)
    small = np.pad(small, ((0, SIDE), (0, SIDE)))
    starts = np.rint(cells.boxes[:, :2] * (small_side / side)).astype(int).tolist()
    out = np.zeros((81, 2, SIDE, SIDE), np.float32)
    for i, (x, y) in enumerate(starts):
        out[i, 0] = small[y : y + SIDE, x : x + SIDE]
    digit = cells.images
    pad = (SIDE - digit.shape[1]) // 2
    out[:, 1, pad : pad + digit.shape[1], pad : pad + digit.shape[2]] = digit * (1.0 / 255.0)
    return out


def blank(inputs: np.ndarray) -> np.ndarray:
    """(81,) bool: the cells whose middle shows no ink, never shown to the gate (the cell
    model's rule, `vision.kinds.BLANK_INK`, on the gate's own darkness)."""
    return inputs[:, 0, 4:-4, 4:-4].max(axis=(1, 2)) < BLANK_INK


def gate_classes(inputs: np.ndarray, path: Path) -> np.ndarray:
    """(81, 4) probabilities of `CLASSES`: the gate's for the cells that show ink, in one
    call, and surely empty for the blank ones."""
    out = np.zeros((len(inputs), len(CLASSES)), np.float32)
    out[:, EMPTY] = 1.0
    inked = ~blank(inputs)
    if inked.any():
        out[inked] = run_network(path, inputs[inked])
    return out


def surely_print(gate: np.ndarray, reading: np.ndarray, ink: np.ndarray) -> bool:
    """Whether a page may be read as print alone: no cell half a hand's or more, no mark
    the print reader did not cut, every digit it cut surely read.

    Parameters
    ----------
    gate : (81, 4) float
        `gate_classes`, in the order of `reading`'s cells.
    reading : (81, 10) float
        The print reader's calibrated probabilities (column 0 empty).
    ink : (81,) bool
        Where the print reader cut a digit (`Cells.ink`).

    >>> gate = np.zeros((81, 4)); gate[:, EMPTY] = 1; gate[0] = (0, 1, 0, 0)
    >>> reading = np.zeros((81, 10)); reading[:, 0] = 1; reading[0] = 0; reading[0, 5] = 1
    >>> ink = np.zeros(81, bool); ink[0] = True
    >>> surely_print(gate, reading, ink)
    True
    >>> gate[40] = (0.5, 0, 0.5, 0)    # a cell half a hand's
    >>> surely_print(gate, reading, ink)
    False
    """
    hand = gate[:, WRITTEN] + gate[:, CANDIDATES]
    missed = ~ink & (gate[:, PRINT] >= MARK)
    return not (hand >= HAND).any() and not missed.any() and sure_of_the_print(reading, ink)


def sure_of_the_print(reading: np.ndarray, ink: np.ndarray) -> bool:
    """Whether the print reader reads every digit it cut at `SURE_PRINT` or more: the part
    of `surely_print` that needs no network, asked first."""
    return bool((reading[ink, 1:].max(axis=1, initial=0.0) >= SURE_PRINT).all())


def print_kinds(reading: np.ndarray) -> np.ndarray:
    """(81, 20) the cell model's classes (`vision.kinds.CLASSES`) of a page read as print
    alone: each cell empty or printed as the print reader says, nothing written.

    >>> reading = np.zeros((81, 10), np.float32); reading[:, 0] = 1
    >>> print_kinds(reading)[0, :3].tolist()
    [1.0, 0.0, 0.0]
    """
    kinds = np.zeros((len(reading), 20), np.float32)
    kinds[:, :10] = reading
    return kinds
