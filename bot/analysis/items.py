"""Figures of one question from its first attempts: p, corrected point-biserial, D, options."""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress

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


@dataclass(frozen=True, slots=True)
class RestScores:
    """Per learner who met two questions or more: -rest score = base + step * correct."""

    base: dict[int, float]  # -right / (met - 1)
    step: dict[int, float]  # 1 / (met - 1)

    @classmethod
    def of(cls, learners: Mapping[int, LearnerTotal]) -> RestScores:
        """Precomputed once per report, so the per-answer work is one lookup and one add."""
        scored = {u: t for u, t in learners.items() if t.met > 1}
        return cls(
            {u: -t.right / (t.met - 1) for u, t in scored.items()},
            {u: 1 / (t.met - 1) for u, t in scored.items()},
        )


def status_for(n: int, min_n: int) -> Status:
    """The sample-size label of a question with n first attempts."""
    if n < min_n:
        return Status.TOO_FEW
    if n < PROVISIONAL_BELOW:
        return Status.PROVISIONAL
    if n < FIRM_FROM:
        return Status.TENTATIVE
    return Status.FIRM


def point_biserial(xs: Sequence[bool], ys: Sequence[float]) -> float | None:
    """Pearson correlation of a 0/1 score with a continuous one (None: either is constant)."""
    n = len(ys)
    if n < 2:
        return None
    n1 = sum(xs)
    sy = sum(ys)
    syy = sum(map(operator.mul, ys, ys))
    sy1 = sum(compress(ys, xs))
    cov = sy1 / n - (n1 / n) * (sy / n)
    var_x = n1 / n - (n1 / n) ** 2
    var_y = syy / n - (sy / n) ** 2
    # Guard against round-off pretending a constant column varies a little.
    if var_x <= 1e-12 or var_y <= 1e-12:
        return None
    return max(-1.0, min(1.0, cov / math.sqrt(var_x * var_y)))


def _groups(scored: list[tuple[float, int, int]]) -> _Groups:
    """Upper and lower 27% of learners ranked by rest score (ties broken by user id)."""
    g = int(GROUP_SHARE * len(scored) + 0.5)
    if g < 1 or 2 * g > len(scored):
        return _Groups([], [])
    # Entries are (-rest, user id, index): plain tuple order ranks best first.
    ranked = sorted(scored)
    return _Groups([i for _, _, i in ranked[:g]], [i for _, _, i in ranked[-g:]])


def _picks(choices: Iterable[tuple[int, ...]], k: int) -> list[int]:
    """Per option, how many of these choices include it."""
    picks = [0] * k
    for choice, count in Counter(choices).items():
        for i in choice:
            # An index beyond the options means the file lost options since the answer.
            if i < k:
                picks[i] += count
    return picks


def _shares(choices: Iterable[tuple[int, ...]], size: int, k: int) -> list[float | None]:
    """Per option, the share of `size` learners whose choice included it (None: nobody)."""
    if not size:
        return [None] * k
    return [p / size for p in _picks(choices, k)]


def question_stats(
    question: Question,
    responses: QuestionResponses | None,
    rest: RestScores,
    min_n: int,
) -> QuestionStats:
    """Every figure and flag of one question (responses None: nobody has answered it yet)."""
    chosen = responses.chosen if responses else ()
    correct = responses.correct if responses else ()
    users = responses.user_ids if responses else ()
    n = len(correct)
    k = len(question.options)
    picks = _picks(chosen, k)

    # Rest score: share right on the learner's other questions, kept as (-rest, user, index)
    # for every learner who met at least one other question: -rest = (c - right) / (met - 1).
    bases = map(rest.base.get, users)
    scored = [
        (base + c * rest.step[user], user, i)
        for i, (user, base, c) in enumerate(zip(users, bases, correct, strict=True))
        if base is not None
    ]
    r = point_biserial([correct[i] for _, _, i in scored], [-neg for neg, _, _ in scored])
    groups = _groups(scored)
    g = len(groups.upper)
    upper = _shares(map(chosen.__getitem__, groups.upper), g, k)
    lower = _shares(map(chosen.__getitem__, groups.lower), g, k)

    options = tuple(
        OptionStats(
            index=i,
            letter=LETTERS[i],
            text=o.text,
            correct=o.correct,
            misconception=o.misconception,
            picked=picks[i],
            share=picks[i] / n if n else 0.0,
            upper_share=upper[i],
            lower_share=lower[i],
        )
        for i, o in enumerate(question.options)
    )
    d = None
    if g:
        right_upper = sum(map(correct.__getitem__, groups.upper))
        d = (right_upper - sum(map(correct.__getitem__, groups.lower))) / g
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
