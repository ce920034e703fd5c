"""The synthetic photo generator: valid unique puzzles, same seed same photo, truthful corners."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from samples.synthetic import (
    KINDS,
    NEWSPAPER_IN_HAND,
    Page,
    count_solutions,
    curled_photo,
    grid_string,
    make_photo,
    make_puzzle,
    place_camera,
    solved_grid,
)

SIDE = 450


def is_valid_solution(grid: np.ndarray) -> bool:
    """Every row, column and box of `grid` (9, 9) holds 1..9 once."""
    units = list(grid) + list(grid.T)
    units += [grid[r : r + 3, c : c + 3].ravel() for r in (0, 3, 6) for c in (0, 3, 6)]
    return all(sorted(u) == list(range(1, 10)) for u in units)


def upright(photo, side: int = SIDE) -> np.ndarray:
    """The photo's grid warped to an upright grey square through its ground-truth corners."""
    square = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32) - 0.5
    h = cv2.getPerspectiveTransform(photo.corners, square)
    gray = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    return cv2.warpPerspective(gray, h, (side, side), flags=cv2.INTER_LINEAR)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_solved_grid_is_a_valid_sudoku(seed):
    assert is_valid_solution(solved_grid(np.random.default_rng(seed)))


@pytest.mark.parametrize("seed", [3, 4])
def test_puzzle_has_one_solution_which_the_project_solver_agrees_with(seed):
    from solver import parse, solve  # here, so the other tests run while the solver loads

    givens, solution = make_puzzle(np.random.default_rng(seed), 27)
    shown = givens > 0
    assert (givens[shown] == solution[shown]).all()
    assert 24 <= shown.sum() <= 34
    assert count_solutions(givens) == 1
    result = solve(parse(grid_string(givens)))
    assert result.status == "unique"
    assert grid_string(result.solutions[0]) == grid_string(solution)


def test_counter_sees_several_and_no_solutions():
    givens, solution = make_puzzle(np.random.default_rng(5), 30)
    assert count_solutions(np.zeros((9, 9), np.int8)) == 2
    clash = givens.copy()
    r, c = np.argwhere(givens == 0)[0]
    clash[r, c] = next(v for v in range(1, 10) if v in clash[r])  # repeats a row's digit
    assert count_solutions(clash) == 0


def test_same_seed_same_photo_other_seed_other_photo():
    a = make_photo(11, size=(320, 240))
    b = make_photo(11, size=(320, 240))
    c = make_photo(12, size=(320, 240))
    assert a.jpeg == b.jpeg
    assert np.array_equal(a.corners, b.corners) and np.array_equal(a.givens, b.givens)
    assert a.jpeg != c.jpeg and not np.array_equal(a.givens, c.givens)


@pytest.mark.parametrize("kind", KINDS)
def test_photo_matches_its_description(kind):
    photo = make_photo(21, size=(640, 480), kind=kind)
    assert photo.image.shape == (480, 640, 3) and photo.image.dtype == np.uint8
    decoded = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, photo.image)
    assert is_valid_solution(photo.solution)
    assert count_solutions(photo.givens) == 1
    assert photo.style.kind == kind


def line_contrast(square: np.ndarray) -> tuple[float, float]:
    """Mean grey level on the 10 expected grid lines and midway between them."""
    step = square.shape[0] / 9
    profile = square.astype(float).mean(0) + square.astype(float).mean(1)
    lines = [profile[min(round(i * step), square.shape[0] - 2)] for i in range(1, 9)]
    middles = [profile[round((i + 0.5) * step)] for i in range(9)]
    return float(np.mean(lines)), float(np.mean(middles))


@pytest.mark.parametrize("seed", [31, 32, 33])
def test_corners_sit_on_the_drawn_grid_of_a_flat_page(seed):
    photo = make_photo(seed, size=(800, 600), curl=0, curl_skew=0, side_bow=0)
    square = upright(photo)
    on_lines, between = line_contrast(square)
    assert on_lines < between - 25  # the inner grid lines are where the corners say
    border = np.concatenate([square[:3].ravel(), square[-3:].ravel(), square[:, :3].ravel()])
    inside = square[SIDE // 18 - 5 : SIDE // 18 + 5, SIDE // 18 - 5 : SIDE // 18 + 5]
    assert border.mean() < inside.mean() - 40  # the outer border runs along the edges


@pytest.mark.parametrize("seed", [41, 42])
def test_corners_are_the_border_corners_on_a_curled_page(seed):
    photo = make_photo(seed, size=(800, 600), kind="book", curl=0.25)
    square = upright(photo)
    paper = np.median(square)
    for y, x in [(0, 0), (0, SIDE - 6), (SIDE - 6, SIDE - 6), (SIDE - 6, 0)]:
        corner = square[y : y + 6, x : x + 6]
        assert corner.mean() < paper - 40, (y, x)


@pytest.mark.parametrize("fold", [0.0, 0.4])
def test_a_strongly_curled_or_folded_page_maps_back_exactly(fold):
    """The photo is made by sampling the page through the camera's maps: a point of the
    page sent to the photo must come back to itself, crease and all, or the ground truth
    (corners, cells) would not be where the pixels are."""
    photo = curled_photo(5, NEWSPAPER_IN_HAND, fold=fold)
    rng = np.random.default_rng(1)
    style = photo.style
    page = Page(np.zeros((600, 600), np.uint8), (100, 100), 400)
    camera = place_camera(style, page, (640, 480))
    points = rng.uniform(120, 480, (50, 2))
    in_photo = camera.to_photo(points)
    map_x, map_y = camera.page_maps(640, 480)
    xi, yi = np.rint(in_photo).astype(int).T
    inside = (xi >= 0) & (xi < 640) & (yi >= 0) & (yi < 480)
    back = np.stack([map_x[yi[inside], xi[inside]], map_y[yi[inside], xi[inside]]], 1)
    # one photo pixel spans about page / photo scale page pixels: allow that rounding
    assert np.abs(back - points[inside]).max() < 2.0
    assert inside.sum() > 40


def test_a_crease_kinks_the_grid_lines():
    """Across a fold a row of the grid changes slope at once, where a curl bends smoothly."""
    page = Page(np.zeros((600, 600), np.uint8), (100, 100), 400)
    xs = np.linspace(110, 490, 77)
    row = np.stack([xs, np.full_like(xs, 300.0)], 1)

    def sharpest_turn(**bend) -> float:
        style = curled_photo(6, NEWSPAPER_IN_HAND, **bend).style
        y = place_camera(style, page, (640, 480)).to_photo(row)[:, 1]
        turn = np.abs(np.diff(y, 2))
        return turn.max() / np.median(turn)

    assert sharpest_turn(fold=0.5) > 5 * sharpest_turn(fold=0.0)


def test_bad_requests_are_named():
    with pytest.raises(ValueError, match="kind"):
        make_photo(1, kind="magazine")
    with pytest.raises(ValueError, match="too small"):
        make_photo(1, size=(40, 30))


def test_hand_written_digits_are_the_solution_in_empty_cells():
    photo = make_photo(61, size=(640, 480), filled=0.5, curl=0, curl_skew=0, side_bow=0)
    written = photo.handwritten > 0
    empty = photo.givens == 0
    assert written.sum() == round(0.5 * empty.sum())
    assert not (written & ~empty).any()
    assert (photo.handwritten[written] == photo.solution[written]).all()
    assert make_photo(61, size=(320, 240)).handwritten is None
    square = np.array([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]], np.float32) - 0.5
    h = cv2.getPerspectiveTransform(photo.corners, square)
    colour = cv2.warpPerspective(photo.image, h, (SIDE, SIDE)).astype(int)
    step = SIDE // 9

    def blueness(r, c):  # blue minus red of the cell's darkest pixels
        inner = colour[r * step + 8 : (r + 1) * step - 8, c * step + 8 : (c + 1) * step - 8]
        pixels = inner.reshape(-1, 3)
        dark = pixels[np.argsort(pixels.sum(1))[:20]]
        return float((dark[:, 0] - dark[:, 2]).mean()), float(dark.sum(1).mean() / 3)

    pen = [blueness(r, c) for r, c in np.argwhere(written)]
    blank = [blueness(r, c) for r, c in np.argwhere(empty & ~written)]
    assert np.mean([b for b, _ in pen]) > np.mean([b for b, _ in blank]) + 15  # blue ink
    assert np.mean([v for _, v in pen]) < np.mean([v for _, v in blank]) - 40  # and dark
