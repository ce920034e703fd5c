"""Run `sudoku-lens serve` as a child process on a free loopback port (tests, benchmarks).

A real server over real HTTP, started the way a user starts it, stopped for sure at the end,
with its memory readable from /proc (the event-loop process plus its solver processes).

>>> with LocalServer(workers=1) as server:           # doctest: +SKIP
...     httpx.get(server.url + "/readyz").json()["status"]
'ready'
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    """A TCP port nothing listens on right now, on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def children(pid: int) -> list[int]:
    """Direct child process ids, from /proc."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, in MB (Linux /proc)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
        todo += children(current)
    return total / 1024


def serve_command() -> list[str]:
    """The installed `sudoku-lens` script next to this Python, else the module entry."""
    script = Path(sys.executable).with_name("sudoku-lens")
    if script.exists():
        return [str(script), "serve"]
    return [sys.executable, "-c", "from api.cli import main; main()", "serve"]


class LocalServer:
    """`sudoku-lens serve --host 127.0.0.1 --port <free>` in a child process.

    env: extra SUDOKU_LENS_* variables; the server's stderr (its JSON access log) goes to
    `log_path`, readable after or during the run.
    """

    def __init__(
        self,
        *,
        workers: int = 1,
        env: dict[str, str] | None = None,
        ready_timeout_s: float = 180,
        log_path: str | Path | None = None,
        ssl: tuple[str | Path, str | Path] | None = None,
    ):
        self.port = free_port()
        self.ssl = ssl  # (certificate, key): serve HTTPS, as `serve --ssl-certfile/--ssl-keyfile`
        self.url = f"{'https' if ssl else 'http'}://127.0.0.1:{self.port}"
        self.workers = workers
        self.env = env or {}
        self.ready_timeout_s = ready_timeout_s
        self.log_path = Path(
            log_path or tempfile.mktemp(prefix="sudoku-lens-serve-", suffix=".log")
        )
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        env = {**os.environ, **self.env, "PYTHONUNBUFFERED": "1"}
        command = [*serve_command(), "--host", "127.0.0.1", "--port", str(self.port)]
        command += ["--workers", str(self.workers), "--log-level", "warning"]
        if self.ssl:
            command += ["--ssl-certfile", str(self.ssl[0]), "--ssl-keyfile", str(self.ssl[1])]
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            command, stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        self.wait_ready()

    def wait_ready(self) -> None:
        import httpx

        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"server exited with {self.process.returncode}:\n{self.log_tail()}"
                )
            try:
                if (
                    httpx.get(self.url + "/readyz", timeout=2, verify=self.verify).status_code
                    == 200
                ):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"server not ready after {self.ready_timeout_s} s:\n{self.log_tail()}")

    @property
    def verify(self):
        """What a client checks the server's certificate with: its own (self-signed) one."""
        if not self.ssl:
            return True
        import ssl

        return ssl.create_default_context(cafile=str(self.ssl[0]))

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def rss_mb(self) -> float:
        return tree_rss_mb(self.process.pid)

    def front_rss_mb(self) -> float:
        """The event-loop process's resident memory alone (not its solver processes), MB."""
        text = Path(f"/proc/{self.process.pid}/status").read_text()
        return next(int(line.split()[1]) for line in text.splitlines() if "VmRSS" in line) / 1024

    def log_text(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(errors="replace")

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def stop(self) -> None:
        """SIGTERM the server (it stops its solver processes), SIGKILL the group if stuck."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        self.log.close()


class RawWebSocket:
    """A WebSocket client over a bare socket that frames its messages itself, to behave as
    no library would (tests and bench/attack.py): never read, flood pings or tiny frames,
    announce a message larger than any limit and keep sending it.

    >>> with RawWebSocket(server.port) as ws:           # doctest: +SKIP
    ...     ws.send(b"\\xff\\xd8", opcode=2)
    ...     ws.messages(1)
    """

    TEXT, BINARY, CLOSE, PING = 1, 2, 8, 9

    def __init__(
        self,
        port: int,
        path: str = "/v1/live",
        headers: dict[str, str] | None = None,
        receive_buffer: int | None = None,
        source: str = "127.0.0.1",
    ):
        import base64

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:  # before connecting: a small window, a slow reader
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.bind((source, 0))
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{extra}\r\n".encode()
        )
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the server closed the connection during the handshake")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(head.decode("latin-1"))

    def __enter__(self) -> RawWebSocket:
        return self

    def __exit__(self, *exc) -> None:
        self.sock.close()

    @staticmethod
    def frame(payload: bytes, opcode: int = 2, length: int | None = None) -> bytes:
        """One masked client frame; `length` may claim more than `payload` holds."""
        import struct

        size = len(payload) if length is None else length
        if size < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 2**16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if payload else b""
        return head + mask + masked

    def send(self, payload: bytes | str, opcode: int | None = None) -> None:
        if isinstance(payload, str):
            payload, opcode = payload.encode(), opcode or self.TEXT
        self.sock.sendall(self.frame(payload, opcode or self.BINARY))

    def flood(self, burst: bytes, seconds: float) -> tuple[int, float | None]:
        """Send `burst` (whole frames) again and again for `seconds` without reading, as
        fast as the server takes them; never half a frame before more (a send cut by a
        timeout would leave one, and the server would parse garbage).

        Returns
        -------
        tuple
            (bytes sent, seconds until the server cut the connection, or None).
        """
        import select
        import time

        self.sock.setblocking(False)
        started, sent, pending = time.monotonic(), 0, memoryview(burst)
        try:
            while time.monotonic() - started < seconds:
                _, writable, _ = select.select([], [self.sock], [], 0.2)
                if not writable:
                    continue
                try:
                    n = self.sock.send(pending)
                except BlockingIOError:
                    continue
                except OSError:  # reset or broken pipe: the server cut it
                    return sent, time.monotonic() - started
                sent += n
                pending = pending[n:] if n < len(pending) else memoryview(burst)
            return sent, None
        finally:
            self.sock.settimeout(10)

    def read_frame(self, timeout: float = 10) -> tuple[int, bytes] | None:
        """(opcode, payload) of the next frame from the server; None once it closed."""
        import struct

        self.sock.settimeout(timeout)

        def need(n: int) -> bool:
            while len(self.buffer) < n:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return False
                self.buffer += chunk
            return True

        if not need(2):
            return None
        opcode, size = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F
        at = 2
        if size == 126:
            if not need(4):
                return None
            size, at = struct.unpack("!H", self.buffer[2:4])[0], 4
        elif size == 127:
            if not need(10):
                return None
            size, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
        if not need(at + size):
            return None
        payload, self.buffer = self.buffer[at : at + size], self.buffer[at + size :]
        return opcode, payload

    def messages(self, n: int, timeout: float = 10) -> list:
        """The next `n` text messages, parsed (a close frame ends the list early)."""
        import json

        found = []
        while len(found) < n:
            frame = self.read_frame(timeout)
            if frame is None or frame[0] == self.CLOSE:
                break
            if frame[0] == self.TEXT:
                found.append(json.loads(frame[1]))
        return found

    def close_code(self, timeout: float = 10) -> tuple[int | None, str]:
        """Read until the server's close frame: (its code, its reason); (None, "") if the
        connection ended without one."""
        import struct

        while True:
            try:
                frame = self.read_frame(timeout)
            except (ConnectionResetError, TimeoutError):
                return None, ""
            if frame is None:
                return None, ""
            if frame[0] == self.CLOSE:
                payload = frame[1]
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                return code, payload[2:].decode(errors="replace")
