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

import json
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

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
