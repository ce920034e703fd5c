"""The HTTP service: `create_app(settings)` builds the FastAPI app.

Layout (FastAPI's larger-application style): `settings` (limits from the environment),
`dependencies` (what routers receive), `errors` (one JSON error shape, the one table of
HTTP statuses), `middleware` (body bounds, hygiene, access log), `protocol` (bounds before a
request's headers end), `workers` + `jobs` (the solver processes), `models` (the grid
contract), `cache` (overlays), `routers/` (photos, grid, health, page, live). Run it with
`sudoku-lens serve`.

>>> app = create_app(Settings(workers=1))        # doctest: +SKIP
>>> # uvicorn.run(app)  -- or TestClient(app) in tests
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from api.service import errors
from api.service.cache import ResultCache
from api.service.middleware import (
    AccessLog,
    BodyLimits,
    Hardening,
    InflightBytes,
    configure_access_log,
)
from api.service.routers import grid, health, live, new, page, photos
from api.service.settings import Settings
from api.service.workers import SolverPool

DESCRIPTION = """
Photograph a sudoku, get it solved and drawn back onto the photo.

* `POST /v1/solve` with a photo (multipart field `image`) answers the JSON result, or the
  solved photo itself for `Accept: image/jpeg` / `image/png`.
* `POST /v1/grid` solves a puzzle given as text (and explains it with `"explain": true`).
* `GET /v1/new?level=hard&count=5` makes new puzzles to order (level or rating, symmetry,
  size, minimal), each with exactly one solution.
* `WebSocket /v1/live`: the live camera mode, a frame in, corners and the solution out
  (docs/live.md).
* Errors are always `{"error": {"code": ..., "message": ...}}`.
"""


def create_app(settings: Settings | None = None) -> FastAPI:
    """A ready-to-serve app; its solver processes start with the app's lifespan.

    Parameters
    ----------
    settings : Settings, optional
        Limits; by default read from the SUDOKU_LENS_* environment variables.

    Returns
    -------
    fastapi.FastAPI
    """
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        pool = SolverPool(
            size=settings.workers,
            queue_length=settings.queue_length,
            timeout_s=settings.timeout_s,
            env=settings.as_env(),
        )
        app.state.pool = pool
        from vision.load import openers  # the header check's imports, before the first upload

        openers()

        try:
            await pool.start()
            yield
        finally:
            await pool.close()

    app = FastAPI(
        title="sudoku-lens",
        version="1",
        description=DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.cache = ResultCache(
        max_items=settings.result_cache_size,
        max_bytes=settings.result_cache_bytes,
        ttl_s=settings.result_ttl_s,
    )
    errors.install(app)
    for module in (photos, grid, new, health, page, live):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=page.STATIC), name="static")
    # Added last = outermost: the access log sees the body bounds' 4xx and 503 too, and the
    # hygiene headers are on every answer, the access log's 500s included.
    app.add_middleware(
        BodyLimits,
        max_bytes=settings.max_upload_bytes,
        limits={"/v1/grid": settings.max_grid_body_bytes},
        budget=InflightBytes(settings.max_inflight_bytes),
        timeout_s=settings.upload_timeout_s,
        min_rate=settings.min_upload_kb_s * 1024,
        idle_s=settings.idle_timeout_s,
        retry_after=lambda: app.state.pool.retry_after("photo"),
    )
    app.add_middleware(AccessLog)
    app.add_middleware(Hardening)
    configure_access_log()
    return app
