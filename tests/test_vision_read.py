"""vision.read: photo -> Reading, on generated photos with known givens and corners, turned
photos, bad inputs, and a handful of real photos."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

import vision
from vision.errors import NoGridFound, NotAnImage, Unreadable
from vision.warp import to_square


@functools.cache
def photo(seed: int = 3, size: tuple[int, int] = (640, 480)):
    from samples.synthetic import make_puzzle, render_photo

    givens, solution = make_puzzle(np.random.default_rng(seed), n_givens=28)
    return render_photo(givens, solution, seed=seed, size=size)


def grid_side(corners: np.ndarray) -> float:
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))


def test_reading_a_generated_photo_gives_its_givens_and_corners():
    shot = photo()
    reading = vision.read_photo(shot.jpeg)
    assert reading.givens.shape == (9, 9) and reading.givens.dtype == np.int8
    assert (reading.givens == shot.givens).sum() >= 80
    side = grid_side(shot.corners)
    assert np.linalg.norm(reading.corners - shot.corners, axis=1).max() < 0.03 * side
    assert reading.probabilities.shape == (9, 9, 10)
    assert np.allclose(reading.probabilities.sum(axis=2), 1, atol=1e-3)
    assert reading.image.shape == shot.image.shape


def test_reading_is_self_consistent():
    reading = vision.read_photo(photo().jpeg)
    s = reading.side
    square = np.array([[0, 0], [s, 0], [s, s], [0, s]], float)
    assert reading.homography.shape == (3, 3) and reading.homography.dtype == np.float64
    assert np.allclose(to_square(reading.corners, reading.homography), square, atol=0.5)
    boxes = reading.cell_boxes
    assert boxes.shape == (9, 9, 4)
    assert (boxes[..., 0] < boxes[..., 2]).all() and (boxes[..., 1] < boxes[..., 3]).all()
    assert boxes.min() >= 0 and boxes.max() <= s
    centres_x = (boxes[..., 0] + boxes[..., 2]) / 2
    assert (np.diff(centres_x, axis=1) > 0).all()  # reading order: left to right
    assert set(reading.timings) == {"load", "locate", "warp", "cells", "recognise"}
    assert all(v >= 0 for v in reading.timings.values())


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_sideways_photo_is_read_upright(k):
    """Stored turned by k quarter turns with no EXIF tag: same givens, corners still start at
    the upright grid's top left."""
    shot = photo()
    turned = np.ascontiguousarray(np.rot90(shot.image, k))
    reading = vision.read_image(turned)
    assert (reading.givens == shot.givens).sum() >= 80
    assert list(reading.timings) == ["load", "locate", "warp", "cells", "recognise"]
    assert reading.turns != 0
    h, w = shot.image.shape[:2]
    # where the upright grid's top-left corner lands in the turned photo
    x, y = shot.corners[0]
    for _ in range(k):  # np.rot90 counter-clockwise: (x, y) -> (y, width - 1 - x)
        x, y = y, w - 1 - x
        h, w = w, h
    assert np.hypot(*(reading.corners[0] - (x, y))) < 0.03 * grid_side(shot.corners)
    # the ink found in each cell is turned with it: inside that cell of the upright square
    found = ~np.isnan(reading.ink_boxes[..., 0])
    assert (found == (reading.givens > 0)).sum() >= 80
    ink, cell = reading.ink_boxes[found], reading.cell_boxes[found]
    assert (ink[:, :2] >= cell[:, :2]).all() and (ink[:, 2:] <= cell[:, 2:]).all()


def test_a_12_megapixel_photo_is_read():
    shot = photo(seed=5, size=(4032, 3024))
    reading = vision.read_photo(shot.jpeg)
    assert (reading.givens == shot.givens).sum() >= 79
    assert np.linalg.norm(reading.corners - shot.corners, axis=1).max() < 0.02 * grid_side(
        shot.corners
    )
    assert reading.image.shape == (3024, 4032, 3)


def test_the_colour_grid_of_a_12_megapixel_photo_sampled_by_nearest_pixels_stays_smooth():
    """The colour grid is warped from nearest pixels at twice the size (cheaper); averaged
    down, it must stay close to the blended warp, and a small photo is blended as before."""
    from vision.warp import warp_grid

    big, small = photo(seed=5, size=(4032, 3024)), photo()
    blended, _ = warp_grid(big.image, big.corners)
    nearest, _ = warp_grid(big.image, big.corners, nearest=True)
    difference = np.abs(blended.astype(int) - nearest.astype(int))
    assert difference.mean() < 1.5 and np.percentile(difference, 99) < 8
    assert np.array_equal(
        warp_grid(small.image, small.corners, nearest=True)[0],
        warp_grid(small.image, small.corners)[0],
    )


def test_tesseract_engine_reads_the_same_grid():
    shot = photo()
    reading = vision.read_photo(shot.jpeg, engine="tesseract")
    assert (reading.givens == shot.givens).sum() >= 76


def test_bad_inputs_raise_clear_vision_errors(tmp_path):
    with pytest.raises(NotAnImage, match="empty"):
        vision.read_photo(b"")
    with pytest.raises(NotAnImage):
        vision.read_photo(b"GIF? no, plain text")
    with pytest.raises(Unreadable, match="truncated"):
        vision.read_photo(photo().jpeg[:5000])
    with pytest.raises(NoGridFound):
        vision.read_image(np.full((480, 640, 3), 210, np.uint8))
    with pytest.raises(ValueError, match="unknown recognition engine"):
        vision.read_photo(photo().jpeg, engine="ouija")


def test_a_photo_of_a_page_without_a_grid_is_no_grid_found():
    page = np.full((480, 640, 3), 225, np.uint8)
    for y in range(40, 460, 30):
        cv2.putText(page, "Lorem ipsum dolor sit amet 12345", (20, y), 0, 0.8, (30, 30, 30), 2)
    ok, jpeg = cv2.imencode(".jpg", page)
    with pytest.raises(NoGridFound, match="no sudoku grid"):
        vision.read_photo(jpeg.tobytes())


@pytest.mark.shared
@pytest.mark.parametrize("name", ["image1.jpg", "image1036.jpg", "image1083.jpg", "image125.jpg"])
def test_real_wichtounet_photos_are_read(shared_dir, name):
    from api.photo.evaluation import corner_error, wicht_samples

    folder = shared_dir / "datasets" / "wichtounet" / "images"
    sample = next(s for s in wicht_samples(folder) if s.name == name)
    reading = vision.read_photo(sample.path)
    assert corner_error(reading.corners, sample.corners) < 0.05
    assert (reading.givens == sample.givens).sum() >= 79


@pytest.mark.shared
def test_a_real_12_megapixel_photo_is_located(shared_dir):
    from api.photo.evaluation import corner_error, kubiesa_samples

    sample = kubiesa_samples(shared_dir / "datasets" / "kubiesa")[2]
    reading = vision.read_photo(sample.path)
    assert corner_error(reading.corners, sample.corners) < 0.05
    # labels count hand-written digits too; a wrong turn or a misplaced grid would read ~10%
    labelled = sample.givens > 0
    read = reading.givens.copy()
    if reading.kinds is not None:  # the cell model reads the hand-written digits apart
        kinds = reading.kinds.reshape(9, 9, 20)
        written = kinds[..., 10:19].sum(axis=2) > kinds[..., 1:10].sum(axis=2)
        read = np.where(written & (read == 0), kinds[..., 10:19].argmax(axis=2) + 1, read)
    assert (read[labelled] == sample.givens[labelled]).mean() > 0.75


@pytest.mark.parametrize("name", ["sheet-01.jpg", "newspaper-01.jpg"])
def test_a_page_read_as_print_alone_reads_as_the_full_hand_reader_would(monkeypatch, name):
    """The print-only shortcut (`vision.kinds.print_only`) spares the hand reader's looks only
    where they could not change the puzzle: the reading is the full reader's."""
    from pathlib import Path

    import vision.kinds
    import vision.read

    data = (Path(__file__).resolve().parents[1] / "samples" / name).read_bytes()
    quick = vision.read_photo(data)
    if quick.kinds is None:
        pytest.skip("no cell model installed: print only, no shortcut to compare")
    assert vision.kinds.print_only(quick.kinds), f"{name} is printed only"
    monkeypatch.setattr(vision.read, "print_only", lambda kinds: False)
    monkeypatch.setattr(vision.kinds, "print_only", lambda kinds: False)
    full = vision.read_photo(data)
    assert (quick.givens == full.givens).all()
    assert np.allclose(quick.probabilities, full.probabilities, atol=1e-5)
    assert (quick.kinds.argmax(axis=1) == full.kinds.argmax(axis=1)).all()
