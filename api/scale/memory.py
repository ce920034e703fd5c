"""How a process that reads photos gets its memory: freed blocks kept and used again.

glibc's malloc serves a block over its mmap threshold (128 kB to 32 MB, moving) with fresh
pages from the kernel and gives them back when it is freed; every 4 kB page is then faulted
in again on first touch. A 12 MP photo's decode (36 MB of BGR, from OpenCV, which asks for no
huge pages) took 9,400 such faults a photo, its grey copy and warps some thousands more, and
on this machine (a virtual one, where a fault is dear) they were about 30 ms of a 12 MP
photo's 215 ms of CPU: the `load` stage alone went from 76 to 44 ms p50 without them, and
`bench/pipeline.py` showed the same decode 1.2x dearer in one tree than in another, as the
previous photo happened to leave the heap. So a worker keeps what it freed (up to
`KEEP_BYTES` at the top of its heap) and serves every block under `KEEP_BYTES` from it.
(Dask's workers had the like from their environment, `api.scale.cluster.WORKER_ENVIRONMENT`,
but at 32 MB, under a 12 MP decode; `api.scale.batch.prepare_worker` now sets this there
too.)

The price: a worker's resident memory stays near the most one photo needed instead of
falling back between photos, while its peak is what it was. One process over 120 photos (40
kubiesa, 40 Wicht, 40 kubiesa): resident at the end 379 MB with glibc's defaults, 453 MB
kept; peak 470 and 453 MB. `tests/test_scale_memory.py` checks that the blocks are used
again.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

# blocks under this come from the heap, and this much free memory at its top is kept: more
# than a 50 MP photo's BGR (vision.load.MAX_PIXELS x 3 bytes = 150 MB)
KEEP_BYTES = 256 * 2**20
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


@functools.cache
def keep_freed_memory() -> bool:
    """Have glibc's malloc keep freed memory for the next photo (see the module).

    Returns
    -------
    bool
        Whether it took (False where the C library is not glibc: nothing changes).
    """
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, KEEP_BYTES) and mallopt(M_TRIM_THRESHOLD, KEEP_BYTES))
