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
  a client at its own limit first waits up to ADMIT_GRACE_S for a socket it is closing;
- no frame for SUDOKU_LENS_LIVE_IDLE_S: `idle`, then the socket closes (1000);
- bytes that are not an image, text that is not a command: `not_an_image`,
  `corrupt_image`, `malformed`; the connection stays open. A text message over
  MAX_COMMAND_BYTES or nested deeper than MAX_COMMAND_DEPTH is `malformed` before it is
  parsed, and no error quotes more than EXCERPT characters of what the client sent.

Each connection is read all the time by one task, whatever the solvers do, and its frames
solved by another, one at a time. A frame waits for a live turn (every solver process but
one takes live frames, `SolverPool.live_turn`) as the connection's latest: a newer frame
arriving meanwhile
replaces it (`superseded`), so frames beyond what the solvers can take are dropped, never
queued, and photos never wait behind them. A socket that closes takes its waiting frame and
its places with it at once. Sends are bounded in time (SUDOKU_LENS_LIVE_SEND_TIMEOUT_S): a
client that stops reading is closed (see also api.service.protocol.BoundedWebSocket, which
bounds pings, message rates, oversized frames and the write buffer below the app).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import time

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from api.photo.live import FrameAnswer, LiveSession
from api.photo.schema import MODES
from api.service.jobs import Refused
from api.service.settings import Settings
from api.service.workers import JobTimeout, PoolClosed, SolverPool, WorkerCrashed

log = logging.getLogger("sudoku_lens.service")
access_log = logging.getLogger("sudoku_lens.access")  # one JSON line per live session

router = APIRouter(tags=["live"])

TRY_AGAIN_LATER = 1013  # WebSocket close code: a limit of the server, not the client's fault
NORMAL = 1000
# A command is a small JSON object ({"type": "mode", "mode": "hint"}): larger or deeper text
# is refused before json.loads sees it (deep nesting made it raise RecursionError).
MAX_COMMAND_BYTES = 1024
MAX_COMMAND_DEPTH = 8
EXCERPT = 40  # characters of the client's own text an error may quote
INBOX = 8  # commands waiting behind a frame being solved; beyond, `too_fast`
ADMIT_GRACE_S = 0.5  # how long a client at its limit waits for its closing socket's place


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

    async def admit_soon(self, client: str, grace_s: float = ADMIT_GRACE_S) -> str | None:
        """`admit`, a client at its own limit waiting up to `grace_s` for one of its places
        to free: a client that reconnects (a page reloaded, a socket replaced) closes its
        old socket first, but the server answers the close before this app has let that
        socket's place go, and on a busy machine the new socket comes in between."""
        deadline = time.monotonic() + grace_s
        while (refused := self.admit(client)) is not None and time.monotonic() < deadline:
            if sum(self.open.values()) >= self.total:
                break  # the server is full: other clients' places free no sooner for waiting
            await asyncio.sleep(0.02)
        return refused

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
    refused = await connections.admit_soon(client)
    if refused is not None:
        with contextlib.suppress(WebSocketDisconnect, OSError, TimeoutError, RuntimeError):
            await send(websocket, error("too_many_connections", refused), settings)
            await websocket.close(TRY_AGAIN_LATER, "too many connections")
        return
    facts = {"frames": 0, "errors": 0, "grids": 0, "reads": 0, "dropped": 0}
    started = time.perf_counter()
    try:
        await Connection(websocket, settings, websocket.app.state.pool, facts).serve()
    except (WebSocketDisconnect, OSError, RuntimeError):  # the client went away mid-answer
        pass
    except TimeoutError:  # it stopped reading: its answers could not be sent in time
        facts["closed"] = "send_timeout"
        log.warning(
            "closed a live connection from %s: it read nothing for %g s",
            client,
            settings.live_send_timeout_s,
        )
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


async def send(websocket: WebSocket, message: dict, settings: Settings) -> None:
    """One JSON message, or TimeoutError when the client has not read for the send
    timeout (its buffers are full)."""
    async with asyncio.timeout(settings.live_send_timeout_s):
        await websocket.send_text(json.dumps(message, separators=(",", ":")))


class Connection:
    """One live socket: a reader that answers what needs no solver at once and keeps the
    latest frame, and a solver task that takes frames and commands in order.

    `inbox` holds ("frame", seq, bytes) and ("command", text) items in arrival order; a
    frame arriving behind a frame still waiting replaces it (the older one is answered
    `superseded`), so at most one frame of a connection ever waits.
    """

    def __init__(self, websocket: WebSocket, settings: Settings, pool: SolverPool, facts: dict):
        self.websocket = websocket
        self.settings = settings
        self.pool = pool
        self.facts = facts
        self.session = LiveSession()
        self.rate = FrameRate(settings.live_max_fps)
        self.inbox: collections.deque = collections.deque()
        self.arrived = asyncio.Event()

    async def say(self, message: dict) -> None:
        dropped = message.get("code") == "superseded"
        self.facts["dropped"] += dropped
        self.facts["errors"] += message["type"] == "error" and not dropped
        self.facts["grids"] += message["type"] == "grid"
        self.facts["reads"] += message.get("read") is True
        await send(self.websocket, message, self.settings)

    async def serve(self) -> None:
        """Read until the client goes or stays silent; solve meanwhile; stop both at once."""
        await self.say(
            {
                "type": "ready",
                "mode": self.session.mode,
                "limits": {
                    "max_frame_bytes": self.settings.live_max_frame_bytes,
                    "max_pixels": self.settings.live_max_pixels,
                    "max_fps": self.settings.live_max_fps,
                    "idle_s": self.settings.live_idle_s,
                },
            }
        )
        solving = asyncio.create_task(self.solve_all())
        reading = asyncio.create_task(self.read_all())
        try:
            done, _ = await asyncio.wait((solving, reading), return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()  # a send that timed out, a disconnect
        finally:
            for task in (solving, reading):
                task.cancel()  # a frame waiting for its turn gives it up now
            await asyncio.gather(solving, reading, return_exceptions=True)
            self.inbox.clear()

    async def read_all(self) -> None:
        """Every message as it comes: frames to the inbox, errors answered at once."""
        settings = self.settings
        while True:
            try:
                async with asyncio.timeout(settings.live_idle_s):
                    message = await self.websocket.receive()
            except TimeoutError:
                await self.say(error("idle", f"no frame for {settings.live_idle_s:g} s; closing"))
                await self.websocket.close(NORMAL, "idle")
                return
            if message["type"] == "websocket.disconnect":
                return
            if message.get("bytes") is not None:
                self.facts["frames"] += 1
                refused = self.check_frame(message["bytes"], self.facts["frames"])
                if refused is not None:
                    await self.say(refused)
                else:
                    await self.keep_frame(self.facts["frames"], message["bytes"])
            else:
                await self.take_command(message.get("text") or "")

    def check_frame(self, data: bytes, seq: int) -> dict | None:
        """The error for a frame refused before any solver sees it, or None."""
        settings = self.settings
        if len(data) > settings.live_max_frame_bytes:
            return error(
                "frame_too_large",
                f"the frame is {len(data) / 1024:.0f} KB, over the "
                f"{settings.live_max_frame_kb:g} KB limit; send about 640 pixels on the long side",
                seq=seq,
            )
        if not self.rate.allow(time.perf_counter()):
            return error(
                "too_fast",
                f"more than {settings.live_max_fps:g} frames a second; this frame was not "
                "solved (send the next frame after the answer to the last)",
                seq=seq,
            )
        return None

    async def keep_frame(self, seq: int, data: bytes) -> None:
        """The frame becomes the one waiting; one still waiting before it is dropped."""
        if self.inbox and self.inbox[-1][0] == "frame":
            _, old, _ = self.inbox.pop()
            await self.say(superseded(old, seq))
        self.inbox.append(("frame", seq, data))
        self.arrived.set()

    async def take_command(self, text: str) -> None:
        problem = command_problem(text)
        if problem is None and sum(item[0] == "command" for item in self.inbox) >= INBOX:
            problem = error("too_fast", f"more than {INBOX} commands wait for a frame; send fewer")
        if problem is not None:
            await self.say(problem)
            return
        self.inbox.append(("command", text))
        self.arrived.set()

    async def solve_all(self) -> None:
        """Frames and commands in order, one at a time."""
        while True:
            while not self.inbox:
                self.arrived.clear()
                await self.arrived.wait()
            item = self.inbox.popleft()
            if item[0] == "command":
                await self.say(on_command(item[1], self.session))
                continue
            _, seq, data = item
            try:
                async with self.pool.live_turn():
                    if self.inbox and self.inbox[0][0] == "frame":  # came while waiting
                        _, newer, data = self.inbox.popleft()
                        await self.say(superseded(seq, newer))
                        seq = newer
                    answers = await on_frame(data, seq, self.session, self.settings, self.pool)
            except PoolClosed as closed:
                answers = [error("not_ready", str(closed), seq=seq)]
            del data
            for answer in answers:
                await self.say(answer)


def superseded(seq: int, newer: int) -> dict:
    return error(
        "superseded",
        f"frame {newer} came before this one could be solved; only the latest is solved",
        seq=seq,
    )


def excerpt(value) -> str:
    """A short quote of something the client sent, for an error message.

    >>> excerpt("dance"), excerpt("x" * 100)
    ("'dance'", "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (100 characters)")
    """
    text = repr(value)
    if len(text) <= EXCERPT:
        return text
    size = f" ({len(value)} characters)" if isinstance(value, str) else ""
    return f"{text[:EXCERPT]}...{size}"


def nesting(text: str, limit: int) -> bool:
    """Whether JSON text nests arrays and objects deeper than `limit` (strings skipped),
    judged without parsing it.

    >>> nesting('{"a": [[1]]}', 3), nesting('{"a": [[[1]]]}', 3), nesting('"[[[["', 1)
    (False, True, False)
    """
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def command_problem(text: str) -> dict | None:
    """The error for a text message refused before it is parsed (size, depth), or None."""
    if len(text) > MAX_COMMAND_BYTES:
        return error(
            "malformed",
            f"a command is at most {MAX_COMMAND_BYTES} characters; this one has {len(text)} "
            "(frames go as binary messages)",
        )
    if nesting(text, MAX_COMMAND_DEPTH):
        return error("malformed", f"a command nests at most {MAX_COMMAND_DEPTH} levels deep")
    return None


def on_command(text: str, session: LiveSession) -> dict:
    """A JSON command: {"type": "mode", "mode": "solve|check|hint"} or {"type": "reset"}."""
    problem = command_problem(text)
    if problem is not None:
        return problem
    try:
        command = json.loads(text)
    except (ValueError, RecursionError):
        return error("malformed", "a text message must be a JSON command; frames go as binary")
    kind = command.get("type") if isinstance(command, dict) else None
    if kind == "reset":
        session.reset()
        return {"type": "mode", "mode": session.mode}
    if kind == "mode":
        mode = command.get("mode")
        if mode not in MODES:
            return error(
                "malformed", f"unknown mode {excerpt(mode)}; choose one of {', '.join(MODES)}"
            )
        session.reset(mode)
        return {"type": "mode", "mode": session.mode}
    return error(
        "malformed",
        f"unknown command {excerpt(kind)}; send {{'type': 'mode' | 'reset'}} or a frame",
    )


async def on_frame(
    data: bytes,
    seq: int,
    session: LiveSession,
    settings: Settings,
    pool: SolverPool,
) -> list[dict]:
    """The messages answering one frame (inside its live turn)."""
    started = time.perf_counter()
    job = session.job(engine=settings.engine, max_pixels=settings.live_max_pixels)
    try:
        answer, timings = await pool.run("live", job, data)
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
