"""`sudoku-lens solve`: photos in, solved photos out, one photo or whole folders.

One photo: `sudoku-lens solve PHOTO` writes PHOTO's name with `.solved.jpg` next to it (or
`-o FILE`) and prints what was read and the solution (`--json`: the full result).
Many photos: `sudoku-lens solve DIR_OR_FILES... --out DIR` solves every image in parallel
processes, mirrors the folder layout under DIR, records every failure with its reason (and in
`--report results.jsonl|csv`), and ends with a summary. Inputs are never overwritten; Ctrl-C
keeps what is finished.

The work is `api.scale.batch`'s; this module parses the arguments and formats the answer. It
imports only the standard library and typer/rich at start-up: numpy, OpenCV, numba, the
reader and the solver load inside the command, so `sudoku-lens --help` stays fast.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

import typer

from api.cli.output import stderr_console, stdout_console


def register(app: typer.Typer) -> None:
    """Add `solve` to the app."""
    app.command("solve", no_args_is_help=True)(solve)


def solve(
    paths: list[str] = typer.Argument(
        ...,
        help="Photos, or folders of photos: paths, or fsspec URLs (file://, s3://... with the dask extra).",
        show_default=False,
    ),
    out: str | None = typer.Option(
        None,
        "--out",
        help="Folder (or URL) for the solved photos (batch mode; folder layout mirrored).",
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
    mode: str = typer.Option(
        "solve",
        "--mode",
        "-m",
        help="solve: draw every missing answer and mark wrong entries; check: mark only your wrong entries, reveal nothing else; hint: the next logical step only.",
    ),
    scheduler: str | None = typer.Option(
        None,
        "--scheduler",
        help="Run the batch on Dask: tcp://HOST:8786 (a running scheduler) or local:N (N worker processes here). Needs the dask extra.",
    ),
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Go on from --report: photos it already holds are skipped, the rest appended.",
    ),
) -> None:
    """Solve sudoku photos and draw the missing digits onto them.

    Exit status: 0 every photo solved, 1 some photo failed (the rest was done),
    2 usage error, 130 interrupted (finished outputs and the partial report are kept).
    """
    from api.scale.batch import PlanError, Settings, make_plan

    err = stderr_console()
    try:
        plan = make_plan(
            paths,
            out=out,
            output=output,
            recursive=recursive,
            workers=workers,
            report=report,
            settings=Settings(engine, use_rules=not no_rules, mode=mode),
        )
        if resume and plan.report is None:
            raise PlanError("--resume goes on from a report: give --report R.jsonl (or .csv)")
    except PlanError as error:
        _error(err, error)
        raise typer.Exit(2) from None
    if plan.single and not resume and scheduler is None:
        raise typer.Exit(_solve_single(plan, as_json))
    if scheduler is None:
        raise typer.Exit(_solve_batch(plan, as_json, resume=resume))
    raise typer.Exit(_solve_on_dask(plan, as_json, scheduler, resume))


def _solve_on_dask(plan, as_json: bool, scheduler: str, resume: bool) -> int:
    from api.scale.cluster import SchedulerError, connect, dask_runner, workers_of

    err = stderr_console()
    try:
        with connect(scheduler) as client:
            plan.workers = workers_of(client)
            err.print(f"dask: {scheduler}, {plan.workers} worker threads", markup=False)
            return _solve_batch(plan, as_json, dask_runner(client), resume)
    except SchedulerError as error:
        _error(err, error)
        return 2
    except KeyboardInterrupt:  # while the cluster starts or stops
        err.print("[yellow]interrupted[/]")
        return 130


def _error(err, error: Exception | str) -> None:
    from rich.markup import escape

    err.print(f"[bold red]error:[/] {escape(str(error))}", soft_wrap=True)


def _solve_single(plan, as_json: bool) -> int:
    from api.scale.batch import ReportError, run

    records = []
    try:
        run(plan, on_record=records.append)
    except ReportError as error:
        _error(stderr_console(), error)
        return 1
    record = records[0].model_dump()
    if as_json:
        print(json.dumps(record, indent=2))
    else:
        _print_single(record)
    return 0 if all_solved(record) else 1


def all_solved(record: dict) -> bool:
    """Whether every puzzle of a photo was solved: its first, and each other whole grid
    (a printed solution is complete, and a grid cut off by the photo's edge is said, not
    failed: it was never all in view)."""
    grids = record.get("grids") or []
    done = ("solved", "complete")
    return record["status"] in done and all(g["status"] in done or g["kind"] is None for g in grids)


def _print_single(record: dict) -> None:
    from rich.markup import escape

    out, err = stdout_console(), stderr_console()
    status, file = record["status"], escape(record["file"])
    grids = record.get("grids") or []
    if record["givens"] is None and len(grids) <= 1:
        err.print(f"[bold red]{file}: {status}[/]: {escape(record['message'])}")
        return
    if len(grids) <= 1:
        out.print(f"[bold]{file}[/]: [{_colour(status)}]{status}[/]")
        _print_grid(out, record)
    else:
        said = Counter(g["status"] for g in grids)
        counted = ", ".join(f"{n} {status}" for status, n in said.items())
        out.print(f"[bold]{file}[/]: {len(grids)} grids: {counted}")
        for grid in grids:
            said = f"{grid['status']}" + ("" if grid["kind"] != "solution" else " (a solution)")
            out.print(
                f"[bold]grid {grid['number']} of {len(grids)}[/]: [{_colour(grid['status'])}]"
                f"{said}[/]  ({sum(grid['timings'].values()):.0f} ms)"
            )
            _print_grid(out, grid)
    if record["output"]:
        ms = record["timings"].get("end_to_end", 0)
        out.print(f"solved photo: {record['output']}  ({ms:.0f} ms)")


def _colour(status: str) -> str:
    return "green" if status in ("solved", "complete") else "red"


def _print_grid(out, grid: dict) -> None:
    """One grid's message, its reading beside its solution, and the person's entries."""
    from rich.markup import escape

    if grid["message"] != grid["status"]:
        out.print(escape(grid["message"]), highlight=False)
    if grid["read"] is None:
        return
    changed = {c["index"] for c in grid["corrections"]}
    size = grid.get("size", 9)
    box = {6: (2, 3), 16: (4, 4)}.get(size, (3, 3))
    if size != 9 or grid.get("variant", "standard") != "standard":
        said = f"{size}x{size}" + (
            f", {grid['variant']}" if grid.get("variant") != "standard" else ""
        )
        if grid.get("convention"):
            said += f", printed {grid['convention']}"
        out.print(f"board: {said}", highlight=False)
    out.print(grid_text(grid["read"], grid["solution"], changed, box), highlight=False)
    _print_marks(out, grid)


def _print_marks(out, record: dict) -> None:
    """The user's own entries, their mistakes and the hint, under the grids."""
    entries = record.get("entries")
    if entries and entries.strip("0"):
        kinds = record.get("kinds") or "." * 81
        board = "".join(
            e if e != "0" else ("c" if k == "c" else "0")
            for e, k in zip(entries, kinds, strict=True)
        )
        out.print("your entries (c = pencil candidates)", highlight=False)
        out.print(grid_text(board, None).split("\n", 1)[1].replace("c", "c"), highlight=False)
    for m in record.get("mistakes") or ():
        right = "" if m.get("right") is None else f", should be {m['right']}"
        said = f"{m['cell']}: you wrote {m['written']}{right}"
        if m.get("reason") == "clash":  # written twice: "r3c4 and r3c6 both hold 2"
            said = m["said"]
        out.print(f"[red]wrong:[/] {said}", highlight=False)
    for m in record.get("unclear") or ():
        said = m.get("said") or f"{m['cell']}: read as {m['written']}"
        out.print(
            f"[yellow]unclear:[/] {said} the reading is unsure: look at it yourself",
            highlight=False,
        )
    hint = record.get("hint")
    if hint:
        out.print(f"[bold]hint[/] ({hint['technique']}): {hint['sentence']}", highlight=False)


def grid_text(
    givens: str, solution: str | None, changed: set[int] = frozenset(), box: tuple = (3, 3)
) -> str:
    """The givens as read and, beside them, the solution with the new digits highlighted
    (cells the rules corrected in yellow). Any board: its side from the line's length,
    `box` its (rows, columns) of a box; '0' or '.' is empty.

    >>> print(grid_text("1" + "0" * 80, None).splitlines()[1])
    1 . . | . . . | . . .
    >>> print(grid_text("12" + "." * 34, None, box=(2, 3)).splitlines()[1])
    1 2 . | . . .
    """
    n = math.isqrt(len(givens))
    box_rows, box_cols = box

    def row(line: str, r: int, mark: bool) -> str:
        cells = []
        for c in range(n):
            i = r * n + c
            d = line[i] if line[i] not in "0." or n == 16 and line[i] == "0" else "."
            if mark and i in changed:
                d = f"[bold yellow]{d}[/]"
            elif (
                mark
                and givens[i] in "0."
                and not (n == 16 and givens[i] == "0")
                or not mark
                and i in changed
            ):
                d = f"[bold cyan]{d}[/]"
            cells.append(d)
        return " | ".join(" ".join(cells[k : k + box_cols]) for k in range(0, n, box_cols))

    width = 2 * n + 2 * (n // box_cols - 1) - 1
    lines = [f"{'read':<{width}}    {'solution' if solution else ''}".rstrip()]
    rule = "-+-".join("-" * (2 * box_cols - 1) for _ in range(n // box_cols))
    for r in range(n):
        if r and r % box_rows == 0:
            lines.append(f"{rule}    {rule}" if solution else rule)
        left = row(givens, r, False)
        lines.append(f"{left}    {row(solution, r, True)}" if solution else left)
    return "\n".join(lines)


# ---------------------------------------------------------------- many photos


def _solve_batch(plan, as_json: bool, runner=None, resume: bool = False) -> int:
    from api.scale.batch import IMAGE_EXTENSIONS, ReportError, run

    err, out = stderr_console(), stdout_console()
    counts: Counter = Counter()
    unsolved = 0  # photos with a puzzle left unsolved, any grid of them
    progress = _progress(err) if err.is_terminal else None
    total = plan.count() if progress is not None else None
    start = time.perf_counter()
    interrupted = False

    def done(record) -> None:
        nonlocal unsolved
        counts[record.status] += 1
        unsolved += not all_solved(record.model_dump())
        if as_json:
            print(record.model_dump_json(), flush=True)
        else:
            _print_line(out, record)
        if progress is not None:
            progress.advance(progress.task_ids[0])

    def skipped(n: int) -> None:
        if n:
            err.print(f"resuming: {_plural(n, 'photo')} already in {plan.report}", markup=False)
        if progress is not None:
            progress.start()
            progress.add_task("solving", total=None if total is None else max(total - n, 0))

    lost = report_failed = None
    try:
        run(plan, runner, resume=resume, on_record=done, on_skip=skipped)
    except KeyboardInterrupt:
        interrupted = True
    except ReportError as error:
        report_failed = error
    except _lost_scheduler() as error:
        lost = error
    finally:
        if progress is not None:
            progress.stop()
    if report_failed is not None:
        _error(err, report_failed)
        return 1
    if not counts and not interrupted and not resume:
        extensions = ", ".join(sorted(IMAGE_EXTENSIONS))
        err.print(f"[bold red]error:[/] no photos found (looked for {extensions})")
        return 1
    _summary(err, counts, total, time.perf_counter() - start, plan, interrupted)
    if lost is not None:
        _error(
            err,
            f"lost the Dask scheduler ({type(lost).__name__}: {lost}); "
            "the report holds every photo finished: run again with --resume",
        )
        return 1
    if interrupted:
        return 130
    return 0 if unsolved == 0 else 1


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


def _lost_scheduler() -> tuple[type[BaseException], ...]:
    """The errors of a lost Dask scheduler, when Dask is loaded at all."""
    if "distributed" not in sys.modules:
        return ()
    from api.scale.cluster import lost_scheduler_errors

    return lost_scheduler_errors()


def _print_line(out, record) -> None:
    from rich.markup import escape

    file = escape(record.file)
    grids = record.grids
    page = ""
    if len(grids) > 1:
        said = Counter(g.status for g in grids)
        page = f" ({len(grids)} grids: {', '.join(f'{n} {s}' for s, n in said.items())})"
    if record.status == "solved":
        note = f" ({len(record.corrections)} corrected)" if record.corrections else ""
        out.print(f"[green]solved[/]  {file} -> {escape(record.output or '')}{note}{page}")
    else:
        out.print(f"[red]{record.status}[/]  {file}: {escape(record.message)}{page}")


def _summary(err, counts: Counter, total: int | None, seconds: float, plan, interrupted) -> None:
    from rich.table import Table

    finished = sum(counts.values())
    table = Table(title="sudoku-lens solve", title_justify="left", show_edge=False)
    table.add_column("status")
    table.add_column("photos", justify="right")
    for status, n in sorted(counts.items(), key=lambda kv: (kv[0] != "solved", -kv[1])):
        table.add_row(status, str(n), style="green" if status == "solved" else "red")
    if interrupted and total is not None:
        table.add_row("not done (interrupted)", str(total - finished), style="yellow")
    table.add_row("total", str(total if total is not None else finished), style="bold")
    err.print(table)
    rate = finished / seconds if seconds > 0 else 0.0
    where = f" into {plan.out}" if plan.out is not None else ""
    err.print(
        f"{_plural(finished, 'photo')} in {seconds:.1f} s ({rate:.1f} photos/s, "
        f"{_plural(plan.workers, 'worker')}){where}"
    )
    if plan.report is not None:
        err.print(f"report: {plan.report}")
    if interrupted:
        err.print("[yellow]interrupted: finished outputs and the partial report are kept[/]")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(typer.run(solve))
