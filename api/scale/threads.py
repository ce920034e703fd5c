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

import os


def cores() -> int:
    """The cores this process may run on: the default number of workers everywhere.

    Its CPU affinity, which containers and `taskset` narrow, not the machine's count.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> 1 <= cores() <= (os.cpu_count() or 1)
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def limit_threads(opencv: int | None = None) -> None:
    """Give BLAS one thread, and OpenCV `opencv` threads when given.

    Parameters
    ----------
    opencv : int, optional
        OpenCV's threads; None leaves OpenCV's default (every core).

    Returns
    -------
    None

    Examples
    --------
    See the module's.
    """
    import cv2  # loaded first: its wheel bundles an OpenBLAS of its own, limited below too
    import numpy  # noqa: F401
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    if opencv is not None:
        cv2.setNumThreads(opencv)
