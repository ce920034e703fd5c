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
