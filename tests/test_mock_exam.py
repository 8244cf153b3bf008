"""The exam state machine and its scoring, as pure values."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.mock import exam as moves
from bot.mock.blueprint import plan
from bot.mock.exam import ExamError, Pending
from bot.mock.models import Exam, ExamStatus
from bot.mock.scoring import graded_answers, score
from tests.mock_bank import bank, q

T0 = 1_800_000_000.0


def make_exam() -> Exam:
    """Four questions: s1 (single, B right), m1 (select two: A and C), s2 (beta), s3 (beta)."""
    qs = [
        q("s1", "alpha", correct=(1,)),
        q("m1", "alpha", correct=(0, 2)),
        q("s2", "beta", correct=(0,)),
        q("s3", "beta", correct=(3,)),
    ]
    b = bank(qs, {"alpha": 60, "beta": 40}, exam=(4, 10))
    exam = moves.new_exam(
        user_id=1, meta=b.meta, questions=qs, exam_plan=plan(b.meta), seed=5, now=T0
    )
    # A known display order for s1 makes the display -> file mapping visible.
    items = (replace(exam.items[0], order=(2, 0, 3, 1)), *exam.items[1:])
    return replace(exam, id=9, items=items)


def test_answers_are_stored_in_file_order_and_can_be_changed() -> None:
    e = make_exam()
    shown = moves.shown_options(e.items[0], q("s1", "alpha", correct=(1,)))
    assert [o.text for o in shown] == [f"Option {x} of s1" for x in "CADB"]
    e = moves.choose(e, 0, 0, T0 + 5)  # display A is file option 2
    assert e.items[0].chosen == {2} and e.items[0].chosen_display == {0}
    assert e.items[0].answered and not e.items[0].is_correct
    e = moves.choose(e, 0, 3, T0 + 9)  # change to display D = file option 1, the right one
    assert e.items[0].chosen == {1} and e.items[0].is_correct
    assert e.items[0].answered_at == T0 + 9
    same = moves.choose(e, 0, 3, T0 + 20)  # a double tap changes nothing
    assert same.items == e.items
    cleared = moves.choose(e, 0, 3, T0 + 21, on=False)
    assert not cleared.items[0].answered


def test_multiple_answers_toggle_and_count_only_with_the_asked_number() -> None:
    e = make_exam()
    m = e.items[1]
    a, c = m.display_index(0), m.display_index(2)
    wrong = next(d for d in range(4) if m.file_index(d) in (1, 3))
    e = moves.choose(e, 1, a, T0)
    assert not e.items[1].answered  # one of two
    e = moves.choose(e, 1, wrong, T0)
    assert e.items[1].answered and not e.items[1].is_correct  # two, one of them wrong
    before = e.items[1]
    e = moves.choose(e, 1, c, T0 + 5)
    assert e.items[1] == before  # a third tick on a "select two": refused, nothing changes
    e = moves.choose(e, 1, wrong, T0)  # toggled off
    e = moves.choose(e, 1, c, T0)
    assert e.items[1].chosen == {0, 2} and e.items[1].is_correct
    again = moves.choose(e, 1, c, T0, on=True)  # "set on" repeated is harmless
    assert again.items[1].chosen == {0, 2}


def test_navigation_flags_and_bounds() -> None:
    e = make_exam()
    assert moves.step(e, -1, T0).current == 0  # stays at the first question
    e = moves.step(moves.step(e, 1, T0), 1, T0)
    assert e.current == 2
    e = moves.go(e, 3, T0)
    assert moves.step(e, 1, T0).current == 3
    e = moves.flag(e, 1, T0)
    assert e.items[1].flagged and e.current == 1 and e.flagged == (1,)
    e = moves.flag(e, 1, T0)
    assert not e.items[1].flagged
    e = moves.flag(e, 2, T0, on=True)
    assert moves.flag(e, 2, T0, on=True).items[2].flagged
    for bad in (lambda: moves.go(e, 4, T0), lambda: moves.choose(e, 0, 4, T0)):
        with pytest.raises(ExamError) as err:
            bad()
        assert err.value.reason == moves.INVALID


def test_finish_asks_to_confirm_open_or_flagged_questions() -> None:
    e = make_exam()
    for pos, display in ((0, 3), (2, 0), (3, 0)):
        e = moves.choose(e, pos, display, T0 + 60)
    e = moves.flag(e, 0, T0 + 61)
    check = moves.finish(e, T0 + 62)
    assert check == Pending(unanswered=(1,), flagged=(0,))
    done = moves.finish(e, T0 + 62, confirmed=True)
    assert isinstance(done, Exam) and done.status is ExamStatus.FINISHED
    assert done.finished_at == T0 + 62
    with pytest.raises(ExamError) as err:
        moves.choose(done, 0, 0, T0 + 63)
    assert err.value.reason == moves.CLOSED


def test_no_move_after_the_deadline_and_expiry_keeps_earlier_answers() -> None:
    e = moves.choose(make_exam(), 0, 3, T0 + 1)
    assert e.deadline == T0 + 600 and e.time_left(T0 + 100) == 500
    with pytest.raises(ExamError):
        moves.choose(e, 1, 0, e.deadline)
    assert e.is_due(e.deadline)
    out = moves.expire(e)
    assert out.status is ExamStatus.EXPIRED and out.finished_at == e.deadline
    result = score(out)
    assert (result.correct, result.total, result.time_used_s) == (1, 4, 600)


def test_scoring_is_all_or_nothing_with_topics_and_mistakes() -> None:
    e = make_exam()
    m = e.items[1]
    e = moves.choose(e, 0, 3, T0 + 10)  # s1 right
    e = moves.choose(e, 1, m.display_index(0), T0 + 20)  # m1: A right, but B wrong ...
    e = moves.choose(e, 1, m.display_index(1), T0 + 30)  # ... so no credit at all
    s2 = e.items[2]
    e = moves.choose(e, 2, s2.display_index(0), T0 + 40)  # s2 right; s3 left open
    done = moves.finish(e, T0 + 100, confirmed=True)
    assert isinstance(done, Exam)
    result = score(done)
    assert (result.correct, result.total, result.percent, result.passed) == (2, 4, 50.0, False)
    assert result.time_used_s == 100 and result.time_allowed_s == 600
    by_topic = {t.topic: (t.correct, t.total, t.weight) for t in result.topics}
    assert by_topic == {"alpha": (1, 2, 60), "beta": (1, 2, 40)}
    assert [(x.question_id, x.answered) for x in result.mistakes] == [
        ("m1", True),
        ("s3", False),
    ]
    assert result.mistakes[0].chosen == {0, 1} and result.mistakes[0].correct == {0, 2}
    graded = graded_answers(done)
    assert [(g.question_id, g.correct, g.answered_at) for g in graded] == [
        ("s1", True, T0 + 10),
        ("m1", False, T0 + 30),
        ("s2", True, T0 + 40),
    ]


def test_passing_at_exactly_the_passing_score_and_running_exams_have_no_score() -> None:
    e = make_exam()
    with pytest.raises(ValueError):
        score(e)
    for pos, item in enumerate(e.items[:3]):
        for f in item.correct:
            e = moves.choose(e, pos, item.display_index(f), T0)
    done = moves.finish(replace(e, passing_score=75), T0, confirmed=True)
    assert isinstance(done, Exam) and score(done).percent == 75 and score(done).passed
    abandoned = moves.abandon(e, T0 + 5)
    assert abandoned.status is ExamStatus.ABANDONED and not abandoned.status.scored
