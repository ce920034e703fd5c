"""Liveness and readiness: is the process answering, and can it solve photos right now."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from api.service.dependencies import get_pool
from api.service.errors import error_response, responses
from api.service.workers import SolverPool

router = APIRouter(tags=["health"])


@router.head("/healthz", include_in_schema=False)
@router.get("/healthz", summary="Liveness: the server answers")
async def healthz() -> dict:
    return {"status": "ok"}


@router.head("/readyz", include_in_schema=False)
@router.get(
    "/readyz",
    summary="Readiness: warm solver processes that can serve the default engine, and a free place",
    responses=responses(503),
)
async def readyz(pool: SolverPool = Depends(get_pool)):
    """Ready means a photo sent now would be served: every solver process is up and warm
    (every kernel a request can reach compiled or loaded, also after a process was replaced),
    the default engine can run, and the photo queue has a free place. Tesseract is reported,
    and needed only when the configured engine uses it."""
    status = pool.status()
    infos = pool.worker_info()
    checks = {
        "solver_processes": f"{status['alive']}/{status['processes']} alive",
        "warm": f"{status['warm']}/{status['processes']} warm",
        "engine": next((i.engine for i in infos if i.engine), None),
        "tesseract": next((i.tesseract for i in infos if i.tesseract), None),
        "tesseract_available": any(i.tesseract for i in infos),
    }
    problems = sorted({p for i in infos for p in i.problems})
    if status["alive"] < status["processes"]:
        problems.append(f"only {status['alive']} of {status['processes']} solver processes are up")
    elif status["warm"] < status["processes"]:
        problems.append(f"only {status['warm']} of {status['processes']} solver processes are warm")
    if problems:
        return error_response(
            503, "not_ready", "; ".join(problems), headers={"Retry-After": "5"}, checks=checks
        )
    if pool.full("photo"):
        retry = pool.retry_after("photo")
        return error_response(
            503,
            "busy",
            f"every solver is working and the photo queue is full; retry in {retry} s",
            headers={"Retry-After": str(retry)},
            checks=checks,
            pool=status,
        )
    return JSONResponse({"status": "ready", "checks": checks, "pool": status})
