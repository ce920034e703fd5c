"""Getting the photo out of a request: in memory only, named field, content judged by bytes.

Starlette's own form parser spools files over 1 MB to a temporary file on disk; an uploaded
photo must never touch the disk, so the same parser is used with its spool limit raised
above the body limit (the body-size middleware guarantees nothing larger arrives).
A client may also send the photo as the raw body with an image/* (or octet-stream)
Content-Type, as `curl --data-binary @photo.jpg -H 'Content-Type: image/jpeg'` does.
"""

from __future__ import annotations

import io
import re
import warnings

from python_multipart.multipart import parse_options_header
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from api.service.errors import ApiError

FIELD = "image"
RAW_TYPES = ("application/octet-stream",)


async def read_upload(request: Request, max_bytes: int) -> tuple[bytes, str | None]:
    """(the photo's bytes, its file name if given) from a multipart field or the raw body."""
    content_type, _ = parse_options_header(request.headers.get("content-type", ""))
    kind = content_type.decode("latin-1")
    if kind == "multipart/form-data":
        data, name = await read_multipart(request, max_bytes)
    elif kind.startswith("image/") or kind in RAW_TYPES:
        data, name = await request.body(), None
    elif not kind:
        raise ApiError(
            400,
            "malformed",
            f"no Content-Type; send the photo as multipart/form-data field '{FIELD}'",
        )
    else:
        raise ApiError(
            415,
            "unsupported_content_type",
            f"Content-Type {kind} is not accepted; send the photo as multipart/form-data "
            f"field '{FIELD}' (or as the raw body with an image/* Content-Type)",
        )
    if not data:
        raise ApiError(400, "empty_image", "the uploaded image is empty (0 bytes)")
    return data, name


async def read_multipart(request: Request, max_bytes: int) -> tuple[bytes, str | None]:
    parser = MultiPartParser(
        request.headers, request.stream(), max_files=4, max_fields=16, max_part_size=64 * 1024
    )
    parser.spool_max_size = max_bytes + 1  # keep every file part in memory
    try:
        form = await parser.parse()
    except MultiPartException as error:
        raise ApiError(400, "malformed", f"malformed multipart body: {error.message}") from None
    except (ValueError, KeyError) as error:  # e.g. no boundary in the Content-Type
        raise ApiError(400, "malformed", f"malformed multipart body: {error}") from None
    try:
        value = form.get(FIELD)
        if value is None:
            fields = ", ".join(repr(k) for k in form) or "none"
            raise ApiError(
                400,
                "missing_field",
                f"no multipart field named '{FIELD}' (fields sent: {fields}); "
                f"send the photo as the '{FIELD}' field",
            )
        if isinstance(value, str):  # a plain form field, not a file part
            return value.encode("utf-8"), None
        await value.seek(0)
        return await value.read(), value.filename
    finally:
        for _, item in form.multi_items():
            if isinstance(item, UploadFile):
                await item.close()


def check_image(data: bytes, max_pixels: int) -> str:
    """The image's format, judged from its bytes (never its name or declared type).

    Only the header is read: Pillow's lazy open gives format and size without decoding a
    pixel, so a text file named .jpg, a decompression bomb or a 1x1 pixel is refused here,
    in the event loop, in well under a millisecond, and never occupies a solver process.
    (Not `vision.load.read_header`: it also reads the EXIF orientation, which for a PNG
    makes Pillow decode the whole image; fine in a solver process, not on the event loop.)
    Returns e.g. "JPEG".
    """
    from PIL import Image, UnidentifiedImageError

    from vision.errors import ImageTooLarge, NotAnImage
    from vision.load import FORMATS, check_size

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as image:
                fmt, (width, height) = image.format or "?", image.size
    except UnidentifiedImageError:
        raise ApiError(
            415, "not_an_image", f"not an image (unrecognised data starting {data[:8]!r})"
        ) from None
    except Image.DecompressionBombError as error:  # Pillow's own guard, far above ours
        found = re.search(r"\((\d+) pixels\)", str(error))
        size = f"{int(found.group(1)) / 1e6:.1f} megapixels" if found else "far too many pixels"
        raise ApiError(
            413,
            "image_too_large",
            f"image is {size}; the limit is {max_pixels / 1e6:g} megapixels",
        ) from None
    except Exception as error:
        raise ApiError(415, "corrupt_image", f"the image header is corrupt ({error})") from None
    if fmt not in FORMATS:
        raise ApiError(
            415,
            "not_an_image",
            f"{fmt} images are not supported; use JPEG, PNG, WebP, HEIC, BMP or TIFF",
        )
    try:
        check_size(width, height, max_pixels)
    except ImageTooLarge as error:
        raise ApiError(413, "image_too_large", str(error)) from None
    except NotAnImage as error:
        raise ApiError(415, "not_an_image", str(error)) from None
    return fmt
