"""The same bytes give the same answer: the correction is budgeted by work, not the clock, so a
busy machine can make a photo slower but never change what it says (issue 11)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from api.photo.pipeline import solve_photo

PHOTO = (
    Path(__file__).resolve().parents[1].parent
    / "shared/datasets/kubiesa/images/02_17_iphone_14_0.jpg"
)


def answer(data: bytes) -> dict:
    result = solve_photo(data, render=False).to_model().model_dump()
    for said in (result, *result["grids"]):  # the photo's and each grid's own
        said.pop("timings")
    return result


@pytest.mark.skipif(not PHOTO.is_file(), reason="../shared not present (the kubiesa photo)")
def test_one_photo_sent_many_times_under_load_answers_alike():
    data = PHOTO.read_bytes()
    first = answer(data)
    with ThreadPoolExecutor(4) as pool:  # four at once on two cores: every call is slowed
        answers = list(pool.map(answer, [data] * 8))
    assert all(a == first for a in answers)
    assert first["status"] in ("solved", "multiple_solutions", "invalid_givens", "unreadable")
