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

It is a small convolutional network trained by `python -m api.train.cells` (PyTorch, an
optional extra) and shipped as ONNX (`vision/models/cells.onnx`), run here by ONNX
Runtime: one batched call for the cells that show any ink (`blank_cells` are never asked),
no torch at run time. A second network
beside it (`cells.hand.onnx`, `written_digits`) re-reads which digit was written in the
cells that may hold hand-writing, again in one call.

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
# A grid the cell model reads this surely (`surety`) stands upright: on the 399 labelled
# photos, read by fold 0's cell model, no wrong turn reached -0.115, and most upright grids
# (95% of print and of Kubiesa's) are above it, so their other turn need not be tried.
UPRIGHT_SURE = -0.1
CHANNELS = 3
# The hand model reads each written digit also shrunk and grown about its centre, and the
# three readings are averaged: the digit is normalised to a fixed height, which a long tail
# or a wide loop throws. Measured held out (fold models, bench/handwriting.py): hand-filled
# Wicht photos with every cell right 94 -> 99 of 159, written digits misread 60 -> 56;
# about 1.3 ms more a photo. The two sizes were the first tried; adding 0.8 read worse.
HAND_SIZES = (0.9, 1.1)
# A written digit the hand model reads less surely than this is read again by the other
# hand models beside it (`second_hand_models`: the same recipe, other seeds), and the
# readings are averaged. A reading of the solution's digit at p is called right in any grid
# when even a slip's whole prior on one other digit leaves P(wrong) = 0.02 (1 - p) / (0.98 p)
# under `RIGHT_MISS`: p >= 0.911; below that the check may doubt it, and the second look
# starts a little above, since the other models may lower a reading the first placed just
# over it. The hand model, trained with smoothed labels, seldom reads above 0.99 (median
# 0.986), and 12% of its readings of the labelled photos' written cells fall below 0.95:
# about 5 digits of a page with 40 entries. Chosen so, not tuned; on fold 0 (held out)
# 0.9, 0.95 and 0.97 gave the same figures as looking again at every digit.
SECOND_LOOK = 0.95
# A cell whose middle (its 32 x 32 darkness less a border of 4) nowhere reaches this share
# of the photo's strong ink holds nothing the cell model could call a mark, so it is not
# asked: it gets `BLANK_KINDS`. On 120 photos (every 4th Wicht print and hand-filled one,
# every 2nd Kubiesa one, read by the shipped model) no cell below it was read as anything
# but empty (P(empty) >= 0.88) and none held a digit blob; it spares the model 28% of all
# their cells, most blanks of a printed puzzle.
BLANK_INK = 0.12
# what the cell model says, on average, of those cells (the same 120 photos)
BLANK_KINDS = np.array(
    [0.98424, 0.00047, 0.00088, 0.00097, 0.00065, 0.00063, 0.00063, 0.00055, 0.00083, 0.00087]
    + [0.00054, 0.00042, 0.00077, 0.00046, 0.00053, 0.00116, 0.00052, 0.00111, 0.00046, 0.0033],
    np.float32,
)
BLANK_KINDS /= BLANK_KINDS.sum()
# class index: 0 empty, 1..9 printed digit, 10..18 written digit, 19 candidates
EMPTY, CANDIDATES = 0, 19
# A page the cell model reads with no cell this much a hand's (written digit or candidates)
# is read as print alone (`print_only`): the hand reader's further looks are spared. On 40
# printed Wicht photos the most hand-like cell of 37 stood below it (most below 0.1); every
# hand-filled page had a cell at 0.99 or more.
PRINT_ONLY_HAND = 0.5
CLASSES = ("empty",) + tuple(f"printed {d}" for d in range(1, 10))
CLASSES += tuple(f"written {d}" for d in range(1, 10)) + ("candidates",)


def cell_channels(warped_bgr: np.ndarray, cells: Cells, blank_colour: bool = True) -> np.ndarray:
    """(81, 3, 32, 32) float32 network input for the 81 cells of a warped grid.

    Parameters
    ----------
    warped_bgr : (side, side, 3) uint8
        The warped grid in colour (gray is accepted and has no colour channel).
    cells : vision.cells.Cells
        The cut cells of the same warped grid.
    blank_colour : bool
        False leaves the colour channel empty in the cells `blank_cells` finds (which never
        reach the model): a resize a cell spared.

    Returns
    -------
    (81, 3, 32, 32) float32 in [0, 1]: darkness, colour, normalised digit.
    """
    if warped_bgr.ndim == 2:
        gray, chroma = warped_bgr, np.zeros(warped_bgr.shape, np.float32)
    else:
        gray = cv2.cvtColor(warped_bgr, cv2.COLOR_BGR2GRAY)
        # per-pixel max and min of three channels element-wise: numpy's reduction over a
        # last axis of 3 took 10 ms a call here, this well under one
        # (the largest and smallest channel taken on the bytes, then made floats: the same)
        b, g, r = cv2.split(warped_bgr)
        high = cv2.max(cv2.max(b, g), r).astype(np.float32)
        low = cv2.min(cv2.min(b, g), r).astype(np.float32)
        chroma = high - low
        high += 16.0
        chroma /= high
    dark = darkness(gray)
    strong = max(float(np.percentile(dark[::3, ::3], 99.0)), 0.1)
    dark /= strong  # darkness is never negative: only the ceiling of [0, 1] to set
    np.minimum(dark, 1.0, out=dark)
    out = np.zeros((81, CHANNELS, SIDE, SIDE), np.float32)
    size, usable = (SIDE, SIDE), np.zeros(81, bool)
    boxes = cells.boxes.tolist()
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        if x1 - x0 >= 4 and y1 - y0 >= 4:
            usable[i] = True
            out[i, 0] = cv2.resize(dark[y0:y1, x0:x1], size, interpolation=cv2.INTER_AREA)
    coloured = usable if blank_colour else usable & ~blank_cells(out)
    for i in np.flatnonzero(coloured).tolist():
        x0, y0, x1, y1 = boxes[i]
        out[i, 1] = cv2.resize(chroma[y0:y1, x0:x1], size, interpolation=cv2.INTER_AREA)
    digit = cells.images.astype(np.float32) / 255.0
    pad = (SIDE - digit.shape[1]) // 2
    out[:, 2, pad : pad + digit.shape[1], pad : pad + digit.shape[2]] = digit
    # colour only where there is ink: paper tint and white balance say nothing
    out[:, 1] *= np.clip(out[:, 0] * 2.0, 0.0, 1.0)
    return out


def print_only(kinds: np.ndarray) -> bool:
    """Whether the cell model reads a page as print alone, so that the hand reader's further
    looks (the hand model, ink colours, typeface) cannot change what the puzzle reads.

    They only move a cell's mass between print and hand, keeping its sum and each kind's
    digit shares (`weigh_print_against_hand`), or share out the written mass among 1-9
    (`written_digits`); the colour and "unlike the print" looks need sure hand-writing
    (0.9) to act at all. So on a page where no cell holds `PRINT_ONLY_HAND` of a hand, every
    cell that is more a digit than not is more print than hand, and no other cell is more
    written than empty, the puzzle's probabilities (`printed_probabilities`) come out the
    same whether they are run or not, and so does which cells hold entries (none).

    >>> kinds = np.zeros((81, 20), np.float32); kinds[:, 0] = 1
    >>> kinds[0], kinds[0, 3], kinds[0, 12] = 0, 0.9, 0.1    # a printed 3
    >>> print_only(kinds)
    True
    >>> kinds[1], kinds[1, 15] = 0, 1.0                       # a hand's 6
    >>> print_only(kinds)
    False
    """
    printed, written = kinds[:, 1:10].sum(axis=1), kinds[:, 10:19].sum(axis=1)
    hand = np.maximum(written, kinds[:, CANDIDATES])
    digit = printed + written
    other = printed <= 0.5
    return bool(
        (hand < PRINT_ONLY_HAND).all()
        and (printed[digit > 0.5] > 0.5).all()
        and (written[other] < kinds[other, EMPTY]).all()
    )


def blank_cells(channels: np.ndarray) -> np.ndarray:
    """(N,) bool: the cells whose middle shows no ink (`BLANK_INK`), which the model is not
    asked about."""
    return channels[:, 0, 4:-4, 4:-4].max(axis=(1, 2)) < BLANK_INK


@functools.lru_cache(maxsize=16)  # the cell, gate and hand models of up to four folds
def _network(path: Path):
    """An ONNX Runtime session, made once per process (per model file) and kept.

    One thread, run sequentially: a batch runs one photo per core already, and a grid's
    cells are too few to gain from more (OpenCV's DNN module took 16 ms for the 81 cells
    where this takes 2.4). The graph optimised fully (ONNX Runtime's default, set here on
    purpose: the NCHWc layout and fused convolutions): 50 cells took 2.4 ms with it against
    6 to 10 ms at the basic or extended level, 2.8 against 11 to 14 for the hand model (best
    of 100 calls, one thread). A spinning thread pool would only burn a shared core.
    Tried and dropped: int8 weights (`quantize_dynamic`), 67 times slower here (ConvInteger
    has no fast kernel on this CPU) and 0.1% of 4,860 real cells read as another class.
    """
    import onnxruntime

    if not path.is_file():
        raise FileNotFoundError(f"model {path} is missing: run `python -m api.train.cells`")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def warm_up(path: Path | None = None) -> None:
    """Make the cell and hand model sessions and run each once, so that the first photo
    does not pay for it (about a second at start-up otherwise)."""
    cell = path or model_path()
    if not cell.is_file():
        return
    run_network(cell, np.zeros((1, CHANNELS, SIDE, SIDE), np.float32))
    for hand in [hand_model_path(cell), *second_hand_models(cell)]:
        if hand.is_file():
            run_network(hand, np.zeros((1, 1, 28, 28), np.float32))


def model_path() -> Path:
    """The shipped model, or the one named by $SUDOKU_LENS_CELL_MODEL (to measure a
    retrained or held-out model)."""
    return Path(os.environ.get("SUDOKU_LENS_CELL_MODEL") or MODEL)


def hand_model_path(path: Path | None = None) -> Path:
    """The hand-written digit model that goes with a cell model: `cells.onnx` has
    `cells.hand.onnx` beside it (so one variable names both, for held-out models too)."""
    return (path or model_path()).with_suffix(".hand.onnx")


def second_hand_models(path: Path | None = None) -> list[Path]:
    """The other hand models that go with a cell model, for a second look at doubtful
    digits (`second_look`): `cells.hand2.onnx`, `cells.hand3.onnx`, ... beside it, as many
    as are there in a row."""
    cell = path or model_path()
    found = []
    while (more := cell.with_suffix(f".hand{len(found) + 2}.onnx")).is_file():
        found.append(more)
    return found


def run_network(path: Path, inputs: np.ndarray) -> np.ndarray:
    """Softmax probabilities of an ONNX classifier for a batch, one network call."""
    session = _network(path)
    feed = {session.get_inputs()[0].name: np.ascontiguousarray(inputs, np.float32)}
    logits = session.run(None, feed)[0].reshape(len(inputs), -1).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)


def classify_cells(channels: np.ndarray, path: Path | None = None) -> np.ndarray:
    """(N, 20) class probabilities for N cells' channels, one network call."""
    return run_network(path or model_path(), channels)


def written_digits(
    kinds: np.ndarray,
    channels: np.ndarray,
    path: Path | None = None,
    pen_digits: np.ndarray | None = None,
):
    """The kinds with the digit of every possibly written cell re-read by the hand model.

    The cell model tells print from pen from pencil well, but which digit a hand wrote is
    a harder question than which one a press printed: hands differ, and it is the whole
    question of a checked entry. So a second network that has seen only
    hand-written digits (the normalised digit image, MNIST-like) reads it, in one call
    for the cells that may hold writing; the cell model's written mass is shared out by
    its answer. Where the grey cut isolated no digit, the digit the colour look found
    (`pen_digits`, (N, 28, 28), as `vision.cells.with_coloured_ink` isolates red or blue
    pen that is pale in grey) is read instead: the cell model sees that pen in the cell's
    darkness and colour and calls it written, but could only guess which digit. Cells
    with neither keep the cell model's reading.
    """
    hand = hand_model_path(path)
    if not hand.is_file():
        return kinds
    written = kinds[:, 10:19].sum(axis=1)
    digit = channels[:, 2, 2:30, 2:30]
    if pen_digits is not None:
        grey_cut = digit.max(axis=(1, 2)) > 0
        digit = np.where(grey_cut[:, None, None], digit, pen_digits)
    todo = np.flatnonzero((written > 0.01) & (digit.max(axis=(1, 2)) > 0))
    if not len(todo):
        return kinds
    out = kinds.copy()
    read = second_look(read_hand(hand, digit[todo]), digit[todo], second_hand_models(path))
    out[todo, 10:19] = written[todo, None] * read
    return out


def second_look(read: np.ndarray, digits: np.ndarray, others: list[Path]) -> np.ndarray:
    """The hand model's (N, 9) `read`ings, each less sure than `SECOND_LOOK` averaged with
    the `others` models' readings of the same digit.

    Why: one network is often surest exactly where it errs: of the written digits it
    misreads, many it reads at 0.8 to 0.95, and the check then calls a person's wrong digit
    right. Networks of the same recipe trained from other seeds err less often together,
    so their mean is less sure where the digit could be read either way, and as sure
    where it cannot (a deep ensemble). Asked only for doubtful readings, they cost a few
    network inputs a page instead of tripling the hand model's.

    >>> read = np.array([[1.0] + [0.0] * 8, [0.6, 0.4] + [0.0] * 7], np.float32)
    >>> second_look(read, np.zeros((2, 28, 28), np.float32), []) is read
    True
    """
    doubtful = np.flatnonzero(read.max(axis=1) < SECOND_LOOK)
    if not len(doubtful) or not others:
        return read
    looks = [read[doubtful]] + [read_hand(other, digits[doubtful]) for other in others]
    out = read.copy()
    out[doubtful] = np.mean(looks, axis=0)
    return out


def read_hand(path: Path, digits: np.ndarray) -> np.ndarray:
    """(N, 9) the hand model's probabilities of 1-9 for N normalised digits (N, 28, 28),
    averaged over the digit as cut and at `HAND_SIZES`, in one network call."""
    centre = ((digits.shape[2] - 1) / 2, (digits.shape[1] - 1) / 2)
    views = [digits]
    for size in HAND_SIZES:
        scale = cv2.getRotationMatrix2D(centre, 0.0, size)
        views.append(np.stack([cv2.warpAffine(d, scale, d.shape[::-1]) for d in digits]))
    p = run_network(path, np.concatenate(views)[:, None])
    return p.reshape(len(views), len(digits), -1).mean(axis=0)


def turned_channels(channels: np.ndarray, k: int) -> np.ndarray:
    """The channels of the 81 cells as if the warped grid had been turned k quarter turns
    counter-clockwise (np.rot90), like `Cells.rotated(k)`: cells reordered, each turned."""
    order = np.rot90(np.arange(81).reshape(9, 9), k).ravel()
    return np.rot90(channels[order], k, axes=(2, 3))


def upright_kinds(
    warped_bgr: np.ndarray,
    cells: Cells,
    turns=range(4),
    path: Path | None = None,
    spare_print: bool = True,
) -> tuple[int, np.ndarray]:
    """The quarter turn k (of `turns`) in which the grid stands upright, and the cells'
    kinds so turned: `cell_kinds`, then the hand model's digits (`hand_digits`). With
    `spare_print`, a page read as print alone (`print_only`) is not shown to the hand
    model: its written digits are the cell model's.

    Returns
    -------
    k : int
        Quarter turns counter-clockwise (`Cells.rotated(k)`, `np.rot90(warped, k)`).
    kinds : (81, 20) float32
        Class probabilities of the turned cells.
    """
    k, kinds, channels = cell_kinds(warped_bgr, cells, turns, path)
    if spare_print and print_only(kinds):
        return k, kinds
    return k, hand_digits(kinds, channels, k, cells, path)


def cell_kinds(
    warped_bgr: np.ndarray,
    cells: Cells,
    turns=range(4),
    path: Path | None = None,
    channels: np.ndarray | None = None,
) -> tuple[int, np.ndarray, np.ndarray]:
    """The quarter turn k (of `turns`) in which the grid stands upright, the cell model's
    kinds of the cells so turned, and the cells' channels (unturned, `cell_channels`; pass
    them back to ask again about the same grid without making them anew: they do not
    depend on which cells hold blobs).

    A photo stored sideways or upside down must be turned before it is read. On a page
    filled in by hand the print classifier alone is a poor guide to which way up: a
    hand-written 6 upside down is a fine 9, and hand-writing may outnumber the print. It
    does tell upright from sideways (on the 399 labelled photos here it never chose a quarter
    turn wrongly, only, on 21 hand-filled ones, the half turn), so the reader passes its
    turn and the half turn from it, and the cell model, which has learnt print, pen and
    pencil upright, picks the one in which it is surest of all 81 cells. The first turn
    alone is read when the model is sure of it (`UPRIGHT_SURE`): one call of 81 cells.
    """
    turns = [k % 4 for k in turns]
    if channels is None:
        channels = cell_channels(warped_bgr, cells, blank_colour=False)
    blank = blank_cells(channels) & ~cells.blobs  # a digit's blob is always asked about
    turned = [turned_channels(channels, turns[0])]  # the other turns only when asked
    probs = classify_inked(turned, [turned_blank(blank, turns[0])], path)
    if surety(probs[0]) < UPRIGHT_SURE and len(turns) > 1:
        # the other turns' blank cells are the same cells, in other places
        turned += [turned_channels(channels, k) for k in turns[1:]]
        others = [turned_blank(blank, k) for k in turns[1:]]
        probs += classify_inked(turned[1:], others, path)
    best = int(np.argmax([surety(p) for p in probs]))
    return turns[best], probs[best], channels


def hand_digits(
    kinds: np.ndarray, channels: np.ndarray, k: int, cells: Cells, path: Path | None = None
) -> np.ndarray:
    """The kinds of the cells turned `k` with their written digits read by the hand model
    (`written_digits`), from the cells' channels (`cell_kinds`) and the colour look's
    digits where it found some (`Cells.pen`)."""
    pen = None
    if cells.pen is not None:  # the colour look's digits, turned as the channels are
        pen = turned_channels(cells.pen.images[:, None] / np.float32(255), k)[:, 0]
    return written_digits(kinds, turned_channels(channels, k), path, pen)


def turned_blank(blank: np.ndarray, k: int) -> np.ndarray:
    """The (81,) blank mask of the grid turned k quarter turns, like `turned_channels`."""
    return blank[np.rot90(np.arange(81).reshape(9, 9), k).ravel()]


def classify_inked(
    grids: list[np.ndarray], blanks: list[np.ndarray], path: Path | None = None
) -> list[np.ndarray]:
    """(81, 20) class probabilities for each grid's channels (81, 3, 32, 32): the cells that
    are not blank (`blank_cells`) of all of them in one network call, the blank ones
    `BLANK_KINDS`."""
    out = [np.tile(BLANK_KINDS, (81, 1)) for _ in grids]
    inked = np.concatenate([g[~b] for g, b in zip(grids, blanks, strict=True)])
    if len(inked):
        read = np.split(classify_cells(inked, path), np.cumsum([(~b).sum() for b in blanks]))
        for probs, blank, part in zip(out, blanks, read, strict=False):
            probs[~blank] = part
    return out


def surety(probs: np.ndarray) -> float:
    """How sure the cell model is of a grid's 81 cells: the mean log of each cell's most
    probable class (0 when it is certain of every cell)."""
    return float(np.log(probs.max(axis=1) + 1e-6).mean())


def weigh_print_against_hand(kinds: np.ndarray, cells: np.ndarray, odds: np.ndarray):
    """The kinds with the printed and written masses of `cells` re-weighed by evidence from
    beyond the cell model, `odds` for hand-writing against print per cell (Bayes' rule on
    the two kinds). Each cell keeps its mass of a digit, empty and candidates are left as
    they are, and each digit within a kind keeps its share.

    >>> kinds = np.zeros((1, 20), np.float32); kinds[0, 7] = 0.6; kinds[0, 16] = 0.4
    >>> out = weigh_print_against_hand(kinds, np.array([0]), np.array([6.0]))
    >>> round(float(out[0, 7]), 2), round(float(out[0, 16]), 2)   # printed 7, written 7
    (0.2, 0.8)
    """
    odds = np.clip(odds, np.exp(-30.0), np.exp(30.0))
    p, w = kinds[cells, 1:10].sum(axis=1), kinds[cells, 10:19].sum(axis=1)
    total = p + w
    new_w = total * w * odds / np.maximum(p + w * odds, 1e-12)
    out = np.array(kinds, np.float32, copy=True)
    out[cells, 1:10] *= ((total - new_w) / np.maximum(p, 1e-12))[:, None]
    out[cells, 10:19] *= (new_w / np.maximum(w, 1e-12))[:, None]
    return out


def printed_probabilities(
    kinds: np.ndarray, read: np.ndarray | None = None, ink: np.ndarray | None = None
) -> np.ndarray:
    """The puzzle's view of each cell: what the solver and the correction read.

    The cell model says whether a cell holds print. Which digit, both readers say wherever
    the print reader found a digit's ink: it has learnt print alone, from far more of it,
    the cell model sees the whole cell; their probabilities are multiplied (each catches
    digits the other misreads: on Wicht's 160 print-only photos the product reads 2 more
    photos fully right than the print reader alone). Elsewhere the cell model's digit
    stands.

    Parameters
    ----------
    kinds : ndarray of float, shape (N, 20)
        Class probabilities of CLASSES per cell.
    read : ndarray of float, shape (N, 10), optional
        An engine's probabilities (column 0 empty) from the print reader.
    ink : ndarray of bool, shape (N,), optional
        Where the print reader found a digit's ink (`Cells.ink`); needed with `read`.

    Returns
    -------
    ndarray of float32, shape (N, 10)
        Column 0 "no printed digit" (empty, written or candidates), columns 1..9 the
        printed digits.

    Examples
    --------
    >>> kinds = np.zeros((2, len(CLASSES)), np.float32)
    >>> kinds[0, CLASSES.index("printed 7")] = kinds[1, CLASSES.index("written 7")] = 1
    >>> printed_probabilities(kinds).argmax(axis=1).tolist()
    [7, 0]
    >>> kinds[0, CLASSES.index("printed 1")] = 0.5   # the cell model: a 7 or a 1
    >>> read = np.zeros((2, 10), np.float32); read[:, 1] = 0.9; read[:, 7] = 0.1  # a 1
    >>> printed_probabilities(kinds, read, np.array([True, True])).argmax(axis=1).tolist()
    [1, 0]
    """
    out = np.empty((len(kinds), 10), np.float32)
    printed, written = kinds[:, 1:10].sum(axis=1), kinds[:, 10:19].sum(axis=1)
    # A cell taken for print (more likely print than anything else) stands for its digit
    # on paper, whichever kind it really is: a right entry taken for a given leaves the
    # solution as it is (and a wrong one leaves no solution), so only what says "no digit
    # here" may count against it. Any other cell keeps its written mass as "no printed
    # digit", so which cells are givens is decided as before.
    on_paper = np.where(printed > 0.5, printed + written, printed)
    out[:, 0] = 1.0 - on_paper
    digits = kinds[:, 1:10] / np.maximum(printed[:, None], 1e-12)
    if read is not None:  # two readers of the same print: the product of their opinions
        both = read[:, 1:] * kinds[:, 1:10]
        both = both / np.maximum(both.sum(axis=1, keepdims=True), 1e-12)
        digits = np.where(ink[:, None] & (both.sum(axis=1, keepdims=True) > 0), both, digits)
    out[:, 1:] = digits * on_paper[:, None]
    return out
