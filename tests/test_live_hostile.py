"""WebSocket /v1/live against hostile clients (issue 36), on a real `sudoku-lens serve`.

A bare-socket client (`RawWebSocket`) does what no library does: never reads, floods pings
or 1-byte frames, announces a frame far over the limit and keeps sending it. The server must
stay bounded in time and memory: a non-reader is cut after the send timeout (2 s here),
pings and messages are read at a bounded rate, deep or long text is refused before parsing,
an oversized frame is closed with 1009, a closed socket frees its places at once, and
X-Forwarded-For is nobody's to set. bench/attack.py runs the same with the default limits
and measures /healthz and photo latency meanwhile. The dispatch order of the solver pool
(photos never starve behind live frames) is checked without processes at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time

import httpx
import numpy as np
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from api.service.local import LocalServer, RawWebSocket
from api.service.workers import SolverPool, Worker
from samples.live_client import answer, as_jpeg

LIMITS = {
    "SUDOKU_LENS_LIVE_MAX_FPS": "100",  # messages read a second: 2 x 100 + 10
    "SUDOKU_LENS_LIVE_SEND_TIMEOUT_S": "2",
    "SUDOKU_LENS_LIVE_MAX_PER_CLIENT": "2",
    "SUDOKU_LENS_LIVE_MAX_CONNECTIONS": "8",
}


@pytest.fixture(scope="module")
def server():
    with LocalServer(workers=1, env=LIMITS) as server:
        yield server


def ws_url(server) -> str:
    return server.url.replace("http", "ws", 1) + "/v1/live"


def live_records(server, more_than: int = 0) -> list[dict]:
    """The live sessions' access-log records, once there are more than `more_than` (a
    session's record is written when the server has seen its socket close)."""
    for _ in range(100):
        lines = [line for line in server.log_text().splitlines() if '"path":"/v1/live"' in line]
        if len(lines) > more_than:
            break
        time.sleep(0.1)
    return [json.loads(line) for line in lines]


@pytest.mark.slow
def test_a_client_that_never_reads_is_closed(server):
    """Commands whose answers it never reads, into a 4 KB receive window: once the server's
    write buffer stays full for the send timeout (2 s), the connection is cut."""
    command = json.dumps({"type": "x" * 1100})  # each answered with a `malformed` error
    with RawWebSocket(server.port, receive_buffer=4096) as ws:
        _, closed_after = ws.flood(ws.frame(command.encode(), RawWebSocket.TEXT), 30)
    assert closed_after is not None and closed_after < 20
    assert "it read nothing for 2 s" in server.log_text()


@pytest.mark.slow
def test_a_ping_flood_is_answered_at_a_bounded_rate(server):
    before = server.front_rss_mb()
    with RawWebSocket(server.port) as ws:
        assert ws.messages(1)[0]["type"] == "ready"
        sent, _ = ws.flood(ws.frame(b"p" * 125, RawWebSocket.PING) * 500, 4)  # never reading
        grown = server.front_rss_mb() - before
        pongs = 0
        with contextlib.suppress(TimeoutError, OSError):
            while (frame := ws.read_frame(timeout=1)) is not None:
                pongs += frame[0] == 10
    assert sent > 1_000_000, "the flood was sent"
    assert pongs < 400, f"{pongs} pongs for {sent // 131} pings in 4 s"
    assert grown < 20, f"the server grew by {grown:.0f} MB"


@pytest.mark.slow
def test_deep_or_long_text_is_malformed_and_quoted_briefly(server):
    with connect(ws_url(server), open_timeout=10) as live:
        assert json.loads(live.recv(timeout=10))["type"] == "ready"
        for text in ("[" * 950 + "]" * 950, '{"a":' * 5000 + "1" + "}" * 5000):
            live.send(text)
            reply = json.loads(live.recv(timeout=10))
            assert reply["code"] == "malformed", reply
        live.send(json.dumps({"type": "x" * 2_000_000}))
        reply = json.loads(live.recv(timeout=10))
        assert reply["code"] == "malformed" and "at most 1024" in reply["message"]
        live.send(json.dumps({"type": "mode", "mode": "y" * 900}))
        reply = json.loads(live.recv(timeout=10))
        assert "unknown mode" in reply["message"] and "(900 characters)" in reply["message"]
        assert len(reply["message"]) < 200
        frame = as_jpeg(np.full((120, 160, 3), 200, np.uint8))
        assert answer(live, frame)[-1]["type"] == "frame", "the connection stays"
    log = server.log_text()
    assert "Traceback" not in log and "RecursionError" not in log


@pytest.mark.slow
def test_a_flood_of_tiny_frames_is_read_at_a_bounded_rate(server):
    """1-byte frames as fast as a socket takes them: the server reads at most its message
    rate (210 a second here) and /healthz answers meanwhile."""
    stop, health = threading.Event(), []

    def poll():
        with httpx.Client(timeout=10) as client:
            while not stop.is_set():
                started = time.monotonic()
                client.get(server.url + "/healthz")
                health.append(time.monotonic() - started)
                time.sleep(0.1)

    before = len(live_records(server))
    poller = threading.Thread(target=poll)
    poller.start()
    try:
        with RawWebSocket(server.port) as ws:
            started = time.monotonic()
            ws.flood(ws.frame(b"x") * 20_000, 3)
            seconds = time.monotonic() - started
    finally:
        stop.set()
        poller.join()
    read = live_records(server, before)[-1]["frames"]
    assert read > 0
    assert read <= 210 * (seconds + 2), f"{read} frames read in {seconds:.1f} s"
    assert max(health) < 1.0, f"/healthz took {max(health):.2f} s"  # bench: < 250 ms


@pytest.mark.slow
def test_an_oversized_frame_is_closed_1009_while_the_client_keeps_sending(server):
    with RawWebSocket(server.port) as ws:
        ws.messages(1)
        ws.sock.sendall(ws.frame(b"", RawWebSocket.BINARY, length=8 * 2**20))
        stop = threading.Event()

        def keep_sending():
            chunk = bytes(65536)
            with contextlib.suppress(OSError):
                while not stop.is_set():
                    ws.sock.sendall(chunk)

        sender = threading.Thread(target=keep_sending)
        sender.start()
        try:
            code, reason = ws.close_code(timeout=10)
        finally:
            stop.set()
            sender.join()
    assert code == 1009 and reason


@pytest.mark.slow
def test_a_closed_socket_frees_its_places_at_once(server):
    frame = as_jpeg(np.full((480, 640, 3), 200, np.uint8))
    for _ in range(2):  # twice the per-address limit, one pair after the other
        with connect(ws_url(server)) as a, connect(ws_url(server)) as b:
            for live in (a, b):
                assert json.loads(live.recv(timeout=10))["type"] == "ready"
                for _ in range(3):
                    live.send(frame)
    ready = httpx.get(server.url + "/readyz", timeout=10).json()
    assert ready["pool"]["live_jobs"]["admitted"] <= 1  # at most one still finishing


@pytest.mark.slow
def test_x_forwarded_for_is_not_trusted_by_default(server):
    opened = []
    with contextlib.ExitStack() as stack:
        for fake in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
            live = stack.enter_context(
                connect(ws_url(server), additional_headers={"X-Forwarded-For": fake})
            )
            opened.append(json.loads(live.recv(timeout=10)))
        with pytest.raises(ConnectionClosed):
            live.recv(timeout=10)
    assert [m["type"] for m in opened] == ["ready", "ready", "error"]
    assert opened[2]["code"] == "too_many_connections" and "per client" in opened[2]["message"]
    assert live_records(server)[-1]["client"] == "127.0.0.1"  # no X-Forwarded-For's


# -- a reconnecting client's place, without a server -------------------------------------------


def test_a_reconnect_waits_for_its_closing_sockets_place_but_a_full_server_does_not():
    """The server answers a close before the app lets the socket's place go: a client that
    reconnects at once (two of two places, one closing) is admitted when the place frees,
    a client still holding both is refused after the grace, and a full server at once."""
    from api.service.routers.live import Connections

    async def scenario():
        connections = Connections(total=3, per_client=2)
        for _ in range(2):
            assert connections.admit("a") is None
        loop = asyncio.get_running_loop()
        loop.call_later(0.1, connections.release, "a")  # the closing socket's place
        reconnect = await connections.admit_soon("a", grace_s=2)
        started = time.monotonic()
        held = await connections.admit_soon("a", grace_s=0.3)  # both places still held
        waited = time.monotonic() - started
        assert connections.admit("b") is None  # the server is now full (3 of 3)
        started = time.monotonic()
        full = await connections.admit_soon("c", grace_s=2)
        return reconnect, held, waited, full, time.monotonic() - started

    reconnect, held, waited, full, full_waited = asyncio.run(scenario())
    assert reconnect is None
    assert "per client" in held and waited >= 0.3
    assert "limit" in full and "server has 3" in full and full_waited < 0.1


# -- the solver pool's dispatch order, without processes ---------------------------------------


def test_a_photo_waits_for_at_most_one_live_frame():
    """While the one process is busy, a photo, three live frames and a puzzle wait: the
    puzzle (milliseconds) and one frame may go first, then the photo, whatever else waits."""

    async def scenario():
        pool = SolverPool(size=1, queue_length=8, timeout_s=30, env={})
        pool.idle.append(Worker(process=None, conn=None))
        busy = await pool.acquire("live")
        served = []

        async def job(kind, name):
            worker = await pool.acquire(kind)
            served.append(name)
            await asyncio.sleep(0.01)
            pool.release(worker)

        tasks = [asyncio.create_task(job("photo", "photo"))]
        await asyncio.sleep(0)
        tasks += [asyncio.create_task(job("live", f"live{i}")) for i in range(3)]
        tasks.append(asyncio.create_task(job("grid", "grid")))
        await asyncio.sleep(0)
        pool.release(busy)
        await asyncio.gather(*tasks)
        pool.io.shutdown(wait=False)
        return served

    served = asyncio.run(scenario())
    assert served[:2] == ["grid", "photo"], served
    assert served[2:] == ["live0", "live1", "live2"]


def test_live_frames_take_turns_and_are_not_refused():
    async def scenario():
        pool = SolverPool(size=1, queue_length=0, timeout_s=30, env={})
        order = []

        async def frame(name):
            async with pool.live_turn():
                order.append((name, pool.places["live"].admitted))
                await asyncio.sleep(0.01)

        await asyncio.gather(*(frame(n) for n in ("a", "b", "c")))
        pool.io.shutdown(wait=False)
        return order

    assert asyncio.run(scenario()) == [("a", 1), ("b", 1), ("c", 1)]
