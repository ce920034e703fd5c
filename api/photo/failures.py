"""What a photo that never became a reading is called: one table for every door.

`solve_photo` raises a `vision.VisionError` when its input is not a usable image at all. The
batch report, the CLI and the HTTP service each need a name for that outcome: `status` is the
report's status (see `api.photo.schema.BatchStatus`), `code` the finer word an HTTP error carries
(a truncated JPEG and a text file are both `not_an_image` in a report, but the service tells
them apart as `corrupt_image` and `not_an_image`). The HTTP layer alone turns a code into an
HTTP status number.

>>> from vision.errors import Unreadable
>>> failure_of(Unreadable("the JPEG image is truncated"))
Failure(status='not_an_image', code='corrupt_image', message='the JPEG image is truncated')
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.errors import ImageTooLarge, NoGridFound, NotAnImage, Unreadable, VisionError

# error class -> (report status, error code); the first matching class wins
_TABLE: tuple[tuple[type[VisionError], str, str], ...] = (
    (ImageTooLarge, "too_large", "image_too_large"),
    (NotAnImage, "not_an_image", "not_an_image"),
    (Unreadable, "not_an_image", "corrupt_image"),
    (NoGridFound, "no_grid", "no_grid"),
    (VisionError, "not_an_image", "unreadable"),
)


@dataclass(frozen=True)
class Failure:
    """A photo that could not be read, as every door reports it.

    Attributes
    ----------
    status : str
        The batch report's status word.
    code : str
        The HTTP error's code word.
    message : str
        The error's own sentence, meant for the user.
    """

    status: str
    code: str
    message: str


def failure_of(error: VisionError) -> Failure:
    """Name a vision error for the report and the service.

    Parameters
    ----------
    error : vision.VisionError
        What `solve_photo` or `read_photo` raised.

    Returns
    -------
    Failure
    """
    for kind, status, code in _TABLE:
        if isinstance(error, kind):
            return Failure(status, code, str(error))
    raise TypeError(f"not a vision error: {error!r}")
