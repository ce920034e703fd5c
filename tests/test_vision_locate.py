"""vision.locate and vision.warp on synthetic photos with known corners, and on real photos."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.errors import NoGridFound
from vision.locate import (
    Located,
    binarisations,
    grid_score,
    grown_grid,
    line_mask,
    locate_grid,
    order_corners,
    quad_area,
)
from vision.warp import to_image, to_square, turn, warp_grid


def sudoku_page(
    side: int = 540, digits_seed: int = 0, margin: int = 60
) -> tuple[np.ndarray, np.ndarray]:
    """A white page with a printed 9×9 grid (thick box lines) and some digits; the grid's
    outer corners on the page."""
    rng = np.random.default_rng(digits_seed)
    page = np.full((side + 2 * margin, side + 2 * margin), 235, np.uint8)
    cell = side / 9
    for k in range(10):
        thick = 4 if k % 3 == 0 else 1
        p = round(margin + k * cell)
        cv2.line(page, (margin, p), (margin + side, p), 20, thick)
        cv2.line(page, (p, margin), (p, margin + side), 20, thick)
    for r, c in zip(*np.nonzero(rng.random((9, 9)) < 0.35), strict=True):
        org = (round(margin + (c + 0.3) * cell), round(margin + (r + 0.8) * cell))
        cv2.putText(page, str(rng.integers(1, 10)), org, cv2.FONT_HERSHEY_SIMPLEX, cell / 40, 30, 2)
    lo, hi = margin - 2, margin + side + 2  # the outside edge of the 4 px border
    return page, np.float32([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])


def photograph(
    page: np.ndarray, page_corners: np.ndarray, photo_corners: np.ndarray, size=(640, 480)
):
    """The page seen through a perspective that puts its grid corners at photo_corners."""
    homography = cv2.getPerspectiveTransform(page_corners, np.float32(photo_corners))
    photo = cv2.warpPerspective(page, homography, size, borderValue=150)
    photo = cv2.GaussianBlur(photo, (3, 3), 0)
    noise = np.random.default_rng(1).normal(0, 4, photo.shape)
    return np.clip(photo + noise, 0, 255).astype(np.uint8)


def worst_corner_distance(found: np.ndarray, expected: np.ndarray) -> float:
    return float(np.linalg.norm(np.asarray(found) - np.asarray(expected), axis=1).max())


@pytest.mark.parametrize(
    "photo_corners",
    [
        [[150, 60], [500, 80], [480, 420], [130, 400]],  # perspective
        [[200, 40], [560, 150], [450, 470], [90, 360]],  # turned about 20 degrees
        [[60, 20], [600, 10], [630, 470], [20, 460]],  # fills the photo
    ],
)
def test_located_corners_match_known_perspective(photo_corners):
    page, page_corners = sudoku_page()
    photo = photograph(page, page_corners, photo_corners)
    located = locate_grid(photo)
    assert located.corners.shape == (4, 2) and located.corners.dtype == np.float32
    assert worst_corner_distance(located.corners, photo_corners) < 4.0
    assert located.score > 0.4


def test_large_photo_is_located_on_a_small_copy_and_refined_at_full_size():
    page, page_corners = sudoku_page(side=1800, margin=200)
    photo_corners = np.float32([[700, 500], [2900, 620], [2800, 2700], [620, 2600]])
    photo = photograph(page, page_corners, photo_corners, size=(4032, 3024))
    located = locate_grid(photo)
    assert worst_corner_distance(located.corners, photo_corners) < 6.0  # 0.3% of the grid side


def test_the_puzzle_wins_over_a_small_solution_grid_beside_it():
    page, page_corners = sudoku_page()
    photo_corners = np.float32([[40, 60], [400, 60], [400, 420], [40, 420]])
    photo = photograph(page, page_corners, photo_corners)
    small, small_corners = sudoku_page(side=162, digits_seed=5, margin=10)
    photo[250 : 250 + small.shape[0], 440 : 440 + small.shape[1]] = small  # a full small grid
    located = locate_grid(photo)
    assert worst_corner_distance(located.corners, photo_corners) < 4.0


def test_grid_touching_the_photo_edge_is_found():
    page, page_corners = sudoku_page()
    photo_corners = np.float32([[100, 1], [560, 0], [570, 470], [90, 478]])
    photo = photograph(page, page_corners, photo_corners)
    located = locate_grid(photo)
    assert worst_corner_distance(located.corners, photo_corners) < 8.0


def broken_border_page() -> tuple[np.ndarray, np.ndarray]:
    """A grid whose outer border has gaps and is touched by bold text on two sides."""
    page, corners = sudoku_page()
    for x in (100, 330, 520):
        page[52:70, x : x + 25] = 235  # gaps in the top border
    for y in (150, 420):
        page[y : y + 25, 595:610] = 235  # and in the right one
    for y in range(80, 600, 40):
        cv2.putText(page, "WORD", (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, 25, 2)  # touches left
    cv2.putText(page, "SUDOKU 1234", (120, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 25, 4)  # top
    return page, corners


def test_broken_border_with_touching_text_is_found():
    page, page_corners = broken_border_page()
    photo_corners = np.float32([[140, 50], [520, 70], [500, 440], [120, 420]])
    photo = photograph(page, page_corners, photo_corners)
    located = locate_grid(photo)
    assert worst_corner_distance(located.corners, photo_corners) < 5.0


def test_line_mask_keeps_grid_lines_and_drops_text():
    page, corners = broken_border_page()
    ink = next(binarisations(page))
    lines = line_mask(ink)
    lo, hi = int(corners[0, 0]) + 2, int(corners[2, 0]) - 2
    inside = lines[lo:hi, lo:hi]
    assert inside[:, 100].mean() > 0.3 * 255 / 9 * 0.5  # horizontal lines cross every column
    text = lines[70:600, 0:50]  # the words left of the grid
    assert text.mean() < 0.02 * 255
    assert lines[60, 100:125].max() == 255  # the top border's gap is bridged


def test_text_and_shapes_without_a_grid_raise_no_grid_found():
    photo = np.full((480, 640), 230, np.uint8)
    rng = np.random.default_rng(3)
    for y in range(30, 460, 28):
        words = " ".join("".join(rng.choice(list("abcdefghij"), 6)) for _ in range(5))
        cv2.putText(photo, words, (20, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, 40, 2)
    cv2.rectangle(photo, (100, 100), (400, 380), 30, 3)  # a box, but no lines inside
    with pytest.raises(NoGridFound, match="no sudoku grid"):
        locate_grid(photo)
    with pytest.raises(NoGridFound):
        locate_grid(np.full((480, 640, 3), 200, np.uint8))


def test_score_rewards_the_grid_and_not_a_misfit():
    page, corners = sudoku_page()
    cell = 540 / 9
    good = grid_score(page, corners + np.float32([[2, 2], [-2, 2], [-2, -2], [2, -2]]))
    shifted = grid_score(page, corners + np.float32([cell / 2, cell / 2]))
    box = grid_score(page, np.float32([[60, 60], [240, 60], [240, 240], [60, 240]]))
    assert good > 0.5
    assert shifted < good - 0.3 and box < good - 0.2


convex_quads = st.tuples(
    st.floats(50, 400),
    st.floats(50, 400),
    st.floats(100, 300),
    st.floats(-0.6, 0.6),
    st.lists(st.floats(-0.15, 0.15), min_size=8, max_size=8),
)


def quad_from(params) -> np.ndarray:
    """A convex quadrilateral: a square of side s at (x, y) turned by angle, corners jittered."""
    x, y, s, angle, jitter = params
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float) + np.reshape(jitter, (4, 2))
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return (square @ rotation.T) * s + [x, y]


@settings(max_examples=150, deadline=None)
@given(convex_quads, st.permutations(range(4)))
def test_order_corners_is_clockwise_from_the_top_left(params, permutation):
    quad = quad_from(params)
    ordered = order_corners(quad[list(permutation)])
    # the same points, clockwise on screen (positive shoelace sum with y pointing down)
    assert sorted(map(tuple, ordered.round(3))) == sorted(
        map(tuple, quad.astype(np.float32).round(3))
    )
    x, y = ordered[:, 0].astype(float), ordered[:, 1].astype(float)
    assert np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)) > 0
    assert np.argmin(ordered.sum(axis=1)) == 0
    assert quad_area(ordered) == pytest.approx(quad_area(quad.astype(np.float32)), rel=1e-4)


@settings(max_examples=100, deadline=None)
@given(
    convex_quads, st.lists(st.tuples(st.floats(0, 450), st.floats(0, 450)), min_size=1, max_size=5)
)
def test_warp_round_trip(params, points):
    corners = order_corners(quad_from(params))
    _, homography = warp_grid(np.zeros((8, 8), np.uint8), corners, 450)
    points = np.array(points, float)
    assert np.allclose(to_square(to_image(points, homography), homography), points, atol=1e-3)
    square = np.array([[0, 0], [450, 0], [450, 450], [0, 450]], float)
    assert np.allclose(to_square(corners, homography), square, atol=1e-2)


@settings(max_examples=40, deadline=None)
@given(convex_quads, st.integers(0, 3))
def test_turned_homography_maps_turned_corners_to_the_square(params, k):
    corners = order_corners(quad_from(params))
    _, homography = warp_grid(np.zeros((8, 8), np.uint8), corners, 450)
    turned_corners, turned = turn(corners, homography, 450, k)
    square = np.array([[0, 0], [450, 0], [450, 450], [0, 450]], float)
    assert np.allclose(to_square(turned_corners, turned), square, atol=1e-2)


def test_warped_square_shows_the_grid_upright():
    page, page_corners = sudoku_page()
    photo_corners = np.float32([[150, 60], [500, 80], [480, 420], [130, 400]])
    photo = photograph(page, page_corners, photo_corners)
    warped, _ = warp_grid(photo, photo_corners, 450)
    assert warped.shape == (450, 450)
    rows = (warped < 180).mean(axis=1)
    lines = [rows[max(0, p - 4) : p + 5].max() for p in range(4, 447, 49)]  # ten lines
    middles = [rows[p - 3 : p + 4].mean() for p in range(29, 450, 49)]
    assert min(lines) > 0.4 and max(middles) < 0.25


@pytest.mark.shared
@pytest.mark.parametrize("name", ["image1.jpg", "image71.jpg", "image1031.jpg", "image1083.jpg"])
def test_real_wichtounet_photos_are_located(shared_dir, name):
    from api.photo.evaluation import corner_error, wicht_samples
    from vision.load import load_image

    folder = shared_dir / "datasets" / "wichtounet" / "images"
    sample = next(s for s in wicht_samples(folder) if s.name == name)
    located = locate_grid(load_image(sample.path))
    assert corner_error(located.corners, sample.corners) < 0.05


@pytest.mark.shared
def test_real_kubiesa_photo_with_solution_grid_is_located(shared_dir):
    from api.photo.evaluation import corner_error, kubiesa_samples
    from vision.load import load_image

    sample = kubiesa_samples(shared_dir / "datasets" / "kubiesa")[1]
    located = locate_grid(load_image(sample.path))
    assert corner_error(located.corners, sample.corners) < 0.05


@pytest.mark.parametrize("rows, cols", [((0, 6), (0, 9)), ((3, 9), (0, 9)), ((3, 6), (3, 6))])
def test_a_part_of_the_grid_bounded_by_box_lines_grows_to_the_whole(rows, cols):
    """An outline that closed early along a thick box line holds six rows, or one box: the
    whole grid it is part of is found by growing it in its own perspective."""
    page, corners = sudoku_page()
    photo_corners = np.float32([[90, 50], [560, 70], [540, 440], [100, 420]])
    photo = photograph(page, corners, photo_corners)
    to_photo = cv2.getPerspectiveTransform(
        np.float32([[0, 0], [9, 0], [9, 9], [0, 9]]), photo_corners
    )
    (r0, r1), (c0, c1) = rows, cols
    part = np.float32([[[c0, r0], [c1, r0], [c1, r1], [c0, r1]]])
    part = cv2.perspectiveTransform(part, to_photo)[0]
    grown = grown_grid(photo, Located(part, grid_score(photo, part)))
    assert grown is not None and grown.score > grid_score(photo, part)
    assert worst_corner_distance(grown.corners, photo_corners) < 8


@pytest.mark.shared
@pytest.mark.parametrize(
    "name",
    [
        "image209.jpg",  # no contour closes around the whole grid; the best holds six rows
        "image1045.jpg",  # black entries half a cell from the lines drew the corners' combs
    ],
)
def test_hand_filled_photos_are_located_like_their_print_only_twins(shared_dir, name):
    """Wicht's photos with every blank filled in by hand are located as well as the same
    photos before the hand-writing was added (whose corners are labelled)."""
    from api.photo.evaluation import corner_error, wicht_samples
    from vision.load import load_image

    sample = next(
        s
        for s in wicht_samples(shared_dir / "datasets" / "wichtounet" / "images")
        if s.name == name
    )
    mixed = shared_dir / "datasets" / "wichtounet" / "mixed" / name
    located = locate_grid(load_image(mixed))
    assert corner_error(located.corners, sample.corners) < 0.05


def test_comb_strengths_are_numpys_to_the_bit():
    """The compiled comb strengths (`vision.locate.comb_totals`) are numpy's mean of the
    ten lines' np.interp of the profile, capped at 0.9, to the last bit: plateaus, combs
    reaching past either end of the profile, short profiles and a fine pass's long ones."""
    from vision.locate import comb_totals

    rng = np.random.default_rng(5)
    for n in (2, 3, 50, 264, 704):
        profile = rng.random(n).astype(np.float32)
        profile[::4] = np.round(profile[::4])  # plateaus
        cell = max(1, n // 11)
        offsets = np.arange(-0.5 * cell - 3, 0.5 * cell + 3.01, 0.25)
        spacings = cell * np.linspace(0.9, 1.1, 17)
        positions = cell + offsets[:, None, None] + spacings[None, :, None] * np.arange(10)
        expected = np.minimum(np.interp(positions, np.arange(n), profile), 0.9).mean(axis=2)
        assert np.array_equal(comb_totals()(profile, float(cell), offsets, spacings), expected)
