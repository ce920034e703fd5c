"""Helpers for the service tests (not a test file): hostile inputs, plain photos, and one
real server shared by the live, schema and page tests of a pytest process."""

from __future__ import annotations

import atexit
import contextlib
import functools
import logging
import struct
import zlib

import cv2
import numpy as np

from api.service.local import LocalServer


@functools.cache
def png_header_bomb(width: int, height: int) -> bytes:
    """A valid 1-bit PNG of width x height, all zero: a few tens of KB on the wire, and
    width x height x 3 bytes (1.2 GB for 20000 x 20000) once decoded to BGR."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    row = b"\x00" * (1 + (width + 7) // 8)
    data = zlib.compress(row * height, 9)
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def tiny_png() -> bytes:
    """A 64 x 64 picture with a line on it: a real image holding no grid."""
    image = np.full((64, 64, 3), 200, np.uint8)
    cv2.line(image, (0, 0), (63, 63), (0, 0, 0), 2)
    return cv2.imencode(".png", image)[1].tobytes()


# The service tests check the service, not the reader's robustness (tests/test_vision_* and
# bench/reading.py do that): their photos are generated flat, steady and unshadowed.
PLAIN = dict(curl=0.0, curl_skew=0.0, side_bow=0.0, shadow=0.0, shake=0.0, second_grid=False)


@contextlib.contextmanager
def captured(logger_name: str):
    """The records a logger emits inside the block, in a list."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep()
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


_server: LocalServer | None = None


def shared_server() -> LocalServer:
    """`sudoku-lens serve --workers 1` with default limits, started once per test process
    (each start costs a solver warm-up) and stopped when the process exits."""
    global _server
    if _server is None or not _server.alive():
        _server = LocalServer(workers=1)
        _server.start()
        atexit.register(_server.stop)
    return _server
