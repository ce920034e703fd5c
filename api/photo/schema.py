"""The JSON result of solving one photo: the contract other tools read.

One object per photo, the same from `sudoku-lens solve --json`, the lines of a `--report
results.jsonl`, and the HTTP service. Fields are only ever added, never renamed or removed;
`schema_version` changes if that promise is ever broken.

>>> PhotoResultModel(file="a.jpg", status="no_grid", message="no sudoku grid found").status
'no_grid'
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# 2: hand-filled puzzles (entries, kinds, candidates, mistakes, mode, hint); 3: every grid of
# the photo (`grids`), and the status "complete" (a printed solution, nothing to solve)
SCHEMA_VERSION = 4

# What the user asked for: every missing answer, only the mistakes, or the next step.
Mode = Literal["solve", "check", "hint"]
MODES: tuple[str, ...] = ("solve", "check", "hint")

# What the pipeline concludes about a photo it could decode.
PhotoStatus = Literal[
    "solved",
    "no_grid",
    "unreadable",
    "invalid_givens",
    "no_solution",
    "multiple_solutions",
    "complete",
    "unsupported",
]
# A batch also records files that never became a photo, and unexpected failures.
BatchStatus = Literal[
    PhotoStatus,
    "not_an_image",
    "too_large",
    "error",
]

STATUS_MEANING = {
    "solved": "grid found, digits read (possibly corrected by the rules), exactly one solution",
    "no_grid": "the image decoded but no sudoku grid was found in it",
    "unreadable": "a grid was found but too few digits could be read to make a puzzle, or"
    " they read about as well in other ways that lead to different solutions",
    "invalid_givens": "the digits read break the rules (two equal digits in a unit) and no"
    " probable re-reading fixes that",
    "no_solution": "the digits read follow the rules but the puzzle has no solution",
    "multiple_solutions": "the digits read allow more than one solution",
    "complete": "the grid is a printed solution (every cell, or nearly, printed), as newspapers"
    " print yesterday's beside today's puzzle: nothing to solve, nothing drawn over it",
    "unsupported": "the grid is a kind of puzzle sudoku-lens does not solve (a killer's cages,"
    " a jigsaw's regions, a samurai's five grids): named in the message, never answered as a"
    " plain sudoku",
    "not_an_image": "the file is not an image that can be decoded (corrupt, truncated, text)",
    "too_large": "the image has more pixels than allowed",
    "error": "an unexpected internal failure (a bug): the message says what",
}


class CorrectionModel(BaseModel):
    """A cell whose reading the sudoku rules changed."""

    cell: str = Field(description='cell name, row then column, 1-based: "r3c5"')
    index: int = Field(ge=0, le=80, description="cell index 0..80 in reading order")
    read: int = Field(ge=0, le=9, description="what the recogniser read (0 = empty)")
    now: int = Field(ge=0, le=9, description="what the rules made of it (0 = empty)")
    confidence: float = Field(ge=0, le=1, description="recogniser's probability of `read`")


class CompletionModel(BaseModel):
    """An empty cell where adding one digit would give the puzzle exactly one solution."""

    cell: str = Field(description='cell name, "r3c5"')
    index: int = Field(ge=0, le=80, description="cell index 0..80 in reading order")
    digits: list[int] = Field(description="the digits that would each make it unique there")


class MistakeModel(BaseModel):
    """A hand-written entry that disagrees with the solution."""

    cell: str = Field(description='cell name, "r3c5"')
    index: int = Field(ge=0, le=80, description="cell index 0..80 in reading order")
    written: int = Field(ge=1, le=9, description="the digit the user wrote")
    right: int | None = Field(
        None, ge=1, le=9, description="the right digit (absent in check mode: not revealed)"
    )
    reason: Literal["odds", "clash", "unclear"] = Field(
        "odds",
        description="why it is flagged: odds (a slip far likelier than a misread), clash (the"
        " same digit also stands in `clash_with`, a peer: written twice), unclear (the reading"
        " cannot say; see `alternatives`)",
    )
    clash_with: str | None = Field(None, description='the peer holding the same digit, "r3c4"')
    alternatives: list[int] = Field(
        default_factory=list, description="an unclear entry: the digits it may be, likeliest first"
    )
    odds: float | None = Field(
        None, ge=0, description="how many times likelier a wrong digit written is than a misread"
    )
    said: str = Field("", description='in words: "r3c4 and r3c6 both hold 2", "r5c9: 4 or 9?"')


class CandidatesModel(BaseModel):
    """A cell holding pencil candidates (small digits) rather than one digit."""

    cell: str = Field(description='cell name, "r3c5"')
    index: int = Field(ge=0, le=80)
    digits: list[int] = Field(
        default_factory=list, description="the candidate digits where they were read (may be empty)"
    )


class HintModel(BaseModel):
    """The next logical step from the current state (printed digits plus right entries)."""

    technique: str
    sentence: str
    cells: list[str] = Field(default_factory=list, description="the cells the step rests on")
    placements: list[dict] = Field(
        default_factory=list, description='[{"cell": "r1c2", "digit": 5}]'
    )
    eliminations: list[dict] = Field(default_factory=list)


class GridFields(BaseModel):
    """What is said of one grid: the fields of a photo's result (`PhotoResultModel`, its
    first puzzle) and of each of its grids (`GridModel`)."""

    model_config = ConfigDict(extra="forbid")

    status: BatchStatus
    message: str = Field("", description="one human sentence: what happened or what is wrong")
    givens: str | None = Field(
        None,
        description="81 chars, row by row, digits as used for solving, '0' = empty; on a"
        " board of another size (`size`) its size x size cells in the line format"
        " `sudoku-lens grid` reads, '.' = empty",
    )
    read: str | None = Field(
        None, description="as `givens`, as the recogniser read them, before any correction"
    )
    solution: str | None = Field(None, description="as `givens`, when status is solved")
    size: int = Field(9, description="cells a side: 6, 9 or 16")
    variant: str = Field(
        "standard",
        description="standard or diagonal (both diagonals hold every symbol once); for status"
        " unsupported, the kind refused: killer, jigsaw or samurai",
    )
    convention: str | None = Field(
        None,
        description="how a 16x16 prints its symbols: 1-16, 0-F, 1-9A-G or A-P (its lines"
        " are written 0-F when printed so, else 1-9A-G)",
    )
    corrections: list[CorrectionModel] = Field(default_factory=list)
    suspects: list[str] = Field(
        default_factory=list, description="cells most likely misread when not solved"
    )
    corners: list[list[float]] | None = Field(
        None, description="grid corners [[x, y] x4] TL, TR, BR, BL in the photo's pixels"
    )
    confidence: list[float] | None = Field(
        None, description="81 per-cell probabilities of the value used (empty or digit)"
    )
    min_confidence: float | None = Field(None, description="the lowest of `confidence`")
    timings: dict[str, float] = Field(
        default_factory=dict,
        description="milliseconds per stage: a grid's own; the photo's summed over its grids,"
        " with load, locate, encode and `total`",
    )
    mode: Mode = Field("solve", description="solve, check or hint: what was asked for")
    entries: str | None = Field(
        None, description="81 chars, the user's hand-written digits, '0' = no entry"
    )
    kinds: str | None = Field(
        None,
        description="81 chars: '.' empty, 'p' printed, 'w' written by hand, 'c' pencil candidates",
    )
    candidates: list[CandidatesModel] = Field(default_factory=list)
    mistakes: list[MistakeModel] = Field(
        default_factory=list, description="hand-written entries that disagree with the solution"
    )
    unclear: list[MistakeModel] = Field(
        default_factory=list,
        description="entries whose reading cannot say whether they are right (read as a"
        " wrong digit with the right one nearly as likely, or as the right digit with another"
        " in doubt): neither called right nor wrong, for the user to look at",
    )
    complete: bool | None = Field(
        None, description="every cell holds a printed digit or an entry (a finished grid)"
    )
    cells_left: int | None = Field(
        None, description="cells still without a printed digit or a right entry"
    )
    hint: HintModel | None = Field(None, description="the next step (hint mode)")
    completions: list[CompletionModel] = Field(
        default_factory=list,
        description="multiple_solutions: the cells where adding one digit makes the puzzle"
        " unique (likely missed givens first): one tap settles the reading",
    )


class GridModel(GridFields):
    """One grid of a photo: a page holds several (a puzzle book's, a newspaper's puzzles and
    yesterday's solution), each read, judged and drawn on its own."""

    status: PhotoStatus
    number: int = Field(ge=1, description="1-based, in the page's reading order")
    kind: Literal["puzzle", "solution"] | None = Field(
        "puzzle",
        description="puzzle, or solution (a printed solution: status complete); null where"
        " the grid runs off the photo's edge and was not read",
    )


class PhotoResultModel(GridFields):
    """The result of one photo: its first puzzle's fields, as before pages had several, and
    every grid found (`grids`)."""

    schema_version: int = SCHEMA_VERSION
    file: str | None = Field(None, description="input path as given (None for uploads/bytes)")
    output: str | None = Field(None, description="where the solved photo was written, if any")
    grids: list[GridModel] = Field(
        default_factory=list,
        description="every grid found in the photo, in the page's reading order (top to"
        " bottom, then left to right, along the page's own axes); the fields above are the"
        " first puzzle's (its `number` here)",
    )
