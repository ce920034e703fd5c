"""ASGI middleware: bounds on every request body, HTTP hygiene, and the structured access log.

All plain ASGI (not BaseHTTPMiddleware) because they must see the request body as it streams
in and the response as it streams out, without buffering either. What ASGI cannot see (a
connection before its headers end) is bounded in api.service.protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import sys
import time
import uuid

from starlette.exceptions import HTTPException as StarletteHTTPException

from api.service.errors import error_body, internal, log_bug

access_log = logging.getLogger("sudoku_lens.access")

BODY_METHODS = {"POST", "PUT", "PATCH"}
REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class BodyRefused(StarletteHTTPException):
    """Raised from `receive` when the streamed body breaks a bound.

    A starlette HTTPException so that FastAPI's body parsing lets it through unchanged and
    the app's handler answers it in the JSON error shape; the connection is closed after
    (the rest of the body is not read).
    """

    code = "error"

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(status, message, headers={"Connection": "close", **(headers or {})})


class BodyTooLarge(BodyRefused):
    code = "too_large"

    def __init__(self, limit: int):
        size = f"{limit / 2**20:g} MB" if limit >= 2**20 else f"{limit / 1024:g} KB"
        super().__init__(413, f"the request body is larger than the {size} limit")


class BodyTooSlow(BodyRefused):
    code = "upload_timeout"

    def __init__(self, message: str):
        super().__init__(408, message)


class ServerFull(BodyRefused):
    code = "busy"

    def __init__(self, retry_after: int):
        super().__init__(
            503,
            "the server holds as many uploads as its memory bound allows; "
            f"retry in {retry_after} s",
            headers={"Retry-After": str(retry_after)},
        )


class InflightBytes:
    """The request bodies the server holds at once, all together, under one bound.

    A body reserves its bytes as they arrive (or its Content-Length, at once) and gives them
    back when its request ends: admission by bytes received, not by connections opened.

    >>> budget = InflightBytes(100)
    >>> budget.take(60), budget.take(50), budget.take(40), budget.held
    (True, False, True, 100)
    """

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.held = 0

    def take(self, n: int) -> bool:
        if self.held + n > self.max_bytes:
            return False
        self.held += n
        return True

    def give_back(self, n: int) -> None:
        self.held -= n


GRACE_S = 5.0  # an upload's first seconds are not judged by its rate (TCP slow start, radio)
# After refusing a body, what is still read (and dropped) before the connection is closed, so
# a client still sending sees the answer rather than a reset connection ("lingering close").
DRAIN_S = 2.0
DRAIN_BYTES = 64 * 2**20


class BodyLimits:
    """Every request body is bounded in size, memory, time, rate and silence before the app
    reads it.

    - size: a declared Content-Length over the route's limit is refused (413) before a body
      byte is read; a chunked body is counted as it arrives and refused as soon as it passes;
      `limits` gives some paths a smaller limit than `max_bytes` (a puzzle is a few KB).
    - memory: `budget` bounds the body bytes held by all requests at once, counted as they
      arrive (503 + Retry-After).
    - time: the whole body within `timeout_s`; after the first GRACE_S seconds at least
      `min_rate` bytes/s on average; never `idle_s` seconds without a byte (408).
    """

    def __init__(
        self,
        app,
        *,
        max_bytes: int,
        limits: dict[str, int],
        budget: InflightBytes,
        timeout_s: float,
        min_rate: float,
        idle_s: float,
        retry_after=lambda: 1,
    ):
        self.app = app
        self.max_bytes = max_bytes
        self.limits = limits
        self.budget = budget
        self.timeout_s = timeout_s
        self.min_rate = min_rate
        self.idle_s = idle_s
        self.retry_after = retry_after

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            return await self.app(scope, receive, send)
        limit = self.limits.get(scope["path"], self.max_bytes)
        declared = header(scope, b"content-length")
        if declared is not None:
            if not declared.isdigit():
                return await respond(send, 400, "malformed", "Content-Length is not a number")
            if int(declared) > limit:
                return await refuse(send, BodyTooLarge(limit), scope, receive)
        reserved = 0  # taken as the bytes arrive: a body refused early never holds its size
        loop = asyncio.get_running_loop()
        started = loop.time()
        received = 0
        complete = False

        refused = False

        async def guarded_receive():
            nonlocal received, reserved, complete, refused
            if complete or refused:  # after the body: waiting for a disconnect is not bounded
                return await receive()
            try:
                return await bounded_receive()
            except BodyRefused:
                refused = True
                raise

        async def bounded_receive():
            nonlocal received, reserved, complete
            now = loop.time()
            left = started + self.timeout_s - now
            try:
                async with asyncio.timeout(max(0.0, min(self.idle_s, left))):
                    message = await receive()
            except TimeoutError:
                if left <= self.idle_s:
                    raise BodyTooSlow(
                        f"the body did not arrive within {self.timeout_s:g} s "
                        f"({received} bytes received)"
                    ) from None
                raise BodyTooSlow(
                    f"no byte of the body arrived for {self.idle_s:g} s ({received} bytes received)"
                ) from None
            if message["type"] != "http.request":
                return message
            received += len(message.get("body", b""))
            complete = not message.get("more_body", False)
            if received > limit:
                raise BodyTooLarge(limit)
            if received > reserved:
                if not self.budget.take(received - reserved):
                    raise ServerFull(self.retry_after())
                reserved = received
            elapsed = loop.time() - started
            if not complete and elapsed > GRACE_S and received < self.min_rate * elapsed:
                raise BodyTooSlow(
                    f"the body arrives too slowly ({received / elapsed / 1024:.1f} KB/s; "
                    f"at least {self.min_rate / 1024:g} KB/s is needed)"
                )
            return message

        started_response = False

        async def watched_send(message):
            nonlocal started_response
            started_response = started_response or message["type"] == "http.response.start"
            last = message["type"] == "http.response.body" and not message.get("more_body")
            if refused and not complete and last:  # the refusal of a body still arriving
                await send({**message, "more_body": True})
                await drain(scope, receive)
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        try:
            await self.app(scope, guarded_receive, watched_send)
        except BodyRefused as error:  # raised somewhere no handler turned it into a response
            if started_response:
                raise
            await refuse(send, error, scope, receive)
        finally:
            self.budget.give_back(reserved)


async def drain(scope, receive) -> None:
    """Read and drop what is left of a refused body, for at most DRAIN_S and DRAIN_BYTES.

    Not for a client that waits for `100 Continue`: it has sent nothing and will not.

    Parameters
    ----------
    scope : dict
        The request's ASGI scope.
    receive : callable
        The server's own ASGI receive (not a bounded one).
    """
    if (header(scope, b"expect") or "").lower() == "100-continue":
        return
    dropped = 0
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(DRAIN_S):
            while dropped <= DRAIN_BYTES:
                message = await receive()
                if message["type"] != "http.request" or not message.get("more_body"):
                    return
                dropped += len(message.get("body", b""))


# The page and the API need nothing from elsewhere; Swagger UI at /docs loads its script and
# style from FastAPI's default CDN, so only there is that one origin allowed.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
    "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
DOCS_CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "connect-src 'self'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc", "/docs/oauth2-redirect")
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class Hardening:
    """HTTP hygiene on every answer: security headers and a strict Content-Security-Policy;
    a request carrying both Content-Length and Transfer-Encoding (the shape of request
    smuggling) is refused and its connection closed."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        csp = DOCS_CSP if scope["path"] in DOCS_PATHS else CSP

        async def secured_send(message):
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                if b"content-security-policy" not in present:
                    extra.append((b"content-security-policy", csp.encode()))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        if (
            header(scope, b"content-length") is not None
            and header(scope, b"transfer-encoding") is not None
        ):
            return await respond(
                secured_send,
                400,
                "malformed",
                "the request has both Content-Length and Transfer-Encoding; send one",
            )
        await self.app(scope, receive, secured_send)


class AccessLog:
    """One JSON line per request on the `sudoku_lens.access` logger.

    Fields: time, request id (the client's X-Request-ID if sane, else a new one; echoed in
    the response), method, path, status, milliseconds, bytes in and out, client, and the
    per-stage timings the handlers put in `request.state.timings`. Never the body.
    """

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        given = (header(scope, b"x-request-id") or "").strip()
        request_id = given if REQUEST_ID.match(given) else uuid.uuid4().hex[:16]
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        state["timings"] = {}
        state["log"] = {}
        started = time.perf_counter()
        facts = {"status": 500, "bytes_in": 0, "bytes_out": 0}  # 500 unless answered

        async def counted_receive():
            message = await receive()
            if message["type"] == "http.request":
                facts["bytes_in"] += len(message.get("body", b""))
            return message

        answered = False

        async def tagged_send(message):
            nonlocal answered
            if message["type"] == "http.response.start":
                answered = True
                facts["status"] = message["status"]
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", []),
                        (b"x-request-id", request_id.encode()),
                    ],
                }
            elif message["type"] == "http.response.body":
                facts["bytes_out"] += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, counted_receive, tagged_send)
        except Exception as error:  # a bug: logged with its text, answered without it
            log_bug(request_id, error)
            if answered:
                raise  # the answer had started: nothing clean can be sent any more
            await internal(request_id)(scope, counted_receive, tagged_send)
        finally:
            record = {
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "request_id": request_id,
                "method": scope["method"],
                "path": scope["path"],
                **facts,
                "ms": round((time.perf_counter() - started) * 1000, 2),
                "client": (scope.get("client") or ("?",))[0],
                **state["log"],
            }
            if state["timings"]:
                record["timings"] = state["timings"]
            access_log.info(json.dumps(record, separators=(",", ":")))


def header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


async def respond(
    send,
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    more: bool = False,
) -> None:
    """A JSON error response sent straight from middleware; the connection closes after it.

    Parameters
    ----------
    send : callable
        ASGI send.
    status : int
        HTTP status.
    code, message : str
        The error's code word and sentence.
    headers : dict, optional
        More response headers (e.g. Retry-After).
    more : bool
        Leave the response open (the caller sends the final empty body).
    """
    body = json.dumps(error_body(code, message), ensure_ascii=False, separators=(",", ":")).encode()
    extra = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *[(k, v) for k, v in extra if k != b"connection"],
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": bool(more)})


async def refuse(send, error: BodyRefused, scope=None, receive=None) -> None:
    """Answer a refused body; with `receive`, drop what is left of it before closing.

    Parameters
    ----------
    send : callable
        ASGI send.
    error : BodyRefused
        Status, code, message and headers of the answer.
    scope : dict, optional
        The request's scope (needed with `receive`).
    receive : callable, optional
        The server's ASGI receive, to drain the rest of the body.
    """
    draining = receive is not None
    status, code, message = error.status_code, error.code, error.detail
    await respond(send, status, code, message, error.headers, more=draining)
    if draining:
        await drain(scope, receive)
        await send({"type": "http.response.body", "body": b""})


def configure_access_log() -> None:
    """JSON lines on stderr for the access log, and the service's own messages (errors with
    their text, client disconnects) as plain lines beside them; once, unless the embedding
    program configured these loggers."""
    for logger, form in (
        (access_log, "%(message)s"),
        (logging.getLogger("sudoku_lens.service"), "%(levelname)s sudoku_lens: %(message)s"),
    ):
        if logger.handlers:
            continue
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(form))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
