"""bench/errata.csv: the labels of ../shared that bench/handwriting.py reads corrected.

A correction must name the label it corrects, so that a data set changed under it is
refused rather than silently corrected twice; and every line must still match ../shared.
"""

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location(
        "bench_handwriting", REPO / "bench" / "handwriting.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def photo(name: str, classes: np.ndarray) -> SimpleNamespace:
    return SimpleNamespace(path=Path(name), classes=classes)


def test_errata_name_their_cells(bench):
    errata = bench.read_errata(bench.ERRATA)
    assert errata["image1036.jpg"] == {50: (4, 7)}  # r6c6
    assert errata["image1066.jpg"] == {70: (5, 3)}  # r8c8


def test_a_correction_changes_the_digit_and_keeps_the_kind(bench):
    classes = np.zeros(81, int)
    classes[50] = 9 + 4  # a written 4 at r6c6 (api.train.cells: written digits are classes 10-18)
    classes[0] = 5  # a printed 5 at r1c1
    errata = {"x.jpg": {50: (4, 7)}}
    digit, kind = bench.truth_of(photo("x.jpg", classes), errata)
    assert (digit[50], kind[50]) == (7, "w")
    assert (digit[0], kind[0]) == (5, "p")
    untouched, _ = bench.truth_of(photo("y.jpg", classes), errata)
    assert untouched[50] == 4


def test_a_stale_correction_is_refused(bench):
    classes = np.zeros(81, int)
    classes[50] = 9 + 2  # labelled 2, but the erratum corrects a 4
    with pytest.raises(ValueError, match="r6c6 is labelled 2, not 4"):
        bench.truth_of(photo("x.jpg", classes), {"x.jpg": {50: (4, 7)}})


@pytest.mark.shared
def test_every_correction_matches_the_data_set(bench):
    mixed = SHARED / "datasets" / "wichtounet" / "mixed"
    if not mixed.is_dir():
        pytest.skip("needs ../shared/datasets/wichtounet/mixed (the labelled photos): not present")
    for name, cells in bench.read_errata(bench.ERRATA).items():
        rows = (mixed / name).with_suffix(".dat").read_text().split("\n")[2:11]
        labels = np.array([int(v) for row in rows for v in row.split()])
        for cell, (labelled, shown) in cells.items():
            assert labels[cell] == labelled != shown, (name, cell)
