"""The photo batch on a Dask cluster: the same `api.scale.batch` tasks, run by Dask's workers.

`sudoku-lens solve ... --scheduler tcp://HOST:8786` sends the batch to a running Dask
scheduler; `--scheduler local:N` starts a `LocalCluster` of N worker processes here. Only who
runs `api.scale.batch.solve_file` changes: the plan, the report, `--resume`, the statuses and the
exit codes are `api.scale.batch`'s.

- Photos go out a few to a Dask task (`CHUNK`), in a bounded window of photos
  (`as_completed`, topped up as each task finishes), so a million photos are never a million
  futures, and the scheduler's per-task cost is shared by a chunk; records are written as
  each chunk arrives.
- A worker process that dies loses nothing: the photos of its task go out again, one to a
  task, so a photo that kills its worker takes no innocent chunk-mate with it; a photo that
  was on `api.scale.batch.MAX_CRASHES` dying workers, the last time alone, is reported as `error`,
  never retried forever. The client counts the deaths (`local:N` has the scheduler give up
  on a task at its worker's first death; a remote scheduler's own
  `distributed.scheduler.allowed-failures` + 1 deaths count for each `KilledWorker`).
- Every worker process loads the reader and the compiled solver once, when it joins
  (`WarmWorker`, a worker plugin), not once per photo.
- Dask's worker profiler, which samples the solving thread every 10 ms, costs about a third
  of the throughput on this CPU-bound work, and the nannies' malloc setting makes every
  photo-sized array a fresh mmap: `local:N` sets both right (`WORKER_ENVIRONMENT`); remote
  workers take the same from a Dask config file (docs/scale.md).

Dask is an optional extra: ``pip install 'sudoku-lens[dask]'``.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import itertools
import logging
import signal
import threading
import uuid
from collections.abc import Iterator

from api.scale.batch import MAX_CRASHES, Runner, Settings, Task, crashed, failure, solve_file

try:  # the extra may be missing: say so when a scheduler is asked for, not at import
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # pragma: no cover - without the dask extra
    WorkerPlugin = object


# Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536, which also stops glibc from
# raising its mmap threshold: every photo-sized array is then mmapped and unmapped, a page
# fault per page (three times the system time, half the throughput here). These keep big
# arrays on the heap and trim only large free tails.
WORKER_ENVIRONMENT = {
    "MALLOC_TRIM_THRESHOLD_": 64 * 2**20,
    "MALLOC_MMAP_THRESHOLD_": 32 * 2**20,
    "OMP_NUM_THREADS": 1,
    "MKL_NUM_THREADS": 1,
    "OPENBLAS_NUM_THREADS": 1,
}


# After Ctrl-C, how long the chunks already on the workers are waited for, so that the
# photos they finish (and write) are in the report; a second Ctrl-C stops waiting.
INTERRUPT_GRACE_S = 30.0

# Most photos per Dask task. A task costs a few milliseconds of the scheduler's and the
# client's time and a photo about 40 ms of a core: four to a task make the overhead small,
# and a chunk (about 0.2 s of work) still spreads evenly and keeps the tail short.
CHUNK = 4

# The scheduler's own bookkeeping over a long batch: Dask keeps bounded logs of past
# transitions, events and stimuli (1,000 entries per log and topic by default) and of
# computations (100, each holding the task groups it ran). A batch is one task group under
# one key prefix (`_Batch`), and every finished task is released at once, so those logs are
# the state that outlives a task: kept short here. docs/scale.md has the same for a cluster.
SCHEDULER_MEMORY = {
    "distributed.admin.low-level-log-length": 100,
    "distributed.diagnostics.computations.max-history": 10,
    # the system monitor's samples (CPU, memory, I/O; twice a second, for the dashboard):
    # one minute of them, not Dask's hour, which grows the scheduler for the first hour
    "distributed.admin.system-monitor.log-length": 120,
}


# Dask memoises `dask.utils.key_split` (a key's prefix) in an LRU cache of 100,000 keys, in
# the scheduler and in every worker, and every task of a batch has its own key: without a
# clearing now and then the cache alone grows the scheduler by about 170 bytes a task, up to
# 17 MB. Clearing it costs one round trip per this many tasks; the cache refills at once for
# the keys in flight.
FORGET_KEYS_EVERY = 1000
# The same clearing also empties what the scheduler's span of the batch (Dask's record of a
# computation, for its dashboard) notes per `Client.submit`: a `{"type": "Future"}` in the
# span's list of collections, about 300 bytes a task, never dropped while the span lives, and
# the span of a rolling window never ends (7.5 MB over 25,000 tasks; `forget_span_collections`).


class SchedulerError(ValueError):
    """A --scheduler that cannot be used; the message says why."""


class WarmWorker(WorkerPlugin):
    """Readies each worker process once, as it joins: the reader loaded, the numba engine
    compiled or loaded, one OpenCV thread per worker thread. Ctrl-C is left to the client
    and the nannies (which stop their workers through Dask), as the default pool leaves it
    to its parent: a terminal's Ctrl-C reaches every process of the group."""

    name = "sudoku-lens-warm"

    def setup(self, worker) -> None:
        import signal
        import threading

        from api.scale.batch import prepare_worker

        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        prepare_worker(one_core=worker.state.nthreads == 1)


def parse_scheduler(text: str) -> tuple[str, int | None]:
    """("local", N) or ("remote", None) for a --scheduler value.

    Parameters
    ----------
    text : str
        ``local:N`` or a scheduler address such as ``tcp://10.0.0.5:8786``.

    Returns
    -------
    tuple
        The kind and, for local clusters, the number of worker processes.

    Examples
    --------
    >>> parse_scheduler("local:2"), parse_scheduler("tcp://10.0.0.5:8786")
    (('local', 2), ('remote', None))
    """
    if text.startswith("local:"):
        count = text.split(":", 1)[1]
        if not count.isdigit() or int(count) < 1:
            raise SchedulerError(f"--scheduler {text}: say how many workers, e.g. local:2")
        return "local", int(count)
    if "://" in text:
        return "remote", None
    raise SchedulerError(f"--scheduler {text}: give tcp://HOST:PORT or local:N")


@contextlib.contextmanager
def connect(scheduler: str, *, timeout: float = 30) -> Iterator:
    """A `distributed.Client` for a --scheduler value, workers warmed; closed on exit.

    Parameters
    ----------
    scheduler : str
        ``local:N`` (a LocalCluster of N single-threaded worker processes, started and
        stopped here) or the address of a running scheduler.
    timeout : float
        Seconds to wait for a remote scheduler to answer.

    Yields
    ------
    distributed.Client
    """
    kind, workers = parse_scheduler(scheduler)
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise SchedulerError("--scheduler needs Dask: pip install 'sudoku-lens[dask]'") from None
    with contextlib.ExitStack() as stack:
        # Dask logs a lost connection with tracebacks, and again from its reconnecting task
        # after the client is closed; the command says what happened in a sentence of its
        # own (see `lost_scheduler_errors`). Left so for the rest of the process.
        for name in ("distributed", "distributed.client", "distributed.comm", "distributed.core"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        if kind == "local":
            stack.enter_context(
                dask.config.set(
                    {
                        # a task whose worker dies fails at once (KilledWorker): the
                        # client counts each photo's deaths and sends a dead chunk's photos
                        # out again one to a task (`dask_runner`)
                        "distributed.scheduler.allowed-failures": 0,
                        # one task per single-threaded worker at a time: a worker's death
                        # takes no waiting chunk's try with it
                        "distributed.scheduler.worker-saturation": 1.0,
                        **SCHEDULER_MEMORY,
                        # the workers' statistical profiler samples the solving thread's
                        # stack every 10 ms: about a third of the throughput here
                        "distributed.worker.profile.enabled": False,
                        "distributed.nanny.pre-spawn-environ": WORKER_ENVIRONMENT,
                        "distributed.worker.daemon": False,
                        "logging.distributed": "error",
                    }
                )
            )
            # Ctrl-C in a terminal reaches the whole process group: the worker processes
            # ignore it (they inherit the ignored signal), so a photo they finished is handed
            # back and recorded, and the client alone stops the run (`dask_runner`)
            with _sigint_ignored():
                cluster = stack.enter_context(
                    LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        # no dashboard; its health/metrics server on a free loopback port
                        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                        silence_logs=40,
                    )
                )
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = stack.enter_context(Client(scheduler, timeout=timeout))
            except OSError as error:
                raise SchedulerError(f"--scheduler {scheduler}: {error}") from None
        client.register_plugin(WarmWorker())
        yield client


def workers_of(client) -> int:
    """Worker threads the cluster has now (each solves one photo at a time)."""
    return sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())


def default_window(threads: int) -> int:
    """Photos in flight: two full chunks per worker thread (one solving, one waiting at the
    scheduler, so a worker never waits for this process), and never fewer than two chunks."""
    return 2 * CHUNK * max(1, threads)


def chunk_size(window: int, threads: int) -> int:
    """Photos per Dask task: up to `CHUNK`, and small enough that the window holds two tasks
    per worker thread, so every worker has its next task waiting and the tail stays short.

    >>> chunk_size(16, 2), chunk_size(4, 2), chunk_size(64, 2)
    (4, 1, 4)
    """
    return max(1, min(CHUNK, window // (2 * max(1, threads))))


def _taper(left: int, threads: int, limit: int, size: int) -> int:
    """Photos for the next task when `left` photos remain listed and not sent: `size` while
    a window is left, then fewer, down to one, as the listing runs out.

    >>> [_taper(left, 2, 16, 4) for left in (16, 12, 8, 4, 1)]
    [4, 3, 2, 1, 1]
    """
    return size if left >= limit else max(1, min(size, left // (2 * threads)))


def solve_chunk(tasks: tuple[Task, ...], settings: Settings) -> list:
    """A few photos in one Dask task (worker side): one record per photo, in order."""
    return [solve_file(task, settings) for task in tasks]


def deaths_per_kill(client) -> int:
    """How many worker deaths one `KilledWorker` stands for: the scheduler's
    ``allowed-failures`` + 1 (asked once per batch; Dask's default when it will not say)."""
    import dask

    try:
        allowed = client.run_on_scheduler(_allowed_failures)
    except Exception:  # a scheduler that refuses to run functions: assume its default
        allowed = dask.config.get("distributed.scheduler.allowed-failures", 3)
    return int(allowed) + 1


def _allowed_failures(dask_scheduler=None) -> int:
    return dask_scheduler.allowed_failures


def dask_runner(client, window: int | None = None, chunk: int | None = None) -> Runner:
    """Tasks in, records out, on `client`'s cluster; at most `window` photos in flight.

    Photos go out a few to a Dask task (`solve_chunk`): a task costs the scheduler and this
    process a few milliseconds and some bookkeeping, a photo about 40 ms of a core, so one
    task per photo spent a tenth of the cluster on overhead. A chunk's records are yielded
    when it finishes. When a chunk's worker dies, its photos go out again one to a task, so
    an innocent photo beside a killer is never blamed; a photo is reported as `error` once
    it was on `MAX_CRASHES` dying workers and the last time alone.

    Parameters
    ----------
    client : distributed.Client
    window : int, optional
        Photos in flight (default: `default_window`, two chunks per worker thread): enough
        to keep every worker busy while results travel, few enough that the scheduler's
        and this process's memory do not grow with the batch.
    chunk : int, optional
        Photos per task (default: `chunk_size` of the window).

    Returns
    -------
    Runner
    """

    def run_on_cluster(tasks: Iterator[Task], settings: Settings) -> Iterator:
        from distributed import as_completed

        threads = max(1, workers_of(client))
        limit = window or default_window(threads)
        size = chunk or chunk_size(limit, threads)
        batch = _Batch(client, settings, deaths_per_kill(client))
        tasks = iter(tasks)
        ahead: collections.deque[Task] = collections.deque()  # listed, not yet sent
        finished = as_completed()

        def top_up() -> None:
            while batch.alone and batch.photos < limit:  # photos of a dead chunk, one each
                finished.add(batch.submit((batch.alone.popleft(),)))
            # look a window ahead in the listing: when it runs out, the chunks shrink to
            # one photo, so the last tasks are short and every worker finishes near the end
            while batch.photos < limit:
                ahead.extend(itertools.islice(tasks, limit - len(ahead)))
                if not ahead:
                    return
                step = min(limit - batch.photos, _taper(len(ahead), threads, limit, size))
                finished.add(batch.submit(tuple(ahead.popleft() for _ in range(step))))

        top_up()
        interrupted = _watch_ctrl_c()
        # a finished chunk's records not yet handed over: a Ctrl-C thrown in while the caller
        # writes one of them must not lose the others (their overlays are written already)
        pending: collections.deque = collections.deque()
        try:
            for future in finished:
                if interrupted.is_set():
                    raise KeyboardInterrupt
                pending.extend(batch.records(future))
                while pending:
                    yield pending.popleft()
                top_up()
        except KeyboardInterrupt:
            # the chunks already on the workers write their solved photos anyway: their
            # records are kept too, or a resume would solve them again
            yield from pending
            yield from batch.finish(INTERRUPT_GRACE_S)
            raise
        finally:
            interrupted.restore()
            batch.cancel()

    return run_on_cluster


class _Batch:
    """The chunks in flight on a cluster, and what became of them: records, or photos to
    try again alone after their worker died."""

    def __init__(self, client, settings: Settings, deaths_per_kill: int):
        self.client = client
        self.settings = settings
        self.deaths_per_kill = deaths_per_kill
        # one key prefix for the batch: the scheduler keeps one task group for it
        self.prefix = f"sudoku-lens-{uuid.uuid4().hex[:8]}"
        self.number = 0
        self.flying: dict = {}  # key -> (future, photos)
        self.photos = 0  # photos in flight
        self.alone: collections.deque[Task] = collections.deque()
        self.crashes: dict[str, int] = {}  # photo -> worker deaths so far (until reported)

    def submit(self, chunk: tuple[Task, ...]):
        self.number += 1
        future = self.client.submit(
            solve_chunk, chunk, self.settings, key=f"{self.prefix}-{self.number}", pure=False
        )
        self.flying[future.key] = (future, chunk)
        self.photos += len(chunk)
        if self.number % FORGET_KEYS_EVERY == 0:
            self.forget_keys()
        return future

    def forget_keys(self) -> None:
        """Empty Dask's memo of key prefixes on the scheduler and the workers (a cache, so
        nothing else changes) and the repeats in the scheduler's note of what the batch's
        span computed, then hand the memory the finished tasks freed back to the system; a
        cluster that refuses remote calls, or whose scheduler cannot import sudoku-lens,
        keeps all three."""
        with contextlib.suppress(Exception):
            self.client.run_on_scheduler(forget_keys)
            self.client.run(forget_keys)

    def records(self, future) -> list:
        """The records a finished task gives (none for photos that go out again)."""
        from distributed import KilledWorker

        # the chunk stays in flight until its records are in hand: a Ctrl-C raised while
        # they are fetched leaves it to `finish`, which fetches them again
        _, chunk = self.flying[future.key]
        try:
            records = future.result()
        except KilledWorker:
            records = []
            for task in chunk:
                deaths = self.crashes.get(task.photo, 0) + self.deaths_per_kill
                if len(chunk) == 1 and deaths >= MAX_CRASHES:
                    records.append(crashed(task.photo, deaths))
                else:
                    self.crashes[task.photo] = deaths
                    self.alone.append(task)
        except lost_scheduler_errors():
            raise
        except Exception as error:  # a task that could not run (pickling, a bug)
            message = f"internal error: {type(error).__name__}: {error}"
            records = [failure(task.photo, "error", message) for task in chunk]
        del self.flying[future.key]
        self.photos -= len(chunk)
        future.release()  # the scheduler forgets the task now, not at garbage collection
        for record in records:
            self.crashes.pop(record.file, None)
        return records

    def finish(self, seconds: float) -> Iterator:
        """After Ctrl-C: the records of the chunks in flight that finish within `seconds`
        (the rest is cancelled; a second Ctrl-C stops the wait)."""
        from distributed import wait

        futures = [future for future, _ in self.flying.values()]
        with contextlib.suppress(TimeoutError, *lost_scheduler_errors()):
            wait(futures, timeout=seconds)
        for future in futures:
            if future.done() and future.key in self.flying:
                with contextlib.suppress(*lost_scheduler_errors()):
                    yield from self.records(future)

    def cancel(self) -> None:
        if self.flying:
            with contextlib.suppress(Exception):
                self.client.cancel([future for future, _ in self.flying.values()])


def forget_keys(dask_worker=None, dask_scheduler=None) -> None:
    """In a Dask process: clear `dask.utils.key_split`'s memo (and, on the scheduler, the
    repeats in its spans' collections, `forget_span_collections`), and trim the C allocator.

    glibc keeps some of the memory freed with finished tasks in its arenas rather than give
    it back; Dask's worker-memory documentation gives `malloc_trim(0)` for that (measured on
    100,000 inputs: the scheduler's peak 74 -> 72 MB; on other C libraries there is nothing
    to trim and this does only the clearing).
    """
    from dask.utils import key_split

    key_split.cache_clear()
    if dask_scheduler is not None:
        forget_span_collections(dask_scheduler)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def forget_span_collections(dask_scheduler) -> int:
    """Keep one of each kind in every span's list of submitted collections; return how many
    entries were dropped.

    Dask's scheduler appends the kind of collection of every `update_graph` to its span's
    metadata (``{"type": "Future"}`` for each ``Client.submit``) and keeps the list as long
    as the span, which lasts while any of its tasks is unfinished: a batch's rolling window
    keeps one span alive for the whole run, so the list grew by one entry, about 300 bytes,
    per task. The dashboard shows which kinds a span computed; the repeats say nothing more.
    """
    spans = getattr(dask_scheduler, "extensions", {}).get("spans")
    dropped = 0
    for span in list(getattr(spans, "spans", {}).values()):
        collections = (getattr(span, "metadata", None) or {}).get("collections")
        if not collections or len(collections) < 2:
            continue
        kinds = []
        for kind in collections:
            if kind not in kinds:
                kinds.append(kind)
        dropped += len(collections) - len(kinds)
        collections[:] = kinds
    return dropped


class _CtrlC(threading.Event):
    """Set by Ctrl-C, for a loop that must stop even where Dask's waiting swallowed the
    KeyboardInterrupt (seen once in a 100,000-photo run: the run went on to the end)."""

    def __init__(self) -> None:
        super().__init__()
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self.handle)

    def handle(self, signum, frame) -> None:
        self.set()
        raise KeyboardInterrupt

    def restore(self) -> None:
        if self.previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self.previous)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while processes are started (they keep it ignored), then restored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _watch_ctrl_c() -> _CtrlC:
    return _CtrlC()


def lost_scheduler_errors() -> tuple[type[BaseException], ...]:
    """What a client raises when the scheduler goes away (not a photo's fault): the run
    stops, its report holds every photo finished, and `--resume` goes on from there."""
    from asyncio import CancelledError
    from concurrent.futures import CancelledError as FutureCancelled

    from distributed.comm.core import CommClosedError

    # a future cancelled under us (reason: scheduler-connection-lost) is one of the last two
    return (CommClosedError, OSError, TimeoutError, CancelledError, FutureCancelled)
