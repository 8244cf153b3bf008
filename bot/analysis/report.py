"""Assemble the item-analysis report of a bank: questions worst first, topics, misconceptions."""

from __future__ import annotations

from collections.abc import Sequence

from bot.analysis.items import RestScores, question_stats
from bot.analysis.model import (
    DEFAULT_MIN_N,
    ItemReport,
    MisconceptionStats,
    QuestionStats,
    Status,
    TopicStats,
)
from bot.analysis.responses import (
    FirstAttempt,
    QuestionResponses,
    by_question,
    learner_totals,
)
from bot.bank.models import Bank


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _topics(bank: Bank, questions: Sequence[QuestionStats]) -> tuple[TopicStats, ...]:
    out = []
    for topic in bank.meta.topics:
        mine = [q for q in questions if q.topic == topic.id]
        analysed = [q for q in mine if q.status is not Status.TOO_FEW and q.n]
        out.append(
            TopicStats(
                topic=topic.id,
                name=topic.name,
                questions=len(mine),
                analysed=len(analysed),
                mean_p=_mean([q.p for q in analysed if q.p is not None]),
                mean_r=_mean([q.r for q in analysed if q.r is not None]),
                flagged=sum(1 for q in mine if q.flags),
            )
        )
    return tuple(out)


def _misconceptions(
    bank: Bank, questions: Sequence[QuestionStats]
) -> tuple[MisconceptionStats, ...]:
    out = []
    for m in bank.meta.misconceptions:
        options = exposed = picked = upper_n = upper_picked = lower_n = lower_picked = 0
        for q in questions:
            tagged = [o for o in q.options if o.misconception == m.id]
            if not tagged:
                continue
            options += len(tagged)
            exposed += q.n
            picked += sum(o.picked for o in tagged)
            if q.group_size:
                upper_n += q.group_size
                lower_n += q.group_size
                # Shares times group size are whole counts; round() undoes float error.
                upper_picked += sum(round((o.upper_share or 0) * q.group_size) for o in tagged)
                lower_picked += sum(round((o.lower_share or 0) * q.group_size) for o in tagged)
        out.append(
            MisconceptionStats(
                id=m.id,
                name=m.name,
                options=options,
                exposed=exposed,
                picked=picked,
                share=picked / exposed if exposed else None,
                upper_share=upper_picked / upper_n if upper_n else None,
                lower_share=lower_picked / lower_n if lower_n else None,
            )
        )
    return tuple(out)


def analyse(
    bank: Bank, responses: Sequence[QuestionResponses], min_n: int = DEFAULT_MIN_N
) -> ItemReport:
    """The report of one bank from its first attempts grouped by question."""
    learners = learner_totals(responses)
    rest = RestScores.of(learners)
    stats: dict[str, QuestionStats] = {}
    unknown = 0
    for group in responses:
        question = bank.questions.get(group.question_id)
        if question is None:
            unknown += len(group.correct)
            continue
        stats[question.id] = question_stats(question, group, rest, min_n)
    for qid, question in bank.questions.items():
        if qid not in stats:
            stats[qid] = question_stats(question, None, rest, min_n)
    ordered = tuple(sorted(stats.values(), key=QuestionStats.sort_key))
    return ItemReport(
        bank_id=bank.id,
        bank_title=bank.meta.title,
        min_n=min_n,
        learners=len(learners),
        first_attempts=sum(q.n for q in ordered),
        unknown_questions=unknown,
        questions=ordered,
        topics=_topics(bank, ordered),
        misconceptions=_misconceptions(bank, ordered),
    )


def analyse_attempts(
    bank: Bank, attempts: Sequence[FirstAttempt], min_n: int = DEFAULT_MIN_N
) -> ItemReport:
    """The report from plain first-attempt rows (one per learner and question)."""
    return analyse(bank, list(by_question(attempts)), min_n)


def worst_flagged(report: ItemReport, limit: int = 5) -> tuple[QuestionStats, ...]:
    """The `limit` worst-flagged questions (fewer when fewer are flagged)."""
    return report.flagged[:limit]
