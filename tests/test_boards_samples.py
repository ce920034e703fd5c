"""samples.boards (photos of 6x6, 16x16, diagonal and refused boards) and sheet_photo's
other board sizes: what a bench and the reader's tests rely on."""

import functools

import cv2
import numpy as np
import pytest

from samples.boards import (
    CONVENTIONS,
    KINDS,
    REFUSED,
    SUPPORTED,
    board_photo,
    board_photos,
    jigsaw_regions,
    killer_cages,
    printed_symbol,
    refused_photos,
)
from samples.pages import sheet_photo

SIZE = (480, 640)


@functools.cache
def photo(kind: str, seed: int = 4, **options):
    return board_photo(kind, seed=seed, size=SIZE, **options)


def frame_is_dark_at_corners(found) -> bool:
    """The photo is darker at each corner of the frame than on the paper half a cell in."""
    gray = cv2.cvtColor(found.image, cv2.COLOR_BGR2GRAY).astype(float)
    corners = found.corners.astype(float)
    centre = corners.mean(0)
    side = np.linalg.norm(corners[1] - corners[0])
    cell = side / found.size
    r = max(2, round(0.006 * side))
    for corner in corners:
        inward = (centre - corner) / np.linalg.norm(centre - corner)
        x, y = np.round(corner + inward * 0.5 * r).astype(int)
        ink = gray[y - r : y + r + 1, x - r : x + r + 1].min()
        px, py = np.round(corner + inward * 0.7 * cell * np.sqrt(2)).astype(int)
        h = max(2, round(0.25 * cell))
        paper = np.percentile(gray[py - h : py + h + 1, px - h : px + h + 1], 90)
        if not ink < 0.7 * paper:
            return False
    return True


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_renders_with_its_corners_on_the_frame(kind):
    found = photo(kind)
    h, w = found.image.shape[:2]
    assert (w, h) == SIZE and found.kind == kind
    assert cv2.imdecode(np.frombuffer(found.jpeg, np.uint8), cv2.IMREAD_COLOR).shape == (h, w, 3)
    assert found.corners.shape == (4, 2)
    assert ((found.corners >= 0) & (found.corners < [w, h])).all()
    side = np.linalg.norm(found.corners[1] - found.corners[0])
    assert side > 0.5 * min(SIZE)  # the board fills much of the photo
    assert frame_is_dark_at_corners(found)
    assert kind in found.description


@pytest.mark.parametrize("kind", SUPPORTED)
def test_givens_agree_with_a_valid_solution(kind):
    found = photo(kind)
    n = {"6x6": 6, "9x9": 9, "16x16": 16, "diagonal": 9}[kind]
    assert found.size == n and found.givens.shape == found.solution.shape == (n, n)
    given = found.givens > 0
    assert given.sum() >= n  # a puzzle, not an empty grid
    assert (found.givens[given] == found.solution[given]).all()
    every = set(range(1, n + 1))
    for k in range(n):
        assert set(found.solution[k]) == every and set(found.solution[:, k]) == every
    if kind == "diagonal":
        assert found.variant == "diagonal"
        assert set(np.diag(found.solution)) == every
        assert set(np.diag(found.solution[:, ::-1])) == every
    else:
        assert found.variant == "standard"


@pytest.mark.parametrize("kind", REFUSED)
def test_refused_kinds_carry_no_puzzle(kind):
    found = photo(kind)
    assert found.givens is None and found.solution is None and found.variant == kind
    assert found.size == (21 if kind == "samurai" else 9)


def test_printed_symbols_by_convention():
    assert [printed_symbol(v, 16, "1-16") for v in (1, 9, 10, 16)] == ["1", "9", "10", "16"]
    assert [printed_symbol(v, 16, "0-F") for v in (1, 10, 11, 16)] == ["0", "9", "A", "F"]
    assert [printed_symbol(v, 16, "1-9A-G") for v in (1, 9, 10, 16)] == ["1", "9", "A", "G"]
    assert [printed_symbol(v, 16, "A-P") for v in (1, 16)] == ["A", "P"]
    assert [printed_symbol(v, 6, None) for v in (1, 6)] == ["1", "6"]
    assert printed_symbol(9, 9, None) == "9"
    with pytest.raises(ValueError):
        printed_symbol(17, 16, "1-16")
    with pytest.raises(ValueError):
        printed_symbol(3, 16, None)


def test_a_16x16_keeps_the_convention_asked_for_and_says_it():
    for convention in ("1-16", "A-P"):
        found = photo("16x16", seed=5, convention=convention)
        assert found.convention == convention and convention in found.description


def test_options_of_another_kind_are_refused():
    with pytest.raises(ValueError, match="convention"):
        board_photo("9x9", seed=1, size=SIZE, convention="0-F")
    with pytest.raises(ValueError, match="diagonal_mark"):
        board_photo("6x6", seed=1, size=SIZE, diagonal_mark="lines")
    with pytest.raises(ValueError, match="kind"):
        board_photo("nonomino", seed=1, size=SIZE)


def test_killer_cages_and_jigsaw_regions_are_connected_and_sized():
    rng = np.random.default_rng(0)
    for _ in range(5):
        cages = killer_cages(rng)
        for k in np.unique(cages):
            mask = (cages == k).astype(np.uint8)
            assert 2 <= mask.sum() <= 5
            assert cv2.connectedComponents(mask, connectivity=4)[0] == 2
        regions = jigsaw_regions(rng)
        assert sorted(np.bincount(regions.ravel())) == [9] * 9
        for k in range(9):
            assert cv2.connectedComponents((regions == k).astype(np.uint8), connectivity=4)[0] == 2
        assert not all(
            (regions[r : r + 3, c : c + 3] == regions[r, c]).all()
            for r in (0, 3, 6)
            for c in (0, 3, 6)
        )


def test_board_photos_cycle_the_kinds_and_repeat_by_seed():
    first = list(board_photos(4, seed=9, size=(300, 400)))
    assert [p.kind for p in first] == list(SUPPORTED)
    assert first[2].convention == CONVENTIONS[0] and "diagonals shaded" in first[3].description
    again = next(board_photos(1, seed=9, size=(300, 400)))
    assert again.jpeg == first[0].jpeg
    assert [p.kind for p in refused_photos(3, size=(300, 400))] == list(REFUSED)


@pytest.mark.parametrize(
    ("count", "board", "variant", "length"),
    [(2, 6, "standard", 36), (2, 16, "standard", 256), (1, 9, "diagonal", 81)],
)
def test_sheets_of_other_boards_give_their_lines(count, board, variant, length):
    found = sheet_photo(count, seed=3, size=(600, 800), board=board, variant=variant)
    assert len(found.grids) == count
    for grid in found.grids:
        assert len(grid.givens) == len(grid.solution) == length
        assert "0" not in grid.solution
        assert all(g in ("0", s) for g, s in zip(grid.givens, grid.solution, strict=True))
    h, w = found.image.shape[:2]
    assert all(((g.corners >= 0) & (g.corners < [w, h])).all() for g in found.grids)


def test_a_sheet_over_a_page_is_refused_by_name():
    with pytest.raises(ValueError, match="16x16"):
        sheet_photo(3, seed=1, board=16)
