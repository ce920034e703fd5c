"""Photos in, records out: the batch behind `sudoku-lens solve`, on this machine or a cluster.

A batch is a `Plan` (which photos, where each solved photo goes, how to read them), a runner
that turns tasks into records (`serial`, `process_pool`, or `api.scale.cluster.dask_runner`), and
a `Report` that writes each record as it arrives. Every runner calls the same `solve_file`,
and `run` is the one loop that skips what a resumed report already holds, hands the tasks
to the runner and writes the report: the default pool and Dask differ only in who runs
`solve_file`.

Photos are listed lazily, one folder at a time, so a folder of a million photos is never one
list in memory; inputs and outputs may be fsspec URLs (``memory://``, ``s3://``...) when
fsspec is installed (the ``dask`` extra). The report is a local file.

>>> plan = make_plan(["no/such/folder"], out="out")
Traceback (most recent call last):
...
api.scale.batch.PlanError: no/such/folder: no such file or folder
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import posixpath
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from api.scale.threads import cores

IMAGE_EXTENSIONS = frozenset(
    (".jpg", ".jpeg", ".jpe", ".jfif", ".png", ".webp", ".bmp", ".tif", ".tiff")
    + (".heic", ".heif", ".avif", ".mpo")
)
OUTPUT_FORMATS = {".jpg": "jpeg", ".jpeg": "jpeg", ".png": "png"}
REPORT_COLUMNS = (
    "file",
    "output",
    "status",
    "message",
    "givens",
    "solution",
    "corrections",
    "min_confidence",
    "total_ms",
    "entries",
    "mistakes",
    "grids",
)
# How many times a photo may take its worker process down before it is reported as `error`
# (the first death may be a neighbour's fault or the machine's; the second is the photo's).
MAX_CRASHES = 2


class PlanError(ValueError):
    """Arguments that do not make a batch; the message says which and why."""


class ReportError(Exception):
    """The report could not be written (a full or read-only disk): the message names the
    file and the cause. The report is left whole up to its last complete record, so
    `--resume` goes on from there."""

    def __init__(self, path: Path, error: OSError, doing: str = "write"):
        cause = error.strerror or str(error)
        super().__init__(
            f"{path}: cannot {doing} the report: {cause}; every photo it holds is done: "
            "free the space (or fix the folder) and run again with --resume"
        )


@dataclass(frozen=True)
class Task:
    """One photo to solve: where it is and where its solved photo goes (None: nowhere)."""

    photo: str
    target: str | None


@dataclass(frozen=True)
class Settings:
    """How every photo of a batch is read: the recogniser, whether the rules may correct,
    and what to show (solve, check or hint: `api.photo.schema.MODES`)."""

    engine: str | None = None
    use_rules: bool = True
    mode: str = "solve"


@dataclass
class Plan:
    """A checked batch: every input and output decided before any work.

    Attributes
    ----------
    inputs : list of str
        The photos and folders named (paths or URLs), in order.
    out : str or None
        Folder (path or URL) the solved photos go to, the inputs' layout mirrored below it;
        None: next to each photo (one photo: `target`).
    recursive : bool
        Look into sub-folders.
    settings : Settings
    workers : int
        Processes for the default pool.
    report : Path or None
        The .jsonl or .csv report.
    single : bool
        One photo named, no --out: its result is printed in full.
    target : str or None
        The single photo's output.
    """

    inputs: list[str]
    out: str | None = None
    recursive: bool = False
    settings: Settings = field(default_factory=Settings)
    workers: int = 1
    report: Path | None = None
    single: bool = False
    target: str | None = None

    def tasks(self) -> Iterator[Task]:
        """Every photo and its output, listed lazily, in a stable order (each call lists anew)."""
        if self.single:
            yield Task(self.inputs[0], self.target)
            return
        yield from _tasks(self.inputs, self.out, self.recursive)

    def count(self) -> int:
        """How many photos `tasks` yields (lists the folders once more; no list is kept)."""
        return sum(1 for _ in self.tasks())


def make_plan(
    inputs: Iterable[str | Path],
    *,
    out: str | Path | None = None,
    output: str | Path | None = None,
    recursive: bool = False,
    workers: int | None = None,
    report: str | Path | None = None,
    settings: Settings | None = None,
) -> Plan:
    """Check a batch's arguments and decide where everything goes.

    Parameters
    ----------
    inputs : iterable of str or Path
        Photos and folders: paths, or fsspec URLs.
    out : str or Path, optional
        Folder for the solved photos (the folder layout below the inputs is mirrored).
    output : str or Path, optional
        One photo only: where its solved photo goes (.jpg or .png).
    recursive : bool
        Look into sub-folders.
    workers : int, optional
        Processes for the default pool (default: every core this process may use).
    report : str or Path, optional
        A .jsonl or .csv file for one record per photo.
    settings : Settings, optional

    Returns
    -------
    Plan

    Raises
    ------
    PlanError
        When an input is missing or the options contradict each other.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "a.jpg").write_bytes(b"")
    0
    >>> plan = make_plan([folder], out=folder / "out")
    >>> [pathlib.Path(t.target).relative_to(folder).as_posix() for t in plan.tasks()]
    ['out/a.solved.jpg']
    """
    inputs = [local_path(str(p)) for p in inputs]
    if not inputs:
        raise PlanError("name at least one photo or folder")
    stores = [store_for(p) for p in inputs]
    for path, store in zip(inputs, stores, strict=True):
        if not store.exists(path):
            raise PlanError(f"{path}: no such file or folder")
    settings = settings or Settings()
    if settings.engine is not None:
        _check_engine(settings.engine)
    from api.photo.schema import MODES

    if settings.mode not in MODES:
        raise PlanError(f"--mode {settings.mode}: unknown; choose one of {', '.join(MODES)}")
    report = Path(report) if report is not None else None
    if report is not None and report.suffix.lower() not in (".jsonl", ".csv"):
        raise PlanError(f"--report {report}: name a .jsonl or .csv file")
    out = local_path(str(out)) if out is not None else None
    output = local_path(str(output)) if output is not None else None
    single = len(inputs) == 1 and stores[0].is_file(inputs[0]) and out is None
    if output is not None and not single:
        raise PlanError("-o/--output names the result of ONE photo; use --out DIR for several")
    if output is not None and _suffix(output) not in OUTPUT_FORMATS:
        raise PlanError(f"-o {output}: the solved photo must be a .jpg or .png file")
    workers = workers or cores()
    if single:
        photo = inputs[0]
        target = output or _solved_name(photo)
        if store_for(target).same(target, photo):
            raise PlanError(f"-o {output}: that is the input photo; it is never overwritten")
        return Plan(inputs, None, recursive, settings, workers, report, True, target)
    if out is None and any(s.is_dir(p) for s, p in zip(stores, inputs, strict=True)):
        raise PlanError("give --out DIR to say where the solved photos of a folder go")
    if out is not None and store_for(out).exists(out) and not store_for(out).is_dir(out):
        raise PlanError(f"--out {out}: exists and is not a folder")
    if len({type(s) for s in stores}) > 1 or len({s.protocol for s in stores}) > 1:
        raise PlanError("the inputs must all be on one file system (all paths, or one URL kind)")
    return Plan(inputs, out, recursive, settings, workers, report)


def _check_engine(engine: str) -> None:
    from vision.recognise import ENGINES

    if engine not in ENGINES:
        raise PlanError(f"--engine {engine}: unknown; choose one of {', '.join(ENGINES)}")


def is_photo_name(name: str) -> bool:
    """An image by its extension, and not one of our own outputs (x.solved.jpg).

    >>> is_photo_name("a.JPG"), is_photo_name("a.solved.jpg"), is_photo_name("notes.txt")
    (True, False, False)
    """
    name = posixpath.basename(name.replace(os.sep, "/")).lower()
    return _suffix(name) in IMAGE_EXTENSIONS and not name.startswith(".") and ".solved." not in name


def _suffix(name: str) -> str:
    return posixpath.splitext(name)[1].lower()


def _solved_name(photo: str) -> str:
    """Where one photo's solved photo goes by default: beside it, as NAME.solved.jpg."""
    folder, name = posixpath.split(photo) if "://" in photo else os.path.split(photo)
    made = f"{posixpath.splitext(name)[0]}.solved.jpg"
    return f"{folder}/{made}" if "://" in photo else os.path.join(folder, made)


# ---------------------------------------------------------------- where photos are


class Store:
    """Local files through `os`: listing, reading and atomic writing."""

    protocol = "file"

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def is_file(self, path: str) -> bool:
        return os.path.isfile(path)

    def same(self, a: str, b: str) -> bool:
        return Path(a).resolve() == Path(b).resolve()

    def join(self, folder: str, *parts: str) -> str:
        return os.path.normpath(os.path.join(folder, *parts))

    def relative(self, path: str, base: str) -> str:
        """`path` below `base`, by the names as given: symbolic links keep their own layout."""
        return os.path.relpath(os.path.abspath(path), os.path.abspath(base))

    def common(self, paths: list[str]) -> str:
        return os.path.commonpath([os.path.abspath(p) for p in paths])

    def folders(self, root: str, recursive: bool, skip: str | None) -> Iterator[tuple[str, list]]:
        """(folder, its photo names sorted) for `root` and, if asked, every folder below it
        (depth first, sorted), leaving out the folder `skip` (our own output)."""
        skip_key = os.path.realpath(skip) if skip is not None and os.path.isdir(skip) else None
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            if not recursive:
                dirs.clear()
            dirs[:] = [d for d in dirs if os.path.realpath(os.path.join(folder, d)) != skip_key]
            names = sorted(f for f in files if is_photo_name(f))
            yield folder, [n for n in names if os.path.isfile(os.path.join(folder, n))]

    def read(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def write(self, target: str, data: bytes) -> None:
        """Write to a temporary name then rename: an interrupted run never leaves half a file."""
        target_path = Path(target)
        target_path.parent.mkdir(parents=True, exist_ok=True)
        temporary = target_path.with_name(f".{target_path.name}.{os.getpid()}.part")
        try:
            temporary.write_bytes(data)
            os.replace(temporary, target_path)
        finally:
            temporary.unlink(missing_ok=True)


class RemoteStore(Store):
    """Any fsspec file system (memory://, s3://, gs://...); paths are full URLs."""

    def __init__(self, url: str):
        try:
            from fsspec.core import url_to_fs
        except ImportError:
            raise PlanError(
                f"{url}: URLs need fsspec: pip install 'sudoku-lens[dask]' (and s3fs or gcsfs"
                " for s3:// or gs://)"
            ) from None
        try:
            self.fs, _ = url_to_fs(url)
        except (ImportError, ValueError) as error:
            raise PlanError(f"{url}: {error}") from None
        self.protocol = url.split("://", 1)[0]

    def _path(self, url: str) -> str:
        return self.fs._strip_protocol(url)

    def _url(self, path: str) -> str:
        return self.fs.unstrip_protocol(path)

    def exists(self, path: str) -> bool:
        return self.fs.exists(self._path(path))

    def is_dir(self, path: str) -> bool:
        return self.fs.isdir(self._path(path))

    def is_file(self, path: str) -> bool:
        return self.fs.isfile(self._path(path))

    def same(self, a: str, b: str) -> bool:
        return self._path(a) == self._path(b)

    def join(self, folder: str, *parts: str) -> str:
        return posixpath.join(folder, *[p for p in parts if p not in ("", ".")])

    def relative(self, path: str, base: str) -> str:
        return posixpath.relpath(self._path(path), self._path(base))

    def common(self, paths: list[str]) -> str:
        return self._url(posixpath.commonpath([self._path(p) for p in paths]))

    def folders(self, root: str, recursive: bool, skip: str | None) -> Iterator[tuple[str, list]]:
        skip_path = self._path(skip) if skip is not None else None
        walk = self.fs.walk(self._path(root), maxdepth=None if recursive else 1)
        for folder, dirs, files in walk:
            if folder == skip_path:
                continue
            if isinstance(dirs, list):
                dirs.sort()
            yield self._url(folder), sorted(f for f in files if is_photo_name(f))

    def read(self, path: str) -> bytes:
        return self.fs.cat_file(self._path(path))

    def write(self, target: str, data: bytes) -> None:
        """One whole-object write: object stores never show half an object."""
        path = self._path(target)
        self.fs.makedirs(posixpath.dirname(path), exist_ok=True)
        self.fs.pipe_file(path, data)


def store_for(location: str) -> Store:
    """The store that holds `location`: local files for paths and file:// URLs, fsspec else."""
    if "://" not in location or location.startswith("file://"):
        return Store()
    return RemoteStore(location)


def local_path(location: str) -> str:
    """A file:// URL as a plain path (anything else unchanged)."""
    return location[len("file://") :] if location.startswith("file://") else location


def _tasks(inputs: list[str], out: str | None, recursive: bool) -> Iterator[Task]:
    """Every photo named or inside the folders, each name once, with its output.

    Files named are always tried (a wrong one is a recorded failure); inside folders, files
    without an image extension are skipped quietly, as are our own outputs. The layout below
    the inputs' common folder is mirrored under `out`; output names are made unique per
    folder and never equal to a photo named. Only the names of one folder are held at a time.
    """
    inputs = [local_path(p) for p in inputs]
    out = local_path(out) if out is not None else None
    store = store_for(inputs[0])
    out_store = store_for(out) if out is not None else None
    if isinstance(out_store, RemoteStore):
        out = out_store._url(out_store._path(out))  # one spelling, as inputs are listed
    bases = [p if store.is_dir(p) else _parent(store, p) for p in inputs]
    common = store.common(bases)
    named = {_key(store, p) for p in inputs if not store.is_dir(p)}
    listed_folders: list[str] = []  # folders already listed whole (inputs overlap rarely)
    taken: dict[str, set[str]] = {}  # output folder -> names given, for explicit files

    def target_for(photo: str, folder_taken: set[str]) -> str | None:
        if out is None:
            folder = _parent(store, photo)
            where = store
        else:
            folder = out_store.join(out, store.relative(_parent(store, photo), common))
            where = out_store
        stem = posixpath.splitext(posixpath.basename(photo.replace(os.sep, "/")))[0]
        k = 1
        while True:
            name = f"{stem}{'' if k == 1 else f'-{k}'}.solved.jpg"
            target = where.join(folder, name)
            key = name.lower()
            if key not in folder_taken and _key(store, target) not in named:
                folder_taken.add(key)
                return target
            k += 1

    listed: set[str] = set()  # files named on their own that were given a task already
    for path in inputs:
        if store.is_dir(path):
            for folder, names in store.folders(path, recursive, out):
                if any(_below(store, folder, done, recursive) for done in listed_folders):
                    continue  # listed already: inputs that overlap
                folder_taken = set(taken.get(_key(store, folder), ()))
                for name in names:
                    photo = store.join(folder, name)
                    key = _key(store, photo)
                    if key in named:
                        if key in listed:
                            continue
                        listed.add(key)
                    yield Task(photo, target_for(photo, folder_taken))
            listed_folders.append(path)
        else:
            key = _key(store, path)
            if key in listed:
                continue
            listed.add(key)
            folder_taken = taken.setdefault(_key(store, _parent(store, path)), set())
            yield Task(path, target_for(path, folder_taken))


def _parent(store: Store, path: str) -> str:
    if isinstance(store, RemoteStore):
        head, _ = path.rstrip("/").rsplit("/", 1)
        return head
    return os.path.dirname(path) or "."


def _key(store: Store, path: str) -> str:
    return path if isinstance(store, RemoteStore) else os.path.abspath(path)


def _below(store: Store, folder: str, root: str, recursive: bool) -> bool:
    """`folder` was listed with `root`: it is `root`, or inside it when listing recursively."""
    a, b = _key(store, folder), _key(store, root)
    return a == b or recursive and a.startswith(b.rstrip("/") + "/")


# ---------------------------------------------------------------- one photo (worker side)


def solve_file(task: Task, settings: Settings = Settings()):
    """Solve one photo and write its solved photo; the record, never raises for a photo.

    Runs in worker processes (the pool's or a Dask worker's): everything it needs is
    imported here.

    Parameters
    ----------
    task : Task
    settings : Settings

    Returns
    -------
    api.photo.schema.PhotoResultModel
        The photo's record, with `timings["end_to_end"]` (milliseconds, reading and writing
        the files included).
    """
    from api.photo.schema import PhotoResultModel

    start = time.perf_counter()
    try:
        record = _solve(task, settings)
    except KeyboardInterrupt:
        raise
    except MemoryError:
        record = failure(task.photo, "error", "out of memory while solving this photo")
    except Exception as error:  # one bad photo never stops a batch: record the bug
        record = failure(task.photo, "error", f"internal error: {type(error).__name__}: {error}")
    assert isinstance(record, PhotoResultModel)
    record.timings["end_to_end"] = round((time.perf_counter() - start) * 1000, 2)
    return record


def _solve(task: Task, settings: Settings):
    from api.photo.failures import failure_of
    from api.photo.pipeline import solve_photo
    from vision import VisionError

    fmt = OUTPUT_FORMATS.get(_suffix(task.target), "jpeg") if task.target else None
    store = store_for(task.photo)
    source = task.photo if type(store) is Store else None
    try:
        if source is None:
            try:
                source = store.read(task.photo)
            except FileNotFoundError:
                return failure(task.photo, "not_an_image", f"{task.photo}: no such file")
        result = solve_photo(
            source,
            engine=settings.engine,
            render=fmt is not None,  # no output file: nothing to draw
            encode=fmt,
            use_rules=settings.use_rules,
            mode=settings.mode,
        )
    except VisionError as error:
        failed = failure_of(error)
        return failure(task.photo, failed.status, failed.message)
    written = None
    if task.target and result.overlay_bytes is not None:
        try:
            store_for(task.target).write(local_path(task.target), result.overlay_bytes)
            written = task.target
        except OSError as error:
            result.status = "error"
            result.message = f"solved, but {task.target} could not be written: {error}"
    return result.to_model(file=task.photo, output=written)


def failure(photo: str, status: str, message: str):
    """The record of a photo that gave no reading.

    >>> failure("a.jpg", "error", "the worker process solving this photo died").status
    'error'
    """
    from api.photo.schema import PhotoResultModel

    return PhotoResultModel(file=photo, status=status, message=message)


def crashed(photo: str, times: int):
    """The record of a photo whose worker process died `times` times while solving it."""
    return failure(photo, "error", f"the worker process solving this photo died ({times}x)")


def prepare_worker(one_core: bool = True) -> None:
    """A worker's warm state, once per process: the reader loaded, the solver compiled (or
    loaded from numba's cache), one OpenCV thread (the parallelism is the processes), freed
    memory kept for the next photo (`api.scale.memory`)."""
    from api.photo.pipeline import warm_up
    from api.scale.memory import keep_freed_memory
    from api.scale.threads import limit_threads

    limit_threads(opencv=1 if one_core else None)
    keep_freed_memory()
    warm_up()


# ---------------------------------------------------------------- runners


class Runner(Protocol):
    """Turns tasks into records, in any order; each task gives exactly one record."""

    def __call__(self, tasks: Iterator[Task], settings: Settings) -> Iterator: ...


def serial(one_core: bool = True) -> Runner:
    """Every photo in this process, one after the other.

    Parameters
    ----------
    one_core : bool
        Hold OpenCV to one thread (the batch's other processes have the other cores).

    Returns
    -------
    Runner

    Examples
    --------
    >>> records = list(serial()([Task("missing.jpg", None)], Settings()))
    >>> records[0].status
    'not_an_image'
    """

    def run_serial(tasks: Iterator[Task], settings: Settings) -> Iterator:
        prepare_worker(one_core)
        for task in tasks:
            yield solve_file(task, settings)

    return run_serial


def process_pool(workers: int, window: int | None = None) -> Runner:
    """A crash-tolerant pool of `workers` processes on this machine.

    At most `window` photos are in flight, so Ctrl-C stops quickly and a long listing is
    never held as futures. A worker killed (out of memory, a signal) breaks the pool: it is
    restarted and the photos in flight are tried again, one at a time, so that the next
    death can be blamed on the one photo in flight; a photo that was in flight at
    `MAX_CRASHES` deaths is reported as `error`. (Retried side by side, an innocent photo
    that shared the first death with a killer could share the second too, and be blamed.)

    Parameters
    ----------
    workers : int
        Processes.
    window : int, optional
        Photos in flight (default: two per worker).

    Returns
    -------
    Runner
        Tasks in, records out, in the order they finish.
    """

    def run_pool(tasks: Iterator[Task], settings: Settings) -> Iterator:
        from api.photo.pipeline import warm_up

        warm_up()  # once, here: forked workers start warm instead of each paying for it
        limit = window or 2 * workers
        retry: list[Task] = []
        crashes: dict[str, int] = {}
        tasks = iter(tasks)
        exhausted = False
        while retry or not exhausted:
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_pool_worker_init)
            flying: dict[Future, Task] = {}
            broken = False
            try:
                while retry or flying or not exhausted:
                    suspect = retry or any(t.photo in crashes for t in flying.values())
                    while len(flying) < (1 if suspect else limit) and not broken:
                        if retry:
                            task = retry.pop()
                        else:
                            task = next(tasks, None)
                            if task is None:
                                exhausted = True
                                break
                        flying[pool.submit(solve_file, task, settings)] = task
                    if not flying:
                        break
                    finished, _ = wait(flying, return_when=FIRST_COMPLETED)
                    for future in finished:
                        task = flying.pop(future)
                        try:
                            yield future.result()
                        except BrokenProcessPool:
                            broken = True
                            crashes[task.photo] = crashes.get(task.photo, 0) + 1
                            if crashes[task.photo] >= MAX_CRASHES:
                                yield crashed(task.photo, crashes[task.photo])
                            else:
                                retry.append(task)
                    if broken and not flying:
                        break
            except KeyboardInterrupt:
                pool.shutdown(wait=True, cancel_futures=True)
                for future in flying:  # finished while shutting down: keep them
                    if future.done() and not future.cancelled() and future.exception() is None:
                        yield future.result()
                raise
            finally:
                pool.shutdown(wait=True, cancel_futures=True)

    return run_pool


def _pool_worker_init() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops handing out work."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    prepare_worker()


def default_runner(plan: Plan) -> Runner:
    """The pool on this machine; one photo or `workers=1` runs in this process.

    Parameters
    ----------
    plan : Plan

    Returns
    -------
    Runner
        `serial` or `process_pool(plan.workers)`.
    """
    if plan.single:
        return serial(one_core=False)
    if plan.workers == 1:
        return serial(one_core=True)
    return process_pool(plan.workers)


# ---------------------------------------------------------------- the report and the loop


class Report:
    """The per-photo report (.jsonl or .csv), written as records arrive so that an
    interruption keeps it; `resume=True` keeps what a previous run wrote and appends.

    Each record goes to the file in one write of whole lines; a write the disk refuses
    (full, read-only) is cut back to the last whole record and raised as `ReportError`, so
    the report never ends in half a line.

    Parameters
    ----------
    path : Path or None
        None: no file, `add` does nothing.
    resume : bool
        Append to an existing report instead of starting a new one.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> with Report(path) as report:
    ...     report.add(failure("a.jpg", "no_grid", "no sudoku grid found"))
    >>> sorted(reported_files(path))
    ['a.jpg']
    """

    def __init__(self, path: Path | None, resume: bool = False):
        self.path = path
        self.resume = resume
        self.fd: int | None = None
        self.size = 0  # bytes of whole records in the file
        self.csv = path is not None and path.suffix.lower() == ".csv"

    def __enter__(self) -> Report:
        if self.path is None:
            return self
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            appending = self.resume and self.path.exists() and self.path.stat().st_size > 0
            if appending:
                _drop_partial_last_line(self.path)
            flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if appending else os.O_TRUNC)
            self.fd = os.open(self.path, flags, 0o644)
            self.size = os.fstat(self.fd).st_size
        except OSError as error:
            raise ReportError(self.path, error, "open") from None
        if self.csv and not appending:
            self.write(_csv_line(dict(zip(REPORT_COLUMNS, REPORT_COLUMNS, strict=True))))
        return self

    def add(self, record) -> None:
        if self.fd is None:
            return
        row = record.model_dump() if hasattr(record, "model_dump") else record
        self.write(_csv_line(csv_row(row)) if self.csv else json.dumps(row) + "\n")

    def write(self, line: str) -> None:
        """Append whole lines, or cut the file back to its last whole record and raise."""
        data = line.encode("utf-8")
        try:
            written = 0
            while written < len(data):
                written += os.write(self.fd, data[written:])
        except OSError as error:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, self.size)  # truncating needs no free space
            raise ReportError(self.path, error) from None
        self.size += len(data)

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def _csv_line(row: dict) -> str:
    text = io.StringIO()
    csv.DictWriter(text, REPORT_COLUMNS, extrasaction="ignore").writerow(row)
    return text.getvalue()


def csv_row(record: dict) -> dict:
    """A record as one row of the CSV report (corrections as `r1c2:5>6@0.41;...`)."""
    corrections = ";".join(
        f"{c['cell']}:{c['read']}>{c['now']}@{c['confidence']:.2f}" for c in record["corrections"]
    )
    # mistakes as `r1c2:7>5` (written 7, right 5; `r1c2:7` when the mode does not reveal it)
    mistakes = ";".join(
        f"{m['cell']}:{m['written']}" + ("" if m.get("right") is None else f">{m['right']}")
        for m in record.get("mistakes") or ()
    )
    # every grid of the photo as `number:kind:status`, `2:solution:complete;...`
    grids = ";".join(
        f"{g['number']}:{g['kind'] or 'cut_off'}:{g['status']}" for g in record.get("grids") or ()
    )
    row = {k: record.get(k) for k in REPORT_COLUMNS if k in record}
    row.update(
        corrections=corrections,
        total_ms=record["timings"].get("end_to_end"),
        mistakes=mistakes,
        grids=grids,
    )
    return {k: ("" if v is None else v) for k, v in row.items()}


def reported_files(path: Path) -> set[str]:
    """The photos a report already holds (its `file` fields); a torn last line is ignored.

    Parameters
    ----------
    path : Path
        A .jsonl or .csv report; a missing one holds nothing.

    Returns
    -------
    set of str
    """
    if not path.exists():
        return set()
    with open(path, newline="", encoding="utf-8") as handle:
        if path.suffix.lower() == ".csv":
            return {row["file"] for row in csv.DictReader(handle) if row.get("status")}
        files = set()
        for line in handle:
            try:
                files.add(json.loads(line)["file"])
            except (ValueError, KeyError):
                continue  # the line an interrupted write left half done
        return files


def needs_redo(record: dict, stores: dict | None = None) -> bool:
    """Whether a reported photo must be solved again on resume: it was solved but its
    solved photo could not be written (a full or read-only output folder), or the solved
    photo it names is missing now.

    >>> needs_redo({"status": "error", "solution": "1" * 81, "output": None})
    True
    >>> needs_redo({"status": "no_grid", "solution": None, "output": None})
    False
    """
    output = record.get("output") or None
    if record.get("status") == "error" and record.get("solution") and output is None:
        return True
    if output is None:
        return False
    stores = {} if stores is None else stores
    kind = output.split("://", 1)[0] if "://" in output else "file"
    store = stores.get(kind) or stores.setdefault(kind, store_for(output))
    try:
        return not store.exists(local_path(output))
    except Exception:  # an unreachable store: the record stands, as written
        return False


def settle(path: Path) -> set[str]:
    """Before a resume: the photos the report holds for good; it is rewritten without the
    rest (a torn last line, records of photos to redo, repeats), so each photo ends up in it
    once.

    Parameters
    ----------
    path : Path
        A .jsonl or .csv report; a missing one holds nothing.

    Returns
    -------
    set of str
        The photos whose records stand.

    Raises
    ------
    ReportError
        The report cannot be read or rewritten.
    """
    if not path.exists():
        return set()
    is_csv = path.suffix.lower() == ".csv"
    kept: dict[str, str] = {}  # file -> its line, the last record of each photo
    dropped, stores = 0, {}
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            if is_csv:
                rows = ((row, _csv_line(row)) for row in csv.DictReader(handle))
            else:
                rows = ((_json_or_none(line), line) for line in handle)
            for row, line in rows:
                if not row or not row.get("file") or not row.get("status"):
                    dropped += 1
                    continue
                if not line.endswith("\n"):
                    line += "\n"
                dropped += row["file"] in kept
                if needs_redo(row, stores):
                    dropped += 1
                    kept.pop(row["file"], None)
                    continue
                kept[row["file"]] = line
        if dropped:
            header = _csv_line(dict(zip(REPORT_COLUMNS, REPORT_COLUMNS, strict=True)))
            _replace(path, ([header] if is_csv else []) + list(kept.values()))
    except OSError as error:
        raise ReportError(path, error, "rewrite") from None
    return set(kept)


def _json_or_none(line: str) -> dict | None:
    try:
        row = json.loads(line)
    except ValueError:
        return None  # the line an interrupted write left half done
    return row if isinstance(row, dict) and line.endswith("\n") else None


def _replace(path: Path, lines: list[str]) -> None:
    """Write `lines` to a temporary file beside `path`, then rename it over `path`."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        with open(temporary, "w", newline="", encoding="utf-8") as handle:
            handle.writelines(lines)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _drop_partial_last_line(path: Path) -> None:
    """A run killed mid-write may leave a last line without its newline: cut it off, so
    that photo is solved again and the report stays one record per line."""
    with open(path, "rb+") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - 65536))
        tail = handle.read()
        if tail.endswith(b"\n"):
            return
        cut = tail.rfind(b"\n")
        handle.truncate(size - len(tail) + cut + 1 if cut >= 0 else 0)


def run(
    plan: Plan,
    runner: Runner | None = None,
    *,
    resume: bool = False,
    on_record: Callable[[object], None] | None = None,
    on_skip: Callable[[int], None] | None = None,
) -> Counter:
    """Solve a plan's photos with `runner`, writing the report as records arrive.

    Parameters
    ----------
    plan : Plan
    runner : Runner, optional
        Who solves (default: `default_runner(plan)`).
    resume : bool
        Skip the photos the report already holds and append to it: each photo ends up in the
        report once, however often a run is stopped and started again.
    on_record : callable, optional
        Called with each record as it is written.
    on_skip : callable, optional
        Called once with how many photos a resumed report already held.

    Returns
    -------
    Counter
        Photos per status (the records themselves are not kept).

    Raises
    ------
    KeyboardInterrupt
        Passed on after the records that finished are written (the runner is told, so it
        can hand over what finished meanwhile).
    ReportError
        The report could not be written; it holds every record up to there, whole.
    """
    runner = runner or default_runner(plan)
    done = settle(plan.report) if resume and plan.report is not None else set()
    if on_skip is not None:
        on_skip(len(done))
    tasks = (t for t in plan.tasks() if t.photo not in done)
    statuses: Counter = Counter()
    with Report(plan.report, resume=resume) as report:

        def write(records: Iterable) -> None:
            for record in records:
                report.add(record)
                statuses[record.status] += 1
                if on_record is not None:
                    on_record(record)

        records = runner(tasks, plan.settings)
        try:
            write(records)
        except KeyboardInterrupt:
            with contextlib.suppress(KeyboardInterrupt):
                write(_after_interrupt(records))
            raise
        finally:  # the runner stops its workers here and now, not when collected
            if hasattr(records, "close"):
                records.close()
    return statuses


def _after_interrupt(records: Iterator) -> Iterator:
    """What a runner still yields once told of a Ctrl-C that reached its caller (the
    records that finished meanwhile), until it passes the interrupt on."""
    throw = getattr(records, "throw", None)
    if throw is None:
        return
    try:
        record = throw(KeyboardInterrupt())
    except (KeyboardInterrupt, StopIteration):
        return
    yield record
    yield from records
