"""vision.load: formats, EXIF orientation, and every kind of bad input ends in a clear error."""

from __future__ import annotations

import io
import struct
import time
import zlib

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.errors import ImageTooLarge, NotAnImage, Unreadable, VisionError
from vision.load import area_means, decode_jpeg, downscale, load_image


def marked_image(width: int = 120, height: int = 80) -> np.ndarray:
    """A BGR image with a red block in its top-left corner, so orientation can be checked."""
    image = np.full((height, width, 3), 255, np.uint8)
    image[:20, :30] = (0, 0, 255)
    return image


def encode_pil(image_bgr: np.ndarray, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB)).save(buffer, fmt, **options)
    return buffer.getvalue()


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def huge_png(width: int, height: int) -> bytes:
    """A valid PNG header announcing width×height pixels, in a few hundred bytes."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\0" * 4096)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", rows)
        + png_chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    "fmt, options",
    [
        ("JPEG", {"quality": 95}),
        ("PNG", {}),
        ("WEBP", {"lossless": True}),
        ("BMP", {}),
        ("TIFF", {}),
        ("HEIF", {"quality": 95}),  # iPhones' default: pillow-heif, a dependency
    ],
)
def test_every_supported_format_loads_as_bgr(fmt, options):
    image = marked_image()
    loaded = load_image(encode_pil(image, fmt, **options))
    assert loaded.shape == image.shape and loaded.dtype == np.uint8
    assert np.abs(loaded.astype(int) - image.astype(int)).mean() < 3
    assert tuple(loaded[5, 5]) == pytest.approx((0, 0, 255), abs=12)  # red stays red (BGR)


@pytest.mark.parametrize(
    "orientation, corner",
    [(1, (0, 0)), (3, (-1, -1)), (6, (0, -1)), (8, (-1, 0))],  # where the red block ends up
)
@pytest.mark.parametrize("fmt", ["JPEG", "HEIF"])
def test_exif_orientation_is_applied(orientation, corner, fmt):
    image = marked_image()
    exif = Image.Exif()
    exif[0x0112] = orientation
    loaded = load_image(encode_pil(image, fmt, quality=95, exif=exif.tobytes()))
    turned = orientation in (6, 8)
    assert loaded.shape[:2] == ((120, 80) if turned else (80, 120))
    y = 3 if corner[0] == 0 else loaded.shape[0] - 4
    x = 3 if corner[1] == 0 else loaded.shape[1] - 4
    assert loaded[y, x, 2] > 200 and loaded[y, x, 0] < 60  # red there


def test_paths_and_bytes_give_the_same_image(tmp_path):
    data = encode_pil(marked_image(), "PNG")
    path = tmp_path / "photo.png"
    path.write_bytes(data)
    assert np.array_equal(load_image(path), load_image(data))
    assert np.array_equal(load_image(str(path)), load_image(bytearray(data)))


def test_arrays_gray_bgra_and_float_are_accepted():
    gray = np.full((50, 60), 128, np.uint8)
    assert load_image(gray).shape == (50, 60, 3)
    bgra = np.zeros((50, 60, 4), np.uint8)
    assert load_image(bgra).shape == (50, 60, 3)
    floats = np.ones((50, 60, 3), np.float32)
    assert load_image(floats).max() == 255


@pytest.mark.parametrize(
    "data, error, words",
    [
        (b"", NotAnImage, "empty"),
        (b"Dear sudoku-lens, here is my puzzle:\n1 2 3\n", NotAnImage, "not an image"),
        (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", NotAnImage, "not an image"),
    ],
)
def test_non_images_are_refused_clearly(data, error, words):
    with pytest.raises(error, match=words):
        load_image(data)


def test_truncated_jpeg_is_unreadable():
    data = encode_pil(np.random.default_rng(0).integers(0, 255, (300, 400, 3), np.uint8), "JPEG")
    with pytest.raises(Unreadable, match="truncated or corrupt"):
        load_image(data[: len(data) // 2])


@pytest.mark.parametrize(
    "mode, options",
    [
        ("RGB", {}),
        ("RGB", {"progressive": True}),
        ("RGB", {"subsampling": 0}),
        ("L", {}),
        ("CMYK", {}),
    ],
)
def test_a_jpeg_decodes_to_the_very_pixels_opencv_gives(mode, options):
    """simplejpeg decodes JPEGs for speed: it must give what OpenCV's decode gave, to the bit,
    in every colour layout a camera or an editor writes."""
    photo = np.random.default_rng(2).integers(0, 255, (90, 130, 3), np.uint8)
    photo = cv2.GaussianBlur(photo, (9, 9), 3)  # smooth, like a photo, not noise
    buffer = io.BytesIO()
    Image.fromarray(photo).convert(mode).save(buffer, "JPEG", quality=90, **options)
    data = buffer.getvalue()
    ours = decode_jpeg(data)
    opencv = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert ours is not None and ours.shape == (90, 130, 3)
    assert np.array_equal(ours, opencv)
    assert np.array_equal(load_image(data), opencv)


def test_a_jpeg_simplejpeg_refuses_is_left_to_opencv():
    """Stray bytes before the end marker: libjpeg warns, simplejpeg refuses, and OpenCV's
    decode still gives the whole photo, as it did before simplejpeg."""
    data = encode_pil(cv2.GaussianBlur(marked_image(400, 300), (5, 5), 2), "JPEG")
    stray = data[:-2] + b"\0" * 10 + data[-2:]
    assert decode_jpeg(stray) is None
    opencv = cv2.imdecode(np.frombuffer(stray, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(load_image(stray), opencv)
    assert tuple(opencv[5, 5]) == pytest.approx((0, 0, 255), abs=12)  # the red corner


def test_truncated_png_is_unreadable():
    data = encode_pil(np.random.default_rng(1).integers(0, 255, (200, 200, 3), np.uint8), "PNG")
    with pytest.raises(Unreadable):
        load_image(data[: len(data) * 2 // 3])


def test_one_pixel_image_is_refused():
    with pytest.raises(NotAnImage, match="1×1"):
        load_image(encode_pil(np.zeros((1, 1, 3), np.uint8), "PNG"))


def test_decompression_bomb_is_refused_from_the_header_without_decoding():
    data = huge_png(100_000, 100_000)  # 10 gigapixels announced
    assert len(data) < 5_000
    start = time.perf_counter()
    with pytest.raises(ImageTooLarge, match="10000.0 megapixels"):
        load_image(data)
    with pytest.raises(ImageTooLarge, match="64.0 megapixels; the limit is 50 megapixels"):
        load_image(huge_png(8000, 8000))
    assert time.perf_counter() - start < 0.5  # nothing was decoded


def test_a_large_png_is_refused_before_its_pixels_are_decoded():
    """Pillow decodes a whole PNG to look for EXIF after the pixels: the size check must
    come first. 60 MP of one colour compresses to about 60 KB."""
    image = Image.new("L", (10_000, 6_000), 255)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    del image
    start = time.perf_counter()
    with pytest.raises(ImageTooLarge, match="60.0 megapixels"):
        load_image(buffer.getvalue())
    assert time.perf_counter() - start < 0.3


def test_pixel_limit_is_configurable():
    data = encode_pil(marked_image(400, 300), "PNG")
    assert load_image(data, max_pixels=120_000).shape == (300, 400, 3)
    with pytest.raises(ImageTooLarge, match="limit is 0.1 megapixels"):
        load_image(data, max_pixels=100_000)


def test_missing_file_and_directory_name_the_problem(tmp_path):
    with pytest.raises(Unreadable, match="no such file"):
        load_image(tmp_path / "nowhere.jpg")
    with pytest.raises(Unreadable, match="directory"):
        load_image(tmp_path)


def test_text_file_on_disk_is_not_an_image(tmp_path):
    path = tmp_path / "notes.jpg"
    path.write_text("not really a jpeg")
    with pytest.raises(NotAnImage):
        load_image(path)


def test_all_errors_are_vision_errors():
    for error in (NotAnImage, ImageTooLarge, Unreadable):
        assert issubclass(error, VisionError)
    with pytest.raises(NotAnImage, match="expected image bytes"):
        load_image(12345)  # type: ignore[arg-type]


@pytest.mark.parametrize("factor", [3, 4, 5, 6, 7, 8])
def test_area_means_are_the_bytes_opencv_gives(factor):
    """The locator's small copy is taken by a compiled loop for speed: block for block and
    byte for byte what OpenCV's area averaging gave, ties rounded alike, edges dropped."""
    rng = np.random.default_rng(factor)
    gray = cv2.GaussianBlur(rng.integers(0, 256, (613, 907), np.uint8), (0, 0), 1.5)
    gray[:40] = rng.integers(0, 256, (40, 907), np.uint8)  # rough too: every sum occurs
    height, width = gray.shape[0] // factor, gray.shape[1] // factor
    opencv = cv2.resize(
        gray[: height * factor, : width * factor], (width, height), interpolation=cv2.INTER_AREA
    )
    assert np.array_equal(area_means()(gray, factor), opencv)


def test_downscale_keeps_aspect_and_reports_scale():
    image = np.zeros((3024, 4032, 3), np.uint8)
    small, scale = downscale(image, 800)
    assert max(small.shape) <= 800 and small.ndim == 2
    assert scale == pytest.approx(small.shape[1] / 4032, rel=0.01)
    same, one = downscale(np.zeros((480, 640), np.uint8), 800)
    assert one == 1.0 and same.shape == (480, 640)
