"""Kernels compiled by numba on first use, not at import.

A few of the reader's inner loops (the locator's small copy and corner combs, the bent
page's trace, the cut's digits and specks, the drawing) run far faster compiled, but
importing numba and setting it up costs about a tenth of a second and its memory, which a
process that never reads a photo need not pay at import. So each such kernel is a plain
Python function, and the module keeps a getter that compiles it the first time it is asked
for (cached on disk, like the solver's kernels); `vision.read.warm_up` asks for each
before the first photo.
"""

from __future__ import annotations

import functools
from collections.abc import Callable


def on_first_use(kernel: Callable) -> Callable[[], Callable]:
    """A getter of `kernel` compiled by numba (`njit`, cached on disk, releasing the GIL),
    compiled at the getter's first call and the same compiled function after.

    The getter is called, then its result: ``area_means()(gray, factor)``.
    """

    @functools.cache
    def compiled() -> Callable:
        from numba import njit

        return njit(cache=True, nogil=True)(kernel)

    compiled.__doc__ = f"`{kernel.__name__}` compiled by numba on first use (`vision.compiled`)."
    return compiled
