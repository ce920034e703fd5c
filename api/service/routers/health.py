"""Liveness and readiness: is the process answering, and can it solve photos right now."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from api.service.dependencies import get_pool
from api.service.errors import error_response, responses
from api.service.workers import SolverPool

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="Liveness: the server answers")
async def healthz() -> dict:
    return {"status": "ok"}


@router.get(
    "/readyz",
    summary="Readiness: solver processes up, models loaded, Tesseract found",
    responses=responses(503),
)
async def readyz(pool: SolverPool = Depends(get_pool)):
    status = pool.status()
    infos = pool.worker_info()
    checks = {
        "solver_processes": f"{status['alive']}/{status['processes']} alive",
        "models_loaded": bool(infos) and all(i.get("models_loaded") for i in infos),
        "tesseract": next((i.get("tesseract") for i in infos if i.get("tesseract")), None),
        "engine": next((i.get("engine") for i in infos if i.get("engine")), None),
    }
    problems = sorted({p for i in infos for p in i.get("problems", [])})
    if status["alive"] < status["processes"]:
        problems.append(f"only {status['alive']} of {status['processes']} solver processes are up")
    if not checks["models_loaded"]:
        problems.append("the recogniser's models are not loaded")
    if not checks["tesseract"]:
        problems.append("Tesseract was not found (install Debian's tesseract-ocr)")
    if problems:
        return error_response(
            503, "not_ready", "; ".join(problems), headers={"Retry-After": "5"}, checks=checks
        )
    return JSONResponse({"status": "ready", "checks": checks, "pool": status})
