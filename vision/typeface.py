"""A press repeats a glyph exactly, a hand never does: kinds weighed by a cell's twin.

The puzzle's givens are set in one typeface, so a printed 8 has near-identical twins among
the other printed 8s of the page; a hand writes each 8 a little differently. The cell
model reads each cell alone and on some pages takes whole runs of print for hand-writing
(one Wicht puzzle in its light and typeface: up to nine printed digits a photo). So the
likeness of each digit's image to its closest twin elsewhere on the page is evidence for
print (`kinds_by_typeface`).

Measured on fold 1's held-out photos (Wicht print-only and hand-filled, Kubiesa; 3,969
printed and 3,188 hand-written digit cells), the closest twin's likeness (`twin_likeness`)
reached 0.97 for 85% of printed digits and 1.9% of hand-written ones, 0.98 for 71% and
0.8%. A digit without a twin says nothing: print that appears once on a page has none
(2.6% of printed digits were below 0.9), so only a twin counts, never its absence.

Its absence does count where the page shows what its print of that digit looks like: a cell
the model takes, unsurely, for a printed 7 on a page with two or more sure printed 7s and a
sure hand somewhere, and that looks like none of them, is most likely a hand's 7
(`kinds_unlike_the_print`).

>>> import numpy as np
>>> images = np.zeros((81, 28, 28), np.uint8)
>>> images[0, 6:22, 12:16] = images[1, 6:22, 12:16] = 255        # a printed 1, twice
>>> images[2, 6:22, 10:14] = 255; images[2, 8:12, 14:18] = 255   # a hand's 1, once
>>> [round(float(x), 2) for x in twin_likeness(images)[:3]]
[1.0, 1.0, 0.73]
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.kinds import CANDIDATES, weigh_print_against_hand
from vision.recognise import single_thread_dot

# Odds for print by the closest twin's likeness, interpolated (in log) between these
# points: 1 (no evidence) up to 0.95, then rising. Each is about half or less of the ratio
# measured on fold 1 (print share / hand share in bins from 0.95: 1.3, 3.1, 12.7, 63, 150).
TWIN_ODDS = ((0.95, 1.0), (0.96, 2.0), (0.97, 6.0), (0.98, 25.0), (0.99, 60.0))
# A page shows a hand when some cell is read as a hand's (a digit or pencil marks) this
# surely; on a page with none, doubtful hand-writing with a twin at LONE_TWIN or more is
# weighed towards print by LONE_ODDS (`kinds_without_a_hand`). The printed digits the
# cell model doubted had twins at 0.83 to 0.97 on the curled pages of bench/curl.py and at
# 0.42 to 0.97 on the Wicht print (fold models); the blobs that were no digit, 0.2 (a
# border's end cut into a corner cell) and 0.0 (a smudge). SURE_HAND was 0.9 until the
# relit models of issue 47, which read a curled page's printed 7 (tests/test_vision_mesh.py,
# seed 103) as a hand's at 0.94; on 40 hand-filled photos (every 4th Kubiesa photo, every
# 8th of Wicht's mixed ones, shipped models) the surest hand cell stood at 0.979 or more.
SURE_HAND = 0.96
# LONE_ODDS was 0.1 until the relit models, which read that 7 as a hand's at 0.954 (odds of
# 23 to 1, still 2.3 to 1 at 0.1); on a page with no sure hand cell such a blob with a twin
# is print far more often than not (14 of 14 on the labelled photos, above).
LONE_ODDS = 0.02
LONE_TWIN = 0.5
# A printed digit the model is this sure of shows the page's print of that digit; a cell it
# is less sure of, with at least PRINT_REFERENCES such cells of its digit on the page and a
# likeness under UNLIKE[1] to every one, gets odds for hand rising (in log) to UNLIKE_ODDS
# at UNLIKE[0] and below. On the held-out readings of all 399 labelled photos (fold
# models), the cells taken for print with such references: 10,879 printed digits, 31
# hand-written; under 0.9, 73 and 24 of them, and the printed ones mostly sure (model
# print mass over 0.97), the written ones mostly not (0.5 to 0.9). The two numbers were
# chosen looking at those readings (0.9 and 0.92 as the upper end gave 92 and 94 of 159
# hand-filled Wicht photos fully right, both 156 of 160 print-only), so no fold is held
# out for them.
SURE_PRINT = 0.9
PRINT_REFERENCES = 2
UNLIKE = (0.7, 0.92)
UNLIKE_ODDS = 10.0


def twin_likeness(images: np.ndarray, digits: np.ndarray | None = None) -> np.ndarray:
    """(81,) each digit image's likeness to its closest twin among the other digit cells
    (normalised correlation of the softened images, 1 = identical), NaN without an image
    or without another digit cell.

    Parameters
    ----------
    images : (81, S, S) uint8
        The normalised digit images (`Cells.images`), zero where a cell has none.
    digits : (81,) bool, optional
        Which cells hold a digit (default: every cell with an image).
    """
    images = np.asarray(images)
    has = images.reshape(len(images), -1).max(axis=1) > 0
    digits = has if digits is None else np.asarray(digits, bool) & has
    out = np.full(len(images), np.nan, np.float32)
    cells = np.flatnonzero(digits)
    if len(cells) < 2:
        return out
    flat = glyphs(images[cells])
    # up to 81 x 81 products of 784: a threaded BLAS thrashes on a busy machine (24 ms, not 1)
    likeness = single_thread_dot(flat, flat.T)
    np.fill_diagonal(likeness, -1.0)
    out[cells] = likeness.max(axis=1)
    return out


def glyphs(images: np.ndarray) -> np.ndarray:
    """(N, S*S) the digit images' main strokes (`main_strokes`), softened (so a pixel's
    shift costs little) and scaled to zero mean and unit length: the dot product of two
    rows is their likeness.

    Each image's row is kept (`glyph`): a photo's digits are compared three times over
    (`kinds_by_typeface`, `kinds_unlike_the_print`, `kinds_without_a_hand`), and each
    glyph costs a component search."""
    images = np.asarray(images)
    if not len(images):
        return np.zeros((0, int(np.prod(images.shape[1:]))), np.float32)
    return np.stack([glyph(im.tobytes(), im.shape) for im in images])


@functools.lru_cache(maxsize=256)
def glyph(image: bytes, shape: tuple[int, int]) -> np.ndarray:
    """One row of `glyphs`, for the image's bytes (read-only: it is shared)."""
    im = np.frombuffer(image, np.uint8).reshape(shape)
    flat = cv2.GaussianBlur(main_strokes(im).astype(np.float32), (5, 5), 1.0).reshape(1, -1)
    flat -= flat.mean(axis=1, keepdims=True)
    flat /= np.maximum(np.linalg.norm(flat, axis=1, keepdims=True), 1e-6)
    flat = flat[0]
    flat.flags.writeable = False
    return flat


def main_strokes(image: np.ndarray, share: float = 0.2) -> np.ndarray:
    """The digit image without what the cut took in beside the digit, centred and scaled
    again as the cut does (20 pixels tall in 28): of its strong ink (over a third of its
    darkest) only the pieces at least `share` of the largest, and of its faint ink only
    what touches them. A fold's crease or a stub of grid line cut with a printed 7 made it
    unlike the page's other digits (likeness 0.4 to 0.6 against 0.9 and up cleaned), and
    the cell model, which took it for a hand's, went unchallenged.

    >>> image = np.zeros((28, 28), np.uint8); image[4:24, 10:16] = 255; image[4:24, 25] = 255
    >>> cleaned = main_strokes(image)                   # the stroke kept, 20 tall, centred
    >>> int(cleaned[:, 25].max()), int((cleaned.max(axis=1) > 0).sum()), np.flatnonzero(cleaned[14]).tolist()
    (0, 20, [11, 12, 13, 14, 15, 16])
    """
    top = int(image.max())
    if top == 0:
        return image
    strong = (image > 0.35 * top).view(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(strong, connectivity=8)
    area = stats[:, cv2.CC_STAT_AREA]
    area[0] = 0  # the background
    kept = (area >= share * area.max()).astype(np.uint8)
    mask = cv2.dilate(kept[labels], np.ones((3, 3), np.uint8))
    mask[image == 0] = 0
    x, y, w, h = cv2.boundingRect(mask)
    crop = (image * mask)[y : y + h, x : x + w]
    scale = min(20.0 / h, 20.0 / w)
    small = cv2.resize(crop, (max(1, round(w * scale)), max(1, round(h * scale))))
    out = np.zeros_like(image)
    top_row, left = (image.shape[0] - small.shape[0]) // 2, (image.shape[1] - small.shape[1]) // 2
    out[top_row : top_row + small.shape[0], left : left + small.shape[1]] = small
    return out


def kinds_by_typeface(kinds: np.ndarray, images: np.ndarray) -> np.ndarray:
    """The kinds with each digit cell's printed mass raised by its closest twin's likeness
    (`TWIN_ODDS`); cells without a close twin keep the cell model's reading.

    Parameters
    ----------
    kinds : (81, 20) float
        Class probabilities of `vision.kinds.CLASSES`.
    images : (81, S, S) uint8
        The cells' normalised digit images, in the same order.
    """
    kinds = np.asarray(kinds, np.float32)
    digit_mass = kinds[:, 1:19].sum(axis=1)
    likeness = twin_likeness(images, digit_mass > 0.5)
    cells = np.flatnonzero(~np.isnan(likeness) & (likeness > TWIN_ODDS[0][0]))
    if not len(cells):
        return kinds
    at, odds = np.array(TWIN_ODDS).T
    for_print = np.exp(np.interp(likeness[cells], at, np.log(odds)))
    return weigh_print_against_hand(kinds, cells, 1.0 / for_print)


def kinds_unlike_the_print(kinds: np.ndarray, images: np.ndarray) -> np.ndarray:
    """The kinds with each doubtful printed digit that looks like none of the page's sure
    print of the same digit weighed towards hand-writing (`UNLIKE`, `UNLIKE_ODDS`).

    A neat entry can fool the cell model, but the page shows how its press sets that digit
    when it holds `PRINT_REFERENCES` cells the model is sure are that printed digit: an
    entry is unlike all of them, a printed copy is not. Cells the model is sure of are left
    as they are, and so is a digit the page shows too few times in print (a page's only
    printed 7 has nothing to be compared with), and so is a page with no sure hand anywhere
    (`shows_a_hand`): there an odd glyph is odd print (a printed 3 cut with a dotted rule
    through it, on one Wicht photo, was taken for a hand's by the shipped model).

    >>> kinds = np.zeros((81, 20), np.float32); kinds[:, 0] = 1
    >>> kinds[:3], kinds[:3, 7] = 0, 1.0                        # three sure printed 7s
    >>> kinds[3], kinds[3, 7], kinds[3, 16] = 0, 0.6, 0.4       # a 7 in doubt
    >>> kinds[4], kinds[4, 19] = 0, 1.0                         # pencil marks: a hand
    >>> images = np.zeros((81, 28, 28), np.uint8); images[:3, 6:9, 8:20] = 255
    >>> images[:3, 9:22, 16:19] = 255                            # the press's 7
    >>> images[3, 6:9, 6:18] = 255; images[3, 9:22, 6:10] = 255  # a hand's, unlike it
    >>> round(float(kinds_unlike_the_print(kinds, images)[3, 16]), 2)   # now written 7
    0.87
    """
    kinds = np.asarray(kinds, np.float32)
    if not shows_a_hand(kinds):
        return kinds
    has = np.asarray(images).reshape(len(images), -1).max(axis=1) > 0
    printed = kinds[:, 1:10]
    digit = printed.argmax(axis=1)
    sure = has & (printed.max(axis=1) >= SURE_PRINT)
    read_printed = (kinds.argmax(axis=1) >= 1) & (kinds.argmax(axis=1) <= 9)
    doubtful = np.flatnonzero(has & read_printed & ~sure)
    references = {d: np.flatnonzero(sure & (digit == d)) for d in set(digit[doubtful])}
    cells = [i for i in doubtful if len(references[digit[i]]) >= PRINT_REFERENCES]
    if not cells:
        return kinds
    # glyphs only of the cells compared (each costs a component search), not of all 81
    needed = np.union1d(cells, np.concatenate([references[digit[i]] for i in cells]))
    flat = dict(zip(needed.tolist(), glyphs(np.asarray(images)[needed]), strict=True))
    likeness = np.array(
        [max(float(flat[i] @ flat[j]) for j in references[digit[i]]) for i in cells]
    )
    low, high = UNLIKE
    for_hand = UNLIKE_ODDS ** np.clip((high - likeness) / (high - low), 0.0, 1.0)
    return weigh_print_against_hand(kinds, np.array(cells), for_hand)


def shows_a_hand(kinds: np.ndarray) -> bool:
    """Whether some cell is read as a hand's (a written digit or pencil marks) for sure
    (`SURE_HAND`): every hand-filled page of the labelled photos had one, no printed page."""
    hand = np.maximum(kinds[:, 10:19].sum(axis=1), kinds[:, CANDIDATES])
    return bool((hand >= SURE_HAND).any())


def kinds_without_a_hand(kinds: np.ndarray, blobs: np.ndarray, images: np.ndarray) -> np.ndarray:
    """The kinds of a page where no cell shows a hand for sure, its doubtful hand-writing
    that looks like another digit of the page weighed towards print (`LONE_ODDS`).

    A person who fills a grid in leaves some of it that the cell model is sure of: on the
    399 labelled photos (fold models, held out) every page with hand-writing had a digit or
    pencil cell read as a hand's at `SURE_HAND` or more, and no page without one held any;
    there the cells still read as a hand's were print (14) or empty paper (27). So on such
    a page a digit-shaped blob the model calls a hand's at less than `SURE_HAND`, and whose
    image has a twin among the page's digits (`twin_likeness` at least `LONE_TWIN`), is
    more likely print: a curled page's edge or an odd typeface. Empty paper is not touched
    (its mass of "empty" stays), nor a cell without a blob of its own (`blobs`), nor a
    blob like no digit of the page (a border's end cut into a corner cell). Should a lone
    entry be taken for print, a right one leaves the solution as it is and a wrong one
    leaves none (`vision.kinds.printed_probabilities`).

    >>> kinds = np.zeros((81, 20), np.float32); kinds[:, 0] = 1
    >>> kinds[0, 0], kinds[0, 7], kinds[0, 16] = 0, 0.3, 0.7    # a printed 7 in doubt
    >>> kinds[1, 0], kinds[1, 7] = 0, 1.0                       # its twin, surely print
    >>> images = np.zeros((81, 28, 28), np.uint8); images[:2, 6:22, 12:16] = 255
    >>> blobs = np.zeros(81, bool); blobs[:2] = True
    >>> round(float(kinds_without_a_hand(kinds, blobs, images)[0, 7]), 2)
    0.96
    >>> kinds[2, 0], kinds[2, 13] = 0, 1.0                       # a hand's 4, for sure
    >>> round(float(kinds_without_a_hand(kinds, blobs, images)[0, 7]), 2)
    0.3
    """
    kinds = np.asarray(kinds, np.float32)
    if shows_a_hand(kinds):
        return kinds
    digit = kinds[:, 1:19].sum(axis=1)
    twin = np.nan_to_num(twin_likeness(images, digit > 0.5), nan=0.0)
    hand_mass = kinds[:, 10:19].sum(axis=1)
    cells = np.flatnonzero(
        np.asarray(blobs, bool) & (digit >= 0.9) & (hand_mass > 0) & (twin >= LONE_TWIN)
    )
    if not len(cells):
        return kinds
    return weigh_print_against_hand(kinds, cells, np.full(len(cells), LONE_ODDS))
