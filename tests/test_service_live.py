"""A real `sudoku-lens serve` on a free loopback port, spoken to over real HTTP.

The happy path (a generated phone photo in, the solved photo out) and the bad inputs a public
endpoint meets: nothing, text, half a JPEG, a decompression bomb, 30 MB, the wrong field,
and a burst of 1000 concurrent requests. Each gets its documented status; the server stays
up and its memory stays bounded.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections import Counter

import cv2
import httpx
import numpy as np
import pytest
from service_support import PLAIN, png_header_bomb, shared_server, tiny_png

from samples.synthetic import make_photo

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server():
    return shared_server()


@pytest.fixture(scope="module")
def photo():
    return make_photo(21, size=(800, 600), **PLAIN)


def post_image(server, data: bytes, *, field="image", name="photo.jpg", timeout=60):
    files = {field: (name, data, "image/jpeg")}
    return httpx.post(server.url + "/v1/solve", files=files, timeout=timeout)


def code(response) -> str:
    return response.json()["error"]["code"]


def test_upload_generated_photo_over_http(server, photo):
    response = post_image(server, photo.jpeg)
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["status"] == "solved"
    assert result["solution"] == "".join(str(v) for v in photo.solution.ravel())
    overlay = httpx.get(server.url + result["output"], timeout=10)
    assert overlay.status_code == 200
    image = cv2.imdecode(np.frombuffer(overlay.content, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == photo.image.shape
    # the access log names the request, never holds the photo
    request_id = response.headers["x-request-id"]
    log = server.log_text()
    assert request_id in log and '"path":"/v1/solve"' in log
    assert photo.jpeg[100:140].hex() not in log and str(photo.jpeg[100:140]) not in log


def test_zero_bytes(server):
    response = post_image(server, b"")
    assert response.status_code == 400 and code(response) == "empty_image"


def test_text_file_named_jpg(server):
    response = post_image(server, b"hello, I am a text file\n" * 50, name="holiday.jpg")
    assert response.status_code == 415 and code(response) == "not_an_image"


def test_truncated_jpeg(server, photo):
    response = post_image(server, photo.jpeg[: len(photo.jpeg) // 3])
    assert response.status_code in (415, 422), response.text
    assert post_image(server, photo.jpeg[:300]).status_code == 415


def test_decompression_bomb(server):
    bomb = png_header_bomb(20_000, 20_000)
    response = post_image(server, bomb, name="bomb.png")
    assert response.status_code == 413 and code(response) == "image_too_large"
    assert server.alive()


def test_30_mb_upload_is_refused(server):
    started = time.monotonic()
    response = httpx.post(
        server.url + "/v1/solve",
        files={"image": ("big.jpg", b"\xff\xd8\xff\xe0" + bytes(30 * 2**20), "image/jpeg")},
        timeout=60,
    )
    assert response.status_code == 413 and code(response) == "too_large"
    assert time.monotonic() - started < 30


def test_413_comes_before_the_body_is_sent(server):
    """Declared 30 MB, not one body byte sent: the answer arrives anyway."""
    host, port = "127.0.0.1", server.port
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\n"
            b"Content-Length: 31457280\r\n\r\n"
        )
        reply = read_until_closed(sock)
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert b'"too_large"' in reply


def read_until_closed(sock: socket.socket) -> bytes:
    """Headers and body may come in separate segments; the server closes after a 413."""
    chunks = []
    while chunk := sock.recv(4096):
        chunks.append(chunk)
    return b"".join(chunks)


def test_wrong_field_name(server, photo):
    response = post_image(server, photo.jpeg, field="photo")
    assert response.status_code == 400 and code(response) == "missing_field"


async def burst(url: str, n: int) -> list[httpx.Response | Exception]:
    """n requests at once: half tiny images (they need a solver), half tiny text files."""
    image, text = tiny_png(), b"not an image"
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=90) as client:

        async def one(i: int):
            data = image if i % 2 == 0 else text
            try:
                return await client.post("/v1/solve", files={"image": (f"{i}.png", data)})
            except httpx.HTTPError as error:
                return error

        return await asyncio.gather(*(one(i) for i in range(n)))


def test_1000_concurrent_tiny_requests(server):
    rss_before = server.rss_mb()
    started = time.monotonic()
    responses = asyncio.run(burst(server.url, 1000))
    elapsed = time.monotonic() - started
    failures = [r for r in responses if isinstance(r, Exception)]
    assert not failures, failures[:3]
    images = [r for i, r in enumerate(responses) if i % 2 == 0]
    texts = [r for i, r in enumerate(responses) if i % 2 == 1]
    # A place in the queue is taken only by a complete upload that looks like an image: text
    # is refused by its bytes without one, whatever the queue; images may find it full.
    seen = Counter((r.status_code, code(r)) for r in images + texts)
    assert set(seen) <= {(415, "not_an_image"), (422, "no_grid"), (503, "busy")}, seen
    assert all((r.status_code, code(r)) == (415, "not_an_image") for r in texts)
    assert all((r.status_code, code(r)) != (415, "not_an_image") for r in images)
    busy = [r for r in responses if r.status_code == 503]
    assert busy, f"500 image jobs at once must overflow the queue (1 solver + 8 waiting): {seen}"
    assert all(int(r.headers["retry-after"]) >= 1 for r in busy)
    assert seen[(415, "not_an_image")] and seen[(422, "no_grid")], seen
    assert elapsed < 60, f"1000 requests took {elapsed:.1f} s"
    assert server.alive()
    assert httpx.get(server.url + "/healthz", timeout=10).status_code == 200
    assert httpx.get(server.url + "/readyz", timeout=10).status_code == 200
    growth = server.rss_mb() - rss_before
    assert growth < 100, f"server memory grew by {growth:.0f} MB"
