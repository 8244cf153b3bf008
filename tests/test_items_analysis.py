"""Item analysis on hand-checked tables and on answers from a known model (no database)."""

from __future__ import annotations

import statistics

import pytest

from bot.analysis import FirstAttempt, FlagKind, Status, analyse_attempts, worst_flagged
from bot.analysis.admin import admin_report
from bot.analysis.items import point_biserial, status_for
from bot.analysis.responses import parse_chosen
from tests.item_model import Item, Model, make_bank, question

# Six learners, four questions (key A = index 0), right (1) or wrong (0) on first attempts.
TABLE = {
    1: (1, 1, 1, 1),
    2: (1, 1, 1, 0),
    3: (1, 0, 1, 0),
    4: (0, 1, 0, 0),
    5: (1, 0, 0, 0),
    6: (0, 0, 0, 1),
}
WRONG_PICK = {4: 1, 6: 2}  # on q1, who picked which distractor (the others: option 1)


def _hand_attempts() -> list[FirstAttempt]:
    rows = []
    for user, marks in TABLE.items():
        for q, right in enumerate(marks, start=1):
            pick = 0 if right else (WRONG_PICK.get(user, 1) if q == 1 else 1)
            rows.append(FirstAttempt(user, f"q{q}", (pick,), bool(right), 1000 * user))
    return rows


def _hand_bank():  # type: ignore[no-untyped-def]
    return make_bank([question(f"q{i}", "alpha") for i in range(1, 5)])


def test_p_and_point_biserial_match_a_hand_computation() -> None:
    report = analyse_attempts(_hand_bank(), _hand_attempts(), min_n=0)
    q1 = next(q for q in report.questions if q.question_id == "q1")
    # p = 4 right of 6.
    assert q1.n == 6 and q1.p == pytest.approx(4 / 6)
    # Rest scores (right on the 3 other questions / 3): u1 3/3, u2 2/3, u3 1/3, u4 1/3, u5 0,
    # u6 1/3. Mean among right (u1 u2 u3 u5) 0.5, among wrong (u4 u6) 1/3, population SD of
    # all six 0.31427: r = (0.5 - 1/3) / 0.31427 * sqrt(4/6 * 2/6) = 0.25.
    assert q1.r == pytest.approx(0.25, abs=1e-9)
    rest = [1, 2 / 3, 1 / 3, 1 / 3, 0, 1 / 3]
    assert q1.r == pytest.approx(statistics.correlation([1, 1, 1, 0, 1, 0], rest))
    # 27% of 6 rounds to 2: upper u1 u2 (both right), lower u6 u5 (ties at 1/3 by user id).
    assert q1.group_size == 2 and q1.d == pytest.approx(0.5)
    a, b, c, d = q1.options
    assert (a.picked, b.picked, c.picked, d.picked) == (4, 1, 1, 0)
    assert (a.upper_share, a.lower_share) == (1.0, 0.5)
    assert c.discrimination == pytest.approx(-0.5)  # u6 in the lower group picked C
    assert q1.mean_time_ms == pytest.approx(3500)
    assert q1.status is Status.PROVISIONAL
    kinds = {f.kind for f in q1.flags}
    assert FlagKind.NEVER_PICKED in kinds and FlagKind.MIS_KEYED not in kinds


def test_point_biserial_is_none_when_nothing_varies() -> None:
    assert point_biserial([True, True, True], [0.1, 0.5, 0.9]) is None
    assert point_biserial([True, False], [0.5, 0.5]) is None
    assert point_biserial([True], [0.5]) is None


def test_status_thresholds() -> None:
    assert status_for(9, 10) is Status.TOO_FEW
    assert status_for(10, 10) is Status.PROVISIONAL
    assert status_for(49, 10) is Status.PROVISIONAL
    assert status_for(50, 10) is Status.TENTATIVE
    assert status_for(99, 10) is Status.TENTATIVE
    assert status_for(100, 10) is Status.FIRM
    assert status_for(0, 0) is Status.PROVISIONAL


def test_questions_below_min_n_are_shown_without_flags() -> None:
    report = analyse_attempts(_hand_bank(), _hand_attempts(), min_n=7)
    assert all(q.status is Status.TOO_FEW and not q.flags for q in report.questions)
    assert report.flagged == ()


def test_parse_chosen() -> None:
    assert parse_chosen("2") == (2,)
    assert parse_chosen("2,0") == (0, 2)
    assert parse_chosen("") == ()
    assert parse_chosen("x") == ()


def _model_report(learners: int, min_n: int = 10):  # type: ignore[no-untyped-def]
    questions = [question(f"q{i:02d}", ("alpha", "beta")[i % 2]) for i in range(16)]
    questions += [
        question("mk", "alpha"),  # file says A; the model's truth is C
        question("dead", "beta", misconceptions={1: "more-is-better"}),
        question("rare", "beta"),
        question("sel2", "alpha", n_options=5, key=(0, 3)),
    ]
    bank = make_bank(questions, misconceptions=("more-is-better",))
    model = Model(
        bank,
        {
            **{f"q{i:02d}": Item(a=2.5, b=(i % 5) / 2 - 1) for i in range(16)},
            "mk": Item(true_key=(2,)),
            "dead": Item(weights=(1, 3, 1, 0)),
            "rare": Item(weights=(1, 1, 1, 0.1)),
        },
    )
    rows = [
        FirstAttempt(r.user_id, r.question_id, r.chosen, r.correct, r.time_ms)
        for r in model.rows(learners, per_learner=len(questions))
    ]
    return analyse_attempts(bank, rows, min_n=min_n)


def test_known_model_flags_the_mis_keyed_question_and_dead_distractors() -> None:
    report = _model_report(400)
    by_id = {q.question_id: q for q in report.questions}
    mk = by_id["mk"]
    assert mk.status is Status.FIRM and mk.n == 400
    assert [f.option for f in mk.flags if f.kind is FlagKind.MIS_KEYED] == [2]
    assert mk.r is not None and mk.r < 0  # weaker learners "get it right" more often
    assert report.questions[0].question_id == "mk"  # the worst comes first
    assert worst_flagged(report)[0].question_id == "mk"
    dead = {(f.kind, f.option) for f in by_id["dead"].flags}
    assert (FlagKind.NEVER_PICKED, 3) in dead
    rare = {(f.kind, f.option) for f in by_id["rare"].flags}
    assert (FlagKind.NON_FUNCTIONING, 3) in rare
    # Well-behaved questions of the model are not mis-keyed and discriminate positively.
    for i in range(16):
        q = by_id[f"q{i:02d}"]
        assert FlagKind.MIS_KEYED not in {f.kind for f in q.flags}
        assert q.r is not None and q.r > 0.2 and q.d is not None and q.d > 0
    sel2 = by_id["sel2"]
    assert sel2.multiple and sum(o.picked for o in sel2.options) == 2 * sel2.n
    misc = report.misconceptions[0]
    assert misc.id == "more-is-better" and misc.exposed == 400 and misc.picked > 0
    assert misc.lower_share is not None and misc.upper_share is not None
    assert misc.lower_share > misc.upper_share  # weaker learners hold the misconception
    topics = {t.topic: t for t in report.topics}
    assert topics["alpha"].questions == 10 and topics["alpha"].mean_p is not None


def test_figures_are_provisional_then_tentative_then_firm() -> None:
    assert {q.status for q in _model_report(40).questions} == {Status.PROVISIONAL}
    assert {q.status for q in _model_report(60).questions} == {Status.TENTATIVE}
    assert {q.status for q in _model_report(100).questions} == {Status.FIRM}


def test_admin_report_holds_the_five_worst_and_the_html() -> None:
    report = _model_report(200)
    payload = admin_report(report)
    assert 1 <= len(payload.worst) <= 5
    assert payload.worst[0].question_id == "mk"
    assert payload.worst[0].flags[0].startswith("likely mis-keyed: option C")
    assert payload.html.startswith(b"<!doctype html>")
    assert payload.filename == "item-analysis-items.html"
    assert payload.flagged == len(report.flagged)
