"""Fixtures shared by the whole suite."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared (real photos and puzzle sets), or skip: a user's clone does not have it."""
    if not (SHARED / "README.md").is_file():
        pytest.skip("../shared not present (real photos and puzzle sets live next to the repo)")
    return SHARED
