"""The `sudoku-lens` command line.

One typer app; each group of commands lives in its own module and registers itself, so the
puzzle commands, the photo commands, the evaluation and the server grow independently.
Exit codes (documented in the README): 0 success, 1 some input failed or had no unique
solution, 2 usage error (bad option or unreadable argument), 130 interrupted.
"""

from __future__ import annotations

import typer

from api.cli import evaluate, photos, puzzles, serve

app = typer.Typer(
    name="sudoku-lens",
    help="Photograph a sudoku, get it solved and drawn back onto the photo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (puzzles, photos, evaluate, serve):
    module.register(app)


def main() -> None:
    app()
