"""A worker's memory policy: a photo's freed blocks are used again, not faulted in afresh."""

import subprocess
import sys
import textwrap

import pytest

from api.scale.memory import keep_freed_memory

# a 12 MP photo decoded twice by OpenCV (36 MB, no huge pages): the page faults of the second
# decode, in a fresh process with glibc's defaults or with the policy
PROBE = textwrap.dedent(
    """
    import resource, sys
    import cv2, numpy as np
    from api.scale.memory import keep_freed_memory
    if sys.argv[1] == "keep":
        assert keep_freed_memory()
    photo = np.full((3024, 4032, 3), 200, np.uint8)
    data = cv2.imencode(".jpg", photo)[1]
    del photo
    faults = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(2):
        before = faults()
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
        del decoded
    print(faults() - before)
    """
)


def faults_of_second_decode(policy: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, policy], capture_output=True, text=True, check=True
    )
    return int(done.stdout.split()[-1])


def test_freed_photo_memory_is_used_again():
    if not keep_freed_memory():
        pytest.skip("not glibc: malloc's policy cannot be set")
    fresh, kept = faults_of_second_decode("default"), faults_of_second_decode("keep")
    assert fresh > 5000  # 36 MB in 4 kB pages, each faulted in again
    assert kept < fresh / 10
