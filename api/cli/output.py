"""Terminal versus pipe: colour and progress bars only when a person is watching."""

from __future__ import annotations

import sys

from rich.console import Console


def is_terminal() -> bool:
    return sys.stdout.isatty()


def stdout_console() -> Console:
    """Results go to stdout; plain text (no colour, no wrapping) when piped."""
    if is_terminal():
        return Console(emoji=False)
    return Console(no_color=True, highlight=False, soft_wrap=True, width=10_000, emoji=False)


def stderr_console() -> Console:
    """Progress, summaries and errors go to stderr so stdout stays scriptable."""
    return Console(stderr=True, highlight=False, emoji=False)
