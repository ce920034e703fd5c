"""uvicorn's HTTP/1.1 protocol (h11) with the bounds ASGI middleware cannot give.

An ASGI app first hears of a request when its headers are complete, so a connection that
sends nothing, half a request line or headers without an end is invisible to it; uvicorn
itself bounds only the idle time *between* requests (`timeout_keep_alive`). This subclass
adds a deadline from the moment a connection opens (or its previous answer is sent) to the
end of the next request's headers: past it, a connection that sent part of a request gets a
408 in the service's JSON error shape, and one that sent nothing is just closed. Requests
h11 itself finds malformed get the JSON error shape too, instead of uvicorn's plain text.
The body is bounded in api.service.middleware.BodyLimits. A request upgraded to a WebSocket
leaves the deadline behind (the live route has its own idle limit).

>>> protocol = guarded_h11(header_timeout_s=10)
>>> protocol.header_timeout_s, issubclass(protocol, H11Protocol)
(10, True)
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from api.service.errors import error_body

log = logging.getLogger("sudoku_lens.service")


def raw_error(status: int, reason: bytes, code: str, message: str) -> tuple[list, bytes]:
    """Headers and body of an error answered below the ASGI app (it closes the connection).

    Parameters
    ----------
    status : int
        HTTP status.
    reason : bytes
        Its reason phrase.
    code, message : str
        The error's code word and sentence.

    Returns
    -------
    tuple
        (headers as (name, value) byte pairs, the JSON body).
    """
    body = json.dumps(error_body(code, message), separators=(",", ":")).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        (b"x-content-type-options", b"nosniff"),
    ]
    return headers, body


class GuardedH11Protocol(H11Protocol):
    """H11Protocol plus a deadline on each request's headers (see the module docstring)."""

    header_timeout_s: float = 10.0
    header_timer = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.arm_header_timer()

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle:  # a request's headers ended: the app bounds the rest
            self.cancel_header_timer()

    def handle_websocket_upgrade(self, event) -> None:
        """A WebSocket (/v1/live) takes the connection over: its headers ended, and from
        here its own protocol and the live route bound it (idle time, frame limits)."""
        self.cancel_header_timer()
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        cycle = self.cycle
        self.arm_header_timer()
        super().on_response_complete()
        if self.cycle is not cycle or self.transport.is_closing():
            self.cancel_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self.cancel_header_timer()
        super().connection_lost(exc)

    def arm_header_timer(self) -> None:
        self.cancel_header_timer()
        self.header_timer = self.loop.call_later(self.header_timeout_s, self.headers_too_slow)

    def cancel_header_timer(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def headers_too_slow(self) -> None:
        """Close the connection; with a 408 if part of a request had arrived."""
        self.header_timer = None
        if self.transport.is_closing():
            return
        partial, _ = self.conn.trailing_data
        # Said in the log: a client that connects and then stalls sees only a closed
        # connection, and the operator is the one left to tell a slow client from an attack.
        log.warning(
            "closed a connection from %s: %s within %g s",
            self.client[0] if self.client else "?",
            "its request's headers did not end" if partial else "it sent no request",
            self.header_timeout_s,
        )
        if partial:
            headers, body = raw_error(
                408,
                b"Request Timeout",
                "request_timeout",
                f"the request's headers did not end within {self.header_timeout_s:g} s",
            )
            head = b"HTTP/1.1 408 Request Timeout\r\n"
            head += b"".join(name + b": " + value + b"\r\n" for name, value in headers)
            self.transport.write(head + b"\r\n" + body)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request h11 cannot parse, in the JSON error shape."""
        headers, body = raw_error(
            400,
            b"Bad Request",
            "malformed",
            "the request is not valid HTTP/1.1 (request line, headers or framing)",
        )
        try:
            for event in (
                h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                h11.Data(data=body),
                h11.EndOfMessage(),
            ):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:  # too late to answer (a response had started)
            pass
        self.transport.close()


def guarded_h11(*, header_timeout_s: float) -> type[GuardedH11Protocol]:
    """The protocol class to hand uvicorn (`http=`), with this header deadline.

    Parameters
    ----------
    header_timeout_s : float
        Seconds from a connection's opening (or its last answer) to the end of the next
        request's headers.

    Returns
    -------
    type
        A GuardedH11Protocol subclass.
    """
    return type("GuardedH11", (GuardedH11Protocol,), {"header_timeout_s": header_timeout_s})


# -- WebSocket (/v1/live) ---------------------------------------------------------------------

# Bytes parsed at a time: few after a message (a burst of tiny frames is counted as it is
# parsed, never parsed whole), doubling while no message ends (a large frame).
FEED_BYTES = (512, 65536)
WRITE_HOLD_BYTES = 64 * 1024  # unsent bytes (answers, pongs) past which nothing more is read
KERNEL_SEND_BYTES = 64 * 1024  # the socket's kernel send buffer (Linux doubles it)
LINGER_S = 2.0  # a closing socket's last chance to take its close frame, then it is cut
DRAIN_BYTES = 64 * 2**20  # most bytes thrown away after refusing an oversized message


class BoundedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, bounded in time and memory whatever the client does.

    - Bytes are parsed FEED_BYTES at a time, and only while the app has taken every message
      parsed before: unparsed bytes wait in the kernel (reading is paused), so the client is
      slowed by TCP itself, not by the event loop's work.
    - Messages (frames and commands) and pings are counted per second; past `max_messages_s`
      or `max_pings_s` nothing more is read until the second ends, so pongs are answered at a
      bounded rate and a flood of tiny frames costs a bounded share of the loop.
    - Past WRITE_HOLD_BYTES of unsent answers nothing more is read either; a write buffer that
      stays full (the client reads nothing) for `send_timeout_s` cuts the connection, as does
      a close that has not completed LINGER_S after its close frame (a keepalive ping
      unanswered, the app's close, the app's end).
    - A message over the size limit is answered with close code 1009 and the connection is
      kept LINGER_S more, its input thrown away, so a client still sending gets the close
      frame rather than a reset.
    """

    send_timeout_s: float = 20.0
    max_messages_s: float = 70.0
    max_pings_s: float = 5.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.unparsed = b""
        self.at = 0  # how much of `unparsed` was fed to the parser
        self.feed_bytes = FEED_BYTES[0]
        self.reading = True
        self.window = (0.0, 0, 0)  # (start, messages, pings)
        self.held_until = 0.0
        self.wake = None
        self.stall_timer = None
        self.parsed = 0  # messages and pings so far
        self.draining = -1  # bytes thrown away after a refusal; -1 while not draining

    # -- reading, paced --------------------------------------------------------------------
    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        transport.set_write_buffer_limits(high=WRITE_HOLD_BYTES)
        # The kernel's own send buffer would otherwise grow to megabytes for a client that
        # reads nothing (answers are a few hundred bytes): a fixed one lets the write buffer
        # fill, and the send timeout tell, within seconds.
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, KERNEL_SEND_BYTES)

    def data_received(self, data: bytes) -> None:
        if self.draining >= 0:
            self.draining += len(data)
            if self.draining > DRAIN_BYTES:
                self.transport.abort()
            return
        self.unparsed = self.unparsed[self.at :] + data
        self.at = 0
        self.feed()

    def feed(self) -> None:
        """Parse what has arrived, a little at a time, while nothing holds it back."""
        if self.wake is not None:
            self.wake.cancel()
            self.wake = None
        if self.transport is None or self.draining >= 0:
            return
        while self.at < len(self.unparsed) and not self.holding():
            chunk = self.unparsed[self.at : self.at + self.feed_bytes]
            self.at += len(chunk)
            self.conn.receive_data(chunk)
            if self.conn.parser_exc is not None:
                self.handle_parser_exception()
                return
            ended = self.handle_events()
            small, large = FEED_BYTES
            self.feed_bytes = small if ended else min(large, 2 * self.feed_bytes)
        if self.at >= len(self.unparsed):
            self.unparsed, self.at = b"", 0
        self.set_reading(not self.unparsed and not self.holding())
        if self.held_until > self.loop.time() and not self.transport.is_closing():
            self.wake = self.loop.call_at(self.held_until, self.feed)

    def holding(self) -> bool:
        """Whether to parse nothing more for now: the app has a message it has not taken,
        the client sent its share for this second, or answers wait to be sent."""
        if self.transport.is_closing():
            return False
        if not self.close_sent and not self.queue.empty():
            return True
        if self.loop.time() < self.held_until:
            return True
        return self.transport.get_write_buffer_size() > WRITE_HOLD_BYTES

    def set_reading(self, wanted: bool) -> None:
        if wanted == self.reading or self.transport.is_closing():
            return
        self.reading = wanted
        if wanted:
            self.transport.resume_reading()
        else:
            self.transport.pause_reading()

    def handle_events(self) -> int:
        """uvicorn's, returning how many messages and pings it parsed."""
        before = self.parsed
        super().handle_events()
        return self.parsed - before

    def count(self, messages: int = 0, pings: int = 0) -> None:
        """Count a message or a ping in this second; past a limit, hold until it ends."""
        self.parsed += 1
        now = self.loop.time()
        start, seen, pinged = self.window
        if now - start >= 1.0:
            start, seen, pinged = now, 0, 0
        seen, pinged = seen + messages, pinged + pings
        self.window = (start, seen, pinged)
        if seen >= self.max_messages_s or pinged >= self.max_pings_s:
            self.held_until = start + 1.0

    def send_receive_event_to_app(self) -> None:
        """As uvicorn's, but reading is paced by `feed`, and each message counted."""
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            return
        self.count(messages=1)
        if self.curr_msg_data_type == "text":
            try:
                text = data.decode()
            except UnicodeDecodeError:  # websockets checks UTF-8 first; kept as uvicorn has it
                self.conn.fail(1007, "a text message must be UTF-8")
                self.handle_parser_exception()
                return
            self.queue.put_nowait({"type": "websocket.receive", "text": text})
        else:
            self.queue.put_nowait({"type": "websocket.receive", "bytes": data})

    def handle_ping(self) -> None:
        self.count(pings=1)
        super().handle_ping()

    async def receive(self):
        message = await self.queue.get()
        if self.queue.empty():
            self.loop.call_soon(self.feed)
        return message

    # -- writing, bounded in time ----------------------------------------------------------
    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall_timer is None:
            self.stall_timer = self.loop.call_later(self.send_timeout_s, self.stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None
        self.feed()

    def stalled(self) -> None:
        self.stall_timer = None
        log.warning(
            "closed a WebSocket from %s: it read nothing for %g s",
            self.client[0] if self.client else "?",
            self.send_timeout_s,
        )
        self.transport.abort()

    def cut_later(self, seconds: float = LINGER_S) -> None:
        """Abort the connection if it is still open `seconds` from now (a close stuck
        behind a write buffer the client never reads)."""
        self.loop.call_later(seconds, self.cut)

    def cut(self) -> None:
        if not self.disconnected:
            self.transport.abort()

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()
        self.cut_later()

    async def send(self, message) -> None:
        await super().send(message)
        if message["type"] == "websocket.close":
            self.feed()  # the client's close frame is read whatever else waits
            self.cut_later(self.close_timeout + LINGER_S)

    async def run_asgi(self) -> None:
        await super().run_asgi()
        if not self.writable.is_set() and not self.disconnected:
            self.transport.abort()  # the app gave up on a client that reads nothing
        else:
            self.cut_later(self.close_timeout + LINGER_S)

    def handle_parser_exception(self) -> None:
        """Close with the parser's code (1009 for a message too large, 1002, 1007) and a
        reason, then keep reading and dropping for LINGER_S so the close frame arrives."""
        assert self.conn.close_sent is not None
        close = self.conn.close_sent
        self.queue.put_nowait(
            {"type": "websocket.disconnect", "code": close.code, "reason": close.reason}
        )
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.unparsed, self.at = b"", 0
        self.draining = 0
        self.set_reading(True)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        # as the app's own close does (uvicorn then leaves the transport open when it ends)
        self.close_timer = self.loop.call_later(LINGER_S, self.transport.close)
        self.cut_later(2 * LINGER_S)

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self.wake, self.stall_timer):
            if timer is not None:
                timer.cancel()
        self.unparsed, self.at = b"", 0
        super().connection_lost(exc)


def bounded_websocket(
    *, send_timeout_s: float, max_messages_s: float, max_pings_s: float = 5.0
) -> type[BoundedWebSocket]:
    """The WebSocket protocol class to hand uvicorn (`ws=`), with these bounds.

    Parameters
    ----------
    send_timeout_s : float
        Seconds a full write buffer may stay full before the connection is cut.
    max_messages_s, max_pings_s : float
        Messages and pings read from one connection a second.

    Returns
    -------
    type
        A BoundedWebSocket subclass.
    """
    bounds = {
        "send_timeout_s": send_timeout_s,
        "max_messages_s": max_messages_s,
        "max_pings_s": max_pings_s,
    }
    return type("BoundedWS", (BoundedWebSocket,), bounds)
