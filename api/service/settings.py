"""Limits and knobs of the HTTP service, read from environment variables.

Every limit has a sane default so `sudoku-lens serve` works out of the box; each can be set
with an environment variable (docs/http.md lists them):

| variable | default | what it bounds |
| --- | --- | --- |
| SUDOKU_LENS_MAX_UPLOAD_MB | 15 | request body size, counted while it streams in (413) |
| SUDOKU_LENS_MAX_PIXELS | 50000000 | image width x height, read from the header before decoding (413) |
| SUDOKU_LENS_WORKERS | min(2, CPUs) | solver processes doing the CPU-bound work |
| SUDOKU_LENS_QUEUE_LENGTH | 8 | jobs allowed to wait for a busy solver process; beyond that 503 |
| SUDOKU_LENS_TIMEOUT_S | 30 | wall time of one job, queueing included; the process is then killed (504) |
| SUDOKU_LENS_RESULT_CACHE_SIZE | 64 | solved overlays kept in memory for GET /v1/results/{id}/overlay.jpg |
| SUDOKU_LENS_RESULT_CACHE_MB | 64 | total bytes of those overlays |
| SUDOKU_LENS_RESULT_TTL_S | 600 | how long an overlay stays fetchable |
| SUDOKU_LENS_MAX_SOLUTIONS | 1000 | largest `limit` accepted by POST /v1/grid |
| SUDOKU_LENS_ENGINE | (pipeline default) | digit recogniser used for photos |

>>> Settings.from_env({"SUDOKU_LENS_MAX_UPLOAD_MB": "2"}).max_upload_bytes
2097152
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

PREFIX = "SUDOKU_LENS_"


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class Settings:
    max_upload_mb: float = 15
    max_pixels: int = 50_000_000
    workers: int = 0  # 0 = default_workers()
    queue_length: int = 8
    timeout_s: float = 30.0
    result_cache_size: int = 64
    result_cache_mb: float = 64
    result_ttl_s: float = 600.0
    max_solutions: int = 1000
    engine: str = ""  # "" = the pipeline's default engine

    def __post_init__(self) -> None:
        if self.workers <= 0:
            object.__setattr__(self, "workers", default_workers())
        for name in ("max_upload_mb", "max_pixels", "timeout_s", "max_solutions"):
            if getattr(self, name) <= 0:
                raise ValueError(
                    f"{PREFIX}{name.upper()} must be positive, got {getattr(self, name)}"
                )
        for name in ("queue_length", "result_cache_size", "result_cache_mb", "result_ttl_s"):
            if getattr(self, name) < 0:
                raise ValueError(
                    f"{PREFIX}{name.upper()} must not be negative, got {getattr(self, name)}"
                )

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    @property
    def result_cache_bytes(self) -> int:
        return int(self.result_cache_mb * 1024 * 1024)

    @property
    def max_jobs(self) -> int:
        """Jobs admitted at once: one running per solver process plus the waiting queue."""
        return self.workers + self.queue_length

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> Settings:
        """Defaults, then SUDOKU_LENS_* variables, then keyword overrides (e.g. from the CLI)."""
        environ = os.environ if environ is None else environ
        values = {}
        for field in fields(cls):
            raw = environ.get(PREFIX + field.name.upper())
            if raw is None or raw.strip() == "":
                continue
            kind = type(field.default)
            try:
                values[field.name] = kind(raw.strip().replace("_", "")) if kind is not str else raw
            except ValueError:
                raise ValueError(
                    f"{PREFIX}{field.name.upper()}={raw!r} is not a valid {kind.__name__}"
                ) from None
        settings = cls(**values)
        overrides = {k: v for k, v in overrides.items() if v is not None}
        return replace(settings, **overrides) if overrides else settings

    def as_env(self) -> dict[str, str]:
        """The same settings as environment variables (handed to a child server process)."""
        return {PREFIX + f.name.upper(): str(getattr(self, f.name)) for f in fields(self)}
