"""LiveSession, the state of one live connection: what each frame's job is and what the
client is told, fed with crafted frame answers (the socket tests run the real thing)."""

from __future__ import annotations

import numpy as np

from api.photo.live import LOST_SEARCH, READ_ALWAYS, READ_ON_CHANGE, FrameAnswer, LiveSession
from api.photo.schema import PhotoResultModel

CORNERS = np.float32([[100, 100], [400, 110], [390, 400], [95, 390]])
SIGNATURE = np.zeros((9, 9), np.int8)
GIVENS = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
OTHER = "0" * 40 + "5" + "0" * 40


PAPER = np.full((220, 220), 200, np.uint8)


def read(givens: str = GIVENS, status: str = "solved", shift: float = 0.0, states=None):
    solution = givens.replace("0", "1")  # a solution of its own for each puzzle
    result = PhotoResultModel(status=status, givens=givens, solution=solution, message=status)
    paper = PAPER if status == "solved" else None
    return FrameAnswer(
        (640, 480), CORNERS + shift, SIGNATURE, True, 0, 81, result, states=states, paper=paper
    )


def followed(shift: float = 0.0, differ: int = 0, states=None) -> FrameAnswer:
    return FrameAnswer((640, 480), CORNERS + shift, SIGNATURE, True, differ, 81, states=states)


def lost() -> FrameAnswer:
    return FrameAnswer((640, 480))


def kinds(messages: list[dict]) -> list[str]:
    return [m["type"] for m in messages]


def test_two_agreeing_reads_confirm_a_grid_sent_once():
    session = LiveSession()
    assert session.job().read == READ_ALWAYS
    first = session.answer(read())
    assert kinds(first) == ["frame"] and first[0]["grid"] is None
    assert session.job().read == READ_ALWAYS  # a pending read needs a second one
    second = session.answer(read(shift=1))
    assert kinds(second) == ["grid", "frame"]
    assert second[0]["givens"] == GIVENS and second[1]["grid"] == second[0]["id"]
    assert session.job().read == READ_ON_CHANGE
    for k in range(5):
        assert kinds(session.answer(followed(shift=2 + k))) == ["frame"]
    assert kinds(session.answer(read(shift=8))) == ["frame"]  # read again, the same grid


def test_disagreeing_or_unsolved_reads_confirm_nothing():
    session = LiveSession()
    session.answer(read())
    assert session.answer(read(OTHER))[-1]["grid"] is None  # disagrees: waits again
    session.answer(read(status="multiple_solutions"))  # unsolved: never confirmed
    assert session.answer(read())[-1]["grid"] is None  # so this one is a first read again
    assert kinds(session.answer(read())) == ["grid", "frame"]


def test_a_new_grid_hides_the_old_until_it_is_confirmed():
    session = LiveSession()
    session.answer(read())
    old = session.answer(read())[0]["id"]
    assert session.answer(read(OTHER))[-1]["grid"] is None  # other digits: not the old grid
    messages = session.answer(read(OTHER))
    assert kinds(messages) == ["grid", "frame"] and messages[0]["id"] != old


def test_a_frame_whose_ink_differs_too_much_does_not_show_the_grid():
    session = LiveSession()
    session.answer(read())
    session.answer(read())
    assert session.answer(followed(differ=20))[-1]["grid"] == 1  # a hand over 20 cells
    assert session.answer(followed(differ=21))[-1]["grid"] is None  # over a quarter


def test_motion_predicts_the_next_corners_and_a_lost_grid_is_not_shown():
    session = LiveSession()
    session.answer(read())
    session.answer(read(shift=4))
    job = session.job()
    assert np.allclose(job.corners, CORNERS + 8)  # it kept moving
    assert job.paper is PAPER and job.search  # followed by its paper from now on
    searched = []
    for _ in range(2 * LOST_SEARCH):
        message = session.answer(lost())[-1]
        assert message["state"] == "lost" and message["corners"] is None  # nothing drawn
        job = session.job()
        assert np.allclose(job.corners, CORNERS + 4)  # looked for where it was seen last
        searched.append(job.search)
    # the full search (slow) only every LOST_SEARCH-th lost frame
    assert sum(searched) == 2 and searched[LOST_SEARCH - 1]
    assert session.answer(followed(shift=5, states=np.zeros((9, 9), np.int8)))[-1]["grid"] == 1


def test_hidden_cells_are_sent_and_a_covered_frame_reads_no_error_once_solved():
    session = LiveSession()
    assert session.answer(read(status="unreadable"))[-1]["message"] == "unreadable"
    session.answer(read())
    session.answer(read())
    states = np.zeros((9, 9), np.int8)
    states[4, :2] = 2  # covered
    message = session.answer(followed(states=states))[-1]
    assert message["hidden"] == "0" * 36 + "11" + "0" * 43
    message = session.answer(read(status="unreadable", states=states))[-1]
    assert message["grid"] == 1 and "message" not in message and "status" not in message


def test_an_outline_is_sent_only_for_a_grid_read_whole():
    session = LiveSession()
    assert session.answer(followed())[-1]["corners"] is None  # found, never read
    assert session.answer(read(status="unreadable"))[-1]["corners"] is None
    assert session.answer(read())[-1]["corners"] is not None  # read, with one solution


def test_a_mode_starts_over():
    session = LiveSession()
    session.answer(read())
    session.answer(read())
    session.reset("hint")
    assert session.mode == "hint" and session.job().read == READ_ALWAYS
    assert session.job().reference is None


def test_new_ink_is_read_only_when_seen_twice_with_nothing_over_it():
    session = LiveSession()
    session.answer(read())
    session.answer(read())
    clear, covered = np.zeros((9, 9), np.int8), np.zeros((9, 9), np.int8)
    covered[0, 0] = 2
    session.answer(followed(differ=1, states=covered))  # a hand: its ink says nothing
    assert not session.job().changed
    session.answer(followed(differ=1, states=clear))  # new ink, once
    assert session.job().changed  # the worker reads it if the next frame shows it too
    session.answer(followed(differ=0, states=clear))
    assert not session.job().changed


def test_a_frame_is_read_again_for_a_new_entry_never_for_a_hand():
    import dataclasses

    import cv2

    from api.photo.live import frame
    from samples.synthetic import make_video

    video = make_video(8, n_frames=2, hand=False, out_of_view=False)
    session = LiveSession()
    for shot in video.frames:  # two agreeing reads: the grid is known, its paper kept
        session.answer(frame(shot.jpeg, session.job()))
    assert session.known is not None and session.known.paper is not None
    image = video.frames[1].image
    r, c = np.argwhere(video.givens == 0)[0]
    x, y = (int(v) for v in video.frames[1].centres[r, c])
    written = image.copy()
    cv2.putText(written, "7", (x - 8, y + 10), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (40, 40, 40), 3)
    handed = image.copy()
    cv2.rectangle(handed, (x - 40, 0), (x + 40, 479), (60, 80, 120), -1)

    def jpeg(picture):
        return cv2.imencode(".jpg", picture)[1].tobytes()

    job = session.job()
    once = frame(jpeg(written), job)
    assert once.result is None and once.differ >= 1  # seen once: not read yet
    again = frame(jpeg(written), dataclasses.replace(job, changed=True))
    assert again.result is not None and again.result.status == "solved"
    covered = frame(jpeg(handed), dataclasses.replace(job, changed=True))
    assert covered.corners is not None and covered.result is None  # followed, not read


def test_in_solve_mode_reads_agree_by_their_solution():
    session = LiveSession()
    session.answer(read())
    pen_as_print = GIVENS[:2] + "4" + GIVENS[3:]  # r1c3 written in pen, taken for print
    result = PhotoResultModel(
        status="solved", givens=pen_as_print, solution=GIVENS.replace("0", "1")
    )
    second = FrameAnswer((640, 480), CORNERS, SIGNATURE, True, 0, 81, result, paper=PAPER)
    assert kinds(session.answer(second)) == ["grid", "frame"]


def test_a_still_paper_hides_no_cell():
    import cv2

    from api.photo.live import frame
    from samples.synthetic import make_video

    still = make_video(21, n_frames=1, size=(480, 640), hand=False).frames[0]
    jpeg = cv2.imencode(".jpg", still.image, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
    session = LiveSession()
    answers = [session.answer(frame(jpeg, session.job()))[-1] for _ in range(8)]
    assert [a["state"] for a in answers[1:]] == ["known"] * 7
    assert all(a.get("hidden", "0" * 81) == "0" * 81 for a in answers)


def test_a_paper_taken_under_a_hands_edge_is_taken_again_once_the_hand_has_gone():
    """The grid read on the frame where a hand's edge enters it (a fifth of one cell): that
    frame looks bare and becomes the paper, so the cell the edge was on differs from it
    once the hand has gone. A frame that differs from its paper only by being lighter
    gives a new paper, kept after PAPER_SETTLES frames: every cell is drawn again."""
    from api.photo.live import PAPER_SETTLES, frame
    from samples.hand_video import hand_video
    from samples.synthetic import make_video

    page = make_video(8, n_frames=1, hand=False, out_of_view=False).frames[0]
    with_hand = hand_video(page.image, page.corners, n_frames=40, hand=(0.2, 0.8), seed=3)
    without = hand_video(page.image, page.corners, n_frames=40, hand=None, seed=3)
    entering = 9
    assert 0.1 < with_hand.frames[entering].coverage.max() < 0.5
    session = LiveSession()
    for _ in range(2):  # read, then confirmed
        session.answer(frame(with_hand.frames[entering].jpeg, session.job()))
    assert session.known is not None and session.known.paper is not None
    hidden = [
        session.answer(frame(f.jpeg, session.job()))[-1]["hidden"].count("1")
        for f in without.frames[entering + 1 : entering + 4 + PAPER_SETTLES]
    ]
    assert hidden[0] > 0  # the edge's cell, as the paper has it
    assert hidden[-1] == 0
