"""From a photo to a solved photo: read the grid, let the rules correct it, solve, draw.

The only place where `vision` (photo -> digits and their probabilities) and `solver` (digits
-> solution) meet. Every photo the reader can decode ends in a `PhotoResult` with one of six
statuses; only input that is not a usable image at all (not an image, too large, corrupt)
raises a `vision.VisionError`, whose message is meant for the user.

>>> result = solve_photo("photo.jpg", encode="jpeg")      # doctest: +SKIP
>>> result.status, result.solution[:9]                     # doctest: +SKIP
('solved', '483921657')
>>> open("photo.solved.jpg", "wb").write(result.overlay_bytes)  # doctest: +SKIP
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, get_args

import numpy as np

from api.photo.correct import (
    NO_CORRECTION,
    Change,
    Correction,
    Limits,
    cell_confidence,
    cell_name,
    conflicting_pairs,
    correct,
)
from api.photo.entries import (
    HandMarks,
    Mistake,
    agreeing_solution,
    clear_marks,
    doubt_the_reader,
    find_mistakes,
    hand_marks,
    judge_entries,
    next_step,
)
from api.photo.schema import (
    MODES,
    CandidatesModel,
    CompletionModel,
    CorrectionModel,
    GridModel,
    HintModel,
    MistakeModel,
    PhotoResultModel,
    PhotoStatus,
)

MIN_GIVENS = 17  # no 9x9 sudoku with fewer givens has a unique solution
STATUSES = get_args(PhotoStatus)
# A given the cell model calls at least this much a hand's is doubted as one when the reading
# does not solve (`hand_doubted`); below it, dropping it would cost more than the correction's
# floor for any given (`api.photo.correct.REMOVAL_COST`, about 1 in 400) anyway.
HAND_DOUBT = 0.0025


@dataclass
class PhotoResult:
    """Everything the pipeline learnt about one photo.

    givens: the 81 digits solved from, row by row ("0" = empty), after corrections; read: the
    same before corrections; solution: 81 digits when solved. confidence: (81,) the
    recogniser's probability of each cell's value in `givens`. corners: (4, 2) TL, TR, BR, BL
    in the photo's pixels. overlay: the full-resolution photo with the solution drawn in
    (solved photos, when rendering was asked for); overlay_bytes: it encoded as asked.
    timings: milliseconds per stage (the reader's stages, correct, solve, render, encode,
    total).
    """

    status: str
    message: str = ""
    givens: str | None = None
    read: str | None = None
    solution: str | None = None
    confidence: np.ndarray | None = None
    corners: np.ndarray | None = None
    corrections: tuple[Change, ...] = ()
    suspects: tuple[str, ...] = ()
    overlay: np.ndarray | None = None
    overlay_bytes: bytes | None = None
    timings: dict[str, float] = field(default_factory=dict)
    mode: str = "solve"
    marks: HandMarks | None = None
    mistakes: tuple[Mistake, ...] = ()
    # entries whose reading cannot say whether they are right (`judge_entries`)
    unclear: tuple[Mistake, ...] = ()
    hint: object | None = None  # a solver.logic Step (hint mode)
    # several solutions: (cell, digits) where one added digit makes the puzzle unique
    completions: tuple[tuple[int, tuple[int, ...]], ...] = ()
    # a page's grids (`solve_photo`): its number in reading order (1-based), whether it is a
    # puzzle or a printed solution (None: cut off, not read), and every grid of the photo
    # in reading order, this one among them (the photo's own result only)
    number: int = 1
    kind: str | None = "puzzle"
    grids: tuple[PhotoResult, ...] = ()
    # the board (`api.photo.boards`): cells a side, "standard" or "diagonal", and a
    # 16x16's way of printing its symbols (`vision.symbols.CONVENTIONS`)
    size: int = 9
    variant: str = "standard"
    convention: str | None = None

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    @property
    def reveals_solution(self) -> bool:
        """Only solve mode shows answers; check and hint keep them to themselves."""
        return self.mode == "solve"

    @property
    def complete(self) -> bool | None:
        """Every cell holds a printed digit or an entry: a finished grid."""
        if self.marks is None or self.givens is None:
            return None
        return all(g != "0" or e > 0 for g, e in zip(self.givens, self.marks.entries, strict=True))

    @property
    def cells_left(self) -> int | None:
        """Cells without a printed digit or a right entry."""
        if self.marks is None or self.givens is None or self.solution is None:
            return None
        right = sum(
            1
            for e, s in zip(self.marks.entries, self.solution, strict=True)
            if e > 0 and str(e) == s
        )
        return self.givens.count("0") - right

    def _mistake_model(self, m: Mistake) -> MistakeModel:
        """An entry for the JSON; the right digit only where answers may be shown."""
        return MistakeModel(
            cell=m.name,
            index=m.cell,
            written=m.written,
            right=m.right if self.reveals_solution else None,
            reason=m.reason,
            clash_with=cell_name(m.partner) if m.partner >= 0 else None,
            alternatives=list(m.alternatives),
            odds=round(min(m.odds, 1e12), 3) if m.odds else None,
            said=str(m) if m.reason != "odds" or self.reveals_solution else f"{m.name} is wrong",
        )

    def to_model(self, *, file: str | None = None, output: str | None = None) -> PhotoResultModel:
        """The JSON-ready result (see api.photo.schema), without the images."""
        return PhotoResultModel(
            file=file,
            output=output,
            grids=[
                GridModel(number=grid.number, kind=grid.kind, **grid._fields())
                for grid in self.grids
            ],
            **self._fields(),
        )

    def _fields(self) -> dict:
        """This grid's fields of the JSON (`api.photo.schema.GridFields`)."""
        conf = None if self.confidence is None else [round(float(c), 4) for c in self.confidence]
        return dict(
            status=self.status,
            message=self.message,
            givens=self.givens,
            read=self.read,
            solution=self.solution if self.reveals_solution else None,
            corrections=[
                CorrectionModel(
                    cell=c.name,
                    index=c.cell,
                    read=c.read,
                    now=c.now,
                    confidence=round(c.confidence, 4),
                )
                for c in self.corrections
            ],
            suspects=list(self.suspects),
            corners=None
            if self.corners is None
            else [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            confidence=conf,
            min_confidence=None if conf is None else min(conf),
            timings={k: round(v, 2) for k, v in self.timings.items()},
            mode=self.mode,
            entries=None if self.marks is None else digits_line(self.marks.entries),
            kinds=None if self.marks is None else self.marks.kinds,
            candidates=[]
            if self.marks is None
            else [CandidatesModel(cell=cell_name(c), index=c) for c in self.marks.candidates],
            mistakes=[self._mistake_model(m) for m in self.mistakes],
            unclear=[self._mistake_model(m) for m in self.unclear],
            complete=self.complete,
            cells_left=self.cells_left,
            hint=None if self.hint is None else _hint_model(self.hint, self.size),
            completions=[
                CompletionModel(cell=cell_name(c), index=c, digits=list(d))
                for c, d in self.completions
            ],
            size=self.size,
            variant=self.variant,
            convention=self.convention,
        )


def _hint_model(step, size: int = 9) -> HintModel:
    return HintModel(
        technique=step.technique,
        sentence=step.text,
        cells=[cell_name(c, size) for c in step.cells],
        placements=[{"cell": cell_name(c, size), "digit": d} for c, d in step.placements],
        eliminations=[{"cell": cell_name(c, size), "digit": d} for c, d in step.eliminations],
    )


def digits_line(values: np.ndarray) -> str:
    """81 characters, row by row, '0' for empty.

    Parameters
    ----------
    values : ndarray of int, 81 values

    Returns
    -------
    str

    Examples
    --------
    >>> digits_line(np.arange(81) % 10)[:12]
    '012345678901'
    """
    return "".join(str(int(v)) for v in np.asarray(values).reshape(81))


def solve_photo(
    source: Any,
    *,
    engine: str | None = None,
    render: bool = True,
    encode: str | None = None,
    outline: bool = True,
    max_pixels: int | None = None,
    use_rules: bool = True,
    mode: str = "solve",
) -> PhotoResult:
    """Read, correct, solve and draw every grid of one photo.

    A photo may hold several grids (a puzzle book's page, a newspaper's easy and hard
    puzzles beside yesterday's solution): each is read, judged and drawn on its own, in
    the page's reading order (`grids`). The result's own fields describe the first puzzle
    among them, so that a client knowing one grid a photo reads it as before.

    Parameters
    ----------
    source : str, Path, bytes or ndarray
        A path, the file's bytes, or a BGR uint8 array.
    engine : str, optional
        The recogniser (`vision.recognise.ENGINES`; None: its default).
    render : bool
        Draw the solutions onto the photo (solved grids only) into `overlay`.
    encode : {"jpeg", "png"}, optional
        Also encode the overlay into `overlay_bytes`.
    outline : bool
        Draw the found grids' edges too.
    max_pixels : int, optional
        Width x height above which the photo is refused (None: `vision.load.MAX_PIXELS`).
    use_rules : bool
        Let the sudoku rules correct misread digits.
    mode : {"solve", "check", "hint"}
        Draw every missing answer and mark wrong entries with the right digit; mark only
        the wrong entries, revealing nothing else; or show the next logical step only.

    Returns
    -------
    PhotoResult
        Every outcome of a usable image is a status ("solved", "no_grid", ...).

    Raises
    ------
    vision.VisionError
        NotAnImage, ImageTooLarge or Unreadable: the source is not a usable image.

    Examples
    --------
    >>> result = solve_photo("samples/sheet-01.jpg", encode="jpeg")
    >>> result.status, result.solution[:9], result.overlay_bytes[:2]
    ('solved', '975346182', b'\\xff\\xd8')
    >>> [(grid.number, grid.kind, grid.status) for grid in result.grids]
    [(1, 'puzzle', 'solved')]
    """
    from vision import NoGridFound, locate_page

    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    start = time.perf_counter()
    kwargs = {} if max_pixels is None else {"max_pixels": max_pixels}
    try:
        page = locate_page(source, **kwargs)
    except NoGridFound as error:
        return PhotoResult("no_grid", str(error), timings={"total": _ms(start)}, mode=mode)
    timings = dict(page.timings)
    grids = in_reading_order(
        [
            solve_grid(page, located, engine=engine, use_rules=use_rules, mode=mode)
            for located in page.grids
        ]
    )
    for number, (_, grid) in enumerate(grids, 1):
        grid.number = number
        for stage, ms in grid.timings.items():
            timings[stage] = timings.get(stage, 0.0) + ms
    drawn = [(r, g) for r, g in grids if r is not None and g.solved and g.kind == "puzzle"]
    overlay = None
    if drawn and (render or encode):
        # the photo decoded here is drawn on as it is (a copy is 7 ms at 12 MP); an array
        # the caller gave stays untouched
        mine = not (isinstance(source, np.ndarray) and np.shares_memory(source, page.image))
        canvas = page.image if mine else page.image.copy()
        for reading, grid in drawn:
            reading.image = canvas
            overlay = _draw(reading, grid, outline, timings, inplace=True)
    # the photo's own fields: its first puzzle's, else its first printed solution's
    kinds = [g.kind for _, g in grids]
    main = grids[next((kinds.index(k) for k in ("puzzle", "solution") if k in kinds), 0)][1]
    result = replace(main, grids=tuple(g for _, g in grids), overlay=overlay)
    if overlay is not None and encode:
        from vision.render import encode as encode_image

        t = time.perf_counter()
        result.overlay_bytes = encode_image(overlay, encode)
        timings["encode"] = _ms(t)
    timings["total"] = _ms(start)
    result.timings = timings
    return result


# A grid with this many printed digits is a solution printed beside the puzzles (yesterday's),
# not a puzzle: no published sudoku gives more than about 40 of its 81 cells.
SOLUTION_GIVENS = 60


def solve_grid(page, located, *, engine=None, use_rules=True, mode="solve"):
    """(reading, result) of one grid of a page (`vision.read.Page`): read, judged, and
    told a puzzle from a printed solution (`SOLUTION_GIVENS`), which is complete and never
    drawn over. A grid cut off by the photo's edge is not read (reading None): only a part
    of it is in view."""
    from vision.errors import UnsupportedBoard
    from vision.read import BoardReading, read_located

    if located.cut_off:
        said = "the grid runs off the edge of the photo: take it whole to read it"
        return None, PhotoResult("unreadable", said, corners=located.corners, mode=mode, kind=None)
    timings: dict[str, float] = {}
    # a check or a hint is always about the person's entries: the cell model reads
    try:
        reading = read_located(
            page.image, page.gray, located, engine=engine, timings=timings,
            gate=mode == "solve", boards=True,
        )  # fmt: skip
    except UnsupportedBoard as error:
        result = PhotoResult("unsupported", str(error), corners=located.corners, mode=mode)
        result.variant = error.kind
        return None, result
    if isinstance(reading, BoardReading):
        from api.photo.boards import judge_board

        result = judge_board(reading, timings, use_rules=use_rules, mode=mode)
        result.corners = np.asarray(reading.corners, np.float32)
        return reading, result
    reading, result = judged(reading, timings, use_rules=use_rules, mode=mode, engine=engine)
    result.timings = timings
    return reading, told_apart(result)


def told_apart(result: PhotoResult) -> PhotoResult:
    """A grid's result told a puzzle or a printed solution (`SOLUTION_GIVENS` printed
    digits or more): a solution is complete, has nothing to solve and is never drawn
    over. The photo pipeline and the live camera both ask this of every grid they read."""
    printed = 0 if result.givens is None else 81 - result.givens.count("0")
    if printed >= SOLUTION_GIVENS:
        result.kind = "solution"
        result.status = "complete"
        result.solution = None
        whole = "every cell" if printed == 81 else f"{printed} of its 81 cells"
        result.message = f"a printed solution ({whole} printed): nothing to solve"
    return result


def in_reading_order(grids: list) -> list:
    """(reading, result) pairs in the page's reading order (`vision.warp.reading_order`),
    along the axes of the first grid read."""
    from vision.warp import reading_order

    axes = next((reading for reading, _ in grids if reading is not None), None)
    if axes is None or len(grids) == 1:
        return grids
    return [grids[i] for i in reading_order([g.corners for _, g in grids], axes.homography)]


def judge_reading(
    reading, timings: dict[str, float], *, use_rules: bool = True, mode: str = "solve"
) -> PhotoResult:
    """The status of a vision Reading (corrected by the rules, solved), with its corners.

    The photo pipeline and the live camera mode (api.photo.live, which reads only some frames)
    both judge a reading this way; only the photo pipeline draws the result.

    With a cell model, the print is what it calls print. When that reading does not solve
    (the model unsure whether some givens are print, say on a small or blurred photo), the
    print reader's own reading, every digit taken for print, gets its turn: right hand
    entries only add agreeing givens, and a wrong one leaves no solution, so a solution
    found that way is the print's. Its givens are then what it read. When neither solves,
    the givens with a share of hand-writing are doubted by it (`hand_doubted`): a person's
    wrong entry taken for print is then judged as the entry it is, not left as "no solution".
    """
    common = dict(use_rules=use_rules, kinds=reading.kinds, mode=mode, ink=_ink(reading))
    blobs = pen = None
    if reading.cells is not None:
        blobs, pen = reading.cells.ink, reading.cells.blobs & ~reading.cells.ink
        common["contrast"] = reading.cells.contrast
        if reading.warped is not None and reading.kinds is not None:
            common["reread"] = _cut_again(reading)
    common["pen"] = pen
    result = judge(reading.givens, reading.probabilities, timings, blobs=blobs, **common)
    for view in _other_views(reading):
        if result.solved:
            break
        other = judge(view.argmax(axis=1).reshape(9, 9), view, dict(timings), **common)
        if other.solved:
            timings.update(other.timings)
            result = other
    result.corners = np.asarray(reading.corners, dtype=np.float32)
    return result


def judged(
    reading, timings: dict[str, float], *, use_rules: bool = True, mode: str = "solve", engine=None
):
    """(reading, result): the reading judged (`judge_reading`), or, when the gate read the
    page as print alone (`vision.gate`) and that reading does not solve as it stands, the
    grid read again with the cell model (`vision.read.read_again`) and judged.

    The gate reads only for a solve (a check and a hint always ask the cell model). A
    person's entry it took for print cannot change the answer: a wrong one leaves the
    printed puzzle with no solution, so the page is read again, and a right one only
    stands among the givens (the gate's held-out figures: docs/benchmarks.md, Round 7).
    Faint or doubtful print the print reader alone reads worse is read again too."""
    from vision.read import read_again

    result = judge_reading(reading, timings, use_rules=use_rules, mode=mode)
    if reading.print_alone and not (result.solved and not result.corrections):
        reading = read_again(reading, engine)
        timings.update(reading.timings)
        result = judge_reading(reading, timings, use_rules=use_rules, mode=mode)
    return reading, result


def _cut_again(reading):
    """cells -> (len(cells), 9): the reading's digits in those cells cut again against their
    own paper and read by every hand model (`vision.reread.reread_entries`)."""
    from vision.kinds import hand_model_path, second_hand_models
    from vision.reread import reread_entries

    def reread(cells: list[int]) -> np.ndarray:
        models = [hand_model_path(), *second_hand_models()]
        boxes = np.asarray(reading.cell_boxes).reshape(81, 4)  # in the upright square
        return reread_entries(reading.warped, boxes, cells, models)

    return reread


def _other_views(reading):
    """The puzzle's other views of a reading that did not solve, in the order they are
    tried (`judge_reading`): the print reader's alone, then the doubted givens'."""
    if reading.print_probabilities is not None:
        yield reading.print_probabilities.reshape(81, 10)
    doubted = hand_doubted(reading.probabilities, reading.kinds)
    if doubted is not None:
        yield doubted


def hand_doubted(probabilities: np.ndarray, kinds: np.ndarray | None) -> np.ndarray | None:
    """(81, 10) the puzzle's view with every cell taken for print doubted by its share of
    hand-writing, or None when no such cell has any.

    A cell the cell model more likely calls print stands for its digit on paper whatever
    its kind (`vision.kinds.printed_probabilities`): a right entry so taken leaves the
    solution as it is, and counting its hand share against it would let the correction
    drop sure givens and leave puzzles open. But a wrong entry so taken leaves no solution
    at all, and the person who asked for a check hears nothing of it. So when a reading
    does not solve, its doubted givens get a second look at what they are: a 7 called
    print at 0.79 and hand at 0.21 may be dropped as a given for about a quarter of its
    probability, and is then judged as the person's entry.

    >>> probabilities = np.zeros((81, 10)); probabilities[:, 0] = 1
    >>> probabilities[0] = [0.0] + [0.0] * 6 + [1.0, 0.0, 0.0]   # a 7 on paper ...
    >>> kinds = np.zeros((81, 20)); kinds[:, 0] = 1
    >>> kinds[0, 0], kinds[0, 7], kinds[0, 16] = 0, 0.75, 0.25    # ... a quarter a hand's
    >>> hand_doubted(probabilities, kinds)[0, [0, 7]].round(2).tolist()
    [0.25, 0.75]
    """
    if kinds is None:
        return None
    p = np.asarray(probabilities, np.float64).reshape(81, 10).copy()
    kinds = np.asarray(kinds, np.float64).reshape(81, 20)
    printed, written = kinds[:, 1:10].sum(axis=1), kinds[:, 10:19].sum(axis=1)
    doubted = (printed > 0.5) & (written >= HAND_DOUBT)
    if not doubted.any():
        return None
    share = printed[doubted] / (printed[doubted] + written[doubted])
    p[doubted, 1:] *= share[:, None]
    p[doubted, 0] = 1.0 - p[doubted, 1:].sum(axis=1)
    return p


def judge(
    givens: np.ndarray,
    probabilities: np.ndarray,
    timings: dict[str, float] | None = None,
    *,
    use_rules: bool = True,
    kinds: np.ndarray | None = None,
    mode: str = "solve",
    ink: np.ndarray | None = None,
    blobs: np.ndarray | None = None,
    pen: np.ndarray | None = None,
    contrast: np.ndarray | None = None,
    reread=None,
) -> PhotoResult:
    """The status of a reading: correct it by the rules if needed, then solve it.

    Separate from the photo so that it can be checked on crafted readings.

    Parameters
    ----------
    givens : ndarray of int, shape (9, 9)
        The printed digits as read (0 = empty): the puzzle.
    probabilities : ndarray of float, shape (9, 9, 10)
        The recogniser's probabilities of each cell (column 0 = empty).
    timings : dict, optional
        Milliseconds per stage so far; correct and solve are added to it.
    use_rules : bool
        Let the sudoku rules correct misread digits.
    kinds : ndarray of float, shape (81, 20), optional
        When the cell model ran: every cell's class probabilities, from which the user's
        own entries are read and checked (`api.photo.entries`).
    mode : {"solve", "check", "hint"}
    ink : ndarray of bool, shape (81,), optional
        Where the photo shows ink: the correction adds a digit only there.
    blobs : ndarray of bool, shape (81,), optional
        Where the reader cut a digit (`Cells.ink`): with `kinds`, the digits clearly on
        paper choose among the solutions when the print alone allows several.
    pen : ndarray of bool, shape (81,), optional
        Where only coloured ink makes a blob (`Cells.marked` less `Cells.ink`): an entry
        there needs less of the cell model's confidence (`api.photo.entries.hand_marks`).
    contrast : ndarray of float, shape (81,), optional
        How dark each cell's blob is (`Cells.contrast`): pen or pencil, whose misread
        rates differ (`api.photo.entries.judge_entries`).
    reread : callable, optional
        cells -> (len(cells), 9): their digits cut again against their own paper and read
        (`vision.reread.reread_entries`); an entry called wrong is doubted by it
        (`api.photo.entries.doubt_the_reader`).

    Returns
    -------
    PhotoResult
        Without overlay (`solve_photo` draws it).

    Examples
    --------
    >>> from solver import parse, solve
    >>> puzzle = parse("1-53---9-" "---6-----" "------271" "82-------" "---487---"
    ...                "------53-" "23-------" "--7-59---" "--6---8-4")
    >>> read = puzzle.values.reshape(9, 9)
    >>> certain = np.eye(10, dtype=np.float32)[read]  # every cell read for sure
    >>> result = judge(read, certain)
    >>> result.status, result.solution == "".join(map(str, solve(puzzle).solutions[0]))
    ('solved', True)
    """
    if blobs is not None and pen is not None:
        blobs = np.asarray(blobs, bool).reshape(81)
        seen = blobs | np.asarray(pen, bool).reshape(81)  # a blob in grey or in colour
    else:
        seen = blobs
    paper = None if kinds is None or seen is None else clear_marks(probabilities, kinds, seen)
    result = _judge_print(givens, probabilities, timings, use_rules, ink, paper)
    if result.status == "multiple_solutions" and kinds is not None and seen is not None:
        result = _chosen_by_paper(result, probabilities, kinds, seen)
    result.mode = mode
    if result.givens is None:
        return result
    values = np.array([int(c) for c in result.givens], np.int8)
    if kinds is not None:
        result.marks = hand_marks(kinds, values, blobs, pen=pen, contrast=contrast)
    if result.solved:
        solution = np.array([int(c) for c in result.solution], np.int8)
        entries = np.zeros(81, np.int8) if result.marks is None else result.marks.entries
        result.mistakes = find_mistakes(entries, solution)
        if result.marks is not None:  # read under the rules, judged by the odds (issue 37)
            judged = judge_entries(result.marks, values, solution)
            if reread is not None:
                judged = doubt_the_reader(judged, reread)
            result.marks, result.mistakes = judged.marks, judged.mistakes
            result.unclear = judged.unclear
            entries = result.marks.entries
        if mode == "hint":
            t = time.perf_counter()
            result.hint = next_step(values, entries, solution)
            result.timings["hint"] = _ms(t)
        if result.marks is not None:
            result.message = _entries_said(result.message, result.corrections, entries)
            result.message = _marks_message(result)
    return result


def _entries_said(message: str, changes, entries: np.ndarray) -> str:
    """`message` with every printed digit the rules dropped that the check then judged as the
    person's entry (`hand_doubted`) said so (`Change.said`), rather than "now empty"."""
    for change in changes:
        if entries[change.cell] > 0:
            message = message.replace(str(change), change.said(entry=True))
    return message


def _chosen_by_paper(result: PhotoResult, probabilities, kinds, blobs) -> PhotoResult:
    """The print as read allows several solutions: the one every clear digit on the paper
    agrees with, if there is exactly one (`api.photo.entries.agreeing_solution`). The givens
    stay the printed digits; the marks are evidence, never givens, and the message says
    so."""
    values = np.array([int(c) for c in result.givens], np.int8)
    marks = clear_marks(probabilities, kinds, blobs)
    marks[values > 0] = 0
    solution = agreeing_solution(values, marks)
    if solution is None:
        return result
    n = int((marks > 0).sum())
    result.status = "solved"
    result.solution = digits_line(solution)
    result.message = (
        "the printed digits as read allow more than one solution; the one shown agrees"
        f" with the {n} other digit{'s' if n != 1 else ''} clearly on the paper (taken as"
        " evidence, not as givens)"
    )
    return result


def _marks_message(result: PhotoResult) -> str:
    """What the user's entries came to, after the solve's own message."""
    n = int((result.marks.entries > 0).sum())
    if not n:
        return result.message
    wrong, unclear = result.mistakes, result.unclear
    if not wrong and not unclear:
        if result.complete:
            return f"{result.message}; the grid is finished and every entry is right"
        return f"{result.message}; all {n} entries are right, {result.cells_left} cells left"
    said = []
    if wrong:
        entries = "entry" if n == 1 else "entries"
        verb = "is" if len(wrong) == 1 else "are"
        named = ", ".join(str(m) if m.reason == "clash" else m.name for m in wrong[:6])
        said.append(f"{len(wrong)} of {n} {entries} {verb} wrong ({named})")
    if unclear:
        named = ", ".join(str(m) for m in unclear[:4])
        said.append(f"{len(unclear)} unclear, look for yourself ({named})")
    return f"{result.message}; {'; '.join(said)}; {result.cells_left} cells left"


def _ink(reading) -> np.ndarray | None:
    """(81,) the photo's own evidence of a mark in each cell: a digit-like blob the reader
    cut, or the cell model's probability that the cell is not empty."""
    if reading.cells is None:
        return None
    ink = reading.cells.ink.astype(np.float64)
    if reading.kinds is not None:
        ink = np.maximum(ink, 1.0 - np.asarray(reading.kinds, np.float64)[:, 0])
    return ink


def _judge_print(givens, probabilities, timings, use_rules, ink=None, paper=None) -> PhotoResult:
    """The printed digits: correct, then solve; the digits clearly on `paper` only weigh the
    readings of the print (`api.photo.correct.correct`)."""
    timings = {} if timings is None else timings
    read = np.asarray(givens, dtype=np.int8).reshape(81)
    probs = np.asarray(probabilities, dtype=np.float32).reshape(81, 10)
    n_read = int((read > 0).sum())
    base = {"read": digits_line(read), "givens": digits_line(read), "timings": timings}
    if n_read < MIN_GIVENS:
        return PhotoResult(
            "unreadable",
            f"only {n_read} digits could be read; a sudoku needs at least {MIN_GIVENS}",
            confidence=cell_confidence(read, probs),
            **base,
        )
    t = time.perf_counter()
    limits = Limits() if use_rules else NO_CORRECTION
    fix = correct(read, probs, ink=ink, paper=paper, limits=limits)
    timings["correct"] = _ms(t)
    values = fix.values
    base["givens"] = digits_line(values)
    common = dict(
        confidence=cell_confidence(values, probs),
        corrections=fix.changes,
        suspects=tuple(cell_name(c) for c in fix.suspects),
        completions=fix.completions,
        **base,
    )
    t = time.perf_counter()
    if fix.solved:
        solution = _verified(values, fix.solution)
        timings["solve"] = _ms(t)
        return PhotoResult("solved", _solved_message(fix), solution=solution, **common)
    timings["solve"] = 0.0
    status = {-1: "invalid_givens", 0: "no_solution", 1: "unreadable"}.get(
        fix.read_count, "multiple_solutions"
    )
    return PhotoResult(status, _failure_message(status, fix, read, probs), **common)


def _verified(values: np.ndarray, solution: np.ndarray) -> str:
    """The solution as 81 digits, after checking it keeps the givens and every unit."""
    sol = np.asarray(solution, dtype=np.int8).reshape(81)
    if not (sol[values > 0] == values[values > 0]).all() or conflicting_pairs(sol):
        raise AssertionError("solver returned a grid that is not a solution of the givens")
    if not ((sol >= 1) & (sol <= 9)).all():
        raise AssertionError("solver returned an incomplete grid")
    return digits_line(sol)


def _solved_message(fix: Correction) -> str:
    if not fix.changes:
        said = "solved"
    else:
        cells = "; ".join(str(c) for c in fix.changes)
        s = "" if len(fix.changes) == 1 else "s"
        said = f"solved after the rules corrected {len(fix.changes)} cell{s} ({cells})"
    if fix.by_paper:
        said += (
            "; the print alone was too close to call between readings, and the digits"
            " clearly on the paper chose this one (taken as evidence, not as givens)"
        )
    return said


def _failure_message(status: str, fix: Correction, read: np.ndarray, probs: np.ndarray) -> str:
    if status == "invalid_givens":
        head = "the digits read break the rules: " + "; ".join(
            f"{cell_name(a)} and {cell_name(b)} both hold {read[a]}" for a, b in fix.conflicts[:3]
        )
    elif status == "unreadable":
        head = (
            "the digits read have one solution, but other readings nearly as likely have"
            " different ones: the photo is too unclear to be sure"
        )
    elif status == "no_solution":
        head = "the digits read follow the rules but the puzzle has no solution"
    else:
        head = "the digits read allow more than one solution (a digit may have been missed)"
        if fix.completions:
            named = ", ".join(cell_name(c) for c, _ in fix.completions[:6])
            more = len(fix.completions) - 6
            head += f"; one digit added in any of {named}" + (
                f" (+{more} more)" if more > 0 else ""
            )
            head += " would make it unique"
    if fix.hinge_cell >= 0:
        cell = fix.hinge_cell
        head += (
            f"; the solution hinges on {cell_name(cell)}: were it another digit, the puzzle"
            " would have several solutions, so a given may have been missed"
        )
    elif fix.status == "ambiguous" and not fix.completions:
        options = " or ".join(
            ", ".join(str(c) for c in rival) or "as read" for rival in fix.rivals[:2]
        )
        head += f"; several re-readings fit about as well ({options}), so none was chosen"
    conf = cell_confidence(read, probs)
    if fix.suspects and status == "multiple_solutions" and fix.completions:
        head += "; likely missed: " + ", ".join(cell_name(c) for c in fix.suspects)
    elif fix.suspects:
        named = ", ".join(f"{cell_name(c)} ({conf[c]:.0%})" for c in fix.suspects)
        head += f"; most likely misread: {named}"
    return head


def _draw(
    reading, result: PhotoResult, outline: bool, timings: dict[str, float], inplace: bool = False
) -> np.ndarray:
    """The photo with what the mode asks for drawn in: every missing answer (solve), only the
    wrong entries struck out (check), or the next step (hint); cells the rules corrected
    are ringed."""
    from vision.read import BoardReading
    from vision.render import Overlay, Style, draw_solution

    if isinstance(reading, BoardReading):
        from api.photo.boards import draw_board_result

        t = time.perf_counter()
        drawn = draw_board_result(reading, result, Style(outline=outline, inplace=inplace))
        timings["render"] = _ms(t)
        return drawn
    t = time.perf_counter()
    givens = np.array([int(c) for c in result.givens], dtype=np.int8)
    solution = np.array([int(c) for c in result.solution], dtype=np.int8)
    marks = result.marks
    entries = np.zeros(81, np.int8) if marks is None else marks.entries.astype(np.int8)
    corrected = np.zeros(81, dtype=bool)
    corrected[[c.cell for c in result.corrections]] = True
    # a reading the rules dropped was not print (pencil marks, hand-writing, a smudge): the
    # cell is still empty on paper and gets its answer drawn
    cleared = corrected & (givens == 0) & (entries == 0)
    wrong = np.zeros(81, bool)
    wrong[[m.cell for m in result.mistakes]] = True
    unclear = np.zeros(81, bool)
    unclear[[m.cell for m in result.unclear]] = True
    over_ink = np.zeros(81, bool)
    if marks is not None:
        over_ink[list(marks.candidates)] = True
    highlight = np.zeros(81, bool)
    if result.mode == "solve":
        missing = ((givens == 0) & (entries == 0)) | corrected | wrong
        digits = np.where(missing, solution, 0)
    else:
        digits = np.zeros(81, np.int8)
        if result.hint is not None:
            for cell, digit in result.hint.placements:
                digits[cell] = digit
            highlight[list(result.hint.cells)] = True
            highlight[[c for c, _ in result.hint.placements]] = True
        corrected[:] = False
        cleared[:] = False
    overlay = Overlay(
        digits.reshape(9, 9),
        corrected=corrected.reshape(9, 9),
        cleared=cleared.reshape(9, 9),
        over_ink=over_ink.reshape(9, 9),
        wrong=wrong.reshape(9, 9),
        highlight=highlight.reshape(9, 9),
        unclear=(unclear & (result.mode != "hint")).reshape(9, 9),
    )
    drawn = draw_solution(reading, overlay, Style(outline=outline, inplace=inplace))
    timings["render"] = _ms(t)
    return drawn


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def warm_up() -> None:
    """Load the reader (its models and sessions: `vision.read.warm_up`) and compile (or load
    the cached) solver once, so that the first photo's timings measure the photo, not the
    start-up (about a second of numba, and as much again of models)."""
    from solver.fast import count_solutions_81, solve_batch
    from vision.read import warm_up as warm_up_reader

    warm_up_reader()
    count_solutions_81(np.zeros(81, dtype=np.int8), 2)
    solve_batch(np.zeros((1, 81), dtype=np.int8), limit=2)  # the correction's probes (60 ms)
