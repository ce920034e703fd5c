"""POST /v1/grid: solve a puzzle given as text (how the page re-solves after a fix)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from api.service.dependencies import Jobs, get_jobs, get_settings
from api.service.errors import ApiError, responses
from api.service.settings import Settings

router = APIRouter(tags=["puzzles"])


class GridRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "puzzle": "1-53---9-"
                    "---6-----"
                    "------271"
                    "82-------"
                    "---487---"
                    "------53-"
                    "23-------"
                    "--7-59---"
                    "--6---8-4",
                    "limit": 2,
                    "explain": True,
                }
            ]
        },
    )

    puzzle: str = Field(
        min_length=1,
        max_length=20_000,
        description="the board: 81 characters (blanks as . 0 - ? _), one line per row, a "
        "pretty board, or any size/format `sudoku-lens grid` reads (4x4 to 25x25, clover)",
    )
    limit: int = Field(
        2,
        ge=1,
        description="stop after this many solutions (2 tells unique from multiple); at most "
        "SUDOKU_LENS_MAX_SOLUTIONS",
    )
    count: bool = Field(
        False, description="only count the solutions (up to `limit`); do not return them"
    )
    explain: bool = Field(
        False, description="also return the logical steps and the grade (hints come from here)"
    )
    all_steps: bool = Field(
        False, description="also return every logical step available now, easiest first"
    )
    marks: str | None = Field(
        None,
        max_length=5_000,
        description="the player's own pencil marks (9x9): a HoDoKu library line or a forum "
        "candidate grid; `all_steps` then starts from them (422 when they do not match the "
        "puzzle or have lost the solution's digit)",
    )
    variant: Literal["standard", "diagonal", "clover"] | None = Field(
        None, description="board variant (default standard)"
    )
    alphabet: str | None = Field(
        None, min_length=1, max_length=25, description="symbols for values 1..n"
    )


class GridAnswer(BaseModel):
    status: Literal["unique", "multiple", "none", "invalid"] = Field(
        description="exactly one solution, several, none, or the givens break the rules"
    )
    count: int = Field(description="solutions found, capped at `limit`")
    count_is_lower_bound: bool = Field(description="true when the search stopped at `limit`")
    size: int = Field(description="board size n (values 1..n)")
    givens: str = Field(description="the puzzle as one line, '.' for blanks")
    solutions: list[str] = Field(description="each solution as one line (none when `count`)")
    reason: str = Field("", description="why there is no solution, for none/invalid")
    conflicts: list[str] = Field(
        default_factory=list, description='cells breaking the rules: "r3c5 and r3c8 both hold 7"'
    )
    explanation: dict[str, Any] | None = Field(
        None,
        description="with `explain`: steps (technique, text, placements, eliminations),"
        " grade, solved_by_logic; see docs/logic.md",
    )
    all_steps: list[dict[str, Any]] | None = Field(
        None,
        description="with `all_steps` or `marks`: every step available (technique, text, "
        "placements, eliminations), easiest first; see docs/logic.md",
    )
    timings: dict[str, float] = Field(default_factory=dict, description="milliseconds per stage")


@router.post(
    "/v1/grid",
    summary="Solve a puzzle given as text",
    response_model=GridAnswer,
    response_model_exclude_none=True,
    responses=responses(400, 413, 422, 503, 504),
)
async def solve_grid(
    body: GridRequest,
    request: Request,
    settings: Settings = Depends(get_settings),
    jobs: Jobs = Depends(get_jobs),
):
    if body.limit > settings.max_solutions:
        raise ApiError(
            400,
            "malformed",
            f"limit {body.limit} is above the server's maximum of {settings.max_solutions}",
        )
    async with jobs.slot():
        answer = await jobs.run("grid", body.model_dump())
    request.state.timings.update(answer.get("timings", {}))
    request.state.log["outcome"] = answer["status"]
    if body.count:
        answer["solutions"] = []
    return answer
