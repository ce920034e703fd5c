"""`sudoku-lens serve`: the HTTP service and its phone page, served by uvicorn.

uvicorn and FastAPI are imported inside the command, so the rest of the CLI starts fast.
One uvicorn process runs the event loop (uploads, limits, the overlay cache); `--workers`
solver processes do the CPU-bound work (see api/service/workers.py for why).
"""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""
    app.command("serve")(serve)


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (0.0.0.0: all)."),
    port: int = typer.Option(8000, "--port", "-p", min=0, max=65535, help="TCP port."),
    workers: int | None = typer.Option(
        None,
        "--workers",
        "-j",
        min=1,
        help="Solver processes (default: SUDOKU_LENS_WORKERS, else one per core).",
    ),
    queue_length: int | None = typer.Option(
        None, "--queue-length", min=0, help="Jobs that may wait for a busy solver (then 503)."
    ),
    timeout: float | None = typer.Option(
        None, "--timeout", min=0.1, help="Seconds one request may take (then 504)."
    ),
    max_upload_mb: float | None = typer.Option(
        None, "--max-upload-mb", min=0.01, help="Largest accepted upload, in MB (then 413)."
    ),
    log_level: str = typer.Option("info", "--log-level", help="uvicorn's log level."),
    ssl_certfile: str | None = typer.Option(
        None,
        "--ssl-certfile",
        help="Serve HTTPS with this certificate (PEM): phones allow the camera of the live "
        "mode only over HTTPS (or on localhost).",
    ),
    ssl_keyfile: str | None = typer.Option(
        None, "--ssl-keyfile", help="The certificate's private key (PEM)."
    ),
) -> None:
    """Serve the HTTP API and the phone page (open http://HOST:PORT/ on a phone).

    Limits come from SUDOKU_LENS_* environment variables (see docs/http.md);
    these options override them. For the live camera mode on a phone, serve HTTPS
    (--ssl-certfile/--ssl-keyfile; README "Live mode").
    """
    from pydantic import ValidationError

    from api.service.settings import Settings, describe

    options = {
        "workers": workers,
        "queue_length": queue_length,
        "timeout_s": timeout,
        "max_upload_mb": max_upload_mb,
    }
    try:
        settings = Settings(**{k: v for k, v in options.items() if v is not None})
    except ValidationError as error:
        typer.echo(f"error: {describe(error)}", err=True)
        raise typer.Exit(2) from None

    if bool(ssl_certfile) != bool(ssl_keyfile):
        typer.echo("error: --ssl-certfile and --ssl-keyfile go together", err=True)
        raise typer.Exit(2)
    for path in (ssl_certfile, ssl_keyfile):
        if path and not Path(path).is_file():
            typer.echo(f"error: {path}: no such file", err=True)
            raise typer.Exit(2)

    import uvicorn

    from api.service import create_app

    give_back_large_buffers()
    from api.service.protocol import bounded_websocket, guarded_h11

    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,  # the service writes its own JSON access log
        server_header=False,  # do not announce the server's make
        http=guarded_h11(header_timeout_s=settings.idle_timeout_s),
        timeout_keep_alive=settings.keep_alive_s,
        timeout_graceful_shutdown=5,
        ssl_certfile=ssl_certfile,
        ssl_keyfile=ssl_keyfile,
        # A live frame a little over its limit gets the service's own error message; far
        # over, the socket closes with 1009 (message too big) before it is all read.
        ws_max_size=max(4 * settings.live_max_frame_bytes, 2**20),
        ws_per_message_deflate=False,  # frames are JPEG: compressing them again is wasted work
        ws=bounded_websocket(
            send_timeout_s=settings.live_send_timeout_s,
            max_messages_s=settings.live_max_messages_s,
        ),
        # X-Forwarded-For names the client only when it comes from a configured proxy: uvicorn
        # otherwise trusts it from loopback, and the per-address limits would trust anyone
        # on this machine who sets it.
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=settings.trusted_proxies or None,
    )


def give_back_large_buffers(threshold: int = 1 << 20) -> None:
    """Have glibc map every buffer over `threshold` bytes on its own and unmap it when freed.

    An upload is held as one buffer of up to the body limit. By default glibc raises its mmap
    threshold to the largest block freed so far (up to 32 MB), after which such buffers come
    from the heap and their memory stays with the process once freed: the event-loop
    process's RSS then ratchets up to its peak and stays there. A fixed threshold turns that
    off. No-op where glibc is not the C library.

    Parameters
    ----------
    threshold : int
        Bytes from which a buffer gets its own mapping.
    """
    import ctypes
    import ctypes.util

    m_mmap_threshold = -3
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.mallopt(m_mmap_threshold, threshold)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass
