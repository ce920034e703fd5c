"""GET /v1/new: new puzzles made to order (`solver.generate`), in a solver process.

`GET /v1/new?level=hard&count=5&symmetry=central` answers five hard puzzles with central
symmetry, each with exactly one solution, with their solutions and grades. Limits are
dependencies: at most MAX_COUNT puzzles (MAX_COUNT_16 of 16x16) a request, and a time
limit under the server's per-request limit, so that a rare order is answered with a
sentence saying what was found (422 `not_made`, with the puzzles made in time) before the
process would be stopped.
An order that cannot be made (an unknown level, an impossible rating, a diagonal 6x6) is
422 `invalid_order`, its message naming the option.

Made puzzles travel as puzzles (`/v1/grid` solves, explains and grades any of them again).
"""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from api.service.dependencies import Jobs, get_jobs, get_settings
from api.service.errors import ApiError, responses
from api.service.settings import Settings

router = APIRouter(tags=["puzzles"])

MAX_COUNT = 20  # puzzles a request: each unfair or extreme one can take seconds
MAX_COUNT_16 = 4  # 16x16 boards: up to 10 s each
TIME_MARGIN_S = 2.0  # kept back from the server's per-request limit to answer in words


class NewRequest(BaseModel):
    """An order, checked: what a solver process makes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    level: str | None = None
    rating: tuple[float, float] | None = None
    symmetry: str = "none"
    size: int = 9
    variant: str = "standard"
    minimal: bool = False
    count: int = 1
    seed: int | None = None
    time_limit: float = 20.0


class NewPuzzle(BaseModel):
    puzzle: str = Field(description="the givens, one line, '.' for an empty cell")
    solution: str = Field(description="its only solution")
    givens: int
    level: str | None = Field(None, description="HoDoKu's level by the project's grade")
    rating: float | None = Field(None, description="Sudoku Explainer's scale (ER)")
    score: int | None = None
    hardest: str | None = Field(None, description="the hardest technique its solving path needs")
    seconds: float = Field(description="time taken to make it")


class NewAnswer(BaseModel):
    order: str = Field(description="what was made, in words")
    puzzles: list[NewPuzzle] = Field(default_factory=list)
    not_made: str | None = Field(None, description="why the order ran out of time, if it did")
    invalid: str | None = Field(None, description="why the order cannot be made, if it cannot")
    timings: dict[str, float] = Field(default_factory=dict)


def checked_order(
    level: Annotated[str | None, Query(description="easy, medium, hard, unfair or extreme")] = None,
    rating: Annotated[
        str | None, Query(description="a range on Sudoku Explainer's scale: 6.6..7.2")
    ] = None,
    symmetry: Annotated[str, Query(description="none, central, rotational, ...")] = "none",
    size: Annotated[int, Query(description="board side: 4, 6, 9 or 16")] = 9,
    variant: Annotated[str, Query(description="standard or diagonal")] = "standard",
    minimal: Annotated[bool, Query(description="no given can go")] = False,
):
    """The order's options, checked by the generator itself: 422 naming a bad one (a rating
    range no technique reaches is found in the solver process)."""
    from solver.generate import GenerateError, make_order

    try:
        return make_order(
            level,
            rating=rating,
            symmetry=symmetry,
            size=size,
            variant=variant,
            minimal=minimal,
            reachable=False,  # loading the logic engine here would block the event loop
        )
    except GenerateError as error:
        raise ApiError(422, "invalid_order", str(error)) from None


def checked_count(
    count: Annotated[int, Query(description=f"how many, 1 to {MAX_COUNT}")] = 1,
    size: int = 9,
) -> int:
    """How many; 422 past the limit for the board's size."""
    most = MAX_COUNT_16 if size == 16 else MAX_COUNT
    if not 1 <= count <= most:
        raise ApiError(
            422,
            "invalid_order",
            f"count must be 1 to {most} for a {size}x{size} board, not {count}",
        )
    return count


def checked_seed(
    seed: Annotated[int | None, Query(description="same seed, same puzzles (0 or more)")] = None,
) -> int | None:
    if seed is not None and seed < 0:
        raise ApiError(422, "invalid_order", f"seed must be 0 or more, not {seed}")
    return seed


def checked_time_limit(
    request: Request,
    time_limit: Annotated[
        float | None, Query(description="seconds to make them in (default and most: the server's)")
    ] = None,
    settings: Settings = Depends(get_settings),
) -> float:
    """Seconds the order may take: under the server's per-request limit."""
    most = max(0.5, settings.timeout_s - TIME_MARGIN_S)
    if time_limit is None:
        return most
    if not 0 < time_limit <= most:
        raise ApiError(
            422,
            "invalid_order",
            f"time_limit must be above 0 and at most {most:g} s (this server's limit), "
            f"not {time_limit:g}",
        )
    return time_limit


@router.get(
    "/v1/new",
    summary="New puzzles made to order",
    response_model=NewAnswer,
    response_model_exclude_none=True,
    responses=responses(400, 422, 503, 504),  # 504: the server's own limit, as elsewhere
)
async def new_puzzles(
    request: Request,
    order=Depends(checked_order),
    count: int = Depends(checked_count),
    seconds: float = Depends(checked_time_limit),
    seed: int | None = Depends(checked_seed),
    jobs: Jobs = Depends(get_jobs),
) -> NewAnswer:
    """Puzzles with exactly one solution each, at the asked level or rating, symmetric and
    minimal when asked; 422 `not_made`, saying what was found and with the puzzles made,
    when the time runs out (the order as given cannot be met: fewer, or more time)."""
    job = NewRequest(
        level=order.level,
        rating=order.rating,
        symmetry=order.symmetry,
        size=order.size,
        variant=order.variant,
        minimal=order.minimal,
        count=count,
        seed=seed,
        time_limit=seconds,
    )
    async with jobs.slot("grid"):
        answer: NewAnswer = await jobs.run("grid", job)
    request.state.timings.update(answer.timings)
    if answer.invalid:
        request.state.log["outcome"] = "invalid_order"
        raise ApiError(422, "invalid_order", answer.invalid)
    if answer.not_made:  # the puzzles made in time come with the error
        request.state.log["outcome"] = "not_made"
        made = [p.model_dump(mode="json", exclude_none=True) for p in answer.puzzles]
        raise ApiError(422, "not_made", answer.not_made, puzzles=made)
    request.state.log["outcome"] = "made"
    return answer


def make_puzzles(job: NewRequest) -> NewAnswer:
    """The job a solver process runs: the whole order, or why it ran out of time."""
    from solver.generate import GenerateError, GenerateTimeout, make, make_order

    try:
        order = make_order(
            job.level,
            rating=job.rating,
            symmetry=job.symmetry,
            size=job.size,
            variant=job.variant,
            minimal=job.minimal,
        )
    except GenerateError as error:
        return NewAnswer(order="", invalid=str(error))
    started = time.perf_counter()
    made, not_made = [], None
    try:
        for puzzle in make(order, count=job.count, seed=job.seed, time_limit=job.time_limit):
            doc = puzzle.to_dict()
            made.append(NewPuzzle(**{k: doc[k] for k in NewPuzzle.model_fields}))
    except GenerateTimeout as error:
        not_made = str(error)
    elapsed = {"make": round((time.perf_counter() - started) * 1000, 2)}
    return NewAnswer(order=order.describe(), puzzles=made, not_made=not_made, timings=elapsed)
