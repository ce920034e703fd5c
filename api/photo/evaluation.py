"""Measuring the reader on labelled photo collections: data-set readers and metrics.

Two folder layouts are understood:

- Wicht (``imageN.jpg`` + ``imageN.dat``, optional ``outlines.csv`` in the folder or its
  parent): the .dat holds the phone, the capture format and 9 rows of 9 digits (0 = empty);
  outlines.csv the grid corners p1..p4 (TL, TR, BR, BL).
- Kubiesa (``images/``, ``labels/NAME.txt`` 9 rows of 9 ints, 10 = pencil candidates, counted
  as empty; ``metadata.csv`` with ``*_absolute`` corner pixels).

Measured: grid located (all four corners within 5% of the grid side, where corners are
labelled), cell accuracy, a confusion matrix, photos read fully correctly, latency p50/p95
per stage. A bad file is reported and counted, never stops the run. `sudoku-lens eval`,
`bench/reading.py`, `bench/pipeline.py` and the tests use these. The reader itself is
passed in (`measure(sample, read)`), so this module does not load vision.

>>> square = np.float32([[0, 0], [10, 0], [10, 10], [0, 10]])
>>> round(corner_error(square + 1, square), 3)
0.141
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

LOCATE_TOLERANCE = 0.05  # of the grid side
STAGES = ("load", "locate", "warp", "cells", "recognise", "total")


@dataclass
class Sample:
    """One labelled photo: its path, the expected givens (9, 9) and grid corners (4, 2)."""

    name: str
    path: Path
    givens: np.ndarray | None = None
    corners: np.ndarray | None = None


@dataclass
class Outcome:
    """What reading one photo gave."""

    name: str
    error: str | None = None
    located: bool | None = None  # None: no corners labelled
    corner_error: float | None = None  # worst corner distance / grid side
    givens: np.ndarray | None = None
    expected: np.ndarray | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def cells_right(self) -> int | None:
        if self.expected is None:
            return None
        if self.givens is None:
            return 0
        return int((self.givens == self.expected).sum())

    @property
    def fully_correct(self) -> bool | None:
        right = self.cells_right
        return None if right is None else right == 81


# --- reading labelled folders -----------------------------------------------------------------


def find_samples(folder: Path) -> list[Sample]:
    """The labelled photos of a Wicht or Kubiesa folder (or plain images without labels).

    Parameters
    ----------
    folder : Path
        A Wicht folder (images with .dat labels), or a Kubiesa one (images/ and labels/).

    Returns
    -------
    list of Sample
        In natural name order (image2 before image10); givens and corners None where a photo
        has no label.

    Examples
    --------
    >>> import pathlib
    >>> [s.name for s in find_samples(pathlib.Path("samples"))][:2]
    ['book-01.jpg', 'book-02.jpg']
    """
    if (folder / "images").is_dir() and (folder / "labels").is_dir():
        return kubiesa_samples(folder)
    return wicht_samples(folder)


IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff", ".heic"}


def image_files(folder: Path) -> list[Path]:
    files = [p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()]
    return sorted(files, key=natural_key)


def natural_key(path: Path) -> tuple:
    """image2 before image10."""
    digits = "".join(c for c in path.stem if c.isdigit())
    return (path.stem.rstrip("0123456789"), int(digits) if digits else -1, path.name)


def wicht_samples(folder: Path) -> list[Sample]:
    outlines = {}
    for place in (folder / "outlines.csv", folder.parent / "outlines.csv"):
        if place.is_file():
            outlines = read_wicht_outlines(place)
            break
    samples = []
    for path in image_files(folder):
        dat = path.with_suffix(".dat")
        givens = read_dat(dat) if dat.is_file() else None
        samples.append(Sample(path.name, path, givens, outlines.get(path.name)))
    return samples


def read_wicht_outlines(path: Path) -> dict[str, np.ndarray]:
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    keys = [f"p{i}_{axis}" for i in range(1, 5) for axis in "xy"]
    return {
        row["file"]: np.array([float(row[k]) for k in keys], np.float32).reshape(4, 2)
        for row in rows
        if all(row.get(k) not in (None, "") for k in keys)
    }


def kubiesa_samples(folder: Path) -> list[Sample]:
    corners = {}
    metadata = folder / "metadata.csv"
    if metadata.is_file():
        corners = read_kubiesa_corners(metadata)
    samples = []
    for path in image_files(folder / "images"):
        label = folder / "labels" / (path.stem + ".txt")
        givens = read_digit_rows(label, skip=0) if label.is_file() else None
        if givens is not None:
            givens = np.where(givens > 9, 0, givens).astype(np.int8)
        samples.append(Sample(path.name, path, givens, corners.get(path.name)))
    return samples


def read_kubiesa_corners(path: Path) -> dict[str, np.ndarray]:
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    order = ("topleft", "topright", "bottomright", "bottomleft")
    keys = [f"{axis}_{corner}_absolute" for corner in order for axis in "xy"]
    return {
        row["Name"]: np.array([float(row[k]) for k in keys], np.float32).reshape(4, 2)
        for row in rows
        if all(row.get(k) not in (None, "") for k in keys)
    }


def read_dat(path: Path) -> np.ndarray | None:
    r"""The printed givens of a Wicht ``.dat`` label, or None when it is not one.

    The format: two header lines (the phone, the capture format), then 9 rows of 9
    whitespace-separated digits, 0 for an empty cell.

    Parameters
    ----------
    path : Path

    Returns
    -------
    ndarray of int8, shape (9, 9), or None

    Examples
    --------
    >>> import tempfile, pathlib
    >>> dat = pathlib.Path(tempfile.mkdtemp()) / "image1.dat"
    >>> _ = dat.write_text("phone\n1280x960\n" + "5 0 0 0 0 0 0 0 9\n" * 9)
    >>> read_dat(dat)[0].tolist()
    [5, 0, 0, 0, 0, 0, 0, 0, 9]
    """
    return read_digit_rows(path, skip=2)


def read_digit_rows(path: Path, skip: int) -> np.ndarray | None:
    """9 rows of 9 whitespace-separated ints after ``skip`` header lines, or None."""
    try:
        lines = [line.split() for line in path.read_text().splitlines()[skip:] if line.strip()]
        values = np.array([[int(v) for v in line] for line in lines[:9]], np.int8)
    except (OSError, ValueError):
        return None
    return values if values.shape == (9, 9) else None


# --- measuring ------------------------------------------------------------------------------------


def corner_error(found: np.ndarray, expected: np.ndarray) -> float:
    """Worst corner distance over the grid side, for the best cyclic match of the corners
    (labels may name the corners of a sideways photo differently from the upright grid)."""
    side = np.mean([np.linalg.norm(expected[i] - expected[(i + 1) % 4]) for i in range(4)])
    worst = min(
        float(np.linalg.norm(np.roll(found, k, axis=0) - expected, axis=1).max()) for k in range(4)
    )
    return float(worst / max(side, 1.0))


def measure(sample: Sample, read: Callable) -> Outcome:
    """Read one photo and compare it with its labels; a failure is recorded, never raised.

    Parameters
    ----------
    sample : Sample
    read : callable
        The reader: path -> an object with givens, corners and timings
        (`vision.read_photo`).

    Returns
    -------
    Outcome

    Examples
    --------
    >>> import pathlib
    >>> outcome = measure(Sample("x", pathlib.Path("missing.jpg")), lambda path: 1 / 0)
    >>> outcome.error, outcome.cells_right
    ('internal error ZeroDivisionError: division by zero', None)
    """
    from vision.errors import VisionError

    outcome = Outcome(sample.name, expected=sample.givens)
    start = time.perf_counter()
    try:
        reading = read(sample.path)
    except VisionError as error:
        outcome.error = f"{type(error).__name__}: {error}"
        outcome.timings = {"total": (time.perf_counter() - start) * 1000}
        outcome.located = False if sample.corners is not None else None
        return outcome
    except Exception as error:  # a bug must not stop a batch; it is reported per file
        outcome.error = f"internal error {type(error).__name__}: {error}"
        outcome.located = False if sample.corners is not None else None
        return outcome
    outcome.timings = dict(reading.timings)
    outcome.timings["total"] = (time.perf_counter() - start) * 1000
    outcome.givens = np.asarray(reading.givens)
    if sample.corners is not None:
        outcome.corner_error = corner_error(np.asarray(reading.corners), sample.corners)
        outcome.located = bool(outcome.corner_error <= LOCATE_TOLERANCE)
    return outcome


def summarise(outcomes: list[Outcome]) -> dict:
    """The figures of a run, as plain JSON-able data.

    Parameters
    ----------
    outcomes : list of Outcome

    Returns
    -------
    dict
        Photos, errors, grids located, cells right, photos fully right, a confusion matrix
        and latency percentiles per stage.

    Examples
    --------
    >>> nine = np.zeros((9, 9), int)
    >>> summarise([Outcome("a", givens=nine, expected=nine)])["photos"]
    1
    """
    labelled_corners = [o for o in outcomes if o.located is not None]
    labelled_cells = [o for o in outcomes if o.expected is not None]
    confusion = np.zeros((10, 10), int)
    for o in labelled_cells:
        if o.givens is not None:
            np.add.at(confusion, (o.expected.ravel(), o.givens.ravel()), 1)
    cells_total = 81 * len(labelled_cells)
    cells_right = sum(o.cells_right for o in labelled_cells)
    latency = {}
    for stage in STAGES:
        values = [o.timings[stage] for o in outcomes if stage in o.timings]
        if values:
            latency[stage] = {
                "p50": float(np.percentile(values, 50)),
                "p95": float(np.percentile(values, 95)),
            }
    return {
        "photos": len(outcomes),
        "errors": sum(o.error is not None for o in outcomes),
        "located": ratio(sum(bool(o.located) for o in labelled_corners), len(labelled_corners)),
        "cell_accuracy": ratio(cells_right, cells_total),
        "fully_correct": ratio(
            sum(bool(o.fully_correct) for o in labelled_cells), len(labelled_cells)
        ),
        "confusion": {"rows": "expected 0-9", "columns": "read 0-9", "counts": confusion.tolist()},
        "latency_ms": latency,
        "per_photo": [photo_record(o) for o in outcomes],
    }


def ratio(part: int, whole: int) -> dict:
    return {"count": part, "of": whole, "percent": 100.0 * part / whole if whole else None}


def photo_record(o: Outcome) -> dict:
    return {
        "name": o.name,
        "error": o.error,
        "located": None if o.located is None else bool(o.located),
        "corner_error": None if o.corner_error is None else round(float(o.corner_error), 4),
        "cells_right": o.cells_right,
        "read": None if o.givens is None else "".join(str(int(v)) for v in o.givens.ravel()),
        "timings_ms": {k: round(float(v), 2) for k, v in o.timings.items()},
    }


def evaluate(
    samples: Iterable[Sample], read: Callable, progress: Callable | None = None
) -> list[Outcome]:
    """`measure` every sample in turn.

    Parameters
    ----------
    samples : iterable of Sample
    read : callable
        The reader (see `measure`).
    progress : callable, optional
        Called with each outcome as it comes.

    Returns
    -------
    list of Outcome

    Examples
    --------
    >>> import pathlib
    >>> from vision import read_photo
    >>> [o.fully_correct for o in evaluate(find_samples(pathlib.Path("samples"))[:1], read_photo)]
    [None]
    """
    outcomes = []
    for sample in samples:
        outcomes.append(measure(sample, read))
        if progress is not None:
            progress(outcomes[-1])
    return outcomes
