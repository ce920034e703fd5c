"""Every error the service returns has one JSON shape: {"error": {"code", "message"}}.

`code` is a stable word a program can switch on; `message` is a sentence for the user naming
what is wrong. Some errors add fields (422 photo errors carry `result`, what was read).

| status | codes |
| --- | --- |
| 400 | malformed, missing_field, empty_image |
| 404 | not_found (unknown route, or an overlay expired or never existed) |
| 405 | method_not_allowed |
| 406 | not_acceptable |
| 408 | upload_timeout (the body did not arrive in time, or too slowly), request_timeout |
| 413 | too_large (the request body), image_too_large (its pixel count) |
| 415 | unsupported_content_type, not_an_image, corrupt_image |
| 422 | no_grid, unreadable, invalid_givens, no_solution, multiple_solutions, invalid_puzzle |
| 500 | internal (a bug; the log has the request id and the error, the answer neither's text) |
| 503 | busy (queue full, with Retry-After), not_ready |
| 504 | timeout (the per-request time limit) |

>>> error_body("no_grid", "no sudoku grid found in the photo")
{'error': {'code': 'no_grid', 'message': 'no sudoku grid found in the photo'}}
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from api.photo.failures import Failure

log = logging.getLogger("sudoku_lens.service")

# The one place an error code becomes an HTTP status: the jobs and the reader only say what
# went wrong (api.photo.failures, a photo's status, a puzzle that does not parse).
STATUS_OF = {
    "image_too_large": 413,
    "not_an_image": 415,
    "corrupt_image": 415,
    # processed, but not solvable as read: what was read comes back to be fixed
    "no_grid": 422,
    "unreadable": 422,
    "invalid_givens": 422,
    "no_solution": 422,
    "multiple_solutions": 422,
    "unsupported": 422,
    "invalid_puzzle": 422,
}


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    code: str = Field(description="stable machine-readable word, e.g. no_grid, too_large")
    message: str = Field(description="what is wrong, in a sentence for the user")


class ErrorResponse(BaseModel):
    error: ErrorDetail


class ApiError(Exception):
    """Raised anywhere in a request to answer with an error of the documented shape."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}
        self.extra = extra


class Internal(Exception):
    """A bug already logged with its text; answered as a bare 500 with the request id."""


def refusal(failure: Failure, **extra: Any) -> ApiError:
    """The HTTP error for a failure a job or the header check reported.

    Parameters
    ----------
    failure : api.photo.failures.Failure
        What went wrong, as every door names it.
    **extra
        More fields of the error (`result`: what was read).

    Returns
    -------
    ApiError
        With the status STATUS_OF gives its code.
    """
    return ApiError(STATUS_OF[failure.code], failure.code, failure.message, **extra)


def error_body(code: str, message: str, **extra: Any) -> dict:
    return {"error": {"code": code, "message": message, **extra}}


def error_response(
    status: int, code: str, message: str, headers: dict | None = None, **extra
) -> JSONResponse:
    return JSONResponse(error_body(code, message, **extra), status_code=status, headers=headers)


HTTP_CODES = {
    400: "malformed",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "upload_timeout",
    413: "too_large",
    415: "unsupported_content_type",
    503: "not_ready",
}
CLIENT_CLOSED = 499  # nginx's word for it: the client hung up before the answer


def describe_validation(error: RequestValidationError) -> str:
    """pydantic's errors as one sentence: where and what, e.g. "body.limit: must be >= 1"."""
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item.get("loc", ()))
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "malformed request: " + "; ".join(parts)


def install(app: FastAPI) -> None:
    """Register the handlers that turn every failure into the JSON error shape."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> JSONResponse:
        return error_response(
            error.status, error.code, error.message, headers=error.headers, **error.extra
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        code = getattr(error, "code", None) or HTTP_CODES.get(error.status_code, "error")
        message = error.detail if isinstance(error.detail, str) else str(error.detail)
        if error.status_code == 404 and message == "Not Found":
            message = f"no such endpoint: {request.method} {request.url.path}"
        if error.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
        return error_response(error.status_code, code, message, headers=error.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        return error_response(400, "malformed", describe_validation(error))

    @app.exception_handler(Internal)
    async def logged_bug(request: Request, error: Internal) -> JSONResponse:
        return internal(getattr(request.state, "request_id", "?"))

    @app.exception_handler(ClientDisconnect)
    async def client_disconnect(request: Request, error: ClientDisconnect) -> Response:
        """Not a failure of ours: noted at info level, answered to nobody."""
        request_id = getattr(request.state, "request_id", "?")
        log.info("request %s: the client disconnected before the end of its request", request_id)
        request.state.log["outcome"] = "client_disconnected"
        return Response(status_code=CLIENT_CLOSED)


def log_bug(request_id: str, error: BaseException) -> None:
    """A real 500: its error's text and traceback go to the log (never to the client).

    Parameters
    ----------
    request_id : str
        The request's id, also in the answer.
    error : BaseException
        What was raised.
    """
    log.error(
        "internal error in request %s: %s: %s",
        request_id,
        type(error).__name__,
        error,
        exc_info=error,
    )


def internal(request_id: str) -> JSONResponse:
    """A bug's answer: the request id to find it in the log, and no exception text.

    Parameters
    ----------
    request_id : str
        The request's id.

    Returns
    -------
    fastapi.responses.JSONResponse
        500 internal.
    """
    return error_response(
        500, "internal", f"internal error (request id {request_id}); this is a bug"
    )


# For the OpenAPI document: which errors each endpoint can answer.
def responses(*statuses: int) -> dict[int | str, dict]:
    meaning = {
        400: "malformed request",
        404: "not found or expired",
        406: "cannot produce an acceptable type",
        408: "the body was too slow (time limit, minimum rate or silence)",
        413: "request body or image too large",
        415: "not an image (judged by content) or wrong Content-Type",
        422: "processed, but unsolvable as read: `error.result` holds what was read",
        503: "busy (see Retry-After) or not ready",
        504: "took longer than the per-request time limit",
    }
    return {s: {"model": ErrorResponse, "description": meaning[s]} for s in statuses}
