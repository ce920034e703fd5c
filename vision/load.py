"""Load a photo: bytes, a path or an array in; an upright BGR uint8 image out.

Why not just ``cv2.imread``: a phone photo is stored sideways with an EXIF tag saying how to
turn it, an upload can be anything (a text file, half a JPEG, a 1×1 pixel, a 100 000×100 000
PNG of a few KB that would take 30 GB to decode), and every one of those must end in a clear
error rather than a crash or an exhausted machine. So the header is read first (Pillow, lazy:
no pixels decoded), the size is checked against ``max_pixels``, and only then are the pixels
decoded (OpenCV's libjpeg-turbo, about twice as fast as Pillow; Pillow for formats OpenCV lacks).

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

from vision.errors import ImageTooLarge, NotAnImage, Unreadable, VisionError

MAX_PIXELS = 50_000_000
MIN_SIDE = 32  # a sudoku needs at least a few pixels per cell
FORMATS = ("JPEG", "PNG", "WEBP", "BMP", "TIFF", "MPO", "HEIF", "AVIF")

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
    """The photo as an upright (H, W, 3) BGR uint8 array, EXIF orientation applied.

    Raises NotAnImage, ImageTooLarge or Unreadable (all VisionError) with a message naming
    what is wrong.
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

    The size is checked before the EXIF data is looked for, because Pillow decodes a whole
    PNG to find an EXIF chunk stored after the pixels.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                fmt = image.format or "?"
                check_size(width, height, max_pixels)
                orientation = exif_orientation(image)
    except UnidentifiedImageError:
        raise NotAnImage(f"not an image (unrecognised data starting {data[:8]!r})") from None
    except VisionError:
        raise
    except Image.DecompressionBombError as error:  # Pillow's own guard, far above ours
        found = re.search(r"\((\d+) pixels\)", str(error))
        size = f"{int(found.group(1)) / 1e6:.1f} megapixels" if found else "far too many pixels"
        raise ImageTooLarge(f"image is {size}; far over any limit, not decoded") from None
    except Exception as error:  # a header broken in any way Pillow may report
        raise Unreadable(f"the image header is corrupt ({error})") from None
    if fmt not in FORMATS:
        raise NotAnImage(f"{fmt} images are not supported; use JPEG, PNG, WebP, BMP or TIFF")
    return Header(fmt, width, height, orientation)


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
    """Refuse images too small to hold a grid, or so large they could exhaust memory."""
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


def decode(data: bytes, header: Header) -> np.ndarray:
    """Pixels as stored (before orientation), BGR uint8."""
    flags = cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION
    image = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if image is not None and image.shape[:2] == (header.height, header.width):
        return image
    return decode_with_pillow(data, header)


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
    """An array given directly: gray, BGR or BGRA, uint8 (or other numeric types scaled)."""
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
    full image is kept and only this copy is shrunk. A whole factor keeps OpenCV's area
    averaging on its fast path (20 ms instead of 90 ms for 12 MP).
    """
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    factor = -(-max(gray.shape[:2]) // max_side)
    if factor <= 1:
        return gray, 1.0
    size = (gray.shape[1] // factor, gray.shape[0] // factor)
    small = cv2.resize(
        gray[: size[1] * factor, : size[0] * factor], size, interpolation=cv2.INTER_AREA
    )
    return small, 1.0 / factor
