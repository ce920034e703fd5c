"""`sudoku-lens solve`: photos in, solved photos out, one photo or whole folders.

One photo: `sudoku-lens solve PHOTO` writes PHOTO's name with `.solved.jpg` next to it (or
`-o FILE`) and prints what was read and the solution (`--json`: the full result).
Many photos: `sudoku-lens solve DIR_OR_FILES... --out DIR` solves every image in parallel
processes, mirrors the folder layout under DIR, records every failure with its reason (and in
`--report results.jsonl|csv`), and ends with a summary. Inputs are never overwritten; Ctrl-C
keeps what is finished.

This module imports only the standard library and typer/rich at start-up: numpy, OpenCV,
numba, the reader and the solver load inside the command, so `sudoku-lens --help` stays fast.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import typer

from api.cli.output import stderr_console, stdout_console

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
)


class UsageError(Exception):
    """A bad argument or option: exit status 2 with this message."""


def register(app: typer.Typer) -> None:
    """Add `solve` to the app."""
    app.command("solve", no_args_is_help=True)(solve)


def solve(
    paths: list[Path] = typer.Argument(
        ..., help="Photos, or folders of photos.", show_default=False
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Folder for the solved photos (batch mode; folder layout mirrored)."
    ),
    output: Path | None = typer.Option(
        None, "-o", "--output", help="One photo: where to write it (.jpg or .png)."
    ),
    recursive: bool = typer.Option(False, "--recursive", "-r", help="Look into sub-folders."),
    workers: int | None = typer.Option(
        None, "--workers", "-j", min=1, help="Parallel processes (default: all cores)."
    ),
    report: Path | None = typer.Option(
        None, "--report", help="Write one record per photo to a .jsonl or .csv file."
    ),
    engine: str | None = typer.Option(
        None, "--engine", help="Digit recogniser (default: the reader's best)."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print the full result as JSON (one object per line in batch)."
    ),
    no_rules: bool = typer.Option(
        False, "--no-rules", help="Do not let the sudoku rules correct misread digits."
    ),
) -> None:
    """Solve sudoku photos and draw the missing digits onto them.

    Exit status: 0 every photo solved, 1 some photo failed (the rest was done),
    2 usage error, 130 interrupted (finished outputs and the partial report are kept).
    """
    err = stderr_console()
    try:
        job = _plan(paths, out, output, recursive, workers, report, engine)
    except UsageError as error:
        err.print(f"[bold red]error:[/] {error}")
        raise typer.Exit(2) from None
    job["use_rules"] = not no_rules
    if job["single"]:
        raise typer.Exit(_solve_single(job, as_json))
    raise typer.Exit(_solve_batch(job, as_json))


# ---------------------------------------------------------------- planning (no heavy imports)


def _plan(paths, out, output, recursive, workers, report, engine) -> dict:
    """Check the arguments and decide every input and output path before any work."""
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path}: no such file or folder")
    if engine is not None:
        _check_engine(engine)
    if report is not None and report.suffix.lower() not in (".jsonl", ".csv"):
        raise UsageError(f"--report {report}: name a .jsonl or .csv file")
    single = len(paths) == 1 and paths[0].is_file() and out is None
    if output is not None and not single:
        raise UsageError("-o/--output names the result of ONE photo; use --out DIR for several")
    if output is not None and output.suffix.lower() not in OUTPUT_FORMATS:
        raise UsageError(f"-o {output}: the solved photo must be a .jpg or .png file")
    if single:
        photo = paths[0]
        target = output or photo.with_name(f"{photo.stem}.solved.jpg")
        if _same_file(target, photo):
            raise UsageError(f"-o {output}: that is the input photo; it is never overwritten")
        return dict(single=True, photo=photo, target=target, engine=engine, report=report)
    if out is None and any(p.is_dir() for p in paths):
        raise UsageError("give --out DIR to say where the solved photos of a folder go")
    if out is not None and out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    photos = list(_collect(paths, recursive, out))
    tasks = _targets(photos, out)
    n = workers or _cores()
    return dict(single=False, tasks=tasks, workers=n, engine=engine, report=report, out=out)


def _check_engine(engine: str) -> None:
    from vision.recognise import ENGINES

    if engine not in ENGINES:
        raise UsageError(f"--engine {engine}: unknown; choose one of {', '.join(ENGINES)}")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _same_file(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


def is_photo_name(path: Path) -> bool:
    """An image by its extension, and not one of our own outputs (x.solved.jpg)."""
    name = path.name.lower()
    return (
        path.suffix.lower() in IMAGE_EXTENSIONS
        and not name.startswith(".")
        and ".solved." not in name
    )


def _collect(paths: list[Path], recursive: bool, out: Path | None) -> Iterator[Path]:
    """Every photo named or inside the folders, each once, in a stable order.

    Files named explicitly are always tried (a wrong one is a recorded failure); inside
    folders, files without an image extension are skipped quietly, as are our own outputs.
    """
    seen: set[Path] = set()
    skip = out.resolve() if out is not None and out.exists() else None
    for path in paths:
        if path.is_dir():
            found = path.rglob("*") if recursive else path.iterdir()
            files = sorted(p for p in found if p.is_file() and is_photo_name(p))
            if skip is not None:
                files = [p for p in files if skip not in p.resolve().parents]
        else:
            files = [path]
        for file in files:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                yield file


def _targets(photos: list[Path], out: Path | None) -> list[tuple[Path, Path]]:
    """(photo, output) pairs: the folder layout below the inputs' common folder is mirrored
    under `out` (or, without `out`, each output sits next to its photo); names are made
    unique and never equal to an input."""
    if not photos:
        return []
    resolved = [p.resolve() for p in photos]
    common = Path(os.path.commonpath([p.parent for p in resolved]))
    inputs = {str(p).lower() for p in resolved}
    taken: set[str] = set()
    pairs = []
    for photo, full in zip(photos, resolved, strict=True):
        folder = (out / full.parent.relative_to(common)) if out is not None else photo.parent
        stem, k = photo.stem, 1
        while True:
            target = folder / f"{stem}{'' if k == 1 else f'-{k}'}.solved.jpg"
            key = str(target.resolve()).lower()
            if key not in taken and key not in inputs:
                break
            k += 1
        taken.add(key)
        pairs.append((photo, target))
    return pairs


# ---------------------------------------------------------------- one photo (worker side too)


def solve_file(photo: str, target: str | None, engine: str | None, use_rules: bool = True) -> dict:
    """Solve one photo file and write its overlay atomically; the JSON record, never raises.

    Runs inside worker processes: everything it needs is imported here.
    """
    start = time.perf_counter()
    record: dict
    try:
        from api.failures import failure_of
        from api.pipeline import solve_photo
        from vision import VisionError

        fmt = OUTPUT_FORMATS.get(Path(target).suffix.lower(), "jpeg") if target else None
        try:
            result = solve_photo(photo, engine=engine, encode=fmt, use_rules=use_rules)
        except VisionError as error:
            failed = failure_of(error)
            record = _failure(photo, failed.status, failed.message)
        else:
            written = None
            if target and result.overlay_bytes is not None:
                try:
                    _write_atomically(Path(target), result.overlay_bytes)
                    written = target
                except OSError as error:
                    result.status = "error"
                    result.message = f"solved, but {target} could not be written: {error}"
            record = result.to_model(file=photo, output=written).model_dump()
    except KeyboardInterrupt:
        raise
    except MemoryError:
        record = _failure(photo, "error", "out of memory while solving this photo")
    except Exception as error:  # one bad photo never stops a batch: record the bug
        record = _failure(photo, "error", f"internal error: {type(error).__name__}: {error}")
    record.setdefault("timings", {})["end_to_end"] = round((time.perf_counter() - start) * 1000, 2)
    return record


def _failure(photo: str, status: str, message: str) -> dict:
    from api.schema import PhotoResultModel

    return PhotoResultModel(file=photo, status=status, message=message).model_dump()


def _write_atomically(target: Path, data: bytes) -> None:
    """Write to a temporary name then rename: an interrupted run never leaves half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def _solve_single(job: dict, as_json: bool) -> int:
    from api.pipeline import warm_up

    photo, target = job["photo"], job["target"]
    warm_up()
    record = solve_file(str(photo), str(target), job["engine"], job["use_rules"])
    if job["report"] is not None:
        with _Report(job["report"]) as report:
            report.add(record)
    if as_json:
        print(json.dumps(record, indent=2))
    else:
        _print_single(record)
    return 0 if record["status"] == "solved" else 1


def _print_single(record: dict) -> None:
    from rich.markup import escape

    out, err = stdout_console(), stderr_console()
    status, file = record["status"], escape(record["file"])
    if record["givens"] is None:
        err.print(f"[bold red]{file}: {status}[/]: {escape(record['message'])}")
        return
    colour = "green" if status == "solved" else "red"
    out.print(f"[bold]{file}[/]: [{colour}]{status}[/]")
    if record["message"] != status:
        out.print(escape(record["message"]), highlight=False)
    changed = {c["index"] for c in record["corrections"]}
    out.print(grid_text(record["read"], record["solution"], changed), highlight=False)
    if record["output"]:
        ms = record["timings"].get("end_to_end", 0)
        out.print(f"solved photo: {record['output']}  ({ms:.0f} ms)")


def grid_text(givens: str, solution: str | None, changed: set[int] = frozenset()) -> str:
    """The givens as read and, beside them, the solution with the new digits highlighted
    (cells the rules corrected in yellow).

    >>> print(grid_text("1" + "0" * 80, None).splitlines()[1])
    1 . . | . . . | . . .
    """

    def row(line: str, r: int, mark: bool) -> str:
        cells = []
        for c in range(9):
            i = r * 9 + c
            d = line[i] if line[i] != "0" else "."
            if mark and i in changed:
                d = f"[bold yellow]{d}[/]"
            elif mark and givens[i] == "0" or not mark and i in changed:
                d = f"[bold cyan]{d}[/]"
            cells.append(d)
        return " | ".join(" ".join(cells[k : k + 3]) for k in (0, 3, 6))

    width = 21
    lines = [f"{'read':<{width}}    {'solution' if solution else ''}".rstrip()]
    for r in range(9):
        if r in (3, 6):
            rule = "------+-------+------"
            lines.append(f"{rule}    {rule}" if solution else rule)
        left = row(givens, r, False)
        lines.append(f"{left}    {row(solution, r, True)}" if solution else left)
    return "\n".join(lines)


# ---------------------------------------------------------------- many photos


class _Report:
    """The per-photo report, written as results arrive so that Ctrl-C keeps it."""

    def __init__(self, path: Path | None):
        self.path = path
        self.file = None
        self.csv = None

    def __enter__(self) -> _Report:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file = open(self.path, "w", newline="", encoding="utf-8")  # noqa: SIM115
            if self.path.suffix.lower() == ".csv":
                self.csv = csv.DictWriter(self.file, REPORT_COLUMNS)
                self.csv.writeheader()
        return self

    def add(self, record: dict) -> None:
        if self.file is None:
            return
        if self.csv is not None:
            self.csv.writerow(_csv_row(record))
        else:
            self.file.write(json.dumps(record) + "\n")
        self.file.flush()

    def __exit__(self, *exc) -> None:
        if self.file is not None:
            self.file.close()


def _csv_row(record: dict) -> dict:
    corrections = ";".join(
        f"{c['cell']}:{c['read']}>{c['now']}@{c['confidence']:.2f}" for c in record["corrections"]
    )
    row = {k: record.get(k) for k in REPORT_COLUMNS if k in record}
    row.update(corrections=corrections, total_ms=record["timings"].get("end_to_end"))
    return {k: ("" if v is None else v) for k, v in row.items()}


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent (which stops handing out work), and use one
    OpenCV thread each: the parallelism is the processes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from api.pipeline import warm_up
    from api.threads import limit_threads

    limit_threads(opencv=1)
    warm_up()


def _solve_batch(job: dict, as_json: bool) -> int:
    err, out = stderr_console(), stdout_console()
    tasks: list[tuple[Path, Path]] = job["tasks"]
    if not tasks:
        err.print("[bold red]error:[/] no photos found (looked for " + _extensions_text() + ")")
        return 1
    workers = max(1, min(job["workers"], len(tasks)))
    records: list[dict] = []
    start = time.perf_counter()
    interrupted = False
    progress = _progress(err) if err.is_terminal else None

    def done(record: dict, report: _Report) -> None:
        records.append(record)
        report.add(record)
        if as_json:
            print(json.dumps(record), flush=True)
        else:
            _print_line(out, record)
        if progress is not None:
            progress.advance(progress.task_ids[0])

    with _Report(job["report"]) as report:
        try:
            if progress is not None:
                progress.start()
                progress.add_task("solving", total=len(tasks))
            args = [(str(p), str(t), job["engine"], job["use_rules"]) for p, t in tasks]
            if workers == 1:
                from api.pipeline import warm_up
                from api.threads import limit_threads

                # --workers 1 means one core; a lone photo may use OpenCV's threads.
                limit_threads(opencv=1 if job["workers"] == 1 else None)
                warm_up()
                for a in args:
                    done(solve_file(*a), report)
            else:
                for record in _in_pool(args, workers):
                    done(record, report)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if progress is not None:
                progress.stop()
    _summary(err, records, len(tasks), time.perf_counter() - start, job, interrupted)
    if interrupted:
        return 130
    return 0 if all(r["status"] == "solved" for r in records) else 1


def _in_pool(args: list[tuple], workers: int) -> Iterator[dict]:
    """Records as the workers finish them; a few tasks in flight per worker so Ctrl-C stops
    quickly. A crashed worker (killed, out of memory) fails only its own photo."""
    from api.pipeline import warm_up

    warm_up()  # once, here: forked workers start warm instead of each paying for it
    pending = list(reversed(args))
    crashes: dict[str, int] = {}
    while pending:
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)
        flying: dict[Future, tuple] = {}
        broken = False
        try:
            while pending or flying:
                while pending and len(flying) < 2 * workers and not broken:
                    a = pending.pop()
                    flying[pool.submit(solve_file, *a)] = a
                finished, _ = wait(flying, return_when=FIRST_COMPLETED)
                for future in finished:
                    a = flying.pop(future)
                    try:
                        yield future.result()
                    except BrokenProcessPool:
                        broken = True
                        crashes[a[0]] = crashes.get(a[0], 0) + 1
                        if crashes[a[0]] > 1:  # crashed twice: this photo is the culprit
                            yield _crashed(a[0])
                        else:
                            pending.append(a)
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


def _crashed(photo: str) -> dict:
    return _failure(photo, "error", "the worker process solving this photo died")


def _progress(console):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        SpinnerColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:.1f} photos/s", style="cyan")

    return Progress(
        SpinnerColumn(),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


def _print_line(out, record: dict) -> None:
    from rich.markup import escape

    file = escape(record["file"])
    if record["status"] == "solved":
        note = f" ({len(record['corrections'])} corrected)" if record["corrections"] else ""
        out.print(f"[green]solved[/]  {file} -> {escape(record['output'] or '')}{note}")
    else:
        out.print(f"[red]{record['status']}[/]  {file}: {escape(record['message'])}")


def _summary(err, records, total, seconds, job, interrupted) -> None:
    from rich.table import Table

    counts = Counter(r["status"] for r in records)
    table = Table(title="sudoku-lens solve", title_justify="left", show_edge=False)
    table.add_column("status")
    table.add_column("photos", justify="right")
    for status, n in sorted(counts.items(), key=lambda kv: (kv[0] != "solved", -kv[1])):
        table.add_row(status, str(n), style="green" if status == "solved" else "red")
    if interrupted:
        table.add_row("not done (interrupted)", str(total - len(records)), style="yellow")
    table.add_row("total", str(total), style="bold")
    err.print(table)
    rate = len(records) / seconds if seconds > 0 else 0.0
    where = f" into {job['out']}" if job.get("out") is not None else ""
    err.print(
        f"{_plural(len(records), 'photo')} in {seconds:.1f} s ({rate:.1f} photos/s, "
        f"{_plural(min(job['workers'], total), 'worker')}){where}"
    )
    if job["report"] is not None:
        err.print(f"report: {job['report']}")
    if interrupted:
        err.print("[yellow]interrupted: finished outputs and the partial report are kept[/]")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _extensions_text() -> str:
    return ", ".join(sorted(IMAGE_EXTENSIONS))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(typer.run(solve))
