"""Getting the photo out of a request: in memory only, named field, content judged by bytes.

The multipart body is parsed as it streams in by python-multipart's own parser, keeping only
the `image` part, in memory (an uploaded photo never touches the disk) and as its bytes: the
part is the photo whether or not it names a file (`curl -F image=@photo.jpg`,
`curl -F 'image=<photo.jpg'`, a `filename*=` only). A client may also send the photo as the raw
body with an image/* (or octet-stream) Content-Type, as
`curl --data-binary @photo.jpg -H 'Content-Type: image/jpeg'` does. The body's size, rate and
time are bounded before it gets here (api.service.middleware.BodyLimits).
"""

from __future__ import annotations

import asyncio

from python_multipart.multipart import (
    MultipartParseError,
    MultipartParser,
    parse_options_header,
)
from starlette.requests import Request

from api.photo.failures import failure_of
from api.service.errors import ApiError, refusal
from vision.errors import VisionError

FIELD = "image"
RAW_TYPES = ("application/octet-stream",)
# A form from the page has one or two parts; more than this is a malformed or hostile body,
# refused before each part's headers cost parsing (a client needs far fewer).
MAX_PARTS = 16
# The photo's header structure is walked as soon as this much of it has arrived: a header of
# a million empty segments shows in its first KB, and is refused before the rest is held.
PEEK_BYTES = 64 * 1024


def peek(data: bytearray) -> None:
    """Refuse a photo whose first PEEK_BYTES already show a hostile header (bounded work).

    Raises
    ------
    ApiError
        415 corrupt_image, naming the bound.
    """
    from vision.load import check_structure

    try:
        check_structure(bytes(data[:PEEK_BYTES]))
    except VisionError as error:
        raise refusal(failure_of(error)) from None


async def read_upload(request: Request) -> bytes:
    """The photo's bytes, from the multipart field `image` or the raw body.

    Parameters
    ----------
    request : starlette.requests.Request
        A POST whose body is bounded by the body middleware.

    Returns
    -------
    bytes
        The photo as sent, not yet judged.

    Raises
    ------
    ApiError
        400 (no Content-Type, broken multipart, no `image` field, 0 bytes) or 415 (another
        Content-Type).
    """
    content_type, options = parse_options_header(request.headers.get("content-type", ""))
    kind = content_type.decode("latin-1").lower()
    if kind == "multipart/form-data":
        data = await read_multipart(request, options.get(b"boundary", b""))
    elif kind.startswith("image/") or kind in RAW_TYPES:
        data = bytearray()
        async for chunk in request.stream():
            before = len(data)
            data += chunk
            if before < PEEK_BYTES <= len(data):
                peek(data)
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
    return bytes(data)


class ImagePart:
    """python-multipart callbacks that keep the `image` part's bytes and the other names."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.found = self.complete = self.collecting = False
        self.others: list[str] = []
        self.parts = 0
        self.header_name = bytearray()
        self.header_value = bytearray()
        self.headers: dict[bytes, bytes] = {}

    def callbacks(self) -> dict:
        return {
            "on_part_begin": self.part_begin,
            "on_header_field": lambda data, start, end: self.header_name.extend(data[start:end]),
            "on_header_value": lambda data, start, end: self.header_value.extend(data[start:end]),
            "on_header_end": self.header_end,
            "on_headers_finished": self.headers_finished,
            "on_part_data": self.part_data,
            "on_part_end": self.part_end,
        }

    def part_begin(self) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise ApiError(400, "malformed", f"more than {MAX_PARTS} parts in the multipart body")
        self.headers = {}

    def header_end(self) -> None:
        self.headers[bytes(self.header_name).lower()] = bytes(self.header_value)
        self.header_name.clear()
        self.header_value.clear()

    def headers_finished(self) -> None:
        _, options = parse_options_header(self.headers.get(b"content-disposition", b""))
        name = options.get(b"name", b"").decode("utf-8", "replace")
        if name != FIELD:
            self.others.append(name)
            return
        if self.found:
            raise ApiError(400, "malformed", f"more than one '{FIELD}' field; send one photo")
        self.found = self.collecting = True

    def part_data(self, data: bytes, start: int, end: int) -> None:
        if self.collecting:
            before = len(self.data)
            self.data += data[start:end]
            if before < PEEK_BYTES <= len(self.data):
                peek(self.data)

    def part_end(self) -> None:
        if self.collecting:
            self.collecting, self.complete = False, True


async def read_multipart(request: Request, boundary: bytes) -> bytearray:
    """The `image` part of a multipart body, file or plain field alike.

    Parameters
    ----------
    request : starlette.requests.Request
        A multipart/form-data POST.
    boundary : bytes
        The boundary from its Content-Type.

    Returns
    -------
    bytearray
        The part's bytes, exactly as sent.
    """
    if not boundary:
        raise ApiError(400, "malformed", "malformed multipart body: no boundary in Content-Type")
    part = ImagePart()
    try:
        parser = MultipartParser(boundary, part.callbacks())
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
    except (MultipartParseError, ValueError) as error:
        raise ApiError(400, "malformed", f"malformed multipart body: {error}") from None
    if not part.found:
        fields = ", ".join(repr(name) for name in part.others) or "none"
        raise ApiError(
            400,
            "missing_field",
            f"no multipart field named '{FIELD}' (fields sent: {fields}); "
            f"send the photo as the '{FIELD}' field",
        )
    if not part.complete:
        raise ApiError(400, "malformed", f"malformed multipart body: the '{FIELD}' part never ends")
    return part.data


async def check_image(data: bytes, max_pixels: int) -> str:
    """The image's format, judged from its header (never its name or declared type).

    `vision.load.read_header` bounds the work a header may cost; it still runs in a thread,
    so no upload's check holds up the event loop. A text file named .jpg, a decompression
    bomb, a header of a million empty segments or a 32x100000 strip is refused here without
    a solver process.

    Parameters
    ----------
    data : bytes
        The upload.
    max_pixels : int
        Largest width x height accepted.

    Returns
    -------
    str
        The format, e.g. "JPEG".

    Raises
    ------
    ApiError
        413 image_too_large, 415 not_an_image or corrupt_image, 422 no_grid.
    """
    from vision.load import read_header

    try:
        header = await asyncio.to_thread(read_header, data, max_pixels)
    except VisionError as error:
        raise refusal(failure_of(error)) from None
    return header.format
