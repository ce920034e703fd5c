"""The service under a careless or hostile client (issue 12), the cheap parts.

Through FastAPI's TestClient (one real solver process): hostile headers refused unread, thin
strips refused as no_grid, plain-field photos accepted, `limit` as documented, strict types,
security headers, HEAD, no exception text in any answer, a killed solver replaced warm.
The connection-level parts (slow clients, half requests, disconnects, malformed HTTP) run
against a real `sudoku-lens serve` on loopback in tests/test_service_connections.py;
bench/attack.py runs all of it at full size under load.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import struct
import subprocess
import sys
import time
import zlib
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from service_support import PLAIN, captured

from api.photo.failures import Failure
from api.service import Settings, create_app
from api.service.dependencies import Jobs
from api.service.errors import Internal
from api.service.jobs import PhotoJob, Refused, SolvedPhoto, grid, photo
from api.service.models import GridAnswer, GridRequest
from api.service.workers import SolverPool
from samples.synthetic import make_photo
from vision.errors import NoGridFound, NotAnImage, Unreadable
from vision.load import MAX_SEGMENTS, read_header

EASY = "1-53---9----6-----------27182----------487---------53-23---------7-59-----6---8-4"
LEAKS = ("Traceback", 'File "', ".py", ".cpp", "OpenCV(", "/io/", "/usr/", "site-packages")


@pytest.fixture(scope="module")
def app():
    return create_app(Settings(workers=1, queue_length=2, timeout_s=30, max_upload_mb=15))


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app) as client:
        yield client


@pytest.fixture(scope="module")
def picture():
    return make_photo(12, size=(1024, 768), **PLAIN)


@pytest.fixture
def service_log():
    """Messages of the service's own logger (errors with their text, disconnects)."""
    with captured("sudoku_lens.service") as records:
        yield records


def error_of(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    assert not any(leak in response.text for leak in LEAKS), response.text
    return error


def upload(client, data: bytes, name: str = "photo.jpg"):
    return client.post("/v1/solve", files={"image": (name, data, "image/jpeg")})


def jpeg_segment_bomb(markers: int) -> bytes:
    """A 64x64 JPEG preceded by `markers` empty APP5 segments (4 bytes each)."""
    image = cv2.imencode(".jpg", np.full((64, 64, 3), 128, np.uint8))[1].tobytes()
    return image[:2] + b"\xff\xe5\x00\x02" * markers + image[2:]


def png_chunk_bomb(chunks: int) -> bytes:
    """A 64x64 PNG with `chunks` empty private chunks between its header and its pixels."""
    image = cv2.imencode(".png", np.full((64, 64, 3), 128, np.uint8))[1].tobytes()
    empty = struct.pack(">I", 0) + b"abCd" + struct.pack(">I", zlib.crc32(b"abCd"))
    return image[:33] + empty * chunks + image[33:]


# -- item 1: the header scan is bounded; /v1/grid bodies are capped before they are read ------


@pytest.mark.parametrize(
    "bomb", [jpeg_segment_bomb(3_700_000), png_chunk_bomb(1_200_000)], ids=["jpeg", "png"]
)
def test_a_header_of_millions_of_empty_segments_is_refused_unparsed(bomb):
    assert len(bomb) > 14_000_000
    with pytest.raises(Unreadable, match=f"more than {MAX_SEGMENTS}"):
        read_header(bomb)


def test_a_few_segments_still_read():
    assert read_header(jpeg_segment_bomb(40)).format == "JPEG"
    assert read_header(png_chunk_bomb(40)).format == "PNG"


def test_segment_bomb_upload_is_415(client):
    error = error_of(upload(client, jpeg_segment_bomb(1_000_000)), 415, "corrupt_image")
    assert "segments" in error["message"]


def test_unsupported_formats_are_not_parsed_and_the_message_names_heic():
    gif = b"GIF89a" + b"\x40\x00\x40\x00\x00\x00\x00" + b"!\xf9\x04\x00\x00\x00\x00\x00" * 1000
    with pytest.raises(NotAnImage, match="HEIC"):
        read_header(gif)


def test_grid_body_is_capped_before_it_is_read(client):
    body = b'{"puzzle":"1","x":[' + b"{}," * 400_000 + b"{}]}"
    error = error_of(
        client.post("/v1/grid", content=body, headers={"Content-Type": "application/json"}),
        413,
        "too_large",
    )
    assert "64 KB" in error["message"]


# -- item 2: impossible shapes are 422 no_grid; no exception text in any answer ----------------


def test_a_thin_strip_is_422_no_grid_saying_why(client):
    strip = cv2.imencode(".png", np.full((100_000, 32), 200, np.uint8))[1].tobytes()
    error = error_of(upload(client, strip, "strip.png"), 422, "no_grid")
    assert "32×100000" in error["message"] and "longer than wide" in error["message"]
    with pytest.raises(NoGridFound):
        read_header(strip)


def test_a_crashing_job_is_a_bare_500_and_its_text_is_logged(app, client, service_log):
    """A job that raises (here: a grid job given a string) is a bug: the client gets the
    request id and nothing of the error; the log gets the error's text."""
    state = SimpleNamespace(request_id="r-crash", timings={}, log={})
    jobs = Jobs(SimpleNamespace(app=app, state=state))
    with pytest.raises(Internal):
        client.portal.call(jobs.run, "grid", "not a request")
    logged = "\n".join(r.getMessage() for r in service_log if r.levelno >= logging.ERROR)
    assert "r-crash" in logged and "AttributeError" in logged
    assert client.post("/v1/grid", json={"puzzle": EASY}).status_code == 200


def test_an_unhandled_exception_never_reaches_the_client(app, service_log):
    @app.get("/test-only/raise")
    async def boom():
        raise RuntimeError("secret detail at /io/opencv/modules/resize.cpp:4217")

    # no `with`: the app's lifespan (its solver pool) is the module client's
    response = TestClient(app, raise_server_exceptions=False).get("/test-only/raise")
    app.router.routes[:] = [
        r for r in app.router.routes if getattr(r, "path", "") != "/test-only/raise"
    ]
    error = error_of(response, 500, "internal")
    request_id = response.headers["x-request-id"]
    assert request_id in error["message"]
    assert response.headers["x-content-type-options"] == "nosniff"
    logged = "\n".join(r.getMessage() for r in service_log)
    assert "secret detail" in logged and request_id in logged


# -- item 5: the photo as a plain form field, with or without a file name ---------------------


def multipart(disposition: str, data: bytes, parts: int = 1) -> tuple[bytes, dict]:
    boundary = "hostile-test-boundary"
    part = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data
    body = b"\r\n".join([part] * parts) + f"\r\n--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


@pytest.mark.parametrize(
    "disposition",
    [
        'form-data; name="image"',
        "form-data; name=\"image\"; filename*=UTF-8''ph%C3%B6to.jpg",
        'form-data; name="image"; filename="photo.jpg"',
    ],
    ids=["plain-field", "filename-star", "filename"],
)
def test_the_image_field_with_or_without_a_file_name(client, picture, disposition):
    assert len(picture.jpeg) > 64 * 1024  # over Starlette's limit for a plain field
    body, headers = multipart(disposition, picture.jpeg)
    response = client.post("/v1/solve", content=body, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["solution"] == "".join(str(v) for v in picture.solution.ravel())


def test_two_image_fields_or_an_unended_part_are_400(client, picture):
    body, headers = multipart('form-data; name="image"', picture.jpeg, parts=2)
    error = error_of(client.post("/v1/solve", content=body, headers=headers), 400, "malformed")
    assert "more than one" in error["message"]
    body, headers = multipart('form-data; name="image"', picture.jpeg)
    cut = body[: len(body) // 2]
    error_of(client.post("/v1/solve", content=cut, headers=headers), 400, "malformed")


# -- item 7: `limit` as documented, strict types -------------------------------------------


def test_limit_one_on_a_puzzle_with_several_solutions(client):
    answer = client.post("/v1/grid", json={"puzzle": "." * 81, "limit": 1}).json()
    assert answer["status"] == "multiple"
    assert answer["count"] == 1 and answer["count_is_lower_bound"] is True
    assert len(answer["solutions"]) == 1


def test_limit_one_on_a_unique_puzzle(client):
    answer = client.post("/v1/grid", json={"puzzle": EASY, "limit": 1}).json()
    assert answer["status"] == "unique"
    assert answer["count"] == 1 and answer["count_is_lower_bound"] is False


def test_limit_counts_exactly_below_it(client):
    two = "." * 81  # not two solutions; use a puzzle with exactly 2: EASY with one given gone
    answer = client.post("/v1/grid", json={"puzzle": two, "limit": 5, "count": True}).json()
    assert answer["count"] == 5 and answer["count_is_lower_bound"] is True
    assert answer["solutions"] == []


@pytest.mark.parametrize(
    "body",
    [{"puzzle": EASY, "limit": True}, {"puzzle": EASY, "explain": "yes"}, {"puzzle": 81}],
)
def test_grid_types_are_strict(client, body):
    error_of(client.post("/v1/grid", json=body), 400, "malformed")


# -- item 8: HTTP hygiene ------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/healthz", "/openapi.json", "/v1/nothing"])
def test_security_headers_on_every_answer(client, path):
    headers = client.get(path).headers
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-frame-options"] == "DENY"
    policy = headers["content-security-policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert "http" not in policy and "unsafe" not in policy  # nothing from outside


def test_head_of_the_page_and_health(client):
    for path in ("/", "/healthz", "/readyz"):
        response = client.head(path)
        assert response.status_code == 200, (path, response.status_code)
        assert response.content == b""


def test_both_content_length_and_transfer_encoding_is_refused(client):
    response = client.post(
        "/v1/grid",
        content=b'{"puzzle": "x"}',
        headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
    )
    error = error_of(response, 400, "malformed")
    assert "Transfer-Encoding" in error["message"]
    assert response.headers["connection"] == "close"


# -- jobs: plain data across the process boundary, no HTTP status inside them -----------------


def test_jobs_answer_with_dataclasses_and_models(picture):
    solved = photo(picture.jpeg, PhotoJob())
    assert isinstance(solved, SolvedPhoto) and solved.result.status == "solved"
    refused = photo(b"not an image at all", PhotoJob())
    assert refused == Refused(Failure("not_an_image", "not_an_image", refused.failure.message))
    assert isinstance(grid(GridRequest(puzzle=EASY)), GridAnswer)
    assert grid(GridRequest(puzzle="12x")).failure.code == "invalid_puzzle"


# -- item 3: truthful Retry-After --------------------------------------------------------------


def test_retry_after_follows_the_measured_job_time():
    pool = SolverPool(size=2, queue_length=8, timeout_s=30, env={})
    try:
        places = pool.places["photo"]
        places.admitted, places.mean_ms = places.limit, 3000.0
        assert pool.retry_after("photo") == 14  # 9 jobs ahead x 3 s over 2 processes
        assert pool.full("photo") and not pool.full("grid")
    finally:
        pool.io.shutdown()


# -- item 9 and readiness: warm means every kernel, Tesseract only when the engine needs it ---

WARM_CHECK = """
import json
from api.service.jobs import warm_up
from solver import bands, fast
info = warm_up()
kernels = {name: len(getattr(module, name).signatures) for module, name in
           [(fast, "_search_one"), (bands, "count_solutions")] if hasattr(getattr(module, name), "signatures")}
print(json.dumps({"warm": info.warm, "problems": info.problems, "tesseract": info.tesseract,
                  "needs": info.needs_tesseract, "kernels": kernels}))
"""


def warm_up_in_a_fresh_process(env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", WARM_CHECK],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_warm_up_compiles_every_solver_kernel_a_request_reaches():
    report = warm_up_in_a_fresh_process({})
    assert report["warm"] and not report["problems"], report
    assert report["kernels"].get("_search_one", 0) >= 1, report  # the generic engine


def test_missing_tesseract_is_reported_not_fatal_for_the_default_engine(tmp_path):
    python_only = {"PATH": str(tmp_path)}  # no tesseract on this PATH
    report = warm_up_in_a_fresh_process(python_only)
    assert report["tesseract"] is None and report["needs"] is False
    assert report["warm"] and report["problems"] == [], report
    report = warm_up_in_a_fresh_process({**python_only, "SUDOKU_LENS_ENGINE": "tesseract"})
    assert report["needs"] is True and any("Tesseract" in p for p in report["problems"])


def test_a_killed_solver_is_replaced_warm_before_it_serves(app, client):
    pool = app.state.pool
    (worker,) = list(pool.workers)
    os.kill(worker.process.pid, signal.SIGKILL)
    deadline = time.monotonic() + 120
    states = set()
    while time.monotonic() < deadline:
        ready = client.get("/readyz")
        states.add(ready.status_code)
        if ready.status_code == 200 and pool.counts["replaced"] >= 1:
            break
        time.sleep(0.05)
    assert pool.counts["replaced"] >= 1 and ready.status_code == 200, ready.text
    assert 503 in states  # not ready while the successor warmed up
    (successor,) = list(pool.workers)
    assert successor is not worker and successor.info.warm
    answer = client.post("/v1/grid", json={"puzzle": "." * 256, "limit": 2, "count": True})
    assert answer.status_code == 200 and answer.json()["count"] == 2
