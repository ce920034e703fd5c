"""ASGI middleware: the body-size limit and the structured access log.

Both are plain ASGI (not BaseHTTPMiddleware) because they must see the request body as it
streams in and the response as it streams out, without buffering either.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid

from starlette.exceptions import HTTPException as StarletteHTTPException

from api.service.errors import error_body

access_log = logging.getLogger("sudoku_lens.access")

BODY_METHODS = {"POST", "PUT", "PATCH"}
REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class BodyTooLarge(StarletteHTTPException):
    """Raised from `receive` the moment the streamed body passes the limit.

    A starlette HTTPException so that FastAPI's body parsing lets it through unchanged.
    """

    def __init__(self, limit: int):
        super().__init__(413, f"the request body is larger than the {limit / 2**20:g} MB limit")


class BodyLimit:
    """Refuse bodies over `max_bytes` with 413 before reading them whole.

    A declared Content-Length over the limit is refused before a single body byte is read;
    a body without one (chunked) is counted as it arrives and refused as soon as it passes
    the limit, so at most `max_bytes` plus one chunk is ever held.
    """

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            return await self.app(scope, receive, send)
        declared = header(scope, b"content-length")
        if declared is not None:
            if not declared.isdigit():
                return await respond(send, 400, "malformed", "Content-Length is not a number")
            if int(declared) > self.max_bytes:
                return await respond(send, 413, "too_large", BodyTooLarge(self.max_bytes).detail)
        received = 0
        started = False

        async def counted_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def watched_send(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge as error:  # raised somewhere no handler turned it into a response
            if started:
                raise
            await respond(send, 413, "too_large", error.detail)


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
        facts = {"status": 500, "bytes_in": 0, "bytes_out": 0}

        async def counted_receive():
            message = await receive()
            if message["type"] == "http.request":
                facts["bytes_in"] += len(message.get("body", b""))
            return message

        async def tagged_send(message):
            if message["type"] == "http.response.start":
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


async def respond(send, status: int, code: str, message: str) -> None:
    """A complete JSON error response sent straight from middleware."""
    body = json.dumps(error_body(code, message), ensure_ascii=False, separators=(",", ":")).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def configure_access_log() -> None:
    """JSON lines on stderr, once, unless the embedding program configured the logger."""
    if access_log.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    access_log.addHandler(handler)
    access_log.setLevel(logging.INFO)
    access_log.propagate = False
