"""The report as JSON: stable keys and order, floats rounded, `schema_version` on top."""

from __future__ import annotations

import json
from typing import Any

from bot.analysis.model import (
    FIRM_FROM,
    GROUP_SHARE,
    NON_FUNCTIONING_SHARE,
    PROVISIONAL_BELOW,
    TOO_EASY_P,
    TOO_HARD_P,
    WEAK_R,
    ItemReport,
    OptionStats,
    QuestionStats,
    Status,
)

# Bump on any change a consumer could notice (a key renamed, removed or changing meaning);
# adding keys keeps the version.
SCHEMA_VERSION = 1


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _option(o: OptionStats) -> dict[str, Any]:
    return {
        "index": o.index,
        "letter": o.letter,
        "text": o.text,
        "correct": o.correct,
        "misconception": o.misconception,
        "picked": o.picked,
        "share": _r(o.share),
        "upper_share": _r(o.upper_share),
        "lower_share": _r(o.lower_share),
        "discrimination": _r(o.discrimination),
    }


def _question(q: QuestionStats) -> dict[str, Any]:
    return {
        "id": q.question_id,
        "topic": q.topic,
        "stem": q.stem,
        "multiple": q.multiple,
        "n": q.n,
        "status": q.status.value,
        "p": _r(q.p),
        "r": _r(q.r),
        "d": _r(q.d),
        "n_scored": q.n_scored,
        "group_size": q.group_size,
        "mean_time_ms": None if q.mean_time_ms is None else round(q.mean_time_ms),
        "severity": q.severity,
        "flags": [
            {
                "kind": f.kind.value,
                "severity": f.kind.severity,
                "rule": f.kind.rule,
                "message": f.message,
                "option": f.option,
            }
            for f in q.flags
        ],
        "options": [_option(o) for o in q.options],
    }


def report_dict(report: ItemReport) -> dict[str, Any]:
    """The report as plain JSON-ready data (the layout the README documents)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "bank": {"id": report.bank_id, "title": report.bank_title},
        "method": {
            "attempts": "first attempt of each learner at each question",
            "min_n": report.min_n,
            "group_share": GROUP_SHARE,
            "provisional_below": PROVISIONAL_BELOW,
            "firm_from": FIRM_FROM,
            "too_easy_p": TOO_EASY_P,
            "too_hard_p": TOO_HARD_P,
            "weak_r": WEAK_R,
            "non_functioning_share": NON_FUNCTIONING_SHARE,
        },
        "summary": {
            "learners": report.learners,
            "first_attempts": report.first_attempts,
            "questions": len(report.questions),
            "analysed": sum(1 for q in report.questions if q.status is not Status.TOO_FEW),
            "flagged": len(report.flagged),
            "attempts_at_unknown_questions": report.unknown_questions,
            "reported": len(report.reported),
            "for_review": sum(1 for q in report.reported if q.review),
        },
        "questions": [_question(q) for q in report.questions],
        "learner_reports": [
            {
                "question_id": q.question_id,
                "learners": q.learners,
                "reasons": dict(q.reasons),
                "comments": list(q.comments),
                "review": q.review,
            }
            for q in report.reported
        ],
        "topics": [
            {
                "id": t.topic,
                "name": t.name,
                "questions": t.questions,
                "analysed": t.analysed,
                "mean_p": _r(t.mean_p),
                "mean_r": _r(t.mean_r),
                "flagged": t.flagged,
            }
            for t in report.topics
        ],
        "misconceptions": [
            {
                "id": m.id,
                "name": m.name,
                "options": m.options,
                "exposed": m.exposed,
                "picked": m.picked,
                "share": _r(m.share),
                "upper_share": _r(m.upper_share),
                "lower_share": _r(m.lower_share),
            }
            for m in report.misconceptions
        ],
    }


def render_json(report: ItemReport) -> str:
    """The report as indented JSON text."""
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n"
