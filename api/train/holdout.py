"""Which labelled photos a held-out model never sees: by puzzle, by week, by phone, by light.

Folds held out by puzzle (`fold_of`) judged the check for many rounds, and every threshold
chosen on them came to fit them: a right entry was called wrong on 1 photo in 236 there,
and on 1 in 14 of the same newspaper's other weeks. Those weeks brought what the folds
never had: fainter pencil, pinker paper, a shadow over half the grid. So the reader is
also measured as a new user meets it, on photos unlike the ones it learnt from, one way at
a time:

- `week`: whole weeks of the calendar pages, by the date in Kubiesa's file names (the same
  newspaper series, other puzzles, other days' pencil and light);
- `phone`: whole phones (Kubiesa's two, Wicht's a dozen, each phone's photos together);
- `light`: whole lighting conditions: the photos whose paper is most tinted or whose light
  is least even (`light_of`), against the rest.

And one split is kept aside (`aside`): the latest week of Kubiesa's pages and a fifth of
Wicht's puzzles. No threshold or choice is judged on it; it is measured once, at the end
of a piece of work, by a model that never saw it.

>>> week_of("k03_11")
10
>>> fold_label("week", week=7, phone="iphone_14", light="even")
'week7-8'
"""

from __future__ import annotations

import datetime
import hashlib

import numpy as np

BY = ("week", "phone", "light")
# the weeks of each week fold (weeks of the year, `week_of`): Kubiesa's pages run from
# week 7 to week 10; week 10 is kept aside
WEEK_FOLDS = {"week7-8": (7, 8), "week9": (9,)}
ASIDE_WEEKS = (10,)
ASIDE_SHARE = 5  # one Wicht puzzle in this many is kept aside (by a stable hash)
# Wicht's phones, split into two folds of about equal size; Kubiesa's two phones go one each
PHONE_FOLDS = {
    "phone-a": ("iphone_14", "sonyEricsson w880i", "Samsung Galaxy S4", "nokia e65",
                "apple iphone 3 gs", "Google Nexus 4", "blackBerry"),
    "phone-b": ("honor_view_10", "sonyEricsson w660i", "sonyEricsson t660i", "iphone 5s",
                "sonyEricsson s500i", "sonyEricsson w810i"),
}  # fmt: skip


def week_of(group: str) -> int | None:
    """The week of the year (1 = 1 to 7 January) of a Kubiesa puzzle, by its date
    ("k02_17": 17 February); None for a photo without a date. The year is not named, so a
    year without 29 February is taken."""
    if not group.startswith("k"):
        return None
    month, day = (int(part) for part in group[1:].split("_")[:2])
    return (datetime.date(2025, month, day).timetuple().tm_yday - 1) // 7 + 1


def phone_of(path, source: str) -> str:
    """The phone a photo was taken with: in Kubiesa's file name, or the first line of
    Wicht's `.dat`."""
    if source == "kubiesa":
        stem = path.stem.rsplit("_", 1)[0]  # 02_17_honor_view_10_0 -> ..._honor_view_10
        return "_".join(stem.split("_")[2:])
    dat = path.with_suffix(".dat")
    return dat.read_text().splitlines()[0].strip() if dat.is_file() else "unknown"


def light_of(warped_bgr: np.ndarray) -> tuple[float, float]:
    """(tint, spread) of a warped grid's paper: how far its colour is from grey (Lab chroma
    of the paper's median, 0 for white paper), and how unevenly it is lit (the 95th less
    the 5th percentile of the paper's brightness over the grid, smoothed wider than a
    digit, as a share of its median). A pink newspaper page has a tint near 10, a shadow
    over half the grid a spread above 0.3.

    >>> paper = np.full((90, 90, 3), 235, np.uint8)
    >>> light_of(paper)
    (0.0, 0.0)
    """
    import cv2

    small = cv2.resize(warped_bgr, (90, 90), interpolation=cv2.INTER_AREA)
    # the paper: a closing wider than any stroke takes the ink out
    paper = cv2.morphologyEx(small, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    lab = cv2.cvtColor(paper, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    a, b = np.median(lab[:, 1]) - 128, np.median(lab[:, 2]) - 128
    bright = cv2.blur(lab[:, 0].reshape(90, 90), (15, 15))
    low, high = np.percentile(bright, [5, 95])
    return round(float(np.hypot(a, b)), 2), round(
        float((high - low) / max(np.median(bright), 1)), 3
    )


def light_folds(lights: dict) -> dict:
    """{photo: "uneven" or "even"}: the photos in the upper half by tint or by spread
    (ranked among these photos, the larger of the two ranks) are "uneven"."""
    keys = list(lights)
    if not keys:
        return {}
    tint = np.array([lights[k][0] for k in keys])
    spread = np.array([lights[k][1] for k in keys])
    rank = np.maximum(tint.argsort().argsort(), spread.argsort().argsort()) / max(len(keys) - 1, 1)
    cut = np.median(rank)
    return {k: "uneven" if r > cut else "even" for k, r in zip(keys, rank, strict=True)}


def aside(group: str) -> bool:
    """Whether a puzzle is in the split kept aside (`ASIDE_WEEKS` of Kubiesa's, one in
    `ASIDE_SHARE` of Wicht's by a stable hash of the puzzle).

    >>> aside("k03_10"), aside("k02_17")
    (True, False)
    """
    week = week_of(group)
    if week is not None:
        return week in ASIDE_WEEKS
    return int(hashlib.sha1(f"aside:{group}".encode()).hexdigest(), 16) % ASIDE_SHARE == 0


def fold_label(by: str, week: int | None, phone: str, light: str) -> str | None:
    """The fold of a photo when folds are made `by` week, phone or light (None: in no fold
    of that kind, e.g. a photo without a date when folds are weeks)."""
    if by == "week":
        return next((name for name, weeks in WEEK_FOLDS.items() if week in weeks), None)
    if by == "phone":
        return next((name for name, phones in PHONE_FOLDS.items() if phone in phones), None)
    if by == "light":
        return light
    raise ValueError(f"folds by {by!r}: choose one of {', '.join(BY)}")


def folds_of(by: str) -> tuple[str, ...]:
    """The fold names of a kind of fold."""
    if by == "week":
        return tuple(WEEK_FOLDS)
    if by == "phone":
        return tuple(PHONE_FOLDS)
    if by == "light":
        return ("uneven", "even")
    raise ValueError(f"folds by {by!r}: choose one of {', '.join(BY)}")
