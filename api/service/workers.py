"""A bounded pool of solver processes: where the CPU-bound work runs, never on the event loop.

Why processes and not threads: reading a photo is mostly OpenCV and NumPy (which release the
GIL) but also Python glue, Tesseract calls and numba code, and one pathological photo or
puzzle must not be able to stall the server. A process can be killed when it overruns the
per-request time limit; a thread cannot. The jobs travel as compressed bytes (the upload in,
the JPEG overlay and a JSON-ready dict out), so the pipe between processes costs little.
One uvicorn process keeps the event loop, the limits and the overlay cache; `workers`
processes do the solving, so the queue bound and the cache are the same for every request.

Admission is bounded: at most `workers` jobs run and `queue_length` wait; the next one is
refused at once with `QueueFull` (HTTP 503 + Retry-After) instead of piling up memory.
Each job has a deadline counted from admission; a job still running then gets its process
killed and replaced (HTTP 504).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any


class QueueFull(Exception):
    """Every solver process is busy and the waiting queue is full."""

    def __init__(self, retry_after: int):
        super().__init__(f"the server is busy; retry in {retry_after} s")
        self.retry_after = retry_after


class JobTimeout(Exception):
    """The job did not finish within the per-request time limit."""


class WorkerCrashed(Exception):
    """The solver process died while working on the job."""


class PoolClosed(Exception):
    """The pool is shutting down or failed to start."""


def worker_main(conn, settings_env: dict[str, str], opencv_threads: int | None = None) -> None:
    """Body of a solver process: warm up, say ready, then answer jobs until told to stop."""
    import os

    os.environ.update(settings_env)
    from api.service import jobs
    from api.threads import limit_threads

    limit_threads(opencv=opencv_threads)

    conn.send(("ready", jobs.warm_up()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if message is None:
            return
        kind, payload = message
        started = time.perf_counter()
        try:
            reply = ("ok", jobs.run(kind, payload))
        except Exception as error:  # reported to the parent, which answers 500
            reply = ("crash", f"{type(error).__name__}: {error}")
        conn.send((*reply, (time.perf_counter() - started) * 1000))


@dataclass(eq=False)
class Worker:
    """One solver process and the parent's end of its pipe."""

    process: Any
    conn: Any
    info: dict = field(default_factory=dict)
    jobs_done: int = 0

    def roundtrip(self, message: tuple) -> tuple:
        """Send a job and wait for its reply (runs in a helper thread, never the loop)."""
        try:
            self.conn.send(message)
            return self.conn.recv()
        except (EOFError, OSError, BrokenPipeError) as error:
            raise WorkerCrashed(f"solver process {self.process.pid} exited") from error

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.conn.close()
        with contextlib.suppress(Exception):
            self.process.join(timeout=5)


class SolverPool:
    """`size` solver processes behind a bounded queue.

    >>> pool = SolverPool(size=2, queue_length=8, timeout_s=30, env={})  # doctest: +SKIP
    >>> await pool.start()  # doctest: +SKIP
    >>> async with pool.slot():  # doctest: +SKIP
    ...     answer, timings = await pool.run("grid", {"puzzle": "...", "limit": 2})
    """

    def __init__(self, *, size: int, queue_length: int, timeout_s: float, env: dict[str, str]):
        self.size = size
        self.max_jobs = size + queue_length
        self.timeout_s = timeout_s
        self.env = env
        self.context = multiprocessing.get_context("spawn")
        self.idle: asyncio.Queue[Worker] = asyncio.Queue()
        self.workers: set[Worker] = set()
        self.admitted = 0
        self.running = 0
        self.mean_ms = 1000.0  # running estimate of one job's time, for Retry-After
        self.counts = {"done": 0, "refused": 0, "timeouts": 0, "crashes": 0}
        self.io = ThreadPoolExecutor(max_workers=size + 2, thread_name_prefix="solver-io")
        self.closed = False
        self.pending: set[asyncio.Task] = set()

    # -- life cycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Start every process and wait until each has warmed up (models, Tesseract, numba)."""
        workers = await asyncio.gather(*(self.spawn() for _ in range(self.size)))
        for worker in workers:
            self.idle.put_nowait(worker)

    async def spawn(self) -> Worker:
        parent, child = self.context.Pipe()
        process = self.context.Process(
            target=worker_main,
            # Several solver processes share the cores; one alone may use OpenCV's threads.
            args=(child, self.env, 1 if self.size > 1 else None),
            daemon=True,
            name="sudoku-lens-solver",
        )
        process.start()
        child.close()
        worker = Worker(process, parent)
        try:
            tag, info = await asyncio.get_running_loop().run_in_executor(self.io, parent.recv)
        except (EOFError, OSError) as error:
            worker.kill()
            raise PoolClosed(
                f"a solver process failed to start (exit {process.exitcode})"
            ) from error
        worker.info = info if tag == "ready" else {"error": str(info)}
        self.workers.add(worker)
        return worker

    def replace(self, worker: Worker) -> None:
        """Kill a worker and start its successor in the background."""
        worker.kill()
        self.workers.discard(worker)
        if self.closed:
            return

        async def respawn() -> None:
            with contextlib.suppress(PoolClosed):
                self.idle.put_nowait(await self.spawn())

        task = asyncio.get_running_loop().create_task(respawn())
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def close(self) -> None:
        self.closed = True
        for task in list(self.pending):
            task.cancel()
        for worker in list(self.workers):
            with contextlib.suppress(Exception):
                worker.conn.send(None)
            await asyncio.get_running_loop().run_in_executor(None, worker.process.join, 2)
            worker.kill()
        self.workers.clear()
        self.io.shutdown(wait=False, cancel_futures=True)

    # -- work ---------------------------------------------------------------------------
    def retry_after(self) -> int:
        """Seconds until a slot is likely free: the queue ahead, shared by the processes."""
        waiting = max(0, self.admitted - self.size) + 1
        return max(1, min(60, math.ceil(waiting * self.mean_ms / 1000 / self.size)))

    @contextlib.asynccontextmanager
    async def slot(self):
        """Admission: hold one of the `workers + queue_length` places, or QueueFull at once.

        Taken before the upload is read, so the bytes held by uploads in progress are
        bounded too (places x the body limit).
        """
        if self.closed:
            raise PoolClosed("the server is shutting down")
        if self.admitted >= self.max_jobs:
            self.counts["refused"] += 1
            raise QueueFull(self.retry_after())
        self.admitted += 1
        try:
            yield
        finally:
            self.admitted -= 1

    async def run(self, kind: str, payload: Any) -> tuple[Any, dict[str, float]]:
        """Run one job (inside `slot()`); returns (its result, {"queue": ms, "work": ms}).

        Raises JobTimeout past the deadline (queue wait included), WorkerCrashed if the
        process died or the job raised an unexpected exception.
        """
        admitted_at = time.perf_counter()
        try:
            return await asyncio.wait_for(
                self._dispatch(kind, payload, admitted_at), self.timeout_s
            )
        except TimeoutError:
            self.counts["timeouts"] += 1
            raise JobTimeout(f"the job took longer than {self.timeout_s:g} s") from None

    async def _dispatch(self, kind: str, payload: Any, admitted_at: float):
        worker = await self.idle.get()
        queued_ms = (time.perf_counter() - admitted_at) * 1000
        self.running += 1
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.io, worker.roundtrip, (kind, payload))
        try:
            tag, value, work_ms = await asyncio.shield(future)
        except asyncio.CancelledError:  # timed out (or the server stops): kill the process
            future.add_done_callback(lambda done: done.cancelled() or done.exception())
            self.replace(worker)
            raise
        except WorkerCrashed:
            self.counts["crashes"] += 1
            self.replace(worker)
            raise
        finally:
            self.running -= 1
        worker.jobs_done += 1
        self.idle.put_nowait(worker)
        self.counts["done"] += 1
        self.mean_ms = 0.8 * self.mean_ms + 0.2 * work_ms
        if tag != "ok":
            self.counts["crashes"] += 1
            raise WorkerCrashed(value)
        return value, {"queue": round(queued_ms, 2), "work": round(work_ms, 2)}

    def status(self) -> dict:
        """Numbers for /readyz: processes alive and ready, jobs running and waiting."""
        alive = [w for w in self.workers if w.process.is_alive()]
        return {
            "processes": self.size,
            "alive": len(alive),
            "running": self.running,
            "waiting": max(0, self.admitted - self.running),
            "max_jobs": self.max_jobs,
            **self.counts,
        }

    def worker_info(self) -> list[dict]:
        return [w.info for w in self.workers]
