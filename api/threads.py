"""Thread limits for a process that reads photos: the parallelism belongs to the processes.

numpy's OpenBLAS threads busy-wait between products: on a loaded machine the recogniser's
81-row matrix product took 100× longer with them than without, and the product is too
small to gain from threads anyway, so BLAS always gets one. OpenCV's threads do pay off for
a lone process warping and drawing a 12 MP photo, but when several worker processes share
the cores they only fight each other, so pools ask for one OpenCV thread per worker.

>>> limit_threads(opencv=1)
>>> import cv2; cv2.getNumThreads()
1
"""

from __future__ import annotations


def limit_threads(opencv: int | None = None) -> None:
    """One BLAS thread; `opencv` OpenCV threads when given (None leaves OpenCV's default)."""
    import cv2  # loaded first: its wheel bundles an OpenBLAS of its own, limited below too
    import numpy  # noqa: F401
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    if opencv is not None:
        cv2.setNumThreads(opencv)
