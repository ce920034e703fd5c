"""Pages of several grids: every grid found, never a block of them taken for one, nothing
taken for a grid that is not one, and each solved in the page's reading order (issue 48).

The pages are drawn here (grids by `api.sheet.draw_grid`, lines of text, a crossword-like
block) and seen at a tilt through a homography, so every grid's true corners are known.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw

from api.photo.pipeline import solve_photo
from api.sheet import draw_grid
from solver import generate
from vision.load import load_image
from vision.locate import locate_grids

PAGE = (1400, 1900)  # width, height of the flat page, pixels


@pytest.fixture(scope="module")
def puzzles():
    return generate("easy", count=6, seed=48)


def flat_page(grids, *, text=True, crossword=None) -> np.ndarray:
    """A white page (grey) with each (line, x, y, side) grid drawn, lines of text between
    them and, at `crossword` (x, y, side), a 13 x 13 block of black and white squares."""
    page = Image.new("L", PAGE, 250)
    draw = ImageDraw.Draw(page)
    if text:
        rng = np.random.default_rng(1)
        for y in range(40, PAGE[1] - 40, 34):
            x = 40
            while x < PAGE[0] - 120:
                width = int(rng.integers(30, 110))
                draw.rectangle((x, y, x + width, y + 12), fill=90)  # a word, seen from afar
                x += width + 18
    for line, x, y, side in grids:
        draw.rectangle((x - 30, y - 30, x + side + 30, y + side + 30), fill=250)  # its margin
        draw_grid(draw, line, (x, y), side, (3, 3))
    if crossword is not None:
        x0, y0, side = crossword
        draw.rectangle((x0 - 30, y0 - 30, x0 + side + 30, y0 + side + 30), fill=250)
        cell = side / 13
        rng = np.random.default_rng(2)
        for r in range(13):
            for c in range(13):
                fill = 20 if rng.random() < 0.2 else 250
                box = (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell)
                draw.rectangle(box, fill=fill, outline=20, width=2)
    return np.asarray(page)


def seen_at_a_tilt(page: np.ndarray, grids, size=(1500, 2000), turn_degrees: float = 4.0):
    """The page seen in perspective and turned a little: (BGR photo, each grid's corners in
    it, TL TR BR BL)."""
    h, w = page.shape
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    width, height = size
    angle = np.deg2rad(turn_degrees)
    centre = np.float32([width / 2, height / 2])
    spin = np.float32([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    dst = np.float32([[130, 110], [width - 90, 160], [width - 60, height - 90], [70, height - 130]])
    dst = (dst - centre) @ spin.T + centre
    homography = cv2.getPerspectiveTransform(src, dst)
    photo = cv2.warpPerspective(page, homography, size, borderValue=120)
    photo = cv2.GaussianBlur(photo, (3, 3), 0)
    truth = []
    for _, x, y, side in grids:
        square = np.float32([[x, y], [x + side, y], [x + side, y + side], [x, y + side]])
        truth.append(cv2.perspectiveTransform(square.reshape(-1, 1, 2), homography).reshape(4, 2))
    return cv2.cvtColor(photo, cv2.COLOR_GRAY2BGR), truth


def matches(found, truth, side_share=1 / 18) -> list[int]:
    """For each true grid, the index of the found grid whose every corner is within
    `side_share` of its side, or -1."""
    out = []
    for corners in truth:
        side = np.linalg.norm(corners[1] - corners[0])
        near = [
            i
            for i, grid in enumerate(found)
            if np.abs(grid.corners - corners).max() < side_share * side
        ]
        out.append(near[0] if near else -1)
    return out


LAYOUTS = {
    "two side by side": [(0, 120, 300, 560), (0, 760, 300, 560)],
    "three": [(0, 100, 200, 700), (0, 880, 240, 420), (0, 880, 900, 420)],
    "four": [(0, 120, 200, 540), (0, 760, 200, 540), (0, 120, 1000, 540), (0, 760, 1000, 540)],
    "six": [
        (0, 110, 120, 520),
        (0, 770, 120, 520),
        (0, 110, 720, 520),
        (0, 770, 720, 520),
        (0, 110, 1320, 520),
        (0, 770, 1320, 520),
    ],
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_every_grid_of_a_page_is_found(name, puzzles):
    grids = [(puzzles[k].line, x, y, side) for k, (_, x, y, side) in enumerate(LAYOUTS[name])]
    photo, truth = seen_at_a_tilt(flat_page(grids), grids)
    found = locate_grids(photo)
    assert len(found) == len(grids), [g.score for g in found]
    assert -1 not in matches(found, truth)


def test_a_small_solution_grid_beside_the_puzzle_is_found_and_said_complete(puzzles):
    solution = "".join(map(str, puzzles[0].solution.values))
    grids = [(puzzles[1].line, 100, 300, 900), (solution, 1080, 500, 260)]
    photo, truth = seen_at_a_tilt(flat_page(grids), grids)
    assert -1 not in matches(locate_grids(photo), truth)
    result = solve_photo(photo, render=False)
    assert [(g.kind, g.status) for g in result.grids] == [
        ("puzzle", "solved"),
        ("solution", "complete"),
    ]
    assert result.status == "solved" and result.number == 1
    assert result.solution == "".join(map(str, puzzles[1].solution.values))


def test_a_block_of_four_touching_grids_is_four_grids_not_one(puzzles):
    side = 560
    grids = [(puzzles[k].line, 140 + (k % 2) * side, 300 + (k // 2) * side, side) for k in range(4)]
    photo, truth = seen_at_a_tilt(flat_page(grids, text=False), grids)
    found = locate_grids(photo)
    assert len(found) == 4
    assert -1 not in matches(found, truth)


def test_text_and_a_crossword_are_not_grids(puzzles):
    grids = [(puzzles[0].line, 120, 200, 700)]
    photo, truth = seen_at_a_tilt(flat_page(grids, crossword=(300, 1100, 650)), grids)
    found = locate_grids(photo)
    assert len(found) == 1 and matches(found, truth) == [0]


def test_a_grid_cut_off_by_the_photos_edge_is_reported_and_the_others_solved(puzzles):
    layout = [(120, 200, 540), (760, 200, 540), (120, 1000, 540)]
    grids = [(puzzles[k].line, x, y, side) for k, (x, y, side) in enumerate(layout)]
    photo, truth = seen_at_a_tilt(flat_page(grids), grids)
    top, bottom = truth[2][:, 1].min(), truth[2][:, 1].max()
    cut = int(top + 0.8 * (bottom - top))  # the photo ends across the third grid's last rows
    result = solve_photo(np.ascontiguousarray(photo[:cut]), render=False)
    by_kind = [(g.kind, g.status) for g in result.grids]
    assert by_kind.count(("puzzle", "solved")) == 2, [g.message for g in result.grids]
    assert (None, "unreadable") in by_kind
    cut_off = next(g for g in result.grids if g.kind is None)
    assert "edge of the photo" in cut_off.message and cut_off.solution is None


def test_grids_are_numbered_in_the_pages_reading_order_even_turned(puzzles):
    grids = [(puzzles[k].line, x, y, side) for k, (_, x, y, side) in enumerate(LAYOUTS["four"])]
    photo, _ = seen_at_a_tilt(flat_page(grids), grids)
    turned = np.ascontiguousarray(np.rot90(photo))  # stored sideways
    result = solve_photo(turned, render=False)
    solutions = ["".join(map(str, puzzles[k].solution.values)) for k in range(4)]
    assert [g.solution for g in result.grids] == solutions
    assert [g.number for g in result.grids] == [1, 2, 3, 4]


def test_one_grid_photos_locate_as_before():
    """A photo of one grid: `locate_grids` finds it alone, with the corners of
    `locate_grid` (the main grid is chosen exactly as before)."""
    from vision.locate import locate_grid

    for name in ("sheet-01", "newspaper-07", "book-02"):
        image = load_image(f"samples/{name}.jpg")
        found = locate_grids(image)
        assert len(found) == 1
        assert np.array_equal(found[0].corners, locate_grid(image).corners)
