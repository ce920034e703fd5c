"""`sudoku-lens eval DIR`: read every photo of a labelled folder and measure the reading.

The data-set readers and the metrics are `api.photo.evaluation`'s; this module checks the
arguments, runs the reader over the folder and prints the tables. Vision is imported inside
the command so the CLI starts fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from api.photo.evaluation import Outcome, evaluate, find_samples, summarise

# --- printing ------------------------------------------------------------------------------------


def fmt_ratio(r: dict) -> str:
    if r["percent"] is None:
        return "n/a (not labelled)"
    return f"{r['percent']:.2f}%  ({r['count']}/{r['of']})"


def print_report(summary: dict, folder: Path, engine: str, console, plain: bool = False) -> None:
    """Three tables: the measures, latency per stage, the confusion matrix. ``plain`` (stdout
    is a pipe) draws them without box lines, as space-aligned text."""
    from functools import partial

    from rich import table as rich_table

    Table = partial(rich_table.Table, box=None) if plain else rich_table.Table
    table = Table(title=f"sudoku-lens eval {folder} (engine {engine})", title_justify="left")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("photos", str(summary["photos"]))
    table.add_row("errors (no grid, unreadable...)", str(summary["errors"]))
    table.add_row("grid located (corners within 5%)", fmt_ratio(summary["located"]))
    table.add_row("cell accuracy", fmt_ratio(summary["cell_accuracy"]))
    table.add_row("photos fully correct", fmt_ratio(summary["fully_correct"]))
    console.print(table)

    latency = Table(title="latency per photo (ms)", title_justify="left")
    latency.add_column("stage")
    latency.add_column("p50", justify="right")
    latency.add_column("p95", justify="right")
    for stage, values in summary["latency_ms"].items():
        latency.add_row(stage, f"{values['p50']:.1f}", f"{values['p95']:.1f}")
    console.print(latency)

    counts = summary["confusion"]["counts"]
    if any(any(row) for row in counts):
        confusion = Table(
            title="confusion (rows: expected, columns: read; 0 = empty)", title_justify="left"
        )
        confusion.add_column("")
        for d in range(10):
            confusion.add_column(str(d), justify="right")
        for d, row in enumerate(counts):
            confusion.add_row(str(d), *(str(v) if v else "." for v in row))
        console.print(confusion)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    @app.command("eval")
    def eval_command(
        folder: Path = typer.Argument(..., help="a Wicht or Kubiesa labelled folder of photos"),
        engine: str = typer.Option(
            None, "--engine", "-e", help="recognition engine (default: the best measured)"
        ),
        json_out: Path = typer.Option(
            None, "--json-out", "-j", help="also write the figures as JSON here"
        ),
        limit: int = typer.Option(
            0, "--limit", "-n", help="read only the first N photos (0 = all)"
        ),
        threads: int = typer.Option(
            1,
            "--threads",
            help="OpenCV threads (BLAS always gets one; 1 gives the one-thread latency)",
        ),
    ) -> None:
        """Read every photo of a labelled folder; print located %, cell accuracy, confusion, latency."""
        from api.cli.output import is_terminal, stderr_console, stdout_console

        err = stderr_console()
        if not folder.is_dir():
            err.print(f"error: {folder} is not a folder", soft_wrap=True)
            raise typer.Exit(2)
        import vision
        from api.scale.threads import limit_threads
        from vision import recognise

        if engine is not None and engine not in recognise.ENGINES:
            err.print(
                f"error: unknown engine {engine!r}; choose from {', '.join(recognise.ENGINES)}",
                soft_wrap=True,
            )
            raise typer.Exit(2)
        engine = engine or recognise.DEFAULT_ENGINE
        limit_threads(opencv=threads)
        samples = find_samples(folder)
        if limit:
            samples = samples[:limit]
        if not samples:
            err.print(f"error: no images found in {folder}", soft_wrap=True)
            raise typer.Exit(2)

        def read(path):
            return vision.read_photo(path, engine=engine)

        def progress(outcome: Outcome) -> None:
            if outcome.error:
                err.print(f"{outcome.name}: {outcome.error}", soft_wrap=True)

        try:
            if is_terminal():
                from rich.progress import track

                outcomes = evaluate(
                    track(samples, description="reading", console=err), read, progress
                )
            else:
                outcomes = evaluate(samples, read, progress)
        except KeyboardInterrupt:
            err.print("interrupted", soft_wrap=True)
            raise typer.Exit(130) from None
        summary = summarise(outcomes)
        summary["folder"] = str(folder)
        summary["engine"] = engine
        print_report(summary, folder, engine, stdout_console(), plain=not is_terminal())
        if json_out is not None:
            try:
                json_out.write_text(json.dumps(summary, indent=1))
            except OSError as error:
                err.print(
                    f"error: cannot write {json_out}: {error.strerror or error}", soft_wrap=True
                )
                raise typer.Exit(1) from None
            err.print(f"wrote {json_out}", soft_wrap=True)
        if summary["errors"]:
            raise typer.Exit(1)
