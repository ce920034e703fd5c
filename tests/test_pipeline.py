"""The photo pipeline on freshly generated photos: every status from a crafted input."""

from __future__ import annotations

from typing import get_args

import cv2
import numpy as np
import pytest
from pydantic import ValidationError

from api.photo.failures import failure_of
from api.photo.pipeline import STATUSES, judge, solve_photo
from api.photo.schema import STATUS_MEANING, BatchStatus, PhotoResultModel
from samples.synthetic import make_photo, make_puzzle, render_photo
from vision import ImageTooLarge, NoGridFound, NotAnImage, Unreadable, VisionError


def band_solution() -> np.ndarray:
    """The classic complete grid: row r is 1..9 shifted by 3r + r//3."""
    return np.array([[(3 * r + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)], np.int8)


def photo_of(givens: np.ndarray, seed: int = 4):
    """A clean flat photo of these givens (no curl, no shadow, head-on-ish)."""
    return render_photo(givens, seed=seed, size=(800, 600), kind="sheet")


@pytest.fixture(scope="module")
def photo():
    return make_photo(3, size=(800, 600), curl=0.0, shadow=0.0, second_grid=False)


@pytest.fixture(scope="module")
def solved(photo):
    return solve_photo(photo.jpeg, encode="jpeg")


def test_a_generated_photo_is_solved_correctly(photo, solved):
    assert solved.status == "solved", solved.message
    truth = "".join(str(int(v)) for v in photo.solution.reshape(81))
    assert solved.solution == truth
    assert solved.read.count("0") >= 81 - 40
    assert np.allclose(solved.corners, photo.corners, atol=0.02 * 600)
    assert solved.overlay_bytes[:2] == b"\xff\xd8"  # a JPEG
    for stage in ("correct", "solve", "render", "encode", "total"):
        assert solved.timings[stage] >= 0
    assert solved.timings["total"] >= sum(
        v for k, v in solved.timings.items() if k in ("render", "encode", "correct")
    )


def grid_mask(corners: np.ndarray, shape, grow: int) -> np.ndarray:
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 255)
    return cv2.dilate(mask, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)) > 0


def cell_centres(corners: np.ndarray) -> np.ndarray:
    """(9, 9, 2) photo positions of the cell centres (a flat page: one homography)."""
    square = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    h = cv2.getPerspectiveTransform(square, np.float32(corners))
    centres = np.float32([[[c + 0.5, r + 0.5] for c in range(9)] for r in range(9)])
    return cv2.perspectiveTransform(centres.reshape(1, 81, 2), h).reshape(9, 9, 2)


def test_the_overlay_changes_the_photo_only_inside_the_grid(photo, solved):
    image = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert solved.overlay.shape == image.shape
    changed = np.abs(solved.overlay.astype(int) - image).max(axis=2) > 0
    side = np.linalg.norm(photo.corners[1] - photo.corners[0])
    near = grid_mask(photo.corners, image.shape, grow=int(0.03 * side))  # outline, corner error
    assert not changed[~near].any()
    assert changed.sum() > 0.01 * grid_mask(photo.corners, image.shape, grow=0).sum()


def test_new_digits_land_in_the_empty_cells_and_givens_stay_untouched(photo, solved):
    image = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)
    changed = np.abs(solved.overlay.astype(int) - image).max(axis=2) > 30
    givens = np.array([int(c) for c in solved.givens]).reshape(9, 9)
    corrected = {c.cell for c in solved.corrections}
    centres = cell_centres(photo.corners)
    cell = np.linalg.norm(photo.corners[1] - photo.corners[0]) / 9
    k = max(2, int(cell / 5))
    for r in range(9):
        for c in range(9):
            x, y = np.round(centres[r, c]).astype(int)
            window = changed[y - k : y + k + 1, x - k : x + k + 1]
            if r * 9 + c in corrected:
                continue
            if givens[r, c]:
                assert not window.any(), f"given r{r + 1}c{c + 1} was drawn over"
            else:
                assert window.any(), f"no digit drawn in empty cell r{r + 1}c{c + 1}"


def test_path_bytes_and_array_give_the_same_answer(tmp_path, photo, solved):
    path = tmp_path / "p.jpg"
    path.write_bytes(photo.jpeg)
    image = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)
    for source in (str(path), path, image):
        again = solve_photo(source, render=False)
        assert (again.status, again.solution) == (solved.status, solved.solution)
        assert again.overlay is None


def test_a_photo_without_a_grid_is_no_grid():
    rng = np.random.default_rng(0)
    image = np.full((480, 640, 3), 215, np.uint8)
    for _ in range(12):  # some blobs and strokes, but nothing like a grid
        x, y = rng.integers(0, 600), rng.integers(0, 440)
        cv2.circle(image, (int(x), int(y)), int(rng.integers(5, 40)), (40, 40, 40), -1)
    ok, png = cv2.imencode(".png", image)
    result = solve_photo(png.tobytes())
    assert result.status == "no_grid"
    assert "grid" in result.message and result.overlay is None and result.solution is None


def test_too_few_digits_is_unreadable():
    givens, _ = make_puzzle(np.random.default_rng(1), 28)
    sparse = givens.copy()
    sparse.reshape(81)[np.flatnonzero(givens)[12:]] = 0  # 12 digits: not a sudoku
    result = solve_photo(photo_of(sparse).jpeg)
    assert result.status == "unreadable"
    assert "12" in result.message and result.read.count("0") == 69


def test_conflicting_digits_are_invalid_givens():
    full = band_solution()
    givens = np.zeros((9, 9), np.int8)
    givens[6:, :6] = full[6:, :6]  # 18 digits that fit together but leave much open
    givens[0, 0], givens[0, 4] = 7, 7  # and two 7s in the first row
    result = solve_photo(photo_of(givens).jpeg)
    assert result.status == "invalid_givens", result.message
    assert "r1c1 and r1c5 both hold 7" in result.message
    assert {"r1c1", "r1c5"} <= set(result.suspects)


def test_digits_that_obey_the_rules_but_admit_nothing_are_no_solution():
    full = band_solution()
    givens = np.zeros((9, 9), np.int8)
    givens[0, :8] = full[0, :8]  # 1..8 in the first row: r1c9 must be 9 ...
    givens[4, 8] = full[0, 8]  # ... but column 9 already has its 9
    givens[6:, :6] = full[6:, :6]
    result = solve_photo(photo_of(givens).jpeg)
    assert result.status == "no_solution", result.message
    assert result.solution is None and result.overlay is None


def test_too_open_a_puzzle_is_multiple_solutions():
    givens = np.zeros((9, 9), np.int8)
    givens[:2] = band_solution()[:2]  # two full rows: many completions
    givens[3, 3] = band_solution()[3, 3]
    result = solve_photo(photo_of(givens).jpeg)
    assert result.status == "multiple_solutions", result.message
    assert result.solution is None


def test_not_an_image_raises_a_clear_error():
    with pytest.raises(NotAnImage):
        solve_photo(b"this is a text file, not a photo\n" * 20)


def test_judge_reports_the_corrections_it_made():
    givens, solution = make_puzzle(np.random.default_rng(2), 30)
    read = givens.reshape(81).copy()
    cell = int(np.flatnonzero(read)[0])
    row = range(cell // 9 * 9, cell // 9 * 9 + 9)
    wrong = next(int(read[i]) for i in row if read[i] and i != cell)  # a conflict in its row
    read[cell] = wrong
    probs = np.full((81, 10), 0.002, np.float32)
    probs[np.arange(81), read] = 0.98
    probs[cell, wrong], probs[cell, givens.reshape(81)[cell]] = 0.6, 0.38

    result = judge(read.reshape(9, 9), probs.reshape(9, 9, 10))

    assert result.status == "solved"
    assert result.solution == "".join(map(str, solution.reshape(81)))
    assert [(c.cell, c.read, c.now) for c in result.corrections] == [
        (cell, wrong, int(givens.reshape(81)[cell]))
    ]
    assert result.read[cell] == str(wrong) and result.givens[cell] != str(wrong)
    assert "corrected 1 cell" in result.message
    model = result.to_model(file="x.jpg")
    assert isinstance(model, PhotoResultModel) and model.corrections[0].read == wrong


def test_every_way_a_photo_can_end_is_in_the_json_contract_and_explained():
    """The pipeline's statuses, what api.photo.failures calls a photo that never became a reading,
    and the batch's "error" (a crash) are exactly the statuses the JSON result accepts, each
    with a meaning; a status outside them is refused."""
    errors = (ImageTooLarge("x"), NotAnImage("x"), Unreadable("x"), NoGridFound("x"))
    never_read = {failure_of(error).status for error in (*errors, VisionError("x"))}
    ended = set(STATUSES) | never_read | {"error"}
    assert ended == set(get_args(BatchStatus)) == set(STATUS_MEANING)
    for status in ended:
        assert PhotoResultModel(file="a.jpg", status=status).status == status
    with pytest.raises(ValidationError, match="status"):
        PhotoResultModel(file="a.jpg", status="done")
