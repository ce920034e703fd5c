"""FastAPI dependencies: the settings, the overlay cache and the solver pool of this app.

Routers ask for what they need (`Depends(get_settings)`, `Depends(get_jobs)`) instead of
reaching for globals, so two apps with different limits can live in one process (tests).
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from fastapi import Request

from api.service.cache import ResultCache
from api.service.errors import ApiError, Internal, refusal
from api.service.jobs import Refused
from api.service.settings import Settings
from api.service.workers import JobTimeout, PoolClosed, QueueFull, SolverPool, WorkerCrashed

log = logging.getLogger("sudoku_lens.service")


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_cache(request: Request) -> ResultCache:
    return request.app.state.cache


def get_pool(request: Request) -> SolverPool:
    return request.app.state.pool


class Jobs:
    """The solver pool as routers use it; every way a job can fail becomes an `ApiError`.

    >>> async with jobs.slot("grid"):                      # doctest: +SKIP
    ...     answer = await jobs.run("grid", request)
    """

    def __init__(self, request: Request):
        self.pool: SolverPool = request.app.state.pool
        self.state = request.state

    @contextlib.asynccontextmanager
    async def slot(self, kind: str):
        """A place for one job of `kind`, or 503 at once.

        Parameters
        ----------
        kind : str
            "photo" or "grid".
        """
        try:
            async with self.pool.slot(kind):
                yield
        except QueueFull as error:
            self.state.log["refused"] = True
            raise busy(error.retry_after) from None
        except PoolClosed as error:
            raise ApiError(503, "not_ready", str(error), headers={"Retry-After": "5"}) from None

    async def run(self, kind: str, job: Any, data: bytes | None = None) -> Any:
        """The job's answer; a `Refused` becomes its HTTP error, a crash a 500 (text logged).

        Parameters
        ----------
        kind : str
            "photo" or "grid".
        job : PhotoJob or GridRequest
            What to do.
        data : bytes, optional
            The upload, for a photo.

        Returns
        -------
        SolvedPhoto or GridAnswer
        """
        try:
            value, timings = await self.pool.run(kind, job, data)
        except JobTimeout as error:
            raise ApiError(504, "timeout", f"gave up: {error}") from None
        except PoolClosed as error:
            raise ApiError(503, "not_ready", str(error), headers={"Retry-After": "5"}) from None
        except WorkerCrashed as error:
            log.error("internal error in request %s: %s", self.state.request_id, error)
            raise Internal() from None
        self.state.timings.update(timings)
        if isinstance(value, Refused):
            self.state.log["outcome"] = value.failure.code
            extra = {}
            if value.result is not None:
                self.state.timings.update(value.result.timings)
                extra["result"] = value.result.model_dump(mode="json")
            raise refusal(value.failure, **extra)
        return value


def busy(retry_after: int) -> ApiError:
    """503 with the time a place is likely to free up.

    Parameters
    ----------
    retry_after : int
        Seconds, for the Retry-After header and the message.

    Returns
    -------
    ApiError
    """
    return ApiError(
        503,
        "busy",
        f"the server is busy (every solver is working and the queue is full); "
        f"retry in {retry_after} s",
        headers={"Retry-After": str(retry_after)},
    )


def get_jobs(request: Request) -> Jobs:
    return Jobs(request)
