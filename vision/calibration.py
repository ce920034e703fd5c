"""Make an engine's per-cell probabilities mean what they say.

A recogniser's confidence is only a score: Tesseract gives one digit a confidence and
nothing about the other nine; it reads a printed 8 as a 6 at 82-98% while its right 6s sit
at 99.5%. The correction (`api.photo.correct`) weighs whole readings by these numbers, so they
must be probabilities: of the cells read at p, a share p is right.

Three steps, fitted on cells the engine did not train on (`fit`), applied per cell
(`Calibration.apply`):

1. temperature scaling, p -> p^(1/T) renormalised: one number for the engine's overall
   timidity or boldness (all an engine with few wrong cells gets);
2. per read value (empty, 1..9), the share of cells read right in each bin of the
   engine's own confidence
   (histogram binning, shrunk towards the bin's mean confidence by `PRIOR` pseudo-cells,
   then made non-decreasing): this is what lets a Tesseract 6 at 95% become a 6 at 10%;
3. the rest of the cell's probability spread over the other values as the measured
   confusions say (what the cells read r really were when they were wrong), with the
   engine's own spread as a prior of `PRIOR` pseudo-cells: a doubtful 6 is then most
   likely an 8.

The fitted numbers live in `vision/models/calibration.json` (per engine), written by
`bench/trust.py --write-calibration` with the split it was fitted on.

>>> import numpy as np
>>> doubtful, sure = [0.02, 0, 0, 0, 0, 0, 0.9, 0, 0.08, 0], [0, 0, 0, 0, 0, 0, 1, 0, 0, 0]
>>> probs = np.array([doubtful] * 400 + [sure] * 600)  # Tesseract's 6s, say
>>> truth = np.array([8] * 360 + [6] * 40 + [6] * 600)  # most doubtful 6s were 8s
>>> cal = fit(probs, truth)
>>> p = cal.apply(probs[:1])[0]
>>> int(p.argmax()), bool(p[6] < 0.3)
(8, True)
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

EDGES = (0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99, 0.995, 0.999, 1.0 + 1e-9)
PRIOR = 2.0  # pseudo-cells: how strongly a thin bin leans on the engine's own confidence
MIN_WRONG = 20  # fewer wrong cells than this say nothing about a temperature: keep T = 1
FLOOR = 1e-9
FILE = Path(__file__).resolve().parent / "models" / "calibration.json"
HAND = "hand"  # the key of the hand model's misread rates (`HandRates`) in FILE
INKS = ("pen", "pencil")  # kinds of ink a hand entry is judged by (`HandRates`)


@dataclass(frozen=True)
class Calibration:
    """One engine's calibration: a temperature, and optionally per read value the share
    right per confidence bin (`right`, 10 x bins) and where the wrong cells really were
    (`confusion`, 10 x 10 pseudo-counts, row = read value)."""

    temperature: float = 1.0
    right: list[list[float]] | None = None
    confusion: list[list[float]] | None = None
    fitted_on: str = ""
    edges: tuple[float, ...] = field(default=EDGES)

    def scaled(self, probabilities: np.ndarray) -> np.ndarray:
        """Step 1: the temperature alone."""
        z = np.log(np.clip(np.asarray(probabilities, np.float64), FLOOR, 1.0)) / self.temperature
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    def apply(self, probabilities: np.ndarray) -> np.ndarray:
        """(N, 10) probabilities -> (N, 10) calibrated ones (float64); every row sums to 1
        and keeps its read value unless the confusions make another likelier."""
        p = self.scaled(probabilities)
        if self.right is None:
            return p
        rows = np.arange(len(p))
        raw = np.asarray(probabilities, np.float64)
        read = raw.argmax(axis=1)
        conf = raw[rows, read] / np.maximum(raw.sum(axis=1), FLOOR)
        bins = np.clip(np.digitize(conf, self.edges) - 1, 0, len(self.edges) - 2)
        sure = np.asarray(self.right)[read, bins]
        rest = p.copy()
        rest[rows, read] = 0.0
        rest /= np.maximum(rest.sum(axis=1, keepdims=True), FLOOR)  # the engine's own spread
        counts = np.asarray(self.confusion)[read]  # measured: what cells read r really were
        share = counts + PRIOR * rest
        share[rows, read] = 0.0
        share /= share.sum(axis=1, keepdims=True)
        out = share * (1.0 - sure)[:, None]
        out[rows, read] = sure
        return out


def fit(
    probabilities: np.ndarray, truth: np.ndarray, *, per_value: bool = True, fitted_on: str = ""
) -> Calibration:
    """Fit a calibration on (N, 10) probabilities and the (N,) true values of those cells.
    `per_value=False` fits the temperature alone (for an engine with too few wrong cells
    to learn confusions from). With fewer than MIN_WRONG wrong cells the likelihood only
    keeps rising as T falls (every cell right: infinitely sure), so T stays 1."""
    probs = np.asarray(probabilities, np.float64)
    truth = np.asarray(truth, np.int64)
    wrong = int((probs.argmax(axis=1) != truth).sum())
    t = _temperature(probs, truth) if wrong >= MIN_WRONG else 1.0
    base = Calibration(temperature=t, fitted_on=fitted_on)
    if not per_value:
        return base
    read = probs.argmax(axis=1)  # binned on the engine's own confidence: the temperature
    conf = probs[np.arange(len(probs)), read]  # could merge a doubtful and a sure bin
    right = np.array([_share_right(conf[read == r], truth[read == r] == r) for r in range(10)])
    confusion = np.zeros((10, 10))
    wrong = truth != read
    np.add.at(confusion, (read[wrong], truth[wrong]), 1.0)
    return Calibration(t, right.tolist(), confusion.tolist(), fitted_on)


def _share_right(conf: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Per bin of EDGES, the share of these cells read right, shrunk towards their mean
    confidence by PRIOR pseudo-cells and made non-decreasing (pool adjacent violators);
    bins without cells take the value of their neighbours (by bin centre)."""
    centre = np.array([(a + min(b, 1.0)) / 2 for a, b in zip(EDGES, EDGES[1:], strict=False)])
    bins = np.clip(np.digitize(conf, EDGES) - 1, 0, len(centre) - 1)
    used = [b for b in range(len(centre)) if (bins == b).any()]
    if not used:
        return centre
    blocks = []  # [value, weight, bins] pooled left to right
    for b in used:
        m = bins == b
        value = (right[m].sum() + PRIOR * conf[m].mean()) / (m.sum() + PRIOR)
        blocks.append([value, m.sum() + PRIOR, [b]])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, b2 = blocks.pop()
            v1, w1, b1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, b1 + b2])
    value = {b: v for v, _, bs in blocks for b in bs}
    return np.interp(centre, centre[used], [value[b] for b in used])


def _temperature(probs: np.ndarray, truth: np.ndarray) -> float:
    """The T minimising the negative log likelihood of the truth (a grid search in log T)."""
    logp = np.log(np.clip(probs, FLOOR, 1.0))
    best = (np.inf, 1.0)
    for t in np.exp(np.linspace(np.log(0.2), np.log(8), 120)):
        z = logp / t
        z -= z.max(axis=1, keepdims=True)
        ll = z[np.arange(len(z)), truth] - np.log(np.exp(z).sum(axis=1))
        best = min(best, (-ll.mean(), float(t)))
    return best[1]


def load(path: Path = FILE) -> dict[str, Calibration]:
    """The shipped calibrations by engine (none when the file is absent)."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    return {
        engine: Calibration(**{**c, "edges": tuple(c.get("edges", EDGES))})
        for engine, c in data.items()
        if engine != HAND
    }


def save(calibrations: dict[str, Calibration], path: Path = FILE) -> None:
    kept = json.loads(path.read_text()).get(HAND) if path.is_file() else None
    data = {engine: asdict(c) for engine, c in calibrations.items()}
    for c in data.values():
        c["edges"] = [min(e, 1.0) if e < 1.0 else 1.0 + 1e-9 for e in c["edges"]]
        c["temperature"] = round(c["temperature"], 4)
        if c["right"] is not None:
            c["right"] = [[round(x, 6) for x in row] for row in c["right"]]
    if kept is not None:
        data[HAND] = kept
    path.write_text(json.dumps(data, indent=1) + "\n")


# ---------------------------------------------------------------- the hand model's misreads


@dataclass(frozen=True)
class InkRates:
    """How one kind of ink's hand digits are misread: the hand model's (9,) probabilities
    p become p^(1/T) renormalised, mixed with `floor` for every digit, the share of
    readings that are wrong however sure the model is (a stray stroke, a digit written
    over another, a hand unlike any it saw)."""

    temperature: float = 1.0
    floor: float = 0.0
    cells: int = 0  # the hand crops it was fitted on
    misread: int = 0  # of them read wrong by the model's first choice


@dataclass(frozen=True)
class HandRates:
    """The hand model's readings made probabilities, per kind of ink (`INKS`): what
    `api.photo.entries.judge_entries` weighs a misread against a person's slip with.

    >>> rates = HandRates({"pen": InkRates(1.0, 0.001)})
    >>> p = rates.likelihoods(np.array([[0.0] * 8 + [1.0]]), np.array(["pen"]))[0]
    >>> round(float(p[8]), 3), round(float(p[0]), 4)      # a sure 9 keeps 1 in 1000 per digit
    (0.992, 0.001)
    """

    inks: dict[str, InkRates] = field(default_factory=dict)
    fitted_on: str = ""

    def likelihoods(self, digits: np.ndarray, inks: np.ndarray, sharpen: bool = True) -> np.ndarray:
        """(N, 9) probabilities of 1-9 written, from the hand model's (N, 9) readings and
        each reading's ink (a name of `INKS`; an unknown ink is read as pen). Without
        `sharpen` a temperature below 1 is taken as 1: the readings made no surer than
        the model said (what an entry is called right on, `api.photo.entries.call`)."""
        digits = np.asarray(digits, np.float64).reshape(-1, 9)
        inks = np.asarray(inks).reshape(-1)
        out = np.empty_like(digits)
        for ink in set(inks.tolist()):
            rates = self.inks.get(str(ink)) or self.inks.get("pen") or InkRates()
            mine = inks == ink
            t = rates.temperature if sharpen else max(rates.temperature, 1.0)
            out[mine] = _floored(digits[mine], t, rates.floor)
        return out


def _floored(digits: np.ndarray, temperature: float, floor: float) -> np.ndarray:
    z = np.log(np.clip(digits, FLOOR, 1.0)) / temperature
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return p * (1.0 - 9 * floor) + floor


def fit_ink(digits: np.ndarray, truth: np.ndarray) -> InkRates:
    """The temperature and floor that make (N, 9) hand readings of digits `truth` (1-9)
    likeliest (a grid search): fitted on real hand crops the model never trained on."""
    digits = np.asarray(digits, np.float64).reshape(-1, 9)
    truth = np.asarray(truth, np.int64).reshape(-1) - 1
    rows = np.arange(len(truth))
    best = (np.inf, 1.0, 0.0)
    for t in np.exp(np.linspace(np.log(0.5), np.log(6), 40)):
        for floor in (0.0, *np.exp(np.linspace(np.log(1e-6), np.log(0.05), 50))):
            p = _floored(digits, t, floor)
            nll = -np.log(np.maximum(p[rows, truth], FLOOR)).sum()
            best = min(best, (nll, float(t), float(floor)))
    misread = int((digits.argmax(axis=1) != truth).sum())
    return InkRates(best[1], best[2], len(truth), misread)


def rates_path() -> Path:
    """Where the hand model's misread rates are read from: $SUDOKU_LENS_HAND_RATES (a
    benchmark's rates fitted on other photos), else the shipped FILE."""
    return Path(os.environ.get("SUDOKU_LENS_HAND_RATES") or FILE)


@functools.lru_cache(maxsize=4)
def load_hand(path: Path = FILE) -> HandRates:
    """The shipped misread rates of the hand model (none: every reading taken as it is),
    read once per file (`save_hand` forgets what was read)."""
    if not path.is_file():
        return HandRates()
    data = json.loads(path.read_text()).get(HAND)
    if not data:
        return HandRates()
    inks = {k: InkRates(**v) for k, v in data["inks"].items()}
    return HandRates(inks, data.get("fitted_on", ""))


def save_hand(rates: HandRates, path: Path = FILE) -> None:
    data = json.loads(path.read_text()) if path.is_file() else {}
    data[HAND] = asdict(rates)
    path.write_text(json.dumps(data, indent=1) + "\n")
    load_hand.cache_clear()
