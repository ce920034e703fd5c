"""A bounded pool of solver processes: where the CPU-bound work runs, never on the event loop.

Why processes and not threads: reading a photo is mostly OpenCV and NumPy (which release the
GIL) but also Python glue, Tesseract calls and numba code, and one pathological photo or
puzzle must not be able to stall the server. A process can be killed when it overruns the
per-request time limit; a thread cannot. A job travels as a small pickled dataclass, an
upload's bytes beside it unpickled (`send_bytes`, no copy), and its answer comes back as a
dataclass or pydantic model. One uvicorn process keeps the event loop, the limits and the
overlay cache; `workers` processes do the solving.

Admission is per kind of job and bounded: at most `workers + queue_length` photo jobs, and as
many puzzle (grid) jobs apart, so a queue of photos never refuses a puzzle. A place is taken
once the request's body is complete and checked, so a slow upload holds no place. Beyond its
places a job is refused at once with `QueueFull` (HTTP 503 + Retry-After). Live frames are
never queued: they take turns on every process but one (one process when there is only one),
so with two or more processes a photo or puzzle always finds one free of live frames; a
connection's frame waits for its turn outside the pool, where a newer frame of the same
connection replaces it (api.service.routers.live). Where a process may raise its priority back
(root, or RLIMIT_NICE), it solves live frames at nice LIVE_NICE: on shared cores a photo beside
them then runs nearly as fast as alone.

Dispatch is fair: a free process goes to a waiting puzzle first (milliseconds of work), then a
live frame, then a photo, except that a job another kind has already passed once goes before
all (`Waiter.passed`). So a photo waits for at most one job behind live frames and puzzles,
whatever the live clients do, and live frames are never starved by photos either. Each job
has a deadline counted from admission; a job still running then gets its process killed and
replaced (HTTP 504). A job whose caller gave up (a live socket closed) is not killed: its
process finishes it, the answer is dropped, and the process goes back to work. A process that
dies is replaced at once, warmed up before it takes a job.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import multiprocessing
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("sudoku_lens.service")

# dispatch order when several wait: puzzles and live frames take milliseconds, photos a second
KINDS = ("grid", "live", "photo")
FIRST_GUESS_MS = {"grid": 50.0, "live": 20.0, "photo": 1000.0}  # before any was measured


class QueueFull(Exception):
    """Every solver process is busy and the waiting queue is full."""

    def __init__(self, retry_after: int):
        super().__init__(f"the server is busy; retry in {retry_after} s")
        self.retry_after = retry_after


class JobTimeout(Exception):
    """The job did not finish within the per-request time limit."""


class WorkerCrashed(Exception):
    """The solver process died, or the job raised: a bug; the text is for the log only."""


class PoolClosed(Exception):
    """The pool is shutting down or failed to start."""


def worker_main(
    conn,
    settings_env: dict[str, str],
    opencv_threads: int | None = None,
    in_background: bool = False,
) -> None:
    """Body of a solver process: warm up, say ready, then answer jobs until told to stop.

    Parameters
    ----------
    conn : multiprocessing.connection.Connection
        The child's end of the pipe: (kind, job, with_data) in, then the data's bytes;
        (tag, answer or traceback text, milliseconds) out.
    settings_env : dict
        The service's settings as SUDOKU_LENS_* variables.
    opencv_threads : int, optional
        OpenCV's thread count in this process (None: its default).
    in_background : bool
        Warm up at idle CPU priority (a replacement: the live processes keep serving at full
        speed meanwhile), then serve at normal priority.
    """
    import os

    os.environ.update(settings_env)
    from api.scale.memory import keep_freed_memory
    from api.scale.threads import limit_threads
    from api.service import jobs

    limit_threads(opencv=opencv_threads)
    keep_freed_memory()  # a photo's blocks used again by the next, not faulted in afresh

    if in_background:
        cpu_priority(os.SCHED_IDLE)
    info = jobs.warm_up()
    if in_background:
        cpu_priority(os.SCHED_OTHER)
    conn.send(("ready", info))
    yields = can_yield()
    while True:
        try:
            message = conn.recv()
            if message is None:
                return
            kind, job, with_data = message
            data = conn.recv_bytes() if with_data else None
        except (EOFError, KeyboardInterrupt):
            return
        if yields:
            niceness(LIVE_NICE if kind == "live" else 0)
        started = time.perf_counter()
        try:
            reply = ("ok", jobs.run(kind, job, data))
        except Exception:  # reported to the parent, which logs it and answers 500
            reply = ("crash", traceback.format_exc(limit=-8))
        del data
        conn.send((*reply, (time.perf_counter() - started) * 1000))


# A live frame yields the CPU to a photo or puzzle solved beside it (two processes on shared
# cores): nice 5 weighs a third of nice 0 in Linux's scheduler. Used only where a process may
# go back to 0 afterwards (root, or RLIMIT_NICE), else every process stays at 0.
LIVE_NICE = 5


def niceness(value: int) -> None:
    import os

    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, value)


def can_yield() -> bool:
    """Whether this process may lower its priority for a live frame and raise it back."""
    import os

    try:
        os.setpriority(os.PRIO_PROCESS, 0, 1)
        os.setpriority(os.PRIO_PROCESS, 0, 0)
    except OSError:
        return False
    return os.getpriority(os.PRIO_PROCESS, 0) == 0


def cpu_priority(policy: int) -> None:
    """Set this process's scheduling policy (Linux; SCHED_IDLE and back needs no privilege).

    Parameters
    ----------
    policy : int
        os.SCHED_IDLE or os.SCHED_OTHER.
    """
    import os

    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, policy, os.sched_param(0))


@dataclass(eq=False)
class Worker:
    """One solver process and the parent's end of its pipe."""

    process: Any
    conn: Any
    info: Any = None  # jobs.WarmUp
    jobs_done: int = 0
    busy: bool = False
    dead: bool = False

    def roundtrip(self, kind: str, job: Any, data: bytes | None) -> tuple:
        """Send a job and wait for its reply (runs in a helper thread, never the loop)."""
        try:
            self.conn.send((kind, job, data is not None))
            if data is not None:
                self.conn.send_bytes(data)
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


@dataclass
class Places:
    """Admission of one kind of job: how many are in, and how long one takes."""

    limit: int
    admitted: int = 0
    mean_ms: float = 1000.0
    refused: int = 0
    waiting: collections.deque = field(default_factory=collections.deque)


@dataclass(eq=False)
class Waiter:
    """A job waiting for a process: its future, when it came, and how many jobs of other
    kinds were handed a process before it meanwhile."""

    future: asyncio.Future
    order: int
    passed: int = 0


class SolverPool:
    """`size` solver processes behind bounded, per-kind admission.

    Parameters
    ----------
    size : int
        Solver processes.
    queue_length : int
        Jobs of each kind that may wait for a busy process.
    timeout_s : float
        Deadline of one job, from admission.
    env : dict
        Environment variables for the solver processes (the settings).

    Examples
    --------
    >>> pool = SolverPool(size=2, queue_length=8, timeout_s=30, env={})  # doctest: +SKIP
    >>> await pool.start()  # doctest: +SKIP
    >>> async with pool.slot("grid"):  # doctest: +SKIP
    ...     answer, timings = await pool.run("grid", GridRequest(puzzle="..."))
    """

    def __init__(self, *, size: int, queue_length: int, timeout_s: float, env: dict[str, str]):
        self.size = size
        self.max_jobs = size + queue_length
        self.timeout_s = timeout_s
        self.env = env
        self.context = multiprocessing.get_context("spawn")
        self.places = {kind: Places(self.max_jobs, mean_ms=FIRST_GUESS_MS[kind]) for kind in KINDS}
        # live frames: never a queue, and one process kept for photos and puzzles
        # (`live_turn`)
        self.places["live"].limit = max(1, size - 1)
        self.live_turns = asyncio.Semaphore(self.places["live"].limit)  # FIFO: in turn
        self.arrivals = 0
        self.idle: list[Worker] = []
        self.workers: set[Worker] = set()
        self.running = 0
        self.counts = {"done": 0, "timeouts": 0, "crashes": 0, "replaced": 0}
        self.io = ThreadPoolExecutor(max_workers=size + 2, thread_name_prefix="solver-io")
        self.closed = False
        self.pending: set[asyncio.Task] = set()

    # -- life cycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Start every process and wait until each has warmed up (models, Tesseract, numba)."""
        workers = await asyncio.gather(*(self.spawn(first=True) for _ in range(self.size)))
        for worker in workers:
            self.release(worker)

    async def spawn(self, first: bool = False) -> Worker:
        parent, child = self.context.Pipe()
        shared = self.size > 1
        process = self.context.Process(
            target=worker_main,
            # Several solver processes share the cores; one alone may use OpenCV's threads.
            # A successor warms up in the background while the others serve (with one
            # OpenCV thread only: a thread started at idle priority would stay there).
            args=(child, self.env, 1 if shared else None, shared and not first),
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
        worker.info = info
        self.workers.add(worker)
        # Told by the kernel the moment the process ends, busy or idle.
        asyncio.get_running_loop().add_reader(process.sentinel, self.exited, worker)
        return worker

    def exited(self, worker: Worker) -> None:
        """A solver process ended by itself (killed, crashed): replace it now."""
        if worker.dead:
            return
        log.warning("solver process %s exited (%s)", worker.process.pid, worker.process.exitcode)
        if worker.busy:  # its job's roundtrip fails and replaces it
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(worker.process.sentinel)
            return
        if worker in self.idle:
            self.idle.remove(worker)
        self.replace(worker)

    def replace(self, worker: Worker) -> None:
        """Kill a worker and start its successor in the background (warm before it works)."""
        if worker.dead:
            return
        worker.dead = True
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(worker.process.sentinel)
        worker.kill()
        self.workers.discard(worker)
        if self.closed:
            return
        self.counts["replaced"] += 1

        async def respawn() -> None:
            with contextlib.suppress(PoolClosed):
                self.release(await self.spawn())

        task = asyncio.get_running_loop().create_task(respawn())
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def close(self) -> None:
        self.closed = True
        for task in list(self.pending):
            task.cancel()
        for worker in list(self.workers):
            worker.dead = True
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(worker.process.sentinel)
            with contextlib.suppress(Exception):
                worker.conn.send(None)
            await asyncio.get_running_loop().run_in_executor(None, worker.process.join, 2)
            worker.kill()
        self.workers.clear()
        self.io.shutdown(wait=False, cancel_futures=True)

    # -- admission ----------------------------------------------------------------------
    def retry_after(self, kind: str = "photo") -> int:
        """Seconds until a new job of `kind` would likely get a process.

        Parameters
        ----------
        kind : str
            "photo", "live" or "grid".

        Returns
        -------
        int
            The jobs of that kind ahead, shared by the processes, at their measured mean
            time; 1 to 60.
        """
        places = self.places[kind]
        ahead = max(0, places.admitted - self.size) + 1
        return max(1, min(60, math.ceil(ahead * places.mean_ms / 1000 / self.size)))

    def full(self, kind: str = "photo") -> bool:
        return self.places[kind].admitted >= self.places[kind].limit

    @contextlib.asynccontextmanager
    async def slot(self, kind: str):
        """Admission: hold one of the places of `kind`, or QueueFull at once.

        Parameters
        ----------
        kind : str
            "photo" or "grid".

        Raises
        ------
        QueueFull
            Every place of that kind is taken (carries the Retry-After seconds).
        PoolClosed
            The pool is shutting down.
        """
        if self.closed:
            raise PoolClosed("the server is shutting down")
        places = self.places[kind]
        if places.admitted >= places.limit:
            places.refused += 1
            raise QueueFull(self.retry_after(kind))
        places.admitted += 1
        try:
            yield
        finally:
            places.admitted -= 1

    @contextlib.asynccontextmanager
    async def live_turn(self):
        """A live frame's place: one per process but one at a time, taken in turn (first
        come, first served); waiting for it holds nothing in the pool, so photos never queue
        behind it.

        Raises
        ------
        PoolClosed
            The pool is shutting down.
        """
        if self.closed:
            raise PoolClosed("the server is shutting down")
        places = self.places["live"]
        async with self.live_turns:
            places.admitted += 1
            try:
                yield
            finally:
                places.admitted -= 1

    async def acquire(self, kind: str) -> Worker:
        """An idle process for a job of `kind`, waiting in line if there is none.

        Parameters
        ----------
        kind : str
            "photo", "live" or "grid" (see `next_waiter` for who goes first).

        Returns
        -------
        Worker
        """
        if self.idle and not any(self.places[k].waiting for k in KINDS):
            self.passing(kind)
            return self.idle.pop()
        self.arrivals += 1
        waiter = Waiter(asyncio.get_running_loop().create_future(), self.arrivals)
        self.places[kind].waiting.append(waiter)
        try:
            return await waiter.future
        except asyncio.CancelledError:
            if waiter.future.done() and not waiter.future.cancelled():
                self.release(waiter.future.result())  # handed over just as the job gave up
            else:
                with contextlib.suppress(ValueError):
                    self.places[kind].waiting.remove(waiter)
            raise

    def next_waiter(self) -> tuple[str, Waiter] | None:
        """Who gets the next free process: of the first waiter of each kind, the longest
        waiting one that another kind's job has already passed; else by kind, puzzles, live
        frames, photos (fastest first). Waiters whose job gave up are dropped."""
        heads = []
        for kind in KINDS:
            waiting = self.places[kind].waiting
            while waiting and waiting[0].future.done():
                waiting.popleft()
            if waiting:
                heads.append((kind, waiting[0]))
        if not heads:
            return None
        overdue = [head for head in heads if head[1].passed > 0]
        return min(overdue, key=lambda head: head[1].order) if overdue else heads[0]

    def passing(self, kind: str) -> None:
        """A job of `kind` gets a process: every waiter of another kind was passed once."""
        for other in KINDS:
            if other != kind:
                for waiter in self.places[other].waiting:
                    waiter.passed += 1

    def release(self, worker: Worker) -> None:
        """A process is free: to the next waiter (`next_waiter`), else the idle list.

        Parameters
        ----------
        worker : Worker
            A live, warm process with no job.
        """
        worker.busy = False
        chosen = self.next_waiter()
        if chosen is None:
            self.idle.append(worker)
            return
        kind, waiter = chosen
        self.places[kind].waiting.popleft()
        self.passing(kind)
        worker.busy = True
        waiter.future.set_result(worker)

    # -- work ---------------------------------------------------------------------------
    async def run(
        self, kind: str, job: Any, data: bytes | None = None
    ) -> tuple[Any, dict[str, float]]:
        """Run one job (inside `slot(kind)`).

        Parameters
        ----------
        kind : str
            "photo" or "grid".
        job : jobs.PhotoJob or models.GridRequest
            The job.
        data : bytes, optional
            The upload, for a photo.

        Returns
        -------
        tuple
            (the job's answer, {"queue": ms, "work": ms}).

        Raises
        ------
        JobTimeout
            Past the deadline (queue wait included); the process is replaced.
        WorkerCrashed
            The process died or the job raised (a bug).
        """
        admitted_at = time.perf_counter()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        try:
            async with asyncio.timeout_at(deadline):
                worker = await self.acquire(kind)
        except TimeoutError:
            raise self.timed_out() from None
        worker.busy = True
        queued_ms = (time.perf_counter() - admitted_at) * 1000
        self.running += 1
        future = loop.run_in_executor(self.io, worker.roundtrip, kind, job, data)
        try:
            async with asyncio.timeout_at(deadline):
                tag, value, work_ms = await asyncio.shield(future)
        except TimeoutError:  # overran: kill the process
            self.forget(future)
            self.replace(worker)
            raise self.timed_out() from None
        except asyncio.CancelledError:  # the caller gave up (a live socket closed)
            if self.closed:
                self.forget(future)
                self.replace(worker)
            else:  # the process finishes this job, then takes the next
                future.add_done_callback(lambda done: self.finished(worker, kind, done))
            raise
        except WorkerCrashed:
            self.counts["crashes"] += 1
            self.replace(worker)
            raise
        finally:
            self.running -= 1
        self.finished(worker, kind, future)
        if tag != "ok":
            self.counts["crashes"] += 1
            raise WorkerCrashed(value)
        return value, {"queue": round(queued_ms, 2), "work": round(work_ms, 2)}

    def timed_out(self) -> JobTimeout:
        self.counts["timeouts"] += 1
        return JobTimeout(f"the job took longer than {self.timeout_s:g} s")

    @staticmethod
    def forget(future: asyncio.Future) -> None:
        """Nobody will read this roundtrip's outcome: keep asyncio from logging it."""
        future.add_done_callback(lambda done: done.cancelled() or done.exception())

    def finished(self, worker: Worker, kind: str, future: asyncio.Future) -> None:
        """A roundtrip ended: the process goes back to work (or is replaced if it died)."""
        if future.cancelled() or future.exception() is not None:
            self.counts["crashes"] += not future.cancelled()
            self.replace(worker)
            return
        _, _, work_ms = future.result()
        worker.jobs_done += 1
        self.counts["done"] += 1
        places = self.places[kind]
        places.mean_ms = 0.8 * places.mean_ms + 0.2 * work_ms
        if not worker.dead:
            self.release(worker)

    def status(self) -> dict:
        """Numbers for /readyz.

        Returns
        -------
        dict
            Processes alive and warm, jobs running, admitted and refused per kind, with each
            kind's measured mean time; done, timeouts, crashes, replaced processes.
        """
        alive = [w for w in self.workers if w.process.is_alive() and not w.dead]
        return {
            "processes": self.size,
            "alive": len(alive),
            "warm": sum(bool(w.info and w.info.warm) for w in alive),
            "running": self.running,
            **{
                f"{kind}_jobs": {
                    "admitted": places.admitted,
                    "max": places.limit,
                    "refused": places.refused,
                    "mean_ms": round(places.mean_ms, 1),
                }
                for kind, places in self.places.items()
            },
            **self.counts,
        }

    def worker_info(self) -> list:
        """Each live process's warm-up report (jobs.WarmUp)."""
        return [w.info for w in self.workers if not w.dead and w.info is not None]
