"""Recognising cells: the shipped classifier and a real Tesseract read printed digits, give
well-formed probabilities, and tell which way up a grid stands."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from vision import recognise as rec
from vision.cells import cut_cells
from vision.recognise import DEFAULT_ENGINE, ENGINES, orientation_scores, recognise, upright_turns

SIDE = 450
FONTS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf",
]


def rendered_grid(digits: np.ndarray, font_path: str, blur: bool = False) -> np.ndarray:
    """A printed grid as the warp would hand it over: digits (81,) with 0 = blank."""
    if not Path(font_path).is_file():
        pytest.skip(f"font {font_path} not installed")
    cell = SIDE / 9
    img = Image.new("L", (SIDE, SIDE), 230)
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(font_path, int(cell * 0.8))
    for i in np.flatnonzero(digits):
        r, c = divmod(int(i), 9)
        draw.text(
            ((c + 0.5) * cell, (r + 0.5) * cell), str(digits[i]), font=font, fill=25, anchor="mm"
        )
    for k in range(10):
        p = min(SIDE - 1, round(k * cell))
        w = 4 if k % 3 == 0 else 1
        draw.rectangle([p - w // 2, 0, p - w // 2 + w - 1, SIDE], fill=25)
        draw.rectangle([0, p - w // 2, SIDE, p - w // 2 + w - 1], fill=25)
    out = np.asarray(img)
    if blur:
        import cv2

        out = cv2.GaussianBlur(cv2.resize(cv2.resize(out, (200, 200)), (SIDE, SIDE)), (0, 0), 1)
    return out


def every_digit(seed: int) -> np.ndarray:
    """81 cells holding each digit 1-9 at least three times, the rest blank."""
    rng = np.random.default_rng(seed)
    digits = np.zeros(81, int)
    digits[rng.choice(81, 36, replace=False)] = np.tile(np.arange(1, 10), 4)
    return digits


def test_engines_and_default():
    assert set(ENGINES) == {"classifier", "tesseract"}
    assert DEFAULT_ENGINE in ENGINES


@pytest.mark.parametrize("font", FONTS)
def test_classifier_reads_rendered_digits(font):
    digits = every_digit(len(font))
    probs = recognise(cut_cells(rendered_grid(digits, font)), "classifier")
    assert probs.shape == (81, 10) and probs.dtype == np.float32
    assert np.allclose(probs.sum(axis=1), 1, atol=1e-4)
    assert ((probs >= 0) & (probs <= 1)).all()
    assert np.array_equal(probs.argmax(axis=1), digits)
    assert probs[digits > 0].max(axis=1).min() > 0.5


def test_classifier_reads_blurred_low_resolution_digits():
    digits = every_digit(5)
    probs = recognise(cut_cells(rendered_grid(digits, FONTS[0], blur=True)), "classifier")
    assert (probs.argmax(axis=1) == digits).mean() >= 80 / 81


def test_empty_grid_is_all_empty():
    probs = recognise(cut_cells(rendered_grid(np.zeros(81, int), FONTS[0])))
    assert (probs.argmax(axis=1) == 0).all()
    assert probs[:, 0].min() > 0.9


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_orientation_finds_the_upright_rotation(turns):
    digits = every_digit(turns)
    sideways = np.ascontiguousarray(np.rot90(rendered_grid(digits, FONTS[1]), turns))
    cells = cut_cells(sideways)
    k = upright_turns(cells)
    assert k == (-turns) % 4
    scores = orientation_scores(cells)
    assert scores.shape == (4,) and scores.argmax() == k
    assert np.array_equal(recognise(cells.rotated(k)).argmax(axis=1), digits)


def test_tesseract_reads_with_one_process_call(monkeypatch):
    import pytesseract

    calls = []
    real = pytesseract.image_to_data

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pytesseract, "image_to_data", counting)
    digits = every_digit(7)
    probs = recognise(cut_cells(rendered_grid(digits, FONTS[0])), "tesseract")
    assert len(calls) == 1
    assert probs.shape == (81, 10)
    assert np.allclose(probs.sum(axis=1), 1, atol=1e-4)
    read = probs.argmax(axis=1)
    assert (read[digits == 0] == 0).all()
    assert (read[digits > 0] == digits[digits > 0]).mean() >= 0.9


def test_unknown_engine_is_a_clear_error():
    cells = cut_cells(rendered_grid(every_digit(1), FONTS[0]))
    with pytest.raises(ValueError, match="unknown recognition engine 'ocr'"):
        recognise(cells, "ocr")


def test_shipped_model_is_small_and_a_missing_model_is_named(monkeypatch, tmp_path):
    assert rec.MODEL.is_file() and rec.MODEL.stat().st_size < 3_000_000
    assert len(rec.load_model()) == 6
    missing = tmp_path / "nope.npz"
    monkeypatch.setenv("SUDOKU_LENS_DIGIT_MODEL", str(missing))
    with pytest.raises(FileNotFoundError, match="nope.npz"):
        rec.load_model()


@pytest.mark.shared
def test_real_photos_with_labelled_corners(shared_dir):
    """A spread of the wichtounet photos, warped with their labelled corners: the cells the
    .dat labels give are read right (the outlines are hand-made, so allow a stray cell)."""
    from api.train.digits import wichtounet_photos

    photos = wichtounet_photos(shared_dir)[::20]
    right = total = 0
    for photo in photos:
        cells = cut_cells(photo.warped())
        cells = cells.rotated(upright_turns(cells))
        read = recognise(cells).argmax(axis=1)
        right += int((read == photo.givens.ravel()).sum())
        total += 81
    assert len(photos) >= 8
    assert right / total >= 0.995
