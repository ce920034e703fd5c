"""The photo batch on a Dask cluster: the same `api.batch` tasks, run by Dask's workers.

`sudoku-lens solve ... --scheduler tcp://HOST:8786` sends the batch to a running Dask
scheduler; `--scheduler local:N` starts a `LocalCluster` of N worker processes here. Only who
runs `api.batch.solve_file` changes: the plan, the report, `--resume`, the statuses and the
exit codes are `api.batch`'s.

- A bounded window of photos is in flight (`as_completed`, topped up as each finishes), so a
  million photos are never a million futures; records are written as they arrive.
- A worker process that dies loses nothing: the scheduler gives its photos to another
  worker. A photo that was on `allowed_failures + 1` dying workers raises `KilledWorker` and
  is reported as `error`, never retried forever (`local:N` sets the bound to
  `api.batch.MAX_CRASHES`; a remote scheduler uses its own
  `distributed.scheduler.allowed-failures`, 3 by default).
- Every worker process loads the reader and the compiled solver once, when it joins
  (`WarmWorker`, a worker plugin), not once per photo.
- Dask's worker profiler, which samples the solving thread every 10 ms, costs about a third
  of the throughput on this CPU-bound work, and the nannies' malloc setting makes every
  photo-sized array a fresh mmap: `local:N` sets both right (`WORKER_ENVIRONMENT`); remote
  workers take the same from a Dask config file (docs/scale.md).

Dask is an optional extra: ``pip install 'sudoku-lens[dask]'``.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import uuid
from collections.abc import Iterator

from api.batch import MAX_CRASHES, Runner, Settings, Task, crashed, failure, solve_file

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

        from api.batch import prepare_worker

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
                        "distributed.scheduler.allowed-failures": MAX_CRASHES - 1,
                        # one photo per single-threaded worker at a time: a photo that kills
                        # its worker takes no innocent neighbour's try with it
                        "distributed.scheduler.worker-saturation": 1.0,
                        # the workers' statistical profiler samples the solving thread's
                        # stack every 10 ms: about a third of the throughput here
                        "distributed.worker.profile.enabled": False,
                        "distributed.nanny.pre-spawn-environ": WORKER_ENVIRONMENT,
                        "distributed.worker.daemon": False,
                        "logging.distributed": "error",
                    }
                )
            )
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


def dask_runner(client, window: int | None = None) -> Runner:
    """Tasks in, records out, on `client`'s cluster; at most `window` photos in flight.

    Parameters
    ----------
    client : distributed.Client
    window : int, optional
        Photos in flight (default: four per worker thread, at least 8): enough to keep every
        worker busy while results travel, few enough that the scheduler's and this process's
        memory do not grow with the batch.

    Returns
    -------
    Runner
    """

    def run_on_cluster(tasks: Iterator[Task], settings: Settings) -> Iterator:
        from distributed import KilledWorker, as_completed

        limit = window or max(8, 4 * workers_of(client))
        tasks = iter(tasks)
        flying: dict = {}  # key -> (future, task)
        batch_id = uuid.uuid4().hex[:8]
        number = 0

        def submit(task: Task):
            nonlocal number
            number += 1
            future = client.submit(
                solve_file, task, settings, key=f"solve-photo-{batch_id}-{number}", pure=False
            )
            flying[future.key] = (future, task)
            return future

        finished = as_completed([submit(t) for _, t in zip(range(limit), tasks, strict=False)])
        interrupted = _watch_ctrl_c()
        try:
            for future in finished:
                if interrupted.is_set():
                    raise KeyboardInterrupt
                _, task = flying.pop(future.key)
                try:
                    record = future.result()
                except KilledWorker:
                    record = crashed(task.photo, MAX_CRASHES)
                except lost_scheduler_errors():
                    raise
                except Exception as error:  # a task that could not run (pickling, a bug)
                    record = failure(
                        task.photo, "error", f"internal error: {type(error).__name__}: {error}"
                    )
                future.release()
                yield record
                following = next(tasks, None)
                if following is not None:
                    finished.add(submit(following))
        finally:
            interrupted.restore()
            if flying:
                with contextlib.suppress(Exception):
                    client.cancel([f for f, _ in flying.values()])

    return run_on_cluster


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
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


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
