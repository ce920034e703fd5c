"""Tracking a grid through a synthetic video, its ink signature, and following its paper
under a hand (vision.track, vision.occlusion)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from samples.hand_video import hand_video
from samples.synthetic import make_video
from vision.locate import locate_grid
from vision.occlusion import SAME
from vision.track import (
    EMPTY,
    INK,
    UNKNOWN,
    best_turn,
    changes,
    follow_paper,
    ink_signature,
    paper_points,
    paper_view,
    refined_outline,
    track_grid,
)


@pytest.fixture(scope="module")
def video():
    return make_video(8, n_frames=60, hand=False, out_of_view=False)


def gray(frame) -> np.ndarray:
    return cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)


def test_tracking_follows_the_moving_grid_to_a_tenth_of_a_cell(video):
    corners = video.frames[0].corners
    for frame in video.frames[1:]:
        located = track_grid(gray(frame), corners)
        assert located is not None
        error = np.linalg.norm(located.corners - frame.corners, axis=1).max()
        assert error < 0.1 * frame.cell.mean()
        corners = located.corners


def test_tracking_gives_up_where_there_is_no_grid(video):
    blank = np.full((480, 640), 200, np.uint8)
    assert track_grid(blank, video.frames[0].corners) is None
    far = video.frames[0].corners + [0, 150]  # half the grid away: no comb there
    assert track_grid(gray(video.frames[0]), far) is None


def test_signature_is_the_printed_digits(video):
    frame = video.frames[10]
    signature = ink_signature(gray(frame), frame.corners)
    known = signature != UNKNOWN
    assert known.sum() >= 75
    assert (signature[known] == np.where(video.givens > 0, INK, EMPTY)[known]).all()


def test_a_written_digit_changes_the_signature(video):
    frame = video.frames[5]
    image = gray(frame)
    before = ink_signature(image, frame.corners)
    r, c = np.argwhere(video.givens == 0)[0]
    centre = tuple(int(v) for v in frame.centres[r, c])
    cv2.putText(image, "7", (centre[0] - 8, centre[1] + 10), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 30, 3)
    after = ink_signature(image, frame.corners)
    assert after[r, c] == INK and before[r, c] == EMPTY
    assert changes(after, before)[0] == 1


def test_the_turn_of_a_full_search_is_recovered_from_the_signature(video):
    frame = video.frames[0]
    image = gray(frame)
    reference = ink_signature(image, frame.corners)
    last = video.frames[1].corners  # the puzzle is symmetric: the last corners decide
    for k in range(4):
        turned = np.roll(frame.corners, k, axis=0)  # as a full search might order them
        signature = ink_signature(image, turned)
        found, differ, known = best_turn(signature, reference, turned, last)
        assert differ == 0 and known > 70
        upright = np.roll(turned, -found, axis=0)
        assert np.allclose(upright, frame.corners)


def test_a_full_search_finds_the_grid_of_a_video_frame(video):
    frame = video.frames[30]
    located = locate_grid(gray(frame))
    _, differ, _ = best_turn(
        ink_signature(gray(frame), located.corners), ink_signature(gray(frame), frame.corners)
    )
    assert differ == 0


@pytest.fixture(scope="module")
def hand():
    """A page filmed while a hand (a dark bar two cells wide) crosses its grid."""
    page = make_video(8, n_frames=1, hand=False, out_of_view=False).frames[0]
    return hand_video(page.image, page.corners, n_frames=40, hand=(0.2, 0.8), seed=3)


@pytest.mark.parametrize("seen", [gray, lambda frame: frame.image], ids=["gray", "colour"])
def test_the_paper_is_followed_under_a_hand_and_the_covered_cells_are_told(hand, seen):
    first = hand.frames[0]
    paper, _ = paper_view(seen(first), first.corners)
    points = paper_points(paper)
    corners, previous = first.corners, first.corners
    covered_seen = 0
    for frame in hand.frames[1:]:
        followed = follow_paper(seen(frame), 2 * corners - previous, paper, points)
        assert followed is not None, "the grid was lost under a bar over a third of it"
        error = np.linalg.norm(followed.corners - frame.corners, axis=1).max() / frame.cell
        assert error < 0.1
        # every cell the bar covers a tenth of is hidden; most others are as the paper was
        assert (followed.states[frame.covered] != SAME).all()
        assert (followed.states[~frame.covered] == SAME).mean() > 0.8
        covered_seen += int(frame.covered.sum())
        previous, corners = corners, followed.corners
    assert covered_seen > 100


def test_another_puzzle_is_not_taken_for_the_known_paper(video, hand):
    first = hand.frames[0]
    paper, _ = paper_view(gray(first), first.corners)
    other = make_video(9, n_frames=1, hand=False).frames[0]  # another page, another puzzle
    assert follow_paper(gray(other), other.corners, paper) is None
    blank = np.full((480, 640), 200, np.uint8)
    assert follow_paper(blank, first.corners, paper) is None


def test_a_paper_taken_off_the_grid_is_brought_onto_it_by_the_lines(video):
    first = video.frames[0]
    cell = first.cell.mean()
    off = first.corners + np.float32([[0.3, -0.2], [0.25, 0.1], [-0.1, 0.3], [0.2, 0.2]]) * cell
    paper, _ = paper_view(gray(first), off)  # as a blurred reading might have placed it
    corners, outline, errors = off, None, []
    for frame in video.frames[1:40]:
        followed = follow_paper(gray(frame), corners, paper, outline=outline)
        assert followed is not None
        outline = refined_outline(gray(frame), followed, outline)
        errors.append(np.linalg.norm(followed.corners - frame.corners, axis=1).max() / cell)
        corners = followed.corners
    assert errors[0] > 0.25 and max(errors[-10:]) < 0.08


def test_a_page_whose_colour_falls_off_to_its_corners_is_bare_and_a_hand_on_it_is_not(hand):
    """A lens's colour falls off from the middle of the picture: on Wicht's image1 the grid's
    corners are 12 to 14 tint levels off the median, which the page's median took
    for something over the paper (so its paper was first taken with a hand on it)."""
    from vision.occlusion import looks_bare

    first = hand.frames[0]
    image = first.image.astype(np.float32)
    height, width = image.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width]
    centre = first.corners.mean(axis=0)
    reach = np.linalg.norm(first.corners - centre, axis=1).max()
    fall = np.clip(np.hypot(xs - centre[0], ys - centre[1]) / reach, 0, 1) ** 2
    image[..., 2] -= 24 * fall  # redder in the middle, bluer at the corners (tint: 24 levels)
    image[..., 0] += 24 * fall
    page = np.clip(image, 0, 255).astype(np.uint8)
    view, _ = paper_view(page, first.corners)
    assert looks_bare(view)
    crossing = next(f for f in hand.frames if f.covered.sum() >= 9)
    view, _ = paper_view(crossing.image, crossing.corners)
    assert not looks_bare(view)
