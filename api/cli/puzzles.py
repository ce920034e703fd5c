"""`sudoku-lens grid` and `sudoku-lens file`: solve puzzles given as text.

`grid PUZZLE` solves one puzzle (a string, a file holding one board, or `-` for stdin) and
says whether its solution is unique; `--count` counts solutions, `--all` lists them.
`file PUZZLES.txt` solves one puzzle per line (blank lines and `#` comments skipped),
writes the solutions to stdout or `-o`, reports every bad line with its number while the
rest are still solved, and ends with a summary in puzzles per second.

Only typer and the standard library load at start-up; numpy, numba and the solver load
inside the commands, so `sudoku-lens --help` and every other command stay quick.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import typer

from api.cli.output import is_terminal, stderr_console, stdout_console


class Method(StrEnum):
    fast = "fast"
    dlx = "dlx"


class Format(StrEnum):
    line = "line"
    pretty = "pretty"
    json = "json"


class Variant(StrEnum):
    standard = "standard"
    diagonal = "diagonal"
    clover = "clover"


def _say(console, text: str) -> None:
    """A message on stderr: no markup, no highlighting, never wrapped mid-word."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


MAX_LISTED = 100_000  # --all keeps every solution in memory


@dataclass(frozen=True)
class _FileOptions:
    """How `file` solves and writes its lines."""

    method: Method
    fmt: Format
    first: bool
    jobs: int
    variant: Variant | None
    alphabet: str | None
    grade: bool


class InputError(Exception):
    """Input that cannot be read at all: exit status 2 with this message."""


VARIANT_HELP = "Board variant: standard, diagonal (both diagonals hold every symbol) or clover (samurai: five overlapping 9×9 grids on 21×21). Clover is detected from the shape."
ALPHABET_HELP = "Symbols in value order, e.g. 0123456789ABCDEF for a 16×16 board written with 0-F (default: detected, 1-9A-G when unclear)."


def register(app: typer.Typer) -> None:
    """Add `grid`, `file` and `new` to the app."""
    # A puzzle written with `-` blanks may start with `-`: not an option.
    app.command("grid", no_args_is_help=True, context_settings={"ignore_unknown_options": True})(
        grid
    )
    app.command("file", no_args_is_help=True)(file)
    app.command("new")(new)


# ----------------------------------------------------------------------------- grid


def grid(
    puzzle: str = typer.Argument(
        ...,
        metavar="PUZZLE",
        help="The puzzle: 81 characters (0 . ? - _ for blanks), a board of rows, a file holding one, or - for stdin.",
    ),
    count: bool = typer.Option(
        False, "--count", help="Count the solutions (up to --limit) instead of solving."
    ),
    all_solutions: bool = typer.Option(False, "--all", help="List every solution (up to --limit)."),
    limit: int = typer.Option(
        1000, "--limit", min=1, help="Stop counting or listing after this many solutions."
    ),
    method: Method = typer.Option(
        Method.fast, "--method", help="fast: bitmask propagation; dlx: exact cover (dancing links)."
    ),
    fmt: Format = typer.Option(
        Format.line,
        "--format",
        "-f",
        help="line (one line per board), pretty (a board for people) or json.",
    ),
    variant: Variant | None = typer.Option(None, "--variant", help=VARIANT_HELP),
    alphabet: str | None = typer.Option(None, "--alphabet", help=ALPHABET_HELP),
    explain: bool = typer.Option(
        False, "--explain", help="Print every logical step to the solution, numbered and grouped."
    ),
    hint: bool = typer.Option(False, "--hint", help="Print only the next useful logical step."),
    steps_json: bool = typer.Option(
        False, "--steps-json", help="Print the steps, grade and progress of logic as JSON."
    ),
    candidates: bool = typer.Option(
        False,
        "--candidates",
        help="Show the pencil marks (with --explain: before every step that is not a single).",
    ),
    grade: bool = typer.Option(
        True, "--grade/--no-grade", help="Grade the puzzle's difficulty (on stderr; in JSON)."
    ),
    all_steps: bool = typer.Option(
        False, "--all-steps", help="List every logical step available now, grouped by technique."
    ),
    marks: str | None = typer.Option(
        None,
        "--marks",
        help="Your own pencil marks for --hint/--all-steps: a HoDoKu library line or a 9-row "
        "candidate grid (as forum posts show it), a file holding one, or - for stdin.",
    ),
) -> None:
    """Solve one puzzle and say whether its solution is unique.

    Exit status: 0 when the puzzle has exactly one solution (or, with --count/--all, when it could be counted), 1 when it has none, several or invalid givens, 2 when the text is not a puzzle.
    """
    err = stderr_console()
    try:
        board = _parse(_read_puzzle_text(puzzle), variant, alphabet)
    except InputError as exc:
        _say(err, f"error: {exc}")
        raise typer.Exit(2) from None
    from solver import SolveResult, conflicts, count_solutions, solve

    clashes = conflicts(board)
    if clashes:
        _report_invalid(board, clashes, fmt, err)
        raise typer.Exit(1)
    if count or all_solutions:
        if all_solutions and limit > MAX_LISTED:
            _say(err, f"error: --all lists at most {MAX_LISTED:,} solutions; use --count beyond")
            raise typer.Exit(2)
        # Look for one more than the limit, so "exactly N" and "N or more" differ.
        if all_solutions:
            result = solve(board, method=method.value, limit=limit + 1)
        else:
            found = count_solutions(board, limit=limit + 1, method=method.value)
            status = {0: "none", 1: "unique"}.get(found, "multiple")
            result = SolveResult(status, [], found, "", limit + 1)
        _print_many(board, result, fmt, listing=all_solutions, limit=limit)
        raise typer.Exit(0)
    result = solve(board, method=method.value, limit=2)
    if all_steps or marks is not None:
        _print_from_marks(board, result, err, marks, all_steps, hint, fmt)
    if explain or hint or steps_json or candidates:
        _print_logic(board, result, err, explain, hint, steps_json, candidates, fmt)
        raise typer.Exit(0 if result.status == "unique" else 1)
    graded = _grade(board) if grade and result.status == "unique" else None
    _print_answer(board, result, fmt, err, graded)
    raise typer.Exit(0 if result.status == "unique" else 1)


def _read_puzzle_text(argument: str) -> str:
    if argument == "-":
        return sys.stdin.read()
    if "\n" not in argument and len(argument) < 256:
        path = Path(argument)
        try:
            if path.is_file():
                return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            pass
    return argument


def _parse(text: str, variant: Variant | None, alphabet: str | None):
    from solver.grid import PuzzleFormatError, parse

    try:
        return parse(text, alphabet=alphabet, variant=variant.value if variant else None)
    except PuzzleFormatError as exc:
        raise InputError(str(exc)) from None


def _board_text(board, values, fmt: Format) -> str:  # for grid
    from solver.grid import format_line, format_pretty

    shown = board.with_values(values)
    return format_pretty(shown) if fmt is Format.pretty else format_line(shown)


def _json_answer(board, result) -> dict:
    from solver.grid import format_line

    return {
        "puzzle": format_line(board),
        "variant": board.geometry.name,
        "size": board.size,
        "status": result.status,
        "count": result.count,
        "count_exact": result.count_is_exact,
        "solutions": [format_line(board.with_values(s)) for s in result.solutions],
        "reason": result.reason,
    }


def _report_invalid(board, clashes: list[str], fmt: Format, err) -> None:
    if fmt is Format.json:
        from solver.grid import format_line

        doc = {
            "puzzle": format_line(board),
            "variant": board.geometry.name,
            "size": board.size,
            "status": "invalid",
            "count": 0,
            "count_exact": True,
            "solutions": [],
            "reason": "; ".join(clashes),
        }
        stdout_console().print_json(json.dumps(doc))
    _say(err, f"invalid puzzle: {'; '.join(clashes)}")


def _print_answer(board, result, fmt: Format, err, graded=None) -> None:
    out = stdout_console()
    if fmt is Format.json:
        doc = _json_answer(board, result)
        if graded is not None:
            doc["grade"] = graded.to_dict()
        out.print_json(json.dumps(doc))
    elif result.status in ("unique", "multiple"):
        shown = result.solutions[:2]
        for i, values in enumerate(shown):
            if i and fmt is Format.pretty:
                out.print()
            out.print(_board_text(board, values, fmt), highlight=False, markup=False)
    if result.status == "multiple":
        a, b = result.solutions[:2]
        differ = [board.geometry.cell_name(i) for i in range(len(a)) if a[i] != b[i]]
        _say(
            err,
            f"not unique: at least {result.count} solutions; the two shown differ at "
            f"{', '.join(differ[:12])}{' …' if len(differ) > 12 else ''}",
        )
    elif result.status == "none":
        _say(err, f"no solution: {result.reason}")
    if graded is not None and fmt is not Format.json:
        _say(
            err,
            f"grade: {graded.level} (ER {graded.rating}; score {graded.score}; "
            f"hardest: {graded.hardest})",
        )


def _grade(board):
    """The difficulty grade from the logical explanation (solver.logic)."""
    from solver.logic import explain

    return explain(board).grade


def _print_from_marks(board, result, err, marks, all_steps, hint, fmt) -> None:
    """--all-steps and --marks: steps from the puzzle's pencil marks or the player's own;
    exits (2 for marks that are not marks or not this puzzle's, 1 for marks that lost the
    solution's digit: steps from them could be wrong)."""
    from solver.logic import all_steps as every_step
    from solver.logic import hint as next_step
    from solver.logic.pencilmarks import lost_digits, marks_for
    from solver.logic.text import format_all_steps

    if not (all_steps or hint):
        _say(err, "error: --marks goes with --hint or --all-steps")
        raise typer.Exit(2)
    if result.status != "unique":
        _say(err, f"error: steps need a puzzle with one solution ({result.status})")
        raise typer.Exit(1)
    state = None
    if marks is not None:
        try:
            state = marks_for(board, _read_puzzle_text(marks))
        except (InputError, ValueError) as exc:
            _say(err, f"error: {exc}")
            raise typer.Exit(2) from None
        lost = lost_digits(state, result.solutions[0])
        if lost:
            _say(err, f"error: your pencil marks disagree with the solution: {lost[0]}")
            raise typer.Exit(1)
    out = stdout_console()
    if hint and not all_steps:
        step = next_step(state if state is not None else board)
        if step is None:
            _say(err, "the board is already full")
        elif fmt is Format.json:
            out.print_json(json.dumps(step.to_dict(board.geometry, board.alphabet)))
        else:
            out.print(f"{step.technique}: {step.text}", markup=False, highlight=False)
        raise typer.Exit(0)
    steps = every_step(state if state is not None else board, unique=True)
    if fmt is Format.json:
        found = [s.to_dict(board.geometry, board.alphabet) for s in steps]
        out.print_json(json.dumps({"steps": found}))
    else:
        out.print(format_all_steps(steps), markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(0)


def _print_logic(board, result, err, explain, hint, steps_json, candidates, fmt) -> None:
    """--explain, --hint, --steps-json, --candidates: the steps of solver.logic."""
    from solver.logic import Candidates
    from solver.logic import explain as explain_puzzle
    from solver.logic import hint as next_step
    from solver.logic.text import format_explanation

    out = stdout_console()
    if result.status in ("none", "invalid"):
        _say(err, f"no solution: {result.reason}")
        return
    if hint:
        step = next_step(board)
        if step is None:
            _say(err, "the board is already full")
        elif steps_json or fmt is Format.json:
            out.print_json(json.dumps(step.to_dict(board.geometry, board.alphabet)))
        else:
            out.print(f"{step.technique}: {step.text}", markup=False, highlight=False)
        return
    if steps_json:
        out.print_json(json.dumps(explain_puzzle(board).to_json()))
        return
    if not explain:
        grid = Candidates.from_values(board.geometry, board.values, board.alphabet)
        out.print(grid.format(), markup=False, highlight=False)
        return
    explanation = explain_puzzle(board, keep_snapshots=candidates)
    text = format_explanation(explanation, candidates=candidates)
    out.print(text, markup=False, highlight=False, soft_wrap=True)
    out.print()
    out.print(_board_text(board, explanation.solution, fmt), markup=False, highlight=False)


def _print_many(board, result, fmt: Format, *, listing: bool, limit: int) -> None:
    out = stdout_console()
    err = stderr_console()
    # solve() looks for at least two; with --limit 1 the cap is 2.
    count = min(result.count, limit)
    exact = result.count_is_exact
    count_text = f"{count}" if exact else f"{count}+"
    if fmt is Format.json:
        doc = _json_answer(board, result)
        doc["count"], doc["count_exact"] = count, exact
        if not listing:
            doc.pop("solutions")
        else:
            doc["solutions"] = doc["solutions"][:limit]
        out.print_json(json.dumps(doc))
    else:
        if listing:
            for i, values in enumerate(result.solutions[:limit]):
                if i and fmt is Format.pretty:
                    out.print()
                out.print(_board_text(board, values, fmt), highlight=False, markup=False)
        else:
            out.print(count_text, highlight=False)
    if not exact:
        noun = "solution" if limit == 1 else "solutions"
        _say(err, f"stopped at the limit of {limit} {noun} (raise --limit to go on)")
    elif listing:
        _say(err, f"{count} solution{'s' if count != 1 else ''}")


# ----------------------------------------------------------------------------- file


def file(
    path: str = typer.Argument(
        ...,
        metavar="PUZZLES.txt",
        help="One puzzle per line (# comments and blank lines skipped), or - for stdin.",
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write the solutions here instead of stdout."
    ),
    method: Method = typer.Option(
        Method.fast, "--method", help="fast: bitmask propagation (batched); dlx: exact cover."
    ),
    fmt: Format = typer.Option(
        Format.line,
        "--format",
        "-f",
        help="line: one solution per solved puzzle; json: one JSON object per puzzle (JSON lines); pretty: boards.",
    ),
    first: bool = typer.Option(
        False,
        "--first",
        help="Take the first solution found without checking that it is unique (faster).",
    ),
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        "-j",
        min=1,
        help="Threads for the fast method (default: every core this process may use).",
    ),
    variant: Variant | None = typer.Option(None, "--variant", help=VARIANT_HELP),
    alphabet: str | None = typer.Option(None, "--alphabet", help=ALPHABET_HELP),
    grade: bool = typer.Option(
        False,
        "--grade",
        help="Add a difficulty column (level and score from solver.logic; slower: it explains each puzzle).",
    ),
) -> None:
    """Solve every puzzle in a file, one per line; report bad lines and go on.

    A line fails when it is not a puzzle, its givens clash, or it has no solution or (unless --first) several. Exit status: 0 when every line was solved, 1 when any line failed, 2 when the file cannot be read, 130 when interrupted (finished lines are kept).
    """
    err = stderr_console()
    try:
        lines = _read_lines(path)
    except InputError as exc:
        _say(err, f"error: {exc}")
        raise typer.Exit(2) from None
    try:
        sink = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    except OSError as exc:
        _say(err, f"error: cannot write {output}: {exc.strerror}")
        raise typer.Exit(2) from None
    options = _FileOptions(method, fmt, first, jobs or 0, variant, alphabet, grade)
    tally = _Tally()
    tally.startup = _start_engine(method, options.jobs) if lines else 0.0
    start = time.perf_counter()
    try:
        for chunk in _chunks(lines, 2000 if method is Method.fast else 200):
            _solve_chunk(chunk, sink, tally, err, options)
            sink.flush()
            tally.progress(len(lines))
    except KeyboardInterrupt:
        tally.finish(err, time.perf_counter() - start, interrupted=True)
        raise typer.Exit(130) from None
    finally:
        if output:
            sink.close()
    tally.finish(err, time.perf_counter() - start)
    raise typer.Exit(1 if tally.failed else 0)


def _read_lines(path: str) -> list[tuple[int, str]]:
    """(line number, text) of every line that holds a puzzle."""
    if path == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise InputError(
                f"{path} is a folder; give a text file with one puzzle per line"
            ) from None
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror}") from None
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if line:
            found.append((number, line))
    return found


def _chunks(items: list, n: int):
    for i in range(0, len(items), n):
        yield items[i : i + n]


class _Tally:
    """Counts per outcome and the progress bar (on a terminal only)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.startup = 0.0
        self.done = 0
        self.failed = 0
        self._bar = None

    def add(self, status: str, ok: bool) -> None:
        self.counts[status] = self.counts.get(status, 0) + 1
        self.done += 1
        self.failed += not ok

    def progress(self, total: int) -> None:
        if not is_terminal() or total < 2000:
            return
        if self._bar is None:
            from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeRemainingColumn

            self._bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                TaskProgressColumn(),
                TimeRemainingColumn(),
                console=stderr_console(),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("solving", total=total)
        self._bar.update(self._task, completed=self.done)

    def finish(self, err, seconds: float, interrupted: bool = False) -> None:
        if self._bar is not None:
            self._bar.stop()
        parts = ", ".join(f"{n} {status}" for status, n in sorted(self.counts.items()))
        rate = self.done / seconds if seconds > 0 else 0.0
        head = "interrupted after " if interrupted else ""
        _say(
            err,
            f"{head}{self.done} puzzle{'s' if self.done != 1 else ''} ({parts or 'none'}) "
            f"in {seconds:.2f} s: {rate:,.0f} puzzles/s "
            f"(engine start-up {self.startup:.2f} s before that)",
        )


def _start_engine(method: Method, jobs: int) -> float:
    """Load the compiled engine once before timing (seconds taken): numba's start-up is
    a fixed cost that says nothing about puzzles per second. Says so when it compiles."""
    from solver.many import warm_up

    def compiling() -> None:
        _say(stderr_console(), "compiling the solver once, about 15 s")

    return warm_up(method.value, jobs, on_compile=compiling)


def _solve_chunk(chunk, sink, tally, err, options: _FileOptions) -> None:
    """Solve a chunk of (line number, text) and write each line's outcome in input order."""
    from solver.grid import parse
    from solver.many import solve_many

    variant = options.variant.value if options.variant else None
    outcomes = solve_many(
        [text for _, text in chunk],
        method=options.method.value,
        unique=not options.first,
        workers=options.jobs,
        variant=variant,
        alphabet=options.alphabet,
    )
    for (number, text), outcome in zip(chunk, outcomes, strict=True):
        if outcome.ok:
            graded = None
            if options.grade:
                graded = _grade(parse(text, alphabet=options.alphabet, variant=variant))
            _write_solution(sink, tally, options.fmt, number, text, outcome, graded)
        else:
            reason = outcome.reason
            if outcome.status == "multiple":
                reason = "several solutions (--first takes one)"
            _fail(sink, tally, err, options.fmt, number, text, outcome.status, reason)


def _write_solution(sink, tally, fmt, number, text, outcome, graded=None) -> None:
    """Write one solved line."""
    from solver.grid import format_pretty

    tally.add(outcome.status, True)
    column = f" {graded.level} {graded.score}" if graded is not None else ""
    if fmt is Format.json:
        doc = {
            "line": number,
            "puzzle": text,
            "status": outcome.status,
            "solution": outcome.solution,
        }
        if graded is not None:
            doc["grade"] = graded.to_dict()
        sink.write(json.dumps(doc) + "\n")
    elif fmt is Format.pretty:
        grade_line = f"grade:{column}\n" if column else ""
        sink.write(grade_line + format_pretty(outcome.solved_board()) + "\n\n")
    else:
        sink.write(outcome.solution + column + "\n")


def _fail(sink, tally, err, fmt, number, text, status, reason) -> None:
    tally.add(status, False)
    shown = text if len(text) <= 90 else text[:87] + "..."
    _say(err, f"line {number}: {status}: {reason}  [{shown}]")
    if fmt is Format.json:
        doc = {"line": number, "puzzle": text, "status": status, "reason": reason}
        sink.write(json.dumps(doc) + "\n")


# ----------------------------------------------------------------------------- new


class Level(StrEnum):
    easy = "easy"
    medium = "medium"
    hard = "hard"
    unfair = "unfair"
    extreme = "extreme"


class Symmetry(StrEnum):
    none = "none"
    central = "central"
    rotational = "rotational"
    vertical = "vertical"
    horizontal = "horizontal"
    diagonal = "diagonal"
    antidiagonal = "antidiagonal"
    dihedral = "dihedral"


class NewVariant(StrEnum):
    standard = "standard"
    diagonal = "diagonal"


MAX_NEW = 1000  # puzzles one `new` makes


def new(
    level: Level | None = typer.Option(
        None, "--level", "-l", help="HoDoKu's level, by the project's own grade."
    ),
    rating: str | None = typer.Option(
        None,
        "--rating",
        "-r",
        help="A range on Sudoku Explainer's scale instead of a level, e.g. 6.6..7.2 (or 7.2).",
    ),
    count: int = typer.Option(1, "--count", "-n", min=1, max=MAX_NEW, help="How many puzzles."),
    symmetry: Symmetry = typer.Option(
        Symmetry.none,
        "--symmetry",
        "-s",
        help="Pattern of the givens: central is the newspapers' 180° turn; rotational 90°; vertical and horizontal mirrors; diagonal and antidiagonal the mirrors in a diagonal; dihedral all of them.",
    ),
    size: int = typer.Option(9, "--size", help="Board side: 4, 6, 9 or 16."),
    variant: NewVariant = typer.Option(
        NewVariant.standard,
        "--variant",
        help="standard, or diagonal (both diagonals hold every symbol; sizes 4, 9, 16).",
    ),
    minimal: bool = typer.Option(
        False, "--minimal", help="No given can go: removing any one lets a second solution in."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Same seed, same puzzles."),
    sheet: Path | None = typer.Option(
        None,
        "--sheet",
        help="Also lay the puzzles out on a printable page: sheet.pdf, or sheet.png (one file a page).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object a puzzle (JSON lines): solution, level, rating."
    ),
    time_limit: float = typer.Option(
        60.0, "--time-limit", min=0.1, help="Seconds for the whole order before giving up."
    ),
) -> None:
    """Make new puzzles, each with exactly one solution, at the asked level or rating.

    One puzzle a line (81 characters for 9x9, '.' for an empty cell), each printed as soon as it is made. Exit status: 0 when every puzzle was made, 1 when the time limit passed first (the puzzles made are kept), 2 for an option that cannot be made (an unknown level, an impossible rating, a diagonal 6x6), 130 when interrupted.
    """
    from solver.generate import GenerateError, GenerateTimeout, make, make_order

    err = stderr_console()
    try:
        order = make_order(
            level.value if level else None,
            rating=rating,
            symmetry=symmetry.value,
            size=size,
            variant=variant.value,
            minimal=minimal,
        )
        if sheet is not None and sheet.suffix.lower() not in (".pdf", ".png"):
            raise GenerateError(f"--sheet {sheet}: write a .pdf or a .png, not {sheet.suffix!r}")
    except GenerateError as exc:
        _say(err, f"error: {exc}")
        raise typer.Exit(2) from None
    made, status = [], 0
    start = time.perf_counter()
    try:
        puzzles = make(order, count=count, seed=seed, time_limit=time_limit)
    except GenerateError as exc:
        _say(err, f"error: {exc}")
        raise typer.Exit(2) from None
    try:
        for puzzle in puzzles:
            made.append(puzzle)
            _write_new(puzzle, as_json)
    except GenerateTimeout as exc:
        _say(err, f"error: {exc}")
        status = 1
    except KeyboardInterrupt:
        _say(err, f"interrupted: {len(made)} of {count} made")
        raise typer.Exit(130) from None
    if is_terminal() or status == 0:
        _say(err, f"made {len(made)} ({order.describe()}) in {time.perf_counter() - start:.2f} s")
    if sheet is not None and made:
        _save_sheet(made, sheet, err)
    raise typer.Exit(status)


def _write_new(made, as_json: bool) -> None:
    line = json.dumps(made.to_dict()) if as_json else made.line
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _save_sheet(made, path: Path, err) -> None:
    from api.sheet import render_sheet, save_sheet

    try:
        written = save_sheet(render_sheet(made), path)
    except OSError as exc:
        _say(err, f"error: cannot write {path}: {exc.strerror}")
        raise typer.Exit(2) from None
    _say(err, f"sheet: {', '.join(map(str, written))}")
