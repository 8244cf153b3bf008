"""Which questions a mock exam gets: blueprint weights per topic, no question twice, questions not
met in earlier mocks first, the bank's difficulty mix within each topic."""

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
    few questions gives its surplus to the others), then questions not in `seen` (met in earlier
    mocks), then the bank's difficulty mix within each topic, at random among equals.
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
    """`count` questions of one topic: fresh ones first, difficulties in the topic's own
    proportions as far as the fresh questions allow."""
    if count == 0:
        return []
    cells: dict[str, list[str]] = {}
    for q in questions:
        cells.setdefault(q.difficulty.value, []).append(q.id)
    weights = {d: float(len(ids)) for d, ids in cells.items()}
    fresh = {d: [i for i in ids if i not in seen] for d, ids in cells.items()}
    met = {d: [i for i in ids if i in seen] for d, ids in cells.items()}
    for pool in (*fresh.values(), *met.values()):
        rng.shuffle(pool)
    target = apportion(weights, count, {d: len(ids) for d, ids in cells.items()})
    take = {d: min(target[d], len(fresh[d])) for d in cells}
    # Fresh questions of another difficulty before any question met in an earlier mock.
    spare = {d: len(fresh[d]) - take[d] for d in cells}
    extra = apportion(weights, min(count - sum(take.values()), sum(spare.values())), spare)
    out = [i for d in cells for i in fresh[d][: take[d] + extra[d]]]
    refill = apportion(weights, count - len(out), {d: len(ids) for d, ids in met.items()})
    out.extend(i for d in cells for i in met[d][: refill[d]])
    return out
