"""GET /: the phone page (plain HTML, CSS and JavaScript served from api/static/)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC = Path(__file__).resolve().parent.parent.parent / "static"

router = APIRouter(tags=["page"])


@router.head("/", include_in_schema=False)
@router.get("/", include_in_schema=False)
async def page() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


@router.get("/favicon.ico", include_in_schema=False)
async def favicon() -> FileResponse:
    """The icon browsers ask for by this path (the page links the SVG one too)."""
    return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon")
