"""The check doubts the reader before the person (issue 47).

Candidate notes are never an entry, a page whose readings disagree with the solution in
more places than people slip is read with doubt, an entry whose digit cut again reads
as another digit is unclear, and the reading of a clear digit does not change when the
page is re-tinted or shadowed (real crops of ../shared).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from api.photo.entries import (
    HandMarks,
    Judged,
    Mistake,
    doubt_the_reader,
    more_than_slips,
)
from vision.candidates import as_candidates, separate_digits, several_digits
from vision.kinds import model_path
from vision.reread import own_paper_digit

needs_model = pytest.mark.skipif(
    not model_path().is_file(), reason="no cell model installed (vision/models/cells.onnx)"
)


def written_cell(text: str, scale: float, org=(8, 22), side: int = 50, ink: int = 90) -> np.ndarray:
    """A grey cell of `side` pixels with `text` written in it, pencil-grey on pale paper."""
    cell = np.full((side, side), 228, np.uint8)
    cv2.putText(cell, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, ink, 2, cv2.LINE_AA)
    return cell


def ink_of(cell: np.ndarray) -> np.ndarray:
    return cell < 180


def test_two_small_digits_side_by_side_are_candidates():
    noted = written_cell("3 4", 0.55)
    assert separate_digits(ink_of(noted)) == 2


def test_two_digits_noted_joined_in_the_corner_are_candidates():
    """"79" noted in one stroke (a single mark) at the cell's top left is two digits; the
    same mark in the middle of the cell, where an entry is written, is one."""

    def joined(x: int, y: int) -> np.ndarray:
        cell = written_cell("79", 0.55, (x, y))
        cv2.line(cell, (x + 6, y - 11), (x + 14, y - 11), 90, 2)  # the pen never lifted
        return ink_of(cell)[4:-4, 4:-4]

    assert separate_digits(joined(4, 18), 50) == 2
    assert separate_digits(joined(16, 34), 50) <= 1


def test_one_written_digit_is_one_digit_however_large():
    for text, scale, org in (("4", 1.3, (12, 40)), ("8", 1.0, (14, 38)), ("1", 0.5, (20, 30))):
        assert separate_digits(ink_of(written_cell(text, scale, org))) <= 1, text


def test_a_cell_of_noted_candidates_is_never_an_entry():
    """In a grid, the cell with "15" noted small loses all its written mass to candidates,
    however sure the cell model was of one written digit; the cell with one entry keeps it."""
    grid = np.full((450, 450), 228, np.uint8)
    for k in range(10):
        cv2.line(grid, (0, 50 * k), (449, 50 * k), 30, 3 if k % 3 == 0 else 1)
        cv2.line(grid, (50 * k, 0), (50 * k, 449), 30, 3 if k % 3 == 0 else 1)
    cv2.putText(grid, "1 5", (56, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.55, 90, 2, cv2.LINE_AA)  # r1c2
    cv2.putText(grid, "7", (212, 42), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 60, 3, cv2.LINE_AA)  # r1c5
    boxes = np.array(
        [(50 * c + 2, 50 * r + 2, 50 * c + 49, 50 * r + 49) for r in range(9) for c in range(9)]
    )
    kinds = np.zeros((81, 20), np.float32)
    kinds[:, 0] = 1.0
    kinds[[1, 4]] = 0.0
    kinds[1, 10 + 4] = 0.999  # read as a written 5 for sure
    kinds[1, 19] = 0.001
    kinds[4, 10 + 6] = 1.0  # a written 7
    several = several_digits(grid, boxes, kinds[:, 10:19].sum(axis=1) > 0.1)
    assert np.flatnonzero(several).tolist() == [1]
    out = as_candidates(kinds, several)
    assert out[1, 10:19].sum() == 0 and out[1, 19] == pytest.approx(1.0)
    assert out[4, 16] == 1.0


def test_real_noted_candidates_are_candidates(shared_dir):
    """Kubiesa's photos: a pair of pencil candidates noted in a cell's corner ("23")."""
    from vision.read import read_photo

    photo = shared_dir / "datasets" / "kubiesa" / "images" / "02_17_honor_view_10_0.jpg"
    labels = shared_dir / "datasets" / "kubiesa" / "labels" / "02_17_honor_view_10_0.txt"
    truth = np.array(labels.read_text().split(), int)
    reading = read_photo(photo, gate=False)
    boxes = np.asarray(reading.cell_boxes).reshape(81, 4)
    noted = np.flatnonzero(truth == 10)
    several = several_digits(reading.warped, boxes, np.ones(81, bool))
    assert several[noted].sum() >= 2, "the noted pairs of r9c3 and r9c6"
    entries = (truth > 0) & (truth < 10)
    assert several[entries].sum() <= 1, "a written or printed digit is one digit"


def judged_page(n_entries: int, wrong_cells: list[int]) -> Judged:
    entries = np.zeros(81, np.int8)
    entries[:n_entries] = 1
    marks = HandMarks(entries, "." * 81, ())
    return Judged(marks, tuple(Mistake(c, 1, 2) for c in wrong_cells), ())


def test_more_disagreements_than_people_slip():
    assert not more_than_slips(2, 40)
    assert more_than_slips(5, 20)


def test_a_page_of_many_disagreements_keeps_only_clear_mistakes():
    """Five entries of twenty read against the solution: more than slips explain, so each
    stays wrong only where its second cut reads the same digit clearly."""
    judged = judged_page(20, [0, 3, 6, 9, 12])
    second = np.zeros((5, 9))
    second[:, 0] = [0.6, 0.7, 0.97, 0.55, 0.65]  # the digit read first (1), cut again
    second[:, 1] = 1 - second[:, 0]
    out = doubt_the_reader(judged, lambda cells: second[[[0, 3, 6, 9, 12].index(c) for c in cells]])
    assert [m.cell for m in out.mistakes] == [6]
    assert [m.cell for m in out.unclear] == [0, 3, 9, 12]
    assert all(set(m.alternatives) == {1, 2} for m in out.unclear)
    assert str(out.unclear[0]) == "r1c1: 1 or 2?"


def test_one_mistake_on_a_page_stays_wrong_when_cut_again_alike():
    """One disagreement is a slip people make: a second cut at 0.6 leaves it wrong."""
    judged = judged_page(30, [7])
    second = np.zeros((1, 9))
    second[0, 0], second[0, 4] = 0.6, 0.4
    out = doubt_the_reader(judged, lambda cells: second)
    assert [m.cell for m in out.mistakes] == [7] and not out.unclear


def test_a_second_cut_reading_another_digit_makes_it_unclear():
    judged = judged_page(30, [7])
    out = doubt_the_reader(judged, lambda cells: np.eye(9)[[2]])  # reads a 3
    assert not out.mistakes and str(out.unclear[0]) == "r1c8: 3 or 1?"


def test_own_paper_cut_finds_faint_pencil_on_a_shadowed_pink_cell():
    """A faint grey 3 on pink paper, a shadow deepening across the cell, is cut whole: the
    same digit image as the 3 written dark on white paper."""
    dark = written_cell("3", 1.1, (14, 38), ink=40)
    faint = written_cell("3", 1.1, (14, 38), ink=175)
    pink = cv2.cvtColor(faint, cv2.COLOR_GRAY2BGR).astype(np.float32) * [0.8, 0.82, 1.0]
    pink *= np.linspace(1.0, 0.55, 50, dtype=np.float32)[None, :, None]  # a shadow
    pink = cv2.cvtColor(np.clip(pink, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    a, b = own_paper_digit(dark), own_paper_digit(pink)
    assert a is not None and b is not None
    assert np.abs((a > 0.3).astype(int) - (b > 0.3).astype(int)).mean() < 0.06


def relit_photo(image: np.ndarray, tint, shadow: float) -> np.ndarray:
    """The photo on tinted paper (BGR gains) with a shadow deepening across it."""
    h, w = image.shape[:2]
    ramp = np.linspace(1.0, 1.0 - shadow, w, dtype=np.float32)[None, :, None]
    return np.clip(image.astype(np.float32) * np.float32(tint) * ramp, 0, 255).astype(np.uint8)


@needs_model
def test_clear_real_entries_read_the_same_retinted_and_shadowed(shared_dir):
    """Real pages of ../shared, tinted pink and shadowed across: the entries the reader is
    sure of (0.95) on the page as photographed read as the same digits, all but one."""
    from vision.load import load_image
    from vision.read import read_photo

    kubiesa = shared_dir / "datasets" / "kubiesa" / "images"
    mixed = shared_dir / "datasets" / "wichtounet" / "mixed"
    photos = [kubiesa / "02_25_iphone_14_0.jpg", mixed / "image1000.jpg", mixed / "image17.jpg"]
    sure = same = 0
    for photo in photos:
        image = load_image(photo)
        first = read_photo(image, gate=False)
        written = first.kinds[:, 10:19]
        clear = written.sum(axis=1) > 0.5
        clear &= written.max(axis=1) >= 0.95 * written.sum(axis=1)
        for tint, shadow in (
            ((0.82, 0.86, 1.0), 0.0),
            ((1.0, 1.0, 1.0), 0.45),
            ((0.8, 0.85, 1.0), 0.4),
        ):
            again = read_photo(relit_photo(image, tint, shadow), gate=False)
            assert again.turns == first.turns
            sure += int(clear.sum())
            same += int(
                (again.kinds[clear, 10:19].argmax(axis=1) == written[clear].argmax(axis=1)).sum()
            )
    assert sure > 40
    assert same >= sure - 1, f"{sure - same} of {sure} clear entries read as another digit"


def test_the_check_through_judge_doubts_a_page_of_disagreements(tmp_path, monkeypatch):
    """Through the pipeline's `judge`: five sure entries of twenty read against the solution,
    each cut again as its right digit, come out unclear, named "right or read", and the
    message says to look; the same page cut again as read keeps them wrong."""
    from test_handfilled import crafted

    from api.photo.pipeline import judge
    from samples.synthetic import make_puzzle
    from vision.calibration import HandRates, InkRates, save_hand

    path = tmp_path / "rates.json"
    save_hand(HandRates({"pen": InkRates(1.0, 1e-6), "pencil": InkRates(1.0, 1e-6)}), path)
    monkeypatch.setenv("SUDOKU_LENS_HAND_RATES", str(path))
    givens, solution = make_puzzle(np.random.default_rng(3), 30)
    givens, solution = givens.reshape(81), solution.reshape(81)
    empty = np.flatnonzero(givens == 0)[:20]
    written = np.zeros(81, int)
    written[empty] = solution[empty]
    misread = empty[::4][:5]  # five of them read as another digit
    written[misread] = solution[misread] % 9 + 1
    printed_givens, printed, kinds = crafted(givens, written)

    def as_written(cells):  # the second cut reads each as the person wrote it
        return np.eye(9)[[solution[c] - 1 for c in cells]]

    def as_read(cells):
        return np.eye(9)[[written[c] - 1 for c in cells]]

    doubted = judge(printed_givens, printed, kinds=kinds, mode="check", reread=as_written)
    assert doubted.status == "solved" and not doubted.mistakes
    assert sorted(m.cell for m in doubted.unclear) == sorted(misread.tolist())
    assert "unclear" in doubted.message and "wrong" not in doubted.message
    kept = judge(printed_givens, printed, kinds=kinds, mode="check", reread=as_read)
    assert sorted(m.cell for m in kept.mistakes) == sorted(misread.tolist())
