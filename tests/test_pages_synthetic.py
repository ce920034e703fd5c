"""samples/pages.py: photos of whole pages of several grids carry the right truth."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from api.sheet import draw_grid
from samples import pages
from samples.pages import photograph_page, reading_order, shared_page, sheet_photo

SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def consistent(givens: str, solution: str) -> bool:
    """Every given is the solution's digit, and the solution is a valid sudoku."""
    grid = np.array([int(c) for c in solution]).reshape(9, 9)
    units = [*grid, *grid.T, *(grid[r : r + 3, c : c + 3] for r in (0, 3, 6) for c in (0, 3, 6))]
    valid = all(sorted(np.ravel(u)) == list(range(1, 10)) for u in units)
    return valid and all(g in ("0", s) for g, s in zip(givens, solution, strict=True))


def test_sheet_photo_truth_per_grid():
    photo = sheet_photo(4, seed=2, size=(600, 800))
    assert photo.image.shape == (800, 600, 3)
    assert [g.kind for g in photo.grids] == ["puzzle"] * 4
    for grid in photo.grids:
        assert grid.corners.shape == (4, 2) and grid.corners.dtype == np.float32
        assert (grid.corners >= 0).all() and (grid.corners < [600, 800]).all()
        assert consistent(grid.givens, grid.solution)
    # the sheet's 2x2 layout read in order: 1 2 / 3 4, on the photo too when it is not turned
    tops = [g.corners[:, 1].min() for g in photo.grids]
    assert tops[0] < tops[2] and tops[1] < tops[3]


def test_same_seed_same_photo():
    a = sheet_photo(1, seed=5, size=(480, 640))
    b = sheet_photo(1, seed=5, size=(480, 640))
    assert a.jpeg == b.jpeg and np.array_equal(a.grids[0].corners, b.grids[0].corners)


def test_corners_land_on_the_printed_grid():
    """A page seen head-on, flat, unturned: the truth corners are where the border is dark."""
    page = Image.new("L", (1000, 1400), 255)
    draw_grid(ImageDraw.Draw(page), SOLVED, (200, 300), 450, (3, 3))
    flat = dict(turn=0, roll=0.0, pitch=0.0, yaw=0.0, curl=0.0, curl_skew=0.0, side_bow=0.0)
    photo = photograph_page(
        np.asarray(page),
        [((200, 300), 450, SOLVED, SOLVED, "solution")],
        seed=1,
        size=(600, 800),
        shadow=0.0,
        **flat,
    )
    (grid,) = photo.grids
    c = grid.corners
    assert np.allclose(c[1] - c[0], [c[2, 0] - c[3, 0], 0], atol=1.0)  # an upright square
    assert abs((c[1, 0] - c[0, 0]) - (c[3, 1] - c[0, 1])) < 1.0
    gray = photo.image.mean(axis=2)
    inside = np.round(c + np.sign(c.mean(0) - c) * 2).astype(int)  # 2 px inside each corner
    paper = np.median(gray)
    assert all(gray[y, x] < paper - 60 for x, y in inside)


def test_reading_order_rows_then_columns():
    grids = [
        ((900, 110), 500, "", "", "puzzle"),
        ((100, 100), 500, "", "", "puzzle"),
        ((100, 800), 300, "", "", "solution"),
        ((600, 790), 500, "", "", "puzzle"),
    ]
    assert [g[0] for g in reading_order(grids)] == [(100, 100), (900, 110), (100, 800), (600, 790)]


def test_level_paper_whitens_uneven_paper():
    ramp = np.tile(np.linspace(120, 220, 300, dtype=np.float32), (300, 1))
    ramp[100:110, :] *= 0.4  # a dark line across the shading
    levelled = pages.level_paper(ramp.astype(np.uint8), cell=30)
    assert levelled[50].min() > 200 and levelled[105].max() < 80


def test_shared_page(shared_dir):
    photo = shared_page(3, n_puzzles=3, size=(1200, 1600), crossword=True)
    kinds = [g.kind for g in photo.grids]
    assert kinds.count("puzzle") == 3 and kinds.count("solution") == 1
    for grid in photo.grids:
        assert consistent(grid.givens, grid.solution)
        assert (grid.corners >= 0).all() and (grid.corners < [1200, 1600]).all()
    solution = next(g for g in photo.grids if g.kind == "solution")
    assert solution.givens == solution.solution
    assert "crossword" in photo.description


def test_shared_page_without_shared(monkeypatch, tmp_path):
    monkeypatch.setattr(pages, "WICHT_IMAGES", tmp_path / "absent")
    pages.wicht_puzzles.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="shared"):
            shared_page(1)
    finally:
        pages.wicht_puzzles.cache_clear()
