"""POST /v1/solve (a photo in, the solved result out) and the overlay it leaves behind."""

from __future__ import annotations

import secrets
import time

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response

from api.photo.schema import Mode, PhotoResultModel
from api.service.cache import ResultCache
from api.service.dependencies import Jobs, get_cache, get_jobs, get_settings
from api.service.errors import ApiError, responses
from api.service.jobs import PhotoJob, SolvedPhoto
from api.service.settings import Settings
from api.service.upload import FIELD, check_image, read_upload

router = APIRouter(tags=["photos"])

OFFERED = ("application/json", "image/jpeg", "image/png")

UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "description": f"the photo, as multipart/form-data field `{FIELD}` or as the raw body",
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": [FIELD],
                    "properties": {
                        FIELD: {
                            "type": "string",
                            "format": "binary",
                            "description": "a photo (JPEG, PNG, WebP, HEIC, BMP or TIFF),"
                            " as a file or a plain field",
                        }
                    },
                }
            },
            "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
            "image/png": {"schema": {"type": "string", "format": "binary"}},
        },
    }
}


def preferred_type(accept: str | None) -> str:
    """The offered type the client's Accept header ranks highest (JSON on a tie or none).

    >>> preferred_type("image/jpeg"), preferred_type("*/*"), preferred_type(None)
    ('image/jpeg', 'application/json', 'application/json')
    >>> preferred_type("image/png;q=0.9, application/json;q=0.5")
    'image/png'
    """
    if not accept or not accept.strip():
        return OFFERED[0]
    best, best_rank = None, (0.0, -1)
    for item in accept.split(","):
        kind, *params = [p.strip() for p in item.split(";")]
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        for order, offer in enumerate(OFFERED):
            major = offer.split("/")[0]
            exactness = (
                2 if kind == offer else 1 if kind == f"{major}/*" else 0 if kind == "*/*" else -1
            )
            if exactness < 0 or q <= 0:
                continue
            rank = (q, exactness, -order)
            if best is None or rank > best_rank:
                best, best_rank = offer, rank
    if best is None:
        raise ApiError(
            406,
            "not_acceptable",
            f"cannot answer with any of Accept: {accept}; offered: {', '.join(OFFERED)}",
        )
    return best


@router.post(
    "/v1/solve",
    summary="Solve a photo of a sudoku",
    description=(
        "Upload a photo (multipart field `image`). Answers with the JSON result (the same "
        "schema as `sudoku-lens solve --json`) whose `output` is the URL of the solved photo "
        "(kept in memory for a limited time), or with the solved photo itself when the "
        "Accept header asks for image/jpeg or image/png. Every grid of the photo is read "
        "and solved on its own (`grids`, in the page's reading order; the result's own "
        "fields are its first puzzle's). A photo is answered 200 when at least one of its "
        "puzzles was solved, or when it holds only printed solutions (status `complete`); "
        "a photo that was processed but none of whose puzzles could be solved answers 422 "
        "with what was read in `error.result`. `mode`: "
        "`solve` draws every missing answer and marks wrong hand-written entries with the "
        "right digit; `check` marks only the wrong entries and reveals no answer (no "
        "`solution`, no right digits); `hint` gives the next logical step only (`hint`)."
    ),
    response_model=PhotoResultModel,
    responses={
        200: {
            "description": "at least one puzzle of the photo solved (or only printed"
            " solutions in it)",
            "content": {"image/jpeg": {}, "image/png": {}},
            "headers": {
                "X-Sudoku-Status": {
                    "description": "the status of the photo's first puzzle",
                    "schema": {"type": "string"},
                },
                "X-Sudoku-Grids": {
                    "description": "how many grids were found in the photo",
                    "schema": {"type": "string", "pattern": "^[0-9]+$"},
                },
                "X-Result-Id": {
                    "description": "the id of the solved photo kept for /v1/results",
                    "schema": {"type": "string"},
                },
            },
        },
        **responses(400, 406, 408, 413, 415, 422, 503, 504),
    },
    openapi_extra=UPLOAD_BODY,
)
async def solve(
    request: Request,
    settings: Settings = Depends(get_settings),
    jobs: Jobs = Depends(get_jobs),
    cache: ResultCache = Depends(get_cache),
    mode: Mode = Query("solve", description="solve, check or hint"),
):
    wanted = preferred_type(request.headers.get("accept"))
    started = time.perf_counter()
    data = await read_upload(request)  # bounded in size, rate and time by the middleware
    request.state.timings["upload"] = round((time.perf_counter() - started) * 1000, 2)
    request.state.log["upload_bytes"] = len(data)
    request.state.log["format"] = await check_image(data, settings.max_pixels)
    job = PhotoJob(
        engine=settings.engine,
        max_pixels=settings.max_pixels,
        png=wanted == "image/png",
        mode=mode,
    )
    async with jobs.slot("photo"):  # a place only for a complete, plausible photo
        answer: SolvedPhoto = await jobs.run("photo", job, data)
    del data
    result = answer.result
    request.state.timings.update(result.timings)
    request.state.log["outcome"] = result.status
    request.state.log["grids"] = len(result.grids)
    result_id = secrets.token_urlsafe(12)
    headers = {
        "X-Result-Id": result_id,
        "X-Sudoku-Status": result.status,  # the first puzzle's; each grid's is in `grids`
        "X-Sudoku-Grids": str(len(result.grids)),
    }
    if answer.jpeg and cache.put(result_id, answer.jpeg):
        result = result.model_copy(update={"output": overlay_url(result_id)})
        headers["Link"] = f'<{result.output}>; rel="related"; type="image/jpeg"'
    if wanted != "application/json":
        body = answer.png if wanted == "image/png" else answer.jpeg
        if body is None:
            raise ApiError(406, "not_acceptable", f"no {wanted} overlay could be produced")
        headers["X-Sudoku-Solution"] = result.solution or ""
        return Response(body, media_type=wanted, headers=headers)
    return JSONResponse(result.model_dump(mode="json"), headers=headers)


def overlay_url(result_id: str) -> str:
    return f"/v1/results/{result_id}/overlay.jpg"


@router.get(
    "/v1/results/{result_id}/overlay.jpg",
    summary="The solved photo of an earlier /v1/solve, while it is kept",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}, "description": "the solved photo"}}
    | responses(404),
)
async def overlay(
    result_id: str,
    cache: ResultCache = Depends(get_cache),
    settings: Settings = Depends(get_settings),
):
    body = cache.get(result_id)
    if body is None:
        raise ApiError(
            404,
            "not_found",
            f"no overlay with id {result_id!r}: overlays are kept {settings.result_ttl_s:g} s "
            f"(and at most {settings.result_cache_size} of them), then dropped",
        )
    return Response(
        body,
        media_type="image/jpeg",
        headers={"Cache-Control": f"private, max-age={int(settings.result_ttl_s)}"},
    )
