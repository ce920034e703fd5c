"""POST /v1/grid: solve a puzzle given as text (how the page re-solves after a fix)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from api.service.dependencies import Jobs, get_jobs, get_settings
from api.service.errors import ApiError, responses
from api.service.models import GridAnswer, GridRequest
from api.service.settings import Settings

router = APIRouter(tags=["puzzles"])


@router.post(
    "/v1/grid",
    summary="Solve a puzzle given as text",
    response_model=GridAnswer,
    response_model_exclude_none=True,
    responses=responses(400, 408, 413, 422, 503, 504),
)
async def solve_grid(
    body: GridRequest,
    request: Request,
    settings: Settings = Depends(get_settings),
    jobs: Jobs = Depends(get_jobs),
) -> GridAnswer:
    """The body is capped (SUDOKU_LENS_MAX_GRID_BODY_KB) before it is read, by the body
    middleware; puzzles have their own places in the queue, apart from photos."""
    if body.limit > settings.max_solutions:
        raise ApiError(
            400,
            "malformed",
            f"limit {body.limit} is above the server's maximum of {settings.max_solutions}",
        )
    async with jobs.slot("grid"):
        answer: GridAnswer = await jobs.run("grid", body)
    request.state.timings.update(answer.timings)
    request.state.log["outcome"] = answer.status
    return answer
