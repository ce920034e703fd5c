"""WebSocket /v1/live through a real `sudoku-lens serve` on loopback, with a real client.

A synthetic moving video is streamed the way the page streams it (the next frame after the
answer): the grid is confirmed by two reads, its solution comes once, then only corners that
follow the paper. Every limit (frame size, pixels, frames a second, connections per client
and in all, idle time, busy solvers) and every bad message gets its own error message on the
socket, and the connection outlives a bad frame.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import time

import cv2
import httpx
import numpy as np
import pytest
from service_support import shared_server
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from api.service.local import LocalServer
from samples.live_client import answer, as_jpeg
from samples.synthetic import make_video

pytestmark = pytest.mark.slow

LIMITS = {
    "SUDOKU_LENS_QUEUE_LENGTH": "0",
    "SUDOKU_LENS_LIVE_MAX_FRAME_KB": "100",
    "SUDOKU_LENS_LIVE_MAX_PIXELS": "1000000",
    "SUDOKU_LENS_LIVE_MAX_FPS": "5",
    "SUDOKU_LENS_LIVE_MAX_PER_CLIENT": "2",
    "SUDOKU_LENS_LIVE_MAX_CONNECTIONS": "3",
    "SUDOKU_LENS_LIVE_IDLE_S": "2",
    # The HTTP header deadline, which must not bound a WebSocket. The default (10 s), not
    # less: CI twice saw a connection here closed mid-handshake, with 1 s and with 3 s, which
    # only this deadline does without a word on this server; a failed open now prints the
    # server's log, which says so when it does.
    "SUDOKU_LENS_IDLE_TIMEOUT_S": "10",
}


@pytest.fixture(scope="module")
def server():
    return shared_server()


@pytest.fixture(scope="module")
def strict(tmp_path_factory):
    """A server with small live limits (one solver process, no queue), over HTTPS with a
    self-signed certificate (`serve --ssl-certfile/--ssl-keyfile`), as a phone needs."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (make test installs it)")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    with LocalServer(workers=1, env=LIMITS, ssl=(cert, key)) as server:
        yield server


@pytest.fixture(scope="module")
def video():
    return make_video(12, n_frames=40, hand=False, out_of_view=False)


def ws_url(server) -> str:
    return server.url.replace("http", "ws", 1) + "/v1/live"  # https -> wss


@contextlib.contextmanager
def open_live(server, source: str = "127.0.0.1"):
    """A connection from the loopback address `source` (127.0.0.0/8 is all this host), and
    its first message."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", server.port))
    tls = {"ssl": server.verify} if server.ssl else {}
    started = time.monotonic()
    try:
        live = connect(ws_url(server), sock=sock, open_timeout=10, **tls)
    except Exception as failed:
        raise AssertionError(
            f"the connection from {source} failed after {time.monotonic() - started:.2f} s "
            f"({failed!r}, {failed.__cause__!r}); the server's log ends:\n{server.log_tail(15)}"
        ) from failed
    with live:
        yield live, json.loads(live.recv(timeout=10))


def test_a_moving_video_is_solved_once_then_followed(server, video):
    solution = "".join(str(v) for v in video.solution.ravel())
    grids, frames = [], []
    with open_live(server) as (live, ready):
        assert ready["type"] == "ready" and ready["limits"]["max_fps"] > 0
        for frame in video.frames:
            messages = answer(live, frame.jpeg)
            grids += [m for m in messages if m["type"] == "grid"]
            frames.append(messages[-1])
            time.sleep(0.03)  # about a camera's pace; the server's limit is 30 a second
    assert [f["type"] for f in frames] == ["frame"] * len(video.frames), frames[:2]
    assert len(grids) == 1, "the solution is sent once per grid"
    assert grids[0]["solution"] == solution and grids[0]["status"] == "solved"
    confirmed_at = next(i for i, f in enumerate(frames) if f["grid"] == grids[0]["id"])
    assert confirmed_at >= 1, "one read is not enough: two consecutive reads must agree"
    assert confirmed_at <= 3
    after = frames[confirmed_at:]
    assert all(f["grid"] == grids[0]["id"] for f in after)
    assert sum(f["read"] for f in after) <= 3, "a known grid is not read again"
    assert sum(f["tracked"] for f in after) >= len(after) - 2
    for f, truth in zip(frames, video.frames, strict=True):
        error = np.linalg.norm(np.array(f["corners"]) - truth.corners, axis=1).max()
        assert error < 0.15 * truth.cell.mean()
    assert all(f["ms"]["total"] > 0 for f in frames)
    time.sleep(0.3)
    session = [line for line in server.log_text().splitlines() if '"path":"/v1/live"' in line]
    logged = [json.loads(line) for line in session]  # one line per session, this one too
    assert {"frames": len(video.frames), "errors": 0, "grids": 1} in [
        {k: entry[k] for k in ("frames", "errors", "grids")} for entry in logged
    ]


def test_bad_messages_get_an_error_and_the_connection_stays(server, video):
    half = video.frames[0].jpeg[: len(video.frames[0].jpeg) // 3]
    with open_live(server) as (live, _):
        assert answer(live, b"this is not a picture")[-1]["code"] == "not_an_image"
        assert answer(live, half)[-1]["code"] == "corrupt_image"
        for text, word in (
            ("hello", "JSON"),
            (json.dumps({"type": "dance"}), "unknown command"),
            (json.dumps({"type": "mode", "mode": "cheat"}), "unknown mode"),
            (json.dumps([1, 2]), "unknown command"),
        ):
            live.send(text)
            reply = json.loads(live.recv(timeout=10))
            assert reply["type"] == "error" and reply["code"] == "malformed"
            assert word in reply["message"]
        live.send(json.dumps({"type": "mode", "mode": "check"}))
        assert json.loads(live.recv(timeout=10)) == {"type": "mode", "mode": "check"}
        blank = as_jpeg(np.full((480, 640, 3), 200, np.uint8))
        found = answer(live, blank)[-1]
        assert found["type"] == "frame" and found["state"] == "searching"
        assert found["corners"] is None


def test_the_page_and_the_socket_over_https(strict):
    """`serve --ssl-certfile/--ssl-keyfile`: the page over HTTPS (browsers give a page the
    camera only there) and /v1/live over wss://, checked against the certificate."""
    assert strict.url.startswith("https://")
    page = httpx.get(strict.url + "/", verify=strict.verify, timeout=10)
    assert page.status_code == 200 and 'id="live-start"' in page.text
    with open_live(strict) as (live, ready):
        assert ready["type"] == "ready"
        assert answer(live, as_jpeg(np.full((120, 160, 3), 200, np.uint8)))[-1]["type"] == "frame"


def test_a_frame_over_the_size_limit(strict):
    noise = np.random.default_rng(0).integers(0, 255, (700, 900, 3), np.uint8)
    big = cv2.imencode(".jpg", noise, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    assert len(big) > 100 * 1024
    with open_live(strict) as (live, ready):
        assert ready["limits"]["max_frame_bytes"] == 100 * 1024
        reply = answer(live, big)[-1]
        assert reply["code"] == "frame_too_large" and "100 KB" in reply["message"]
        time.sleep(0.3)
        assert answer(live, as_jpeg(np.full((100, 100, 3), 90, np.uint8)))[-1]["type"] == "frame"


def test_a_frame_over_the_pixel_limit(strict):
    flat = cv2.imencode(".jpg", np.full((1200, 1000, 3), 200, np.uint8))[1].tobytes()
    assert len(flat) < 100 * 1024
    with open_live(strict) as (live, _):
        reply = answer(live, flat)[-1]
        assert reply["code"] == "image_too_large"


def test_frames_faster_than_the_limit_are_answered_not_solved(strict):
    frame = as_jpeg(np.full((120, 160, 3), 200, np.uint8))
    with open_live(strict) as (live, _):
        for _ in range(8):  # without waiting for the answers
            live.send(frame)
        replies = [json.loads(live.recv(timeout=10)) for _ in range(8)]
    by_seq = {r["seq"]: r.get("code") for r in replies}
    assert sorted(by_seq) == list(range(1, 9)), "every frame is answered once"
    assert [by_seq[s] for s in (6, 7, 8)] == ["too_fast"] * 3, "five a second are allowed"
    # of the five allowed, those that came while another was solved were replaced by the
    # latest (never queued); the latest is always solved
    assert {by_seq[s] for s in range(1, 5)} <= {None, "superseded"} and by_seq[5] is None
    assert "5 frames a second" in next(r for r in replies if r["seq"] == 8)["message"]


def test_connections_per_client_and_in_all(strict):
    with contextlib.ExitStack() as stack:
        for _ in range(2):
            assert stack.enter_context(open_live(strict))[1]["type"] == "ready"
        third, refused = stack.enter_context(open_live(strict))  # the same address again
        assert refused["code"] == "too_many_connections" and "per client" in refused["message"]
        with pytest.raises(ConnectionClosed) as closed:
            third.recv(timeout=10)
        assert closed.value.rcvd.code == 1013
        _, ready = stack.enter_context(open_live(strict, "127.0.0.2"))  # the third of three
        assert ready["type"] == "ready"
        _, refused = stack.enter_context(open_live(strict, "127.0.0.3"))
        assert refused["code"] == "too_many_connections" and "server has 3" in refused["message"]
    time.sleep(0.5)
    with open_live(strict) as (_, ready):  # closed connections gave their places back
        assert ready["type"] == "ready"


def test_a_connection_outlives_the_http_header_deadline(strict):
    """The guarded HTTP protocol's header deadline (10 s here) once closed every WebSocket
    after it without a word; a live session lasts as long as frames come."""
    frame = as_jpeg(np.full((120, 160, 3), 200, np.uint8))
    with open_live(strict) as (live, _):
        for _ in range(22):  # 11 s
            time.sleep(0.5)
            assert answer(live, frame)[-1]["type"] == "frame"


def test_a_silent_connection_is_told_and_closed(strict):
    with open_live(strict) as (live, _):
        reply = json.loads(live.recv(timeout=10))
        assert reply["code"] == "idle" and "2 s" in reply["message"]
        with pytest.raises(ConnectionClosed) as closed:
            live.recv(timeout=10)
        assert closed.value.rcvd.code == 1000


def test_frames_the_solvers_cannot_take_wait_as_the_latest(strict, video):
    """One solver: a frame arriving while another connection's is read waits for its turn
    (it is not refused, nor queued in the pool); a newer one replaces it."""
    slow = cv2.resize(video.frames[0].image, (1150, 860))  # a large frame: a long read
    slow = cv2.imencode(".jpg", slow, [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
    with open_live(strict) as (first, _), open_live(strict) as (second, _):
        first.send(slow)
        time.sleep(0.005)
        for _ in range(3):
            second.send(video.frames[0].jpeg)
        replies = []
        while not replies or replies[-1].get("seq") != 3:
            replies.append(json.loads(second.recv(timeout=30)))
        assert json.loads(first.recv(timeout=30))["type"] in ("frame", "grid")
    codes = {r["seq"]: r.get("code") for r in replies if r["type"] != "grid"}
    assert codes[1] == "superseded" and codes[3] is None, replies
    assert "only the latest" in next(r for r in replies if r.get("seq") == 1)["message"]


def test_serve_refuses_half_a_certificate(tmp_path):
    from api.service.local import serve_command

    cert = tmp_path / "cert.pem"
    cert.write_text("not used")
    alone = subprocess.run(
        [*serve_command(), "--ssl-certfile", str(cert)], capture_output=True, text=True
    )
    assert alone.returncode == 2 and "go together" in alone.stderr
    missing = subprocess.run(
        [*serve_command(), "--ssl-certfile", str(cert), "--ssl-keyfile", str(tmp_path / "no")],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "no such file" in missing.stderr
