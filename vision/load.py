"""Load a photo: bytes, a path or an array in; an upright BGR uint8 image out.

Why not just ``cv2.imread``: a phone photo is stored sideways with an EXIF tag saying how to
turn it, an upload can be anything (a text file, half a JPEG, a 1×1 pixel, a 100 000×100 000
PNG of a few KB that would take 30 GB to decode), and every one of those must end in a clear
error rather than a crash or an exhausted machine. So the header is read first (Pillow, lazy:
no pixels decoded), the size is checked against ``max_pixels``, and only then are the pixels
decoded: a JPEG by simplejpeg (libjpeg-turbo straight into BGR: the very pixels OpenCV's
decode gives, in 0.83x its time on a 12 MP photo), anything else, or a JPEG simplejpeg refuses,
by OpenCV (about twice as fast as Pillow), and Pillow for what OpenCV cannot read either.

>>> image = load_image(Path("photo.jpg"))          # doctest: +SKIP
>>> image.shape, image.dtype                        # doctest: +SKIP
((3024, 4032, 3), dtype('uint8'))

HEIC/HEIF photos (an iPhone's default) load through ``pillow-heif``, which registers itself
with Pillow here.
"""

from __future__ import annotations

import io
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from vision.compiled import on_first_use
from vision.errors import ImageTooLarge, NoGridFound, NotAnImage, Unreadable, VisionError

# The trade: every phone photo up to the 48-50 MP sensors loads, while one decode stays under
# about 150 MB of BGR (plus a grey copy); a larger image is refused before it is decoded.
MAX_PIXELS = 50_000_000
MIN_SIDE = 32  # a sudoku needs at least a few pixels per cell
# A grid is square, so it fits inside the short side; it is searched for in a copy whose long
# side is 800 px (vision.locate), where a photo longer than 25:1 is under MIN_SIDE across.
MAX_ASPECT = 25
FORMATS = ("JPEG", "PNG", "WEBP", "BMP", "TIFF", "MPO", "HEIF", "AVIF")
FORMAT_NAMES = "JPEG, PNG, WebP, HEIC, BMP or TIFF"
# What the header scan may look at before the pixel data starts. A camera writes a dozen
# segments (EXIF, ICC profile, XMP, a few MB of depth map at most); a file made of millions
# of empty ones exists only to make a parser loop, and Pillow would loop in Python over each.
MAX_SEGMENTS = 1024  # JPEG markers, PNG chunks, TIFF tags of the first directory
MAX_HEADER_BYTES = 8 * 2**20  # bytes before the pixel data (JPEG SOS, PNG IDAT), TIFF tag data
MAX_JUNK_BYTES = 4096  # fill or stray bytes between JPEG markers (Pillow steps over each)

try:  # a dependency; OpenCV decodes every JPEG where it is missing, only slower
    import simplejpeg
except ImportError:  # pragma: no cover - depends on the environment
    simplejpeg = None

try:  # a dependency; an install without it still reads every other format
    import pillow_heif

    pillow_heif.register_heif_opener()
except ImportError:  # pragma: no cover - depends on the environment
    pass

# EXIF orientation tag value -> how to turn the stored pixels upright.
_ORIENT = {
    2: (None, True),
    3: (cv2.ROTATE_180, False),
    4: (cv2.ROTATE_180, True),
    5: (cv2.ROTATE_90_CLOCKWISE, True),
    6: (cv2.ROTATE_90_CLOCKWISE, False),
    7: (cv2.ROTATE_90_COUNTERCLOCKWISE, True),
    8: (cv2.ROTATE_90_COUNTERCLOCKWISE, False),
}


@dataclass(frozen=True)
class Header:
    """What the file says about itself before any pixel is decoded."""

    format: str
    width: int
    height: int
    orientation: int  # EXIF tag 274, 1 = upright


def load_image(
    source: bytes | str | Path | np.ndarray, *, max_pixels: int = MAX_PIXELS
) -> np.ndarray:
    """The photo as an upright BGR array, EXIF orientation applied.

    Parameters
    ----------
    source : bytes, str, Path or ndarray
        The file's bytes, its path, or an already decoded array (BGR, BGRA or grey).
    max_pixels : int
        Width x height above which the image is refused, read from the header before
        anything is decoded.

    Returns
    -------
    ndarray of uint8, shape (H, W, 3)

    Raises
    ------
    NotAnImage, ImageTooLarge, Unreadable
        All `VisionError`, with a message naming what is wrong.

    Examples
    --------
    >>> load_image("samples/sheet-01.jpg").shape
    (480, 640, 3)
    >>> load_image(b"hello")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    vision.errors.NotAnImage: not an image (unrecognised data starting b'hello'); send a photo...
    """
    if isinstance(source, np.ndarray):
        return as_bgr(source, max_pixels=max_pixels)
    data = read_bytes(source)
    header = read_header(data, max_pixels)
    return upright(decode(data, header), header.orientation)


def read_bytes(source: bytes | bytearray | memoryview | str | Path) -> bytes:
    """The raw bytes of a source given as bytes or as a file path."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    elif isinstance(source, str | os.PathLike):
        path = Path(source)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise Unreadable(f"{path}: no such file") from None
        except IsADirectoryError:
            raise Unreadable(f"{path}: is a directory, not an image file") from None
        except OSError as error:
            raise Unreadable(f"{path}: cannot be read ({error.strerror or error})") from None
    else:
        raise NotAnImage(f"expected image bytes, a path or an array, got {type(source).__name__}")
    if not data:
        raise NotAnImage("the file is empty (0 bytes), not an image")
    return data


def read_header(data: bytes, max_pixels: int = MAX_PIXELS) -> Header:
    """Format, size and EXIF orientation, read lazily: no pixels are decoded here.

    The structure before the pixels is walked first (`check_structure`), so a header made to
    make a parser loop costs a bounded amount of work; Pillow then opens it with only the
    plugins of the accepted formats. The size is checked before the EXIF data is looked for,
    because Pillow decodes a whole PNG to find an EXIF chunk stored after the pixels.

    Parameters
    ----------
    data : bytes
        The whole file.
    max_pixels : int
        Largest width x height accepted.

    Returns
    -------
    Header
        Format name (as Pillow calls it), size and EXIF orientation.

    Raises
    ------
    NotAnImage, ImageTooLarge, Unreadable, NoGridFound
        Not an accepted format, too many pixels, a corrupt or hostile header, a shape no grid
        can fit in.

    Examples
    --------
    >>> header = read_header(cv2.imencode(".png", np.zeros((60, 80), np.uint8))[1].tobytes())
    >>> header.format, header.width, header.height
    ('PNG', 80, 60)
    """
    check_structure(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data), formats=openers()) as image:
                width, height = image.size
                fmt = image.format or "?"
                check_size(width, height, max_pixels)
                orientation = exif_orientation(image)
    except UnidentifiedImageError:
        raise NotAnImage(
            f"not an image (unrecognised data starting {data[:8]!r}); "
            f"send a photo as {FORMAT_NAMES}"
        ) from None
    except VisionError:
        raise
    except Image.DecompressionBombError as error:  # Pillow's own guard, far above ours
        found = re.search(r"\((\d+) pixels\)", str(error))
        size = f"{int(found.group(1)) / 1e6:.1f} megapixels" if found else "far too many pixels"
        raise ImageTooLarge(f"image is {size}; far over any limit, not decoded") from None
    except Exception:  # a header broken in any way Pillow may report (its text stays here)
        raise Unreadable("the image header is corrupt") from None
    if fmt not in FORMATS:
        raise NotAnImage(f"{fmt} images are not supported; use {FORMAT_NAMES}")
    return Header(fmt, width, height, orientation)


def openers() -> list[str]:
    """Pillow's plugins for the accepted formats: nothing else gets to parse an upload.

    (MPO is opened by the JPEG plugin; HEIF exists when pillow-heif is installed.)

    Returns
    -------
    list of str
        Format names to pass as ``Image.open(..., formats=...)``.
    """
    Image.init()
    return [name for name in FORMATS if name in Image.OPEN]


def check_structure(data: bytes) -> None:
    """Refuse a JPEG, PNG or TIFF whose header would take unbounded work to parse.

    Walks the segments before the pixel data by their lengths alone (no parsing of their
    contents): at most MAX_SEGMENTS of them, MAX_HEADER_BYTES of header and MAX_JUNK_BYTES of
    stray bytes. Other formats are parsed by C libraries in one pass and pass through; so
    does anything this walk cannot make sense of (Pillow then judges it).

    Parameters
    ----------
    data : bytes
        The whole file.

    Raises
    ------
    Unreadable
        Naming the format and which bound the header passes.

    Examples
    --------
    >>> check_structure(b"\\xff\\xd8" + b"\\xff\\xe5\\x00\\x02" * 2000 + b"\\xff\\xda")
    Traceback (most recent call last):
    ...
    vision.errors.Unreadable: the JPEG header has more than 1024 segments before its image data; a camera writes a few dozen at most
    """
    if data[:2] == b"\xff\xd8":
        _check_jpeg(data)
    elif data[:8] == b"\x89PNG\r\n\x1a\n":
        _check_png(data)
    elif data[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        _check_tiff(data)


def _too_many(fmt: str, what: str) -> Unreadable:
    return Unreadable(
        f"the {fmt} header has more than {MAX_SEGMENTS} {what}; a camera writes a few dozen at most"
    )


def _too_long(fmt: str) -> Unreadable:
    return Unreadable(
        f"the {fmt} header is longer than {MAX_HEADER_BYTES // 2**20} MB before its image data"
    )


def _check_jpeg(data: bytes) -> None:
    """SOI, then marker segments up to the start of scan (where Pillow stops reading)."""
    at, segments, junk, end = 2, 0, 0, len(data)
    while at < end:
        if data[at] != 0xFF or at + 1 < end and data[at + 1] == 0xFF:
            junk += 1  # fill bytes and stray data, each a step of Pillow's loop
            if junk > MAX_JUNK_BYTES:
                raise Unreadable(
                    f"the JPEG header has more than {MAX_JUNK_BYTES} stray bytes between markers"
                )
            at += 1
            continue
        if at + 1 >= end:
            return
        marker = data[at + 1]
        if marker == 0x00:  # an escaped 0xFF: stray data
            at += 1
            continue
        segments += 1
        if segments > MAX_SEGMENTS:
            raise _too_many("JPEG", "segments before its image data")
        if marker == 0xDA:  # start of scan: the pixels follow
            return
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # no length field
            at += 2
            continue
        at += 2 + int.from_bytes(data[at + 2 : at + 4], "big")
        if at > MAX_HEADER_BYTES:
            raise _too_long("JPEG")


def _check_png(data: bytes) -> None:
    """Chunks up to the first IDAT (where Pillow's lazy open stops)."""
    at, end = 8, len(data)
    for _ in range(MAX_SEGMENTS):
        if at + 8 > end or data[at + 4 : at + 8] == b"IDAT":
            return
        at += 12 + int.from_bytes(data[at : at + 4], "big")
        if at > MAX_HEADER_BYTES:
            raise _too_long("PNG")
    if at + 8 <= end and data[at + 4 : at + 8] != b"IDAT":
        raise _too_many("PNG", "chunks before its image data")


# TIFF field type -> bytes per value (the ones TIFF 6 and BigTIFF define)
_TIFF_SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8}
_TIFF_SIZES |= {13: 4, 16: 8, 17: 8, 18: 8}


def _check_tiff(data: bytes) -> None:
    """The first image directory: its tag count and the bytes its tags point at."""
    order = "little" if data[:2] == b"II" else "big"
    big = data[2:4] in (b"+\x00", b"\x00+")
    count_size, entry_size, inline = (8, 20, 8) if big else (2, 12, 4)
    start = int.from_bytes(data[8:16] if big else data[4:8], order)
    count = int.from_bytes(data[start : start + count_size], order)
    if count > MAX_SEGMENTS:
        raise _too_many("TIFF", "tags in its first directory")
    pointed = 0
    for k in range(count):
        entry = start + count_size + k * entry_size
        kind = int.from_bytes(data[entry + 2 : entry + 4], order)
        values = int.from_bytes(data[entry + 4 : entry + 4 + inline], order)
        size = _TIFF_SIZES.get(kind, 1) * values
        pointed += size if size > inline else 0
        if pointed > MAX_HEADER_BYTES:
            raise _too_long("TIFF")


def exif_orientation(image: Image.Image) -> int:
    """EXIF orientation (1-8), 1 when absent or unreadable; never decodes pixels."""
    if image.format == "PNG" and "exif" not in image.info:
        return 1  # an EXIF chunk after the pixels would need a full decode to reach
    try:
        value = int(image.getexif().get(0x0112, 1))
    except Exception:
        return 1
    return value if value in range(1, 9) else 1


def check_size(width: int, height: int, max_pixels: int) -> None:
    """Refuse images too small to hold a grid, too thin to, or so large they could exhaust memory.

    Parameters
    ----------
    width, height : int
        The image's size in pixels, from its header.
    max_pixels : int
        Largest width x height accepted.

    Raises
    ------
    ImageTooLarge, NotAnImage, NoGridFound
        Too many pixels; a side under MIN_SIDE; longer than MAX_ASPECT times its width.
    """
    if width * height > max_pixels:
        raise ImageTooLarge(
            f"image is {width}×{height} = {width * height / 1e6:.1f} megapixels; "
            f"the limit is {max_pixels / 1e6:g} megapixels"
        )
    if min(width, height) < MIN_SIDE:
        raise NotAnImage(
            f"image is only {width}×{height} pixels; a photo of a sudoku needs at least "
            f"{MIN_SIDE} pixels on each side"
        )
    if max(width, height) > MAX_ASPECT * min(width, height):
        raise NoGridFound(
            f"no sudoku grid can be in an image of {width}×{height} pixels: a grid is square, "
            f"and in a photo over {MAX_ASPECT} times longer than wide it would be under "
            f"{MIN_SIDE} pixels across where the grid is looked for"
        )


def decode(data: bytes, header: Header) -> np.ndarray:
    """Pixels as stored (before orientation), BGR uint8."""
    if header.format in ("JPEG", "MPO"):
        image = decode_jpeg(data)
        if image is not None and image.shape[:2] == (header.height, header.width):
            return image
    flags = cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION
    image = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if image is not None and image.shape[:2] == (header.height, header.width):
        return image
    return decode_with_pillow(data, header)


def decode_jpeg(data: bytes) -> np.ndarray | None:
    """A JPEG's pixels by simplejpeg, or None where it cannot give them.

    Why not OpenCV's decode alone: both run libjpeg-turbo with its accurate DCT and smooth
    chroma upsampling, and give the same pixels to the bit (all 400 labelled photos of
    ../shared, and `tests/test_vision_load.py`'s layouts: grey, CMYK, progressive, 4:4:4),
    but simplejpeg's costs less: 30.5 ms against 36.8 ms for a 12 MP phone photo (the
    `bench/pipeline.py` kubiesa photos, one thread, freed memory kept as a worker keeps it).
    What it refuses (it raises on libjpeg's warnings: stray bytes between segments, a
    truncated file) is left to OpenCV, which decoded it before.

    >>> data = open("samples/sheet-01.jpg", "rb").read()
    >>> image = decode_jpeg(data)
    >>> image.shape, bool((image == cv2.imdecode(np.frombuffer(data, np.uint8), 1)).all())
    ((480, 640, 3), True)
    """
    if simplejpeg is None:  # pragma: no cover - depends on the environment
        return None
    try:
        return simplejpeg.decode_jpeg(data, colorspace="BGR")
    except (ValueError, RuntimeError):  # simplejpeg's errors for what libjpeg refused
        return None


def decode_with_pillow(data: bytes, header: Header) -> np.ndarray:
    """Fallback for what OpenCV cannot decode; a truncated file ends here as Unreadable."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as image:
                image.load()
                rgb = np.asarray(image.convert("RGB"))
    except Exception as error:
        raise Unreadable(
            f"the {header.format} image ({header.width}×{header.height}) is truncated or "
            f"corrupt: {error}"
        ) from None
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def upright(image: np.ndarray, orientation: int) -> np.ndarray:
    """Apply an EXIF orientation so the image looks as the camera saw it."""
    if orientation not in _ORIENT:
        return image
    rotation, mirror = _ORIENT[orientation]
    if mirror:
        image = cv2.flip(image, 1)
    return image if rotation is None else cv2.rotate(image, rotation)


def as_bgr(array: np.ndarray, *, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """An array given directly, as the BGR uint8 image the reader works on.

    Parameters
    ----------
    array : ndarray
        Grey, BGR or BGRA; uint8, or another numeric type (scaled to 0..255).
    max_pixels : int
        Width x height above which it is refused.

    Returns
    -------
    ndarray of uint8, shape (H, W, 3)

    Raises
    ------
    NotAnImage, ImageTooLarge
        Not an image's shape or type, or too many pixels.

    Examples
    --------
    >>> as_bgr(np.zeros((40, 50), np.uint8)).shape
    (40, 50, 3)
    """
    if array.ndim not in (2, 3) or (array.ndim == 3 and array.shape[2] not in (1, 3, 4)):
        raise NotAnImage(
            f"an image array must be (H, W), (H, W, 3) or (H, W, 4), not {array.shape}"
        )
    height, width = array.shape[:2]
    check_size(width, height, max_pixels)
    if array.dtype != np.uint8:
        array = to_uint8(array)
    if array.ndim == 2 or array.shape[2] == 1:
        return cv2.cvtColor(array.reshape(height, width), cv2.COLOR_GRAY2BGR)
    if array.shape[2] == 4:
        return cv2.cvtColor(array, cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(array)


def to_uint8(array: np.ndarray) -> np.ndarray:
    """Floats in [0, 1] or wider integers stretched to 0-255."""
    if array.dtype == bool:
        return array.astype(np.uint8) * 255
    if np.issubdtype(array.dtype, np.floating):
        top = 1.0 if float(np.nanmax(array)) <= 1.0 else 255.0
        return np.clip(np.nan_to_num(array) * (255.0 / top), 0, 255).astype(np.uint8)
    if np.issubdtype(array.dtype, np.integer):
        top = 255 if int(array.max()) <= 255 else 65535
        return np.clip(array.astype(np.float32) * (255.0 / top), 0, 255).astype(np.uint8)
    raise NotAnImage(f"image arrays must be numeric, not {array.dtype}")


def downscale(image: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    """A gray copy for locating, shrunk by a whole factor to at most ``max_side``; its scale.

    Finding the grid needs under a thousand pixels across; warping needs every pixel, so the
    full image is kept and only this copy is shrunk, by the mean of each factor x factor
    block (OpenCV's area averaging at a whole factor; 20 ms instead of 90 for 12 MP against
    a fractional one). From a factor of 3 the means are taken by `area_means`, the same
    bytes in half the time.

    >>> small, scale = downscale(np.full((3000, 4000), 7, np.uint8), 800)
    >>> small.shape, scale, int(small.max())
    ((600, 800), 0.2, 7)
    """
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    factor = -(-max(gray.shape[:2]) // max_side)
    if factor <= 1:
        return gray, 1.0
    if factor >= 3:
        return area_means()(np.ascontiguousarray(gray), factor), 1.0 / factor
    size = (gray.shape[1] // factor, gray.shape[0] // factor)
    small = cv2.resize(
        gray[: size[1] * factor, : size[0] * factor], size, interpolation=cv2.INTER_AREA
    )
    return small, 1.0 / factor


def _area_means(gray: np.ndarray, factor: int) -> np.ndarray:
    """The mean of each whole factor x factor block of a grey image (a part block at the
    right or bottom edge dropped), rounded as OpenCV's `resize(..., INTER_AREA)` rounds at a
    whole factor from 3: the block's integer sum times the float32 1 / factor^2, to the
    nearest even. OpenCV vectorises only the halving; here each block row's sums run along
    whole image rows, which the compiler vectorises: a 12 MP photo's factor of 6 in 2.7 ms
    against 5.0 (the same bytes on all 80 Kubiesa photos at factors 3 and 5 to 8)."""
    height, width = gray.shape[0] // factor, gray.shape[1] // factor
    sums = np.empty(width * factor, np.int32)
    out = np.empty((height, width), np.uint8)
    scale = np.float32(1.0) / np.float32(factor * factor)
    for y in range(height):
        row = gray[y * factor]
        for x in range(width * factor):
            sums[x] = row[x]
        for dy in range(1, factor):
            row = gray[y * factor + dy]
            for x in range(width * factor):
                sums[x] += row[x]
        for x in range(width):
            block = 0
            for dx in range(factor):
                block += sums[x * factor + dx]
            out[y, x] = np.uint8(np.rint(np.float32(block) * scale))
    return out


# `_area_means` compiled on first use; `vision.read.warm_up` loads it
area_means = on_first_use(_area_means)
