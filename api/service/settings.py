"""Limits and knobs of the HTTP service, read from SUDOKU_LENS_* environment variables.

pydantic-settings reads, converts and checks them (a bad value names its variable); keyword
arguments (the CLI's options) win over the environment. Every limit has a default that suits
the machine it runs on, so `sudoku-lens serve` works out of the box. docs/http.md lists them:

| variable | default | what it bounds |
| --- | --- | --- |
| SUDOKU_LENS_MAX_UPLOAD_MB | 15 | one request body, counted while it streams in (413) |
| SUDOKU_LENS_MAX_GRID_BODY_KB | 64 | a POST /v1/grid body (a 25x25 puzzle is under 2 KB) (413) |
| SUDOKU_LENS_MAX_INFLIGHT_MB | 120 | request bodies held at once by the server, all together (503) |
| SUDOKU_LENS_MAX_PIXELS | 50000000 | image width x height, read from the header before decoding (413) |
| SUDOKU_LENS_WORKERS | every core | solver processes doing the CPU-bound work |
| SUDOKU_LENS_QUEUE_LENGTH | 8 | photos (and, apart, puzzles) waiting for a busy solver; beyond, 503 |
| SUDOKU_LENS_TIMEOUT_S | 30 | wall time of one job, queueing included; the process is then killed (504) |
| SUDOKU_LENS_UPLOAD_TIMEOUT_S | 30 | time to send a whole body (408) |
| SUDOKU_LENS_MIN_UPLOAD_KB_S | 8 | slowest average upload rate accepted after its first 5 s (408) |
| SUDOKU_LENS_IDLE_TIMEOUT_S | 10 | silence inside a request: before its headers end, between body bytes (408) |
| SUDOKU_LENS_KEEP_ALIVE_S | 5 | an idle connection between requests, then closed |
| SUDOKU_LENS_RESULT_CACHE_SIZE | 64 | solved overlays kept in memory for GET /v1/results/{id}/overlay.jpg |
| SUDOKU_LENS_RESULT_CACHE_MB | 64 | total bytes of those overlays |
| SUDOKU_LENS_RESULT_TTL_S | 600 | how long an overlay stays fetchable |
| SUDOKU_LENS_MAX_SOLUTIONS | 1000 | largest `limit` accepted by POST /v1/grid |
| SUDOKU_LENS_ENGINE | (pipeline default) | digit recogniser used for photos |
| SUDOKU_LENS_LIVE_MAX_FRAME_KB | 512 | one frame of the live mode (/v1/live), a binary message |
| SUDOKU_LENS_LIVE_MAX_PIXELS | 4000000 | a live frame's width x height |
| SUDOKU_LENS_LIVE_MAX_FPS | 30 | frames one live connection may send per second |
| SUDOKU_LENS_LIVE_MAX_CONNECTIONS | 16 | live connections open at once, all clients |
| SUDOKU_LENS_LIVE_MAX_PER_CLIENT | 4 | live connections open at once from one address |
| SUDOKU_LENS_LIVE_IDLE_S | 30 | a live connection that sends no frame this long is closed |
| SUDOKU_LENS_LIVE_SEND_TIMEOUT_S | 20 | a live connection whose answers cannot be sent this long (it reads nothing) is closed |
| SUDOKU_LENS_TRUSTED_PROXIES | (none) | addresses whose X-Forwarded-For names the client (comma-separated; `*` any); by default no one's is trusted |

>>> Settings(max_upload_mb=2).max_upload_bytes
2097152
"""

from __future__ import annotations

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from api.scale.threads import cores

PREFIX = "SUDOKU_LENS_"


class Settings(BaseSettings):
    """The service's limits: defaults, then SUDOKU_LENS_* variables, then keyword arguments.

    Parameters
    ----------
    **values
        Any field by name (the CLI's options); they win over the environment.

    Examples
    --------
    >>> Settings(workers=1, queue_length=0).max_jobs
    1
    """

    model_config = SettingsConfigDict(
        env_prefix=PREFIX, env_ignore_empty=True, frozen=True, extra="forbid"
    )

    max_upload_mb: float = Field(15, gt=0)
    max_grid_body_kb: float = Field(64, gt=0)
    max_inflight_mb: float = Field(120, gt=0)
    max_pixels: int = Field(50_000_000, gt=0)
    workers: int = Field(default_factory=cores, ge=1)  # every core it may run on
    queue_length: int = Field(8, ge=0)
    timeout_s: float = Field(30.0, gt=0)
    upload_timeout_s: float = Field(30.0, gt=0)
    min_upload_kb_s: float = Field(8.0, ge=0)
    idle_timeout_s: float = Field(10.0, gt=0)
    keep_alive_s: float = Field(5.0, gt=0)
    result_cache_size: int = Field(64, ge=0)
    result_cache_mb: float = Field(64, ge=0)
    result_ttl_s: float = Field(600.0, ge=0)
    max_solutions: int = Field(1000, gt=0)
    engine: str = ""  # "" = the pipeline's default engine
    live_max_frame_kb: float = Field(512, gt=0)
    live_max_pixels: int = Field(4_000_000, gt=0)
    live_max_fps: float = Field(30, gt=0)
    live_max_connections: int = Field(16, ge=1)
    live_max_per_client: int = Field(4, ge=1)
    live_idle_s: float = Field(30.0, gt=0)
    live_send_timeout_s: float = Field(20.0, gt=0)
    trusted_proxies: str = ""  # "" = trust no X-Forwarded-For header

    @property
    def live_max_messages_s(self) -> float:
        """Messages one live connection may send a second (frames, commands) before its
        reading pauses: twice the frame rate, and room for commands."""
        return 2 * self.live_max_fps + 10

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 2**20)

    @property
    def max_grid_body_bytes(self) -> int:
        return int(self.max_grid_body_kb * 1024)

    @property
    def max_inflight_bytes(self) -> int:
        """At least one largest upload always fits."""
        return max(int(self.max_inflight_mb * 2**20), self.max_upload_bytes)

    @property
    def live_max_frame_bytes(self) -> int:
        return int(self.live_max_frame_kb * 1024)

    @property
    def result_cache_bytes(self) -> int:
        return int(self.result_cache_mb * 2**20)

    @property
    def max_jobs(self) -> int:
        """Photo jobs admitted at once: one running per solver process plus the waiting queue."""
        return self.workers + self.queue_length

    def as_env(self) -> dict[str, str]:
        """The same settings as environment variables (handed to a solver process)."""
        return {PREFIX + name.upper(): str(value) for name, value in self.model_dump().items()}


def describe(error: ValidationError) -> str:
    """A settings error as the user wrote it: variable, value and what is wrong.

    Parameters
    ----------
    error : pydantic.ValidationError
        What `Settings()` raised.

    Returns
    -------
    str
        One sentence per bad value, e.g. "SUDOKU_LENS_MAX_PIXELS='lots' is not a valid
        integer".
    """
    parts = []
    for item in error.errors():
        name = PREFIX + ".".join(str(p) for p in item["loc"]).upper()
        message = item["msg"].replace("Input should be", "must be").replace(", unable to parse", "")
        message = message.replace("string as an", "").replace("  ", " ")
        if item["type"].endswith("_parsing"):
            message = f"is not a valid {item['type'].split('_')[0].replace('int', 'integer')}"
        parts.append(f"{name}={item.get('input')!r} {message}")
    return "; ".join(parts)
