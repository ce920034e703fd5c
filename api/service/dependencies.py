"""FastAPI dependencies: the settings, the overlay cache and the solver pool of this app.

Routers ask for what they need (`Depends(get_settings)`, `Depends(get_jobs)`) instead of
reaching for globals, so two apps with different limits can live in one process (tests).
"""

from __future__ import annotations

import contextlib

from fastapi import Request

from api.service.cache import ResultCache
from api.service.errors import ApiError
from api.service.settings import Settings
from api.service.workers import JobTimeout, PoolClosed, QueueFull, SolverPool, WorkerCrashed


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_cache(request: Request) -> ResultCache:
    return request.app.state.cache


def get_pool(request: Request) -> SolverPool:
    return request.app.state.pool


class Jobs:
    """The solver pool as routers use it; every way a job can fail becomes an `ApiError`.

    >>> async with jobs.slot():                      # doctest: +SKIP
    ...     answer = await jobs.run("grid", payload)
    """

    def __init__(self, request: Request):
        self.pool: SolverPool = request.app.state.pool
        self.state = request.state

    @contextlib.asynccontextmanager
    async def slot(self):
        try:
            async with self.pool.slot():
                yield
        except QueueFull as error:
            self.state.log["refused"] = True
            raise ApiError(
                503,
                "busy",
                f"the server is busy (every solver is working and the queue is full); "
                f"retry in {error.retry_after} s",
                headers={"Retry-After": str(error.retry_after)},
            ) from None
        except PoolClosed as error:
            raise ApiError(503, "not_ready", str(error), headers={"Retry-After": "5"}) from None

    async def run(self, kind: str, payload: dict) -> dict:
        try:
            value, timings = await self.pool.run(kind, payload)
        except JobTimeout as error:
            raise ApiError(504, "timeout", f"gave up: {error}") from None
        except PoolClosed as error:
            raise ApiError(503, "not_ready", str(error), headers={"Retry-After": "5"}) from None
        except WorkerCrashed as error:
            raise ApiError(
                500,
                "internal",
                f"the solver failed ({error}); request id {self.state.request_id}",
            ) from None
        self.state.timings.update(timings)
        if "error" in value:
            details = dict(value["error"])
            self.state.log["outcome"] = details["code"]
            self.state.timings.update((details.get("result") or {}).get("timings", {}))
            status, code = details.pop("status"), details.pop("code")
            raise ApiError(status, code, details.pop("message"), **details)
        return value


def get_jobs(request: Request) -> Jobs:
    return Jobs(request)
