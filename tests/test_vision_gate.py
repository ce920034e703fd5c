"""The reader's gate: a page surely print alone spares the cell model, and only such a page."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import vision.read
from api.photo.schema import MODES
from samples.synthetic import make_photo
from tests.test_vision_kinds import WRITTEN, hand_page
from vision.cells import cut_cells, darkness
from vision.gate import (
    EMPTY,
    gate_classes,
    gate_inputs,
    gate_path,
    print_kinds,
    sure_of_the_print,
    surely_print,
)
from vision.kinds import model_path
from vision.read import read_photo

GATE = gate_path(model_path())
needs_gate = pytest.mark.skipif(
    not GATE.is_file(), reason=f"no gate installed ({GATE}): every page goes to the cell model"
)
HAND_FILLED = dict(
    hand_fonts=True, filled=0.45, pencil_entries=0.3, candidates=0.3, mistakes=1,
    crossed=1, curl=0.0, shadow=0.0, second_grid=False,
)  # fmt: skip


def page_of(grid: np.ndarray) -> tuple[np.ndarray, object]:
    dark = darkness(grid)
    cells = cut_cells(grid, dark=dark)
    return gate_classes(gate_inputs(dark, cells), GATE), cells


def print_reading(cells) -> np.ndarray:
    from vision.recognise import DEFAULT_ENGINE, calibrated, recognise

    return calibrated(recognise(cells, DEFAULT_ENGINE), DEFAULT_ENGINE)


def sure_page() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A gate's and a print reader's view of a page with one sure printed 5 in cell 0."""
    gate = np.zeros((81, 4))
    gate[:, EMPTY] = 1
    gate[0] = (0, 1, 0, 0)
    reading = np.zeros((81, 10))
    reading[:, 0] = 1
    reading[0] = 0
    reading[0, 5] = 1
    ink = np.zeros(81, bool)
    ink[0] = True
    return gate, reading, ink


def test_each_doubt_sends_the_page_to_the_cell_model():
    gate, reading, ink = sure_page()
    assert surely_print(gate, reading, ink)

    candidates = gate.copy()
    candidates[9] = (0.4, 0, 0, 0.6)  # more likely pencil candidates than not
    missed = gate.copy()
    missed[9] = (0.4, 0.6, 0, 0)  # print where the reader cut no digit
    unsure = reading.copy()
    unsure[0, 5], unsure[0, 6] = 0.9, 0.1  # the print reader torn between 5 and 6

    assert not surely_print(candidates, reading, ink)
    assert not surely_print(missed, reading, ink)
    assert not surely_print(gate, unsure, ink)
    assert sure_of_the_print(reading, ink) and not sure_of_the_print(unsure, ink)


def test_a_page_of_print_alone_is_read_as_the_print_reader_reads_it():
    reading = np.zeros((81, 10), np.float32)
    reading[:, 0] = 1
    reading[4] = 0
    reading[4, 3] = 1

    kinds = print_kinds(reading)

    assert kinds.shape == (81, 20) and np.allclose(kinds.sum(axis=1), 1)
    assert kinds[4, 3] == 1 and kinds[:, 10:].sum() == 0  # nothing written


@needs_gate
def test_a_grid_of_written_digits_never_passes_the_gate():
    written, cells = page_of(hand_page())

    hand = written[list(WRITTEN)]
    assert (hand[:, 2:].sum(axis=1) > 0.5).sum() >= 5  # most of the written digits
    assert not surely_print(written, print_reading(cells), cells.ink)


@needs_gate
def test_a_printed_photo_spares_the_cell_model_and_reads_the_same(monkeypatch):
    photo = make_photo(12, size=(800, 600), kind="sheet", curl=0.0, shadow=0.0, second_grid=False)

    gated = read_photo(photo.jpeg)
    monkeypatch.setattr(vision.read, "gate_path", lambda cell_model: GATE.with_name("none.onnx"))
    asked = read_photo(photo.jpeg)

    assert gated.print_alone and not asked.print_alone
    assert (gated.givens == asked.givens).all()
    assert (gated.givens.reshape(81) == photo.givens.reshape(81)).all()
    assert gated.kinds is not None and gated.kinds[:, 10:].sum() == 0


@needs_gate
def test_a_page_filled_in_by_hand_is_always_shown_to_the_cell_model():
    for seed in (5, 6, 7):
        photo = make_photo(seed, size=(1200, 900), kind="sheet", **HAND_FILLED)
        reading = read_photo(photo.jpeg)
        assert not reading.print_alone, seed
        assert reading.kinds[:, 10:19].sum(axis=1).max() > 0.5  # the cell model saw a hand


@needs_gate
def test_a_page_passed_as_print_that_does_not_solve_as_read_is_read_again(monkeypatch):
    """A person's wrong entry taken for print leaves the puzzle without a solution: the
    pipeline then reads the page again with the cell model."""
    from api.photo.pipeline import judged

    photo = make_photo(12, size=(800, 600), kind="sheet", curl=0.0, shadow=0.0, second_grid=False)
    reading = read_photo(photo.jpeg)
    assert reading.print_alone
    solution = photo.solution.reshape(81)
    cell = int(np.flatnonzero(reading.givens.reshape(81) == 0)[0])
    wrong = solution[cell] % 9 + 1  # a digit that breaks the one solution
    probabilities = reading.probabilities.reshape(81, 10).copy()
    probabilities[cell] = 0.0
    probabilities[cell, wrong] = 1.0
    givens = reading.givens.copy().reshape(81)
    givens[cell] = wrong
    entered = replace(
        reading, givens=givens.reshape(9, 9), probabilities=probabilities.reshape(9, 9, 10)
    )

    again, result = judged(entered, {})

    assert not again.print_alone  # the cell model read it
    assert result.solved and result.solution == "".join(map(str, solution))
    assert "read again" in again.timings
    kept, same = judged(reading, {})
    assert kept is reading and same.solved


@needs_gate
def test_only_a_solve_is_read_through_the_gate(monkeypatch):
    """A check or a hint is about the person's entries: the cell model always reads them."""
    from api.photo.pipeline import solve_photo

    photo = make_photo(12, size=(800, 600), kind="sheet", curl=0.0, shadow=0.0, second_grid=False)
    seen = []
    located = vision.read.read_located

    def spy(*args, **kwargs):
        reading = located(*args, **kwargs)
        seen.append(reading.print_alone)
        return reading

    monkeypatch.setattr(vision.read, "read_located", spy)
    answers = {mode: solve_photo(photo.jpeg, mode=mode, render=False) for mode in MODES}

    assert seen == [True, False, False]  # solve, check, hint
    assert all(a.solution == answers["solve"].solution for a in answers.values())


@needs_gate
def test_another_engine_is_never_gated(monkeypatch):
    """The gate's rule and figures are the default engine's (its calibrated sureness):
    Tesseract's reading always gets the cell model, and the gate is not even asked."""
    photo = make_photo(12, size=(800, 600), kind="sheet", curl=0.0, shadow=0.0, second_grid=False)
    asked = []
    monkeypatch.setattr(vision.read, "print_alone", lambda *args: asked.append(args) or True)

    assert not read_photo(photo.jpeg, engine="tesseract").print_alone
    assert asked == []
    assert read_photo(photo.jpeg).print_alone and len(asked) == 1  # the default engine's is
