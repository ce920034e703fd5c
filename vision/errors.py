"""Errors of the reading pipeline, each with a message a user can act on.

Every failure a photo can cause is one of these, so callers (CLI, HTTP) map them to an exit
status or an HTTP status without ever showing a traceback:

>>> try:
...     raise NoGridFound("no sudoku grid found in the photo")
... except VisionError as error:
...     print(error)
no sudoku grid found in the photo
"""

from __future__ import annotations


class VisionError(Exception):
    """Base of every error the photo pipeline raises for bad or unusable input."""


class NotAnImage(VisionError):
    """The input is not an image we can decode (empty, text, unknown format, 1×1 pixel)."""


class ImageTooLarge(VisionError):
    """The image has more pixels than allowed; judged from the header, before decoding."""


class Unreadable(VisionError):
    """An image, but broken: truncated or corrupt data, or a file that cannot be opened."""


class NoGridFound(VisionError):
    """A good image in which no sudoku grid could be located."""


class UnsupportedBoard(VisionError):
    """A puzzle of a kind the project does not solve (killer, jigsaw, samurai): named, so it
    is never read as a plain sudoku and answered."""

    def __init__(self, kind: str):
        super().__init__(
            f"looks like a {kind} sudoku: not supported (sudoku-lens solves 6x6, 9x9, 16x16 and diagonal sudoku)"
        )
        self.kind = kind
