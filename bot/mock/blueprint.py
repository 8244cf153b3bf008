"""Which questions a mock exam gets: blueprint weights per topic, the bank's difficulty mix within
each topic, no question twice, questions not met in earlier mocks first."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

from bot.bank.models import Bank, BankMeta, Question
from bot.mock.models import ExamKind, ExamPlan


@dataclass(frozen=True, slots=True)
class Draw:
    """The questions drawn for an exam, in the order they are asked."""

    question_ids: tuple[str, ...]
    per_topic: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class TooSmall:
    """The bank holds fewer questions than asked: `available` is the largest exam it allows."""

    requested: int
    available: int


def round_half_up(x: float) -> int:
    """Round to the nearest integer, halves up (Python's round() sends 22.5 to 22)."""
    return int(x + 0.5)


def plan(meta: BankMeta, kind: ExamKind = ExamKind.FULL, questions: int | None = None) -> ExamPlan:
    """Size and time of an exam: full, short (a quarter), or `questions` long (reduced).

    Time follows the full exam's pace, so a quarter of the questions gets a quarter of the time;
    minutes are whole and at least one.
    """
    full = meta.mock_exam
    if kind is ExamKind.FULL:
        return ExamPlan(kind, full.questions, full.minutes * 60)
    n = max(1, round_half_up(full.questions / 4)) if kind is ExamKind.SHORT else questions
    if n is None or n < 1:
        raise ValueError("a reduced exam needs a number of questions of at least 1")
    minutes = max(1, round_half_up(full.minutes * n / full.questions))
    return ExamPlan(kind, n, minutes * 60)


def apportion(
    weights: Mapping[str, float], total: int, caps: Mapping[str, int] | None = None
) -> dict[str, int]:
    """Split `total` by weight with largest-remainder rounding, no key above its cap.

    Ties in remainder go to the larger weight, then to the key listed first. A key whose share
    exceeds its cap is held at the cap and the rest is split again among the others.
    """
    caps = caps if caps is not None else {k: total for k in weights}
    out = dict.fromkeys(weights, 0)
    active = [k for k in weights if weights[k] > 0 and caps.get(k, 0) > 0]
    left = total
    if left > sum(caps.get(k, 0) for k in active):
        raise ValueError(f"cannot place {total} in caps {dict(caps)}")
    while left > 0 and active:
        shares = _hamilton({k: weights[k] for k in active}, left)
        over = [k for k in active if shares[k] > caps[k]]
        if not over:
            for k in active:
                out[k] += shares[k]
            return out
        for k in over:
            out[k] = caps[k]
            left -= caps[k]
        active = [k for k in active if k not in over]
    return out


def _hamilton(weights: Mapping[str, float], total: int) -> dict[str, int]:
    keys = list(weights)
    whole = sum(weights.values())
    quotas = {k: total * weights[k] / whole for k in keys}
    shares = {k: int(quotas[k]) for k in keys}
    rest = total - sum(shares.values())
    by_remainder = sorted(
        keys, key=lambda k: (-(quotas[k] - shares[k]), -weights[k], keys.index(k))
    )
    for k in by_remainder[:rest]:
        shares[k] += 1
    return shares


def draw(bank: Bank, size: int, seen: Set[str], rng: random.Random) -> Draw | TooSmall:
    """Draw `size` distinct questions by blueprint weight, difficulty mix and freshness.

    Priorities, in order: the topic counts of the blueprint (largest remainder; a topic with too
    few questions gives its surplus to the others), then the bank's difficulty mix within each
    topic, then questions not in `seen` (met in earlier mocks), at random among equals.
    """
    if size > len(bank.questions):
        return TooSmall(size, len(bank.questions))
    by_topic: dict[str, list[Question]] = {t.id: [] for t in bank.meta.topics}
    for q in sorted(bank.questions.values(), key=lambda q: q.id):
        by_topic.setdefault(q.topic, []).append(q)
    weights = {t.id: t.weight for t in bank.meta.topics}
    per_topic = apportion(weights, size, {t: len(qs) for t, qs in by_topic.items()})
    chosen: list[str] = []
    for topic, count in per_topic.items():
        chosen.extend(_draw_topic(by_topic[topic], count, seen, rng))
    rng.shuffle(chosen)
    return Draw(tuple(chosen), {t: n for t, n in per_topic.items() if n})


def _draw_topic(
    questions: Sequence[Question], count: int, seen: Set[str], rng: random.Random
) -> list[str]:
    """`count` questions of one topic, difficulties in the topic's own proportions."""
    if count == 0:
        return []
    cells: dict[str, list[str]] = {}
    for q in questions:
        cells.setdefault(q.difficulty.value, []).append(q.id)
    mix = apportion(
        {d: float(len(ids)) for d, ids in cells.items()},
        count,
        {d: len(ids) for d, ids in cells.items()},
    )
    out: list[str] = []
    for difficulty, ids in cells.items():
        fresh = [i for i in ids if i not in seen]
        met = [i for i in ids if i in seen]
        rng.shuffle(fresh)
        rng.shuffle(met)
        out.extend((fresh + met)[: mix[difficulty]])
    return out


def option_order(question: Question, rng: random.Random) -> tuple[int, ...]:
    """Display order of a question's options as file indices: shuffled unless the question says
    not to, a pinned option ("None of the above") always last."""
    n = len(question.options)
    if not question.shuffle:
        return tuple(range(n))
    pinned = [i for i, o in enumerate(question.options) if o.pin]
    free = [i for i in range(n) if i not in pinned]
    rng.shuffle(free)
    return (*free, *pinned)
