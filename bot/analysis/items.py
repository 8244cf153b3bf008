"""Figures of one question from its first attempts: p, corrected point-biserial, D, options."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from bot.analysis.flags import question_flags
from bot.analysis.model import (
    FIRM_FROM,
    GROUP_SHARE,
    PROVISIONAL_BELOW,
    OptionStats,
    QuestionStats,
    Status,
)
from bot.analysis.responses import LearnerTotal, QuestionResponses
from bot.bank.models import LETTERS, Kind, Question


@dataclass(frozen=True, slots=True)
class _Groups:
    """Indices (into the question's responses) of the upper and lower 27% by rest score."""

    upper: list[int]
    lower: list[int]


def status_for(n: int, min_n: int) -> Status:
    """The sample-size label of a question with n first attempts."""
    if n < min_n:
        return Status.TOO_FEW
    if n < PROVISIONAL_BELOW:
        return Status.PROVISIONAL
    if n < FIRM_FROM:
        return Status.TENTATIVE
    return Status.FIRM


def pearson(xs: list[float], ys: list[float]) -> float | None:
    """Pearson correlation; None when either variable does not vary (or fewer than 2 pairs)."""
    n = len(xs)
    if n < 2:
        return None
    mx = sum(xs) / n
    my = sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    # Guard against round-off pretending a constant column varies a little.
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sxy / math.sqrt(sxx * syy)


def _groups(scored: list[tuple[float, int, int]]) -> _Groups:
    """Upper and lower 27% of learners ranked by rest score (ties broken by user id)."""
    g = int(GROUP_SHARE * len(scored) + 0.5)
    if g < 1 or 2 * g > len(scored):
        return _Groups([], [])
    ranked = sorted(scored, key=lambda s: (-s[0], s[1]))
    return _Groups([i for _, _, i in ranked[:g]], [i for _, _, i in ranked[-g:]])


def question_stats(
    question: Question,
    responses: QuestionResponses | None,
    learners: Mapping[int, LearnerTotal],
    min_n: int,
) -> QuestionStats:
    """Every figure and flag of one question (responses None: nobody has answered it yet)."""
    chosen = responses.chosen if responses else ()
    correct = responses.correct if responses else ()
    users = responses.user_ids if responses else ()
    n = len(correct)
    k = len(question.options)

    picks = [0] * k
    for choice in chosen:
        for i in choice:
            # An index beyond the options means the file lost options since the answer.
            if i < k:
                picks[i] += 1

    scored: list[tuple[float, int, int]] = []
    for i, user in enumerate(users):
        total = learners.get(user)
        rest = total.rest_score(correct[i]) if total else None
        if rest is not None:
            scored.append((rest, user, i))
    r = pearson([float(correct[i]) for _, _, i in scored], [rest for rest, _, _ in scored])
    groups = _groups(scored)
    g = len(groups.upper)

    def share_in(members: list[int], option: int) -> float | None:
        if not members:
            return None
        return sum(1 for m in members if option in chosen[m]) / len(members)

    options = tuple(
        OptionStats(
            index=i,
            letter=LETTERS[i],
            text=o.text,
            correct=o.correct,
            misconception=o.misconception,
            picked=picks[i],
            share=picks[i] / n if n else 0.0,
            upper_share=share_in(groups.upper, i),
            lower_share=share_in(groups.lower, i),
        )
        for i, o in enumerate(question.options)
    )
    d = None
    if g:
        d = (sum(correct[m] for m in groups.upper) - sum(correct[m] for m in groups.lower)) / g
    status = status_for(n, min_n)
    p = sum(correct) / n if n else None
    flags = question_flags(p, r, options) if n and status is not Status.TOO_FEW else ()
    return QuestionStats(
        question_id=question.id,
        topic=question.topic,
        stem=question.stem,
        multiple=question.kind is Kind.MULTIPLE,
        n=n,
        p=p,
        r=r,
        d=d,
        n_scored=len(scored),
        group_size=g,
        mean_time_ms=responses.time_total_ms / responses.timed
        if responses and responses.timed
        else None,
        status=status,
        options=options,
        flags=flags,
    )
