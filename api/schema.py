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

SCHEMA_VERSION = 1

# What the pipeline concludes about a photo it could decode.
PhotoStatus = Literal[
    "solved", "no_grid", "unreadable", "invalid_givens", "no_solution", "multiple_solutions"
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


class PhotoResultModel(BaseModel):
    """The result of one photo."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    file: str | None = Field(None, description="input path as given (None for uploads/bytes)")
    output: str | None = Field(None, description="where the solved photo was written, if any")
    status: BatchStatus
    message: str = Field("", description="one human sentence: what happened or what is wrong")
    givens: str | None = Field(
        None, description="81 chars, row by row, digits as used for solving, '0' = empty"
    )
    read: str | None = Field(
        None, description="81 chars as the recogniser read them, before any correction"
    )
    solution: str | None = Field(None, description="81 digits when status is solved")
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
        default_factory=dict, description="milliseconds per stage and `total`"
    )
