"""Recognise the digit in each cell: per cell a probability for empty and for each digit 1-9.

Two engines behind one interface, `recognise(cells, engine)` -> (81, 10) float32, column 0
"empty", columns 1..9 the digits; every row sums to 1.

- "classifier": a small multilayer perceptron shipped as `vision/models/digits.npz` (float16
  weights, trained by `python -m api.train.digits`), run with numpy: well under a
  millisecond for a whole grid, so it can also be asked about all four rotations.
- "tesseract": Tesseract OCR through pytesseract, ONE process call per photo: every digit
  cell is pasted into one mosaic image, one digit per text line, and `image_to_data` maps
  each recognised character back to its cell by position. Its confidence becomes the
  digit's probability. Slower (Tesseract starts a process and loads its LSTM model) and
  less accurate on blurred bold print than the classifier; see bench/recognition.py.

Cells without ink (see `vision.cells`) are empty with high probability in both engines; the
classifier also has a "not a digit" class for specks and smudges that did reach it.

>>> import numpy as np
>>> from vision.cells import cut_cells
>>> probs = recognise(cut_cells(np.full((450, 450), 255, np.uint8)), "classifier")
>>> probs.shape, bool((probs.argmax(axis=1) == 0).all())
((81, 10), True)
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import cv2
import numpy as np

from vision.cells import Cells

ENGINES = ("classifier", "tesseract")
DEFAULT_ENGINE = "classifier"
MODEL = Path(__file__).resolve().parent / "models" / "digits.npz"
MAX_ORIENTATION_CELLS = 24  # plenty to tell which way up a grid stands
EMPTY_SURE = 0.995  # probability of "empty" for a cell in which no blob was found


@functools.lru_cache(maxsize=1)
def calibrations() -> dict:
    """Each engine's fitted calibration (`vision.calibration`, vision/models/calibration.json)."""
    from vision.calibration import load

    return load()


def calibrated(probabilities: np.ndarray, engine: str) -> np.ndarray:
    """The engine's (N, 10) probabilities made to mean what they say (`vision.calibration`:
    temperature, per-digit binning, measured confusions); unchanged for an engine with no
    calibration.

    >>> p = np.array([[0.1, 0.9] + [0.0] * 8], np.float32)
    >>> calibrated(p, "unknown")[0, 1]
    np.float32(0.9)
    """
    calibration = calibrations().get(engine)
    if calibration is None:
        return probabilities
    return calibration.apply(probabilities).astype(probabilities.dtype)


def recognise(cells: Cells, engine: str = DEFAULT_ENGINE) -> np.ndarray:
    """What each cell holds, as probabilities.

    Parameters
    ----------
    cells : Cells
        The cut cells (`vision.cells.cut_cells`), turned upright.
    engine : str
        One of ENGINES: "classifier" (the shipped model) or "tesseract".

    Returns
    -------
    ndarray of float32, shape (81, 10)
        Column 0 empty, columns 1..9 the digits; each row sums to 1.

    Examples
    --------
    >>> from vision.cells import cut_cells
    >>> blank = cut_cells(np.full((450, 450), 255, np.uint8))
    >>> recognise(blank).argmax(axis=1).max()  # every cell empty
    np.int64(0)
    """
    if engine not in ENGINES:
        raise ValueError(
            f"unknown recognition engine {engine!r}; choose one of {', '.join(ENGINES)}"
        )
    probs = empty_probabilities(len(cells.ink))
    if cells.ink.any():
        read = (
            classify(cells.images[cells.ink])
            if engine == "classifier"
            else tesseract_read(cells.images[cells.ink])
        )
        probs[cells.ink] = read
    return probs


def empty_probabilities(n: int) -> np.ndarray:
    probs = np.full((n, 10), (1 - EMPTY_SURE) / 9, np.float32)
    probs[:, 0] = EMPTY_SURE
    return probs


# ---------------------------------------------------------------- orientation


def orientation_scores(cells: Cells) -> np.ndarray:
    """(4,) how upright the digits look after k quarter turns counter-clockwise of the warped
    grid (`Cells.rotated(k)`, i.e. np.rot90(warped, k)): the mean log probability of the best
    digit over the ink cells, by the classifier (cheap whatever engine reads afterwards)."""
    scores = np.zeros(4)
    digits = cells.images[cells.ink][:MAX_ORIENTATION_CELLS]
    if not len(digits):
        return scores
    turned = np.concatenate([np.rot90(digits, k, axes=(1, 2)) for k in range(4)])
    best = classify(turned)[:, 1:].max(axis=1).reshape(4, -1)
    return np.log(best + 1e-6).mean(axis=1)


def upright_turns(cells: Cells) -> int:
    """How many quarter turns stand the digits upright.

    Parameters
    ----------
    cells : Cells
        The cut cells of a grid warped as it lies in the photo.

    Returns
    -------
    int
        The k in 0..3 for which `cells.rotated(k)` stands upright.

    Examples
    --------
    >>> from vision.load import load_image
    >>> from vision.locate import locate_grid
    >>> from vision.warp import warp_grid
    >>> from vision.cells import cut_cells
    >>> photo = load_image("samples/sheet-01.jpg")
    >>> warped, _ = warp_grid(photo, locate_grid(photo).corners)
    >>> cells = cut_cells(np.rot90(warped).copy())  # the grid a quarter turn off
    >>> upright_turns(cells)
    3
    """
    return int(np.argmax(orientation_scores(cells)))


# ---------------------------------------------------------------- classifier


def load_model(path: str | Path | None = None) -> dict:
    """The classifier's weights as float32 arrays (w0, b0, w1, b1, ...): the shipped model,
    or the file named by $SUDOKU_LENS_DIGIT_MODEL (to measure a retrained model)."""
    return read_model(Path(path or os.environ.get("SUDOKU_LENS_DIGIT_MODEL") or MODEL))


@functools.lru_cache(maxsize=4)
def read_model(path: Path) -> dict:
    if not path.is_file():
        raise FileNotFoundError(f"digit model {path} is missing: run `python -m api.train.digits`")
    with np.load(path) as data:
        return {k: data[k].astype(np.float32) for k in data.files if k[0] in "wb"}


@functools.cache
def _blas():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def single_thread_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b on this thread only. A multithreaded BLAS spawns threads for a grid's worth of
    cells, and on a busy machine (a batch with one worker per core) that thrashes: measured
    here 80 ms instead of 3 ms for one grid. So BLAS is held to one thread for the product
    (and given back its threads after): 0.14 ms for 96 cells' first layer, where einsum,
    which never calls BLAS, took 1.4 ms."""
    with _blas().limit(limits=1, user_api="blas"):
        return a @ b


def forward(x: np.ndarray, w: dict, keep: bool = False, dot=single_thread_dot):
    """The perceptron: ReLU hidden layers, softmax out. With keep, every layer's output
    (the training script needs them for backpropagation)."""
    acts = [x]
    n_layers = len(w) // 2
    for i in range(n_layers):
        z = dot(acts[-1], w[f"w{i}"]) + w[f"b{i}"]
        if i < n_layers - 1:
            acts.append(np.maximum(z, 0))
        else:
            z = z - z.max(axis=1, keepdims=True)
            e = np.exp(z)
            acts.append(e / e.sum(axis=1, keepdims=True))
    return acts if keep else acts[-1]


def classify(images: np.ndarray, weights: dict | None = None) -> np.ndarray:
    """(N, 10) probabilities for N normalised digit images (uint8 0..255 or float 0..1)."""
    w = load_model() if weights is None else weights
    x = images.reshape(len(images), -1).astype(np.float32)
    if images.dtype == np.uint8:
        x /= 255.0
    return forward(x, w).astype(np.float32)


# ---------------------------------------------------------------- tesseract

TILE = 48  # pixels per digit in the mosaic
GAP = 24  # blank around each digit
# faint strokes darker (gamma 0.5): measured 96.7% -> 97.6% of digits on a sample of photos
DARKEN = (255 * np.sqrt(np.arange(256) / 255)).astype(np.uint8)
PER_LINE = 1  # one digit per text line: side by side, Tesseract merges them into one word


def mosaic(images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Black digits on white, one per text line (digits side by side on one line are merged
    into a single word and lose their positions). Returns the image and (N, 2) slot centres."""
    n = len(images)
    rows = (n + PER_LINE - 1) // PER_LINE
    pitch = TILE + GAP
    sheet = np.full((GAP + rows * pitch, GAP + PER_LINE * pitch), 255, np.uint8)
    centres = np.zeros((n, 2))
    for i, img in enumerate(images):
        r, c = divmod(i, PER_LINE)
        x, y = GAP + c * pitch, GAP + r * pitch
        big = cv2.resize(img, (TILE, TILE), interpolation=cv2.INTER_LINEAR)
        sheet[y : y + TILE, x : x + TILE] = 255 - cv2.LUT(big, DARKEN)
        centres[i] = (x + TILE / 2, y + TILE / 2)
    return sheet, centres


def tesseract_words(sheet: np.ndarray, whitelist: str) -> dict:
    """Tesseract's words on a mosaic (`mosaic`), as pytesseract's `image_to_data` dict: one
    process call, one line a tile, only the `whitelist`'s characters."""
    import pytesseract

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    try:
        return pytesseract.image_to_data(
            sheet,
            config=f"--psm 6 --oem 1 -c tessedit_char_whitelist={whitelist}",
            output_type=pytesseract.Output.DICT,
        )
    except pytesseract.TesseractNotFoundError as err:
        raise RuntimeError(
            "the tesseract engine needs the Tesseract program (Debian: apt install "
            "tesseract-ocr); or use the classifier engine"
        ) from err


def tesseract_read(images: np.ndarray) -> np.ndarray:
    """(N, 10) probabilities for N digit images with a single Tesseract call."""
    sheet, centres = mosaic(images)
    data = tesseract_words(sheet, "123456789")
    n = len(images)
    # unread blobs: probably a digit Tesseract could not make out, not an empty cell
    probs = np.full((n, 10), 0.1, np.float32)
    pitch = TILE + GAP
    for text, left, top, width, height, conf in zip(
        data["text"],
        data["left"],
        data["top"],
        data["width"],
        data["height"],
        data["conf"],
        strict=True,
    ):
        text = text.strip()
        if not text or float(conf) < 0:
            continue
        p = min(max(float(conf) / 100, 0.11), 0.99)
        for j, ch in enumerate(text):  # a word of several digits: split its box evenly
            if not ch.isdigit() or ch == "0":
                continue
            cx = left + (j + 0.5) * width / len(text)
            cy = top + height / 2
            slot = int(np.argmin(np.abs(centres[:, 0] - cx) + np.abs(centres[:, 1] - cy)))
            if abs(centres[slot, 0] - cx) > pitch / 2 or abs(centres[slot, 1] - cy) > pitch / 2:
                continue
            probs[slot] = (1 - p) / 9
            probs[slot, int(ch)] = p
    return probs / probs.sum(axis=1, keepdims=True)
