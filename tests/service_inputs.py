"""Hostile and tiny inputs for the service tests (a helper module, not a test file)."""

from __future__ import annotations

import functools
import struct
import zlib

import cv2
import numpy as np


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
