"""Learners' reports of a bad question, per question, beside the item statistics: how many
learners reported it and why, their comments, and whether it is marked for review."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bot.analysis.model import FlagKind, QuestionStats

REVIEW_FROM_LEARNERS = 3  # reports from this many learners mark a question for review
WRONG_KEY = "key"
REASON_WORDS = {
    "key": "wrong answer key",
    "unclear": "unclear or ambiguous",
    "typo": "typo",
    "outdated": "outdated",
    "other": "other",
}


@dataclass(frozen=True, slots=True)
class LearnerReport:
    """One learner's report of one question, under the delivery it was made from."""

    id: int
    delivery_id: int
    user_id: int
    bank_id: str
    question_id: str
    option_order: str | None  # file indices in display order, as the learner saw them
    reason: str
    comment: str | None
    reported_at: float


@dataclass(frozen=True, slots=True)
class ReportedQuestion:
    """A question's reports: learners, counts by reason, comments, and the review mark."""

    question_id: str
    learners: int
    reasons: tuple[tuple[str, int], ...]  # (reason, learners), most first
    comments: tuple[str, ...]  # oldest first
    review: str | None  # why it is marked for review, or None

    def reason_words(self) -> str:
        """ "wrong answer key ×2, typo" style."""
        return ", ".join(
            REASON_WORDS.get(r, r) + (f" ×{n}" if n > 1 else "") for r, n in self.reasons
        )


def review_reason(learners: int, reasons: Counter[str], stats: QuestionStats | None) -> str | None:
    """Why a question's reports mark it for review: enough learners, or a wrong-key report the
    item analysis backs with its mis-key flag."""
    if learners >= REVIEW_FROM_LEARNERS:
        return f"reported by {learners} learners"
    mis_keyed = stats is not None and any(f.kind is FlagKind.MIS_KEYED for f in stats.flags)
    if reasons[WRONG_KEY] and mis_keyed:
        return "wrong answer key reported, and the item analysis finds it likely mis-keyed"
    return None


def by_question(
    reports: Sequence[LearnerReport], questions: Sequence[QuestionStats]
) -> tuple[ReportedQuestion, ...]:
    """Reported questions, marked for review first, then by more learners."""
    stats = {q.question_id: q for q in questions}
    grouped: dict[str, list[LearnerReport]] = {}
    for r in reports:
        grouped.setdefault(r.question_id, []).append(r)
    out = []
    for qid, mine in grouped.items():
        learners = len({r.user_id for r in mine})
        reasons = Counter(r.reason for r in mine)
        out.append(
            ReportedQuestion(
                question_id=qid,
                learners=learners,
                reasons=tuple(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
                comments=tuple(r.comment for r in mine if r.comment),
                review=review_reason(learners, reasons, stats.get(qid)),
            )
        )
    return tuple(sorted(out, key=lambda q: (q.review is None, -q.learners, q.question_id)))
