"""WebSocket /v1/live: the phone's camera frames in, the grid's corners and solution out.

The protocol (docs/live.md): the client sends each frame as one binary message (a JPEG of
about 640 pixels on the long side) and sends the next only after the answer to the last, so
no queue builds up anywhere; text messages are JSON commands (`mode`, `reset`). The server
answers every frame with one `frame` message (preceded, once per grid, by a `grid` message
with the solution) or one `error` message naming what is wrong; it never drops a frame or the
connection without saying why. Frames are solved in the same bounded solver processes as
POST /v1/solve (their own places, "live"), and every limit is a setting:

- a frame larger than SUDOKU_LENS_LIVE_MAX_FRAME_KB, or of more pixels than
  SUDOKU_LENS_LIVE_MAX_PIXELS: `frame_too_large` / `image_too_large`;
- more frames a second than SUDOKU_LENS_LIVE_MAX_FPS: `too_fast` (the frame is not solved);
- more connections than SUDOKU_LENS_LIVE_MAX_CONNECTIONS, or from one address than
  SUDOKU_LENS_LIVE_MAX_PER_CLIENT: `too_many_connections`, then the socket closes (1013);
- no frame for SUDOKU_LENS_LIVE_IDLE_S: `idle`, then the socket closes (1000);
- every solver busy and the queue full: `busy` with `retry_after_ms`;
- bytes that are not an image, text that is not a command: `not_an_image`,
  `corrupt_image`, `malformed`; the connection stays open.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import time

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from api.live import FrameAnswer, LiveSession
from api.schema import MODES
from api.service.jobs import Refused
from api.service.settings import Settings
from api.service.workers import JobTimeout, PoolClosed, QueueFull, SolverPool, WorkerCrashed

log = logging.getLogger("sudoku_lens.service")
access_log = logging.getLogger("sudoku_lens.access")  # one JSON line per live session

router = APIRouter(tags=["live"])

TRY_AGAIN_LATER = 1013  # WebSocket close code: a limit of the server, not the client's fault
NORMAL = 1000


class Connections:
    """Live connections open now, in all and per client address.

    >>> connections = Connections(total=2, per_client=1)
    >>> connections.admit("a") is None, connections.admit("a") is not None
    (True, True)
    """

    def __init__(self, total: int, per_client: int):
        self.total = total
        self.per_client = per_client
        self.open: collections.Counter[str] = collections.Counter()

    def admit(self, client: str) -> str | None:
        """Take a place for `client`, or say which limit is reached (nothing taken)."""
        if sum(self.open.values()) >= self.total:
            return (
                f"the server has {self.total} live connections open, its limit; "
                "try again in a minute"
            )
        if self.open[client] >= self.per_client:
            return (
                f"this address already has {self.per_client} live connections open, "
                "the limit per client; close one first"
            )
        self.open[client] += 1
        return None

    def release(self, client: str) -> None:
        self.open[client] -= 1
        if self.open[client] <= 0:
            del self.open[client]


class FrameRate:
    """Frames a connection sent in the last second, against its limit.

    >>> rate = FrameRate(2)
    >>> [rate.allow(t) for t in (0.0, 0.1, 0.2, 1.05, 1.2)]
    [True, True, False, True, True]
    """

    def __init__(self, max_fps: float):
        self.max_fps = max_fps
        self.times: collections.deque[float] = collections.deque()

    def allow(self, now: float) -> bool:
        while self.times and now - self.times[0] >= 1.0:
            self.times.popleft()
        if len(self.times) >= self.max_fps:
            return False
        self.times.append(now)
        return True


def error(code: str, message: str, **extra) -> dict:
    return {"type": "error", "code": code, "message": message, **extra}


def connections_of(websocket: WebSocket) -> Connections:
    state = websocket.app.state
    if not hasattr(state, "live_connections"):
        settings: Settings = state.settings
        state.live_connections = Connections(
            settings.live_max_connections, settings.live_max_per_client
        )
    return state.live_connections


@router.websocket("/v1/live")
async def live(websocket: WebSocket) -> None:
    """One live camera session (see the module docstring and docs/live.md)."""
    settings: Settings = websocket.app.state.settings
    connections = connections_of(websocket)
    client = websocket.client.host if websocket.client else "?"
    await websocket.accept()
    refused = connections.admit(client)
    if refused is not None:
        await websocket.send_json(error("too_many_connections", refused))
        await websocket.close(TRY_AGAIN_LATER, "too many connections")
        return
    facts = {"frames": 0, "errors": 0, "grids": 0, "reads": 0}
    started = time.perf_counter()
    try:
        await serve(websocket, settings, websocket.app.state.pool, facts)
    except (WebSocketDisconnect, OSError):  # the client went away mid-answer
        pass
    finally:
        connections.release(client)
        record = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "method": "WEBSOCKET",
            "path": "/v1/live",
            **facts,
            "seconds": round(time.perf_counter() - started, 2),
            "client": client,
        }
        access_log.info(json.dumps(record, separators=(",", ":")))


async def serve(websocket: WebSocket, settings: Settings, pool: SolverPool, facts: dict) -> None:
    """Answer every message of one connection until the client goes or stays silent;
    `facts` counts frames, errors, grids and reads for the access log."""
    session = LiveSession()
    rate = FrameRate(settings.live_max_fps)
    await websocket.send_json(
        {
            "type": "ready",
            "mode": session.mode,
            "limits": {
                "max_frame_bytes": settings.live_max_frame_bytes,
                "max_pixels": settings.live_max_pixels,
                "max_fps": settings.live_max_fps,
                "idle_s": settings.live_idle_s,
            },
        }
    )
    while True:
        try:
            async with asyncio.timeout(settings.live_idle_s):
                message = await websocket.receive()
        except TimeoutError:
            text = f"no frame for {settings.live_idle_s:g} s; closing"
            await websocket.send_json(error("idle", text))
            await websocket.close(NORMAL, "idle")
            return
        if message["type"] == "websocket.disconnect":
            return
        if message.get("bytes") is not None:
            facts["frames"] += 1
            seq = facts["frames"]
            answers = await on_frame(message["bytes"], seq, session, rate, settings, pool)
            for answer in answers:
                facts["errors"] += answer["type"] == "error"
                facts["grids"] += answer["type"] == "grid"
                facts["reads"] += answer.get("read") is True
                await websocket.send_json(answer)
        else:
            answer = on_command(message.get("text") or "", session)
            facts["errors"] += answer["type"] == "error"
            await websocket.send_json(answer)


def on_command(text: str, session: LiveSession) -> dict:
    """A JSON command: {"type": "mode", "mode": "solve|check|hint"} or {"type": "reset"}."""
    try:
        command = json.loads(text)
    except ValueError:
        return error("malformed", "a text message must be a JSON command; frames go as binary")
    kind = command.get("type") if isinstance(command, dict) else None
    if kind == "reset":
        session.reset()
        return {"type": "mode", "mode": session.mode}
    if kind == "mode":
        mode = command.get("mode")
        if mode not in MODES:
            return error("malformed", f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        session.reset(mode)
        return {"type": "mode", "mode": session.mode}
    return error(
        "malformed", f"unknown command {kind!r}; send {{'type': 'mode' | 'reset'}} or a frame"
    )


async def on_frame(
    data: bytes,
    seq: int,
    session: LiveSession,
    rate: FrameRate,
    settings: Settings,
    pool: SolverPool,
) -> list[dict]:
    """The messages answering one frame."""
    started = time.perf_counter()
    if len(data) > settings.live_max_frame_bytes:
        return [
            error(
                "frame_too_large",
                f"the frame is {len(data) / 1024:.0f} KB, over the "
                f"{settings.live_max_frame_kb:g} KB limit; send about 640 pixels on the long side",
                seq=seq,
            )
        ]
    if not rate.allow(started):
        return [
            error(
                "too_fast",
                f"more than {settings.live_max_fps:g} frames a second; this frame was not "
                "solved (send the next frame after the answer to the last)",
                seq=seq,
            )
        ]
    job = session.job(engine=settings.engine, max_pixels=settings.live_max_pixels)
    try:
        async with pool.slot("live"):
            answer, timings = await pool.run("live", job, data)
    except QueueFull as full:
        text = f"every solver is busy; send a frame again in {full.retry_after} s"
        return [error("busy", text, seq=seq, retry_after_ms=1000 * full.retry_after)]
    except JobTimeout as late:
        return [error("timeout", f"gave up on this frame: {late}", seq=seq)]
    except PoolClosed as closed:
        return [error("not_ready", str(closed), seq=seq)]
    except WorkerCrashed as crash:
        log.error("internal error in a live frame: %s", crash)
        return [error("internal", "internal error on this frame; this is a bug", seq=seq)]
    if isinstance(answer, Refused):
        return [error(answer.failure.code, answer.failure.message, seq=seq)]
    messages = session.answer(answer)
    messages[-1].update(seq=seq, ms=server_ms(answer, timings, started))
    return messages


def server_ms(answer: FrameAnswer, timings: dict, started: float) -> dict:
    """Milliseconds: the whole frame on the server, waiting for a solver, and its stages."""
    return {
        "total": round((time.perf_counter() - started) * 1000, 2),
        "queue": timings.get("queue", 0.0),
        **answer.timings,
    }
