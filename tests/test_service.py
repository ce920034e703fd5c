"""The HTTP service through FastAPI's TestClient: every endpoint and every error status.

One app (one real solver process, real pipeline, real Tesseract) serves the whole module;
tests that need another limit change it on that app and put it back.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from service_support import PLAIN, captured, png_header_bomb

from api.service import Settings, create_app
from api.service.cache import ResultCache
from api.service.routers.photos import preferred_type
from api.service.settings import describe
from samples.synthetic import make_photo, render_photo
from vision.recognise import DEFAULT_ENGINE

MAX_UPLOAD_MB = 2
EASY = "1-53---9----6-----------27182----------487---------53-23---------7-59-----6---8-4"


@pytest.fixture(scope="module")
def app():
    return create_app(
        Settings(workers=1, queue_length=2, timeout_s=30, max_upload_mb=MAX_UPLOAD_MB)
    )


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app) as client:
        yield client


@pytest.fixture(scope="module")
def photo():
    return make_photo(11, size=(640, 480), **PLAIN)


@pytest.fixture
def access_log():
    """The access log's records, captured for one test."""
    with captured("sudoku_lens.access") as records:
        yield records


def upload(client, data: bytes, *, name="photo.jpg", field="image", accept=None):
    headers = {"Accept": accept} if accept else {}
    return client.post("/v1/solve", files={field: (name, data, "image/jpeg")}, headers=headers)


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and len(error["message"]) > 10
    return error


def digits(line: str) -> np.ndarray:
    return np.array([int(c) if c.isdigit() else 0 for c in line]).reshape(9, 9)


def is_solution_of(solution: str, puzzle: str) -> bool:
    grid, given = digits(solution), digits(puzzle)
    full = set(range(1, 10))
    units = [grid[r] for r in range(9)] + [grid[:, c] for c in range(9)]
    units += [grid[r : r + 3, c : c + 3].ravel() for r in (0, 3, 6) for c in (0, 3, 6)]
    return all(set(u.tolist()) == full for u in units) and bool(
        (grid[given > 0] == given[given > 0]).all()
    )


# -- health, docs, page -------------------------------------------------------------------


def test_healthz(client):
    assert client.get("/healthz").json() == {"status": "ok"}


def test_readyz_reports_warm_processes_and_tesseract(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.text
    checks = response.json()["checks"]
    assert checks["warm"] == "1/1 warm"
    assert checks["tesseract"] and checks["tesseract_available"] is True  # its version
    assert checks["solver_processes"] == "1/1 alive"
    assert checks["engine"] == DEFAULT_ENGINE


def test_openapi_documents_every_endpoint_and_docs_page(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {
        "/v1/solve",
        "/v1/grid",
        "/v1/results/{result_id}/overlay.jpg",
        "/healthz",
        "/readyz",
    } <= set(paths)
    body = paths["/v1/solve"]["post"]["requestBody"]["content"]["multipart/form-data"]
    assert body["schema"]["required"] == ["image"]
    assert "422" in paths["/v1/solve"]["post"]["responses"]
    assert "swagger" in client.get("/docs").text.lower()


def test_page_and_its_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'capture="environment"' in page.text and 'accept="image/*"' in page.text
    assert "http://" not in page.text and "https://" not in page.text  # no CDN
    for asset in ("/static/page.js", "/static/page.css"):
        assert client.get(asset).status_code == 200


def test_unknown_route_is_json_404(client):
    assert_error(client.get("/v1/nothing"), 404, "not_found")
    assert_error(client.get("/v1/solve"), 405, "method_not_allowed")


# -- solving a photo ------------------------------------------------------------------------


def test_solve_photo_returns_result_and_overlay(client, photo, access_log):
    response = upload(client, photo.jpeg, accept="application/json")
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["status"] == "solved"
    assert result["solution"] == "".join(str(v) for v in photo.solution.ravel())
    assert result["givens"] == "".join(str(v) for v in photo.givens.ravel())
    assert len(result["confidence"]) == 81 and result["timings"]["total"] > 0
    overlay = client.get(result["output"])
    assert overlay.status_code == 200 and overlay.headers["content-type"] == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(overlay.content, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == photo.image.shape
    assert response.headers["x-result-id"] in result["output"]
    # the access log: one JSON line with the request id, stage timings and no photo bytes
    request_id = response.headers["x-request-id"]
    lines = [record.getMessage() for record in access_log]
    record = next(json.loads(line) for line in lines if request_id in line)
    assert record["status"] == 200 and record["path"] == "/v1/solve"
    assert record["bytes_in"] > len(photo.jpeg) and record["upload_bytes"] == len(photo.jpeg)
    assert {"upload", "queue", "work", "load", "total"} <= set(record["timings"])
    assert all(len(line) < 4000 for line in lines)


def test_an_iphone_heic_photo_is_solved(client, photo):
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(cv2.cvtColor(photo.image, cv2.COLOR_BGR2RGB)).save(buffer, "HEIF", quality=90)
    response = upload(client, buffer.getvalue(), accept="application/json")
    assert response.status_code == 200, response.text
    assert response.json()["solution"] == "".join(str(v) for v in photo.solution.ravel())


def test_accept_image_returns_the_solved_photo(client, photo):
    jpeg = upload(client, photo.jpeg, accept="image/jpeg")
    assert jpeg.status_code == 200 and jpeg.headers["content-type"] == "image/jpeg"
    assert jpeg.content[:3] == b"\xff\xd8\xff"
    assert jpeg.headers["x-sudoku-solution"] == "".join(str(v) for v in photo.solution.ravel())
    png = upload(client, photo.jpeg, accept="image/png")
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert_error(upload(client, photo.jpeg, accept="text/html"), 406, "not_acceptable")


def test_raw_body_upload(client, photo):
    response = client.post("/v1/solve", content=photo.jpeg, headers={"Content-Type": "image/jpeg"})
    assert response.status_code == 200 and response.json()["status"] == "solved"


def test_accept_header_negotiation():
    assert preferred_type("image/*") == "image/jpeg"
    assert preferred_type("text/html, */*;q=0.1") == "application/json"
    assert preferred_type("image/png, image/jpeg;q=0.5") == "image/png"
    assert preferred_type("application/json;q=0, image/jpeg") == "image/jpeg"


def test_upload_never_spools_to_disk(client, monkeypatch):
    """A 1.5 MB upload (Starlette would spool anything over 1 MB to a temp file) stays in memory."""

    def refuse(self):
        raise AssertionError("an upload was about to be written to disk")

    monkeypatch.setattr(tempfile.SpooledTemporaryFile, "rollover", refuse)
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, (700, 700, 3), dtype=np.uint8)
    data = cv2.imencode(".png", noise)[1].tobytes()
    assert 1 << 20 < len(data) < MAX_UPLOAD_MB << 20
    response = upload(client, data, name="noise.png")
    assert_error(response, 422, "no_grid")


# -- every error -----------------------------------------------------------------------------


def test_zero_bytes(client):
    assert_error(upload(client, b""), 400, "empty_image")


def test_text_file_named_jpg(client):
    error = assert_error(upload(client, b"just some text, not a photo\n" * 20), 415, "not_an_image")
    assert "not an image" in error["message"]


def test_truncated_jpeg(client, photo):
    """Half a JPEG: refused as corrupt (415), or decoded with its bottom missing (422)."""
    response = upload(client, photo.jpeg[: len(photo.jpeg) // 2])
    assert response.status_code in (415, 422), response.text
    assert response.json()["error"]["code"] in {"corrupt_image", *("no_grid", "unreadable")} | {
        "invalid_givens",
        "no_solution",
        "multiple_solutions",
    }
    header_only = upload(client, photo.jpeg[:200])
    assert header_only.status_code == 415, header_only.text


@pytest.mark.parametrize("side", [20_000, 10_000])
def test_decompression_bomb_png(client, side):
    """400 MP (over Pillow's own guard) and 100 MP (under it, over ours): refused unread."""
    bomb = png_header_bomb(side, side)
    assert len(bomb) < 100_000
    started = time.perf_counter()
    error = assert_error(upload(client, bomb, name="bomb.png"), 413, "image_too_large")
    assert f"{side * side / 1e6:.1f} megapixels" in error["message"]
    assert time.perf_counter() - started < 2  # the header only: no 300 MB decode


def test_body_over_limit_declared(client):
    big = b"\xff\xd8\xff" + b"\x00" * (MAX_UPLOAD_MB * 2**20 + 10)
    assert_error(upload(client, big), 413, "too_large")


def test_body_over_limit_streamed_without_length(client):
    """No Content-Length (chunked): the body is counted as it arrives."""

    def chunks():
        for _ in range(MAX_UPLOAD_MB * 4 + 1):
            yield b"\x00" * (256 * 1024)

    response = client.post("/v1/solve", content=chunks(), headers={"Content-Type": "image/jpeg"})
    assert_error(response, 413, "too_large")


def test_wrong_field_name(client, photo):
    error = assert_error(upload(client, photo.jpeg, field="file"), 400, "missing_field")
    assert "'file'" in error["message"] and "'image'" in error["message"]


def test_wrong_content_type(client):
    response = client.post("/v1/solve", json={"image": "x"})
    assert_error(response, 415, "unsupported_content_type")
    broken = client.post(
        "/v1/solve", content=b"--x\r\n", headers={"Content-Type": "multipart/form-data"}
    )
    assert_error(broken, 400, "malformed")


def test_no_grid_is_422_with_what_was_read(client):
    blank = np.full((480, 640, 3), 235, np.uint8)
    response = upload(client, cv2.imencode(".jpg", blank)[1].tobytes())
    error = assert_error(response, 422, "no_grid")
    assert error["result"]["status"] == "no_grid"


def sparse_photo(n_givens: int = 12):
    """A photo of a printed grid with too few digits to be a sudoku (at least 17 are needed)."""
    photo = make_photo(5, size=(640, 480), n_givens=30)
    givens = photo.givens.copy()
    keep = np.flatnonzero(givens.ravel())[:n_givens]
    sparse = np.zeros(81, np.int8)
    sparse[keep] = givens.ravel()[keep]
    return render_photo(sparse.reshape(9, 9), seed=5, size=(640, 480), style=photo.style), sparse


def test_unsolvable_photo_is_422_with_the_reading(client):
    """Processed but not solvable as read: 422, and what was read comes back to be fixed."""
    picture, sparse = sparse_photo()
    error = assert_error(upload(client, picture.jpeg), 422, "unreadable")
    result = error["result"]
    assert result["status"] == "unreadable"
    assert result["read"] == "".join(str(v) for v in sparse)
    assert len(result["confidence"]) == 81 and "17" in error["message"]


def test_busy_answers_503_with_retry_after(client, app, photo):
    """Photos and puzzles have places of their own: a full photo queue refuses photos (and
    /readyz says so), never a puzzle."""
    places = app.state.pool.places
    places["photo"].admitted += places["photo"].limit  # every photo place taken
    try:
        response = upload(client, photo.jpeg)
        ready = client.get("/readyz")
        grid = client.post("/v1/grid", json={"puzzle": EASY})
        places["grid"].admitted += places["grid"].limit
        grid_busy = client.post("/v1/grid", json={"puzzle": EASY})
    finally:
        places["photo"].admitted -= places["photo"].limit
        places["grid"].admitted -= places["grid"].limit
    error = assert_error(response, 503, "busy")
    assert int(response.headers["retry-after"]) >= 1 and "retry" in error["message"]
    assert_error(ready, 503, "busy")
    assert int(ready.headers["retry-after"]) >= 1
    assert grid.status_code == 200, grid.text
    assert_error(grid_busy, 503, "busy")
    assert upload(client, photo.jpeg).status_code == 200  # and free again
    assert client.get("/readyz").status_code == 200


def test_timeout_kills_the_job_and_the_pool_recovers(client, app):
    pool = app.state.pool
    pool.timeout_s = 0.001
    try:
        slow = client.post("/v1/grid", json={"puzzle": EASY, "explain": True})  # > 1 ms
        error = assert_error(slow, 504, "timeout")
    finally:
        pool.timeout_s = 30
    assert "longer than" in error["message"]
    assert pool.counts["timeouts"] >= 1
    response = client.post("/v1/grid", json={"puzzle": EASY})  # waits for the new process
    assert response.status_code == 200 and response.json()["status"] == "unique"
    assert client.get("/readyz").status_code == 200


# -- the overlay cache -----------------------------------------------------------------------


def test_unknown_or_expired_overlay_is_404(client):
    error = assert_error(client.get("/v1/results/abcdef/overlay.jpg"), 404, "not_found")
    assert "kept" in error["message"]


def test_cache_expires_and_stays_within_its_caps():
    now = [0.0]
    cache = ResultCache(max_items=3, max_bytes=10, ttl_s=5, clock=lambda: now[0])
    assert cache.put("a", b"1234") and cache.put("b", b"1234")
    assert cache.put("c", b"1234")  # 12 bytes > 10: the oldest goes
    assert cache.get("a") is None and cache.get("b") == b"1234"
    assert not cache.put("huge", b"x" * 11)
    now[0] = 6
    assert cache.get("b") is None and len(cache) == 0
    for i in range(10):
        cache.put(str(i), b"1")
    assert len(cache) == 3 and cache.bytes == 3


# -- puzzles as text -------------------------------------------------------------------------


def test_grid_unique(client):
    answer = client.post("/v1/grid", json={"puzzle": EASY}).json()
    assert answer["status"] == "unique" and answer["count"] == 1
    assert is_solution_of(answer["solutions"][0], EASY)
    assert not answer["count_is_lower_bound"]


def test_grid_multiple_and_count(client):
    loose = "." * 81
    answer = client.post("/v1/grid", json={"puzzle": loose, "limit": 5}).json()
    assert answer["status"] == "multiple" and answer["count"] == 5
    assert answer["count_is_lower_bound"] and len(answer["solutions"]) == 5
    assert len(set(answer["solutions"])) == 5
    counted = client.post("/v1/grid", json={"puzzle": loose, "limit": 5, "count": True}).json()
    assert counted["count"] == 5 and counted["solutions"] == []


def test_grid_conflict_is_invalid_with_the_cells(client):
    answer = client.post("/v1/grid", json={"puzzle": "11" + "." * 79}).json()
    assert answer["status"] == "invalid"
    assert any("r1c1" in c and "r1c2" in c for c in answer["conflicts"])


def test_grid_explain_gives_steps_and_grade(client):
    answer = client.post("/v1/grid", json={"puzzle": EASY, "explain": True}).json()
    explanation = answer["explanation"]
    assert explanation["steps"] and explanation["steps"][0]["text"]
    assert explanation["grade"]["level"]
    assert 1.0 <= explanation["grade"]["rating"] <= 12.0  # Sudoku Explainer's scale
    assert explanation["solution"] == answer["solutions"][0]


def test_grid_errors(client):
    assert_error(client.post("/v1/grid", json={"puzzle": "12x"}), 422, "invalid_puzzle")
    assert_error(client.post("/v1/grid", json={"puzle": EASY}), 400, "malformed")
    assert_error(client.post("/v1/grid", json={"puzzle": EASY, "limit": 0}), 400, "malformed")
    assert_error(client.post("/v1/grid", json={"puzzle": EASY, "limit": 10**6}), 400, "malformed")
    bad_json = client.post(
        "/v1/grid", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert_error(bad_json, 400, "malformed")


def test_settings_from_environment(monkeypatch):
    monkeypatch.setenv("SUDOKU_LENS_MAX_UPLOAD_MB", "3")
    monkeypatch.setenv("SUDOKU_LENS_QUEUE_LENGTH", "0")
    monkeypatch.setenv("SUDOKU_LENS_TIMEOUT_S", "2.5")
    monkeypatch.setenv("SUDOKU_LENS_ENGINE", "")  # empty = unset
    settings = Settings()
    assert settings.max_upload_bytes == 3 * 2**20
    assert settings.queue_length == 0 and settings.timeout_s == 2.5 and settings.engine == ""
    assert Settings(queue_length=4).queue_length == 4  # the CLI's options win
    assert Settings().max_pixels == 50_000_000
    monkeypatch.setenv("SUDOKU_LENS_MAX_PIXELS", "lots")
    monkeypatch.setenv("SUDOKU_LENS_TIMEOUT_S", "-1")
    with pytest.raises(ValidationError) as raised:
        Settings()
    message = describe(raised.value)
    assert "SUDOKU_LENS_MAX_PIXELS='lots' is not a valid integer" in message
    assert "SUDOKU_LENS_TIMEOUT_S='-1' must be greater than 0" in message


def test_workers_default_to_every_core(monkeypatch):
    monkeypatch.delenv("SUDOKU_LENS_WORKERS", raising=False)
    assert Settings().workers == len(os.sched_getaffinity(0))


def test_png_bomb_helper_is_a_real_png():
    from PIL import Image

    with Image.open(io.BytesIO(png_header_bomb(300, 200))) as image:
        assert image.size == (300, 200)
        image.load()


def test_serve_refuses_a_bad_limit_with_a_clear_message():
    script = Path(sys.executable).with_name("sudoku-lens")
    env = {**os.environ, "SUDOKU_LENS_MAX_PIXELS": "lots"}
    done = subprocess.run(
        [str(script), "serve"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "SUDOKU_LENS_MAX_PIXELS='lots' is not a valid integer" in done.stderr
