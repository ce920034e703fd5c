"""Image in, reading out: load a photo, locate the grid, warp it, cut and recognise the cells.

>>> from vision import read_photo                       # doctest: +SKIP
>>> read_photo("photo.jpg").givens                      # doctest: +SKIP

`vision` never imports `solver` or `api`.
"""

from vision.errors import ImageTooLarge, NoGridFound, NotAnImage, Unreadable, VisionError
from vision.load import load_image
from vision.read import Page, Reading, locate_page, read_image, read_located, read_photo

__all__ = [
    "ImageTooLarge",
    "NoGridFound",
    "NotAnImage",
    "Page",
    "Reading",
    "Unreadable",
    "VisionError",
    "load_image",
    "locate_page",
    "read_image",
    "read_located",
    "read_photo",
]
