"""The contract of POST /v1/grid: what a client sends and what it gets back.

Shared by the router (which validates the request) and the job (which answers in a solver
process and sends the answer back as this model, not as a dict built key by key).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class GridRequest(BaseModel):
    # strict: `"limit": true` or `"explain": "yes"` is a client's mistake, not a wish
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
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
        max_length=5_000,  # a pretty 25x25 board is 1.7 K; any 5 K fits the 64 KB body cap
        description="the board: 81 characters (blanks as . 0 - ? _), one line per row, a "
        "pretty board, or any size/format `sudoku-lens grid` reads (4x4 to 25x25, clover)",
    )
    limit: int = Field(
        2,
        ge=1,
        description="return at most this many solutions; the search goes one further to know"
        " whether there are more (`count_is_lower_bound`), so `status` tells unique from"
        " multiple for any limit; at most SUDOKU_LENS_MAX_SOLUTIONS",
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
    count: int = Field(description="solutions found, at most `limit`")
    count_is_lower_bound: bool = Field(
        description="true when there are more than `limit` solutions (the count stopped there)"
    )
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
        " grade (level, score, hardest, rating on Sudoku Explainer's ER scale),"
        " solved_by_logic; see docs/logic.md",
    )
    all_steps: list[dict[str, Any]] | None = Field(
        None,
        description="with `all_steps` or `marks`: every step available (technique, text, "
        "placements, eliminations), easiest first; see docs/logic.md",
    )
    timings: dict[str, float] = Field(default_factory=dict, description="milliseconds per stage")
