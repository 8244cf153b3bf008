"""A bank seen by the engine: topics with their weight, questions per topic, tags, chance level."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from math import comb

from bot.bank.models import Bank, BankMeta, Question


def chance_of_guess(question: Question) -> float:
    """Probability that a blind guess is right: 1/options, or 1/C(options, k) for select-k."""
    return 1.0 / comb(len(question.options), question.select_count)


@dataclass(frozen=True)
class Blueprint:
    """What the queue and readiness need from one bank, computed once per bank load."""

    meta: BankMeta
    questions: Mapping[str, Question]
    by_topic: Mapping[str, tuple[str, ...]]  # question ids per declared topic, sorted
    weight: Mapping[str, float]  # topic -> blueprint weight as a fraction (sums to 1)
    value: Mapping[str, float]  # question -> its share of the exam score (topic weight / size)
    chance: Mapping[str, float]  # question -> probability a blind guess is right
    by_misconception: Mapping[str, tuple[str, ...]]  # misconception -> questions carrying it
    topic_by_question: Mapping[str, str]

    @classmethod
    def of(cls, bank: Bank) -> Blueprint:
        """Build from a loaded bank; topics without questions keep their weight but no value."""
        by_topic: dict[str, list[str]] = {t.id: [] for t in bank.meta.topics}
        by_mis: dict[str, list[str]] = {}
        for qid in sorted(bank.questions):
            q = bank.questions[qid]
            by_topic.setdefault(q.topic, []).append(qid)
            for mid in {o.misconception for o in q.options if o.misconception}:
                by_mis.setdefault(mid, []).append(qid)
        weight = {t.id: t.weight / 100.0 for t in bank.meta.topics}
        value = {
            qid: weight.get(topic, 0.0) / len(ids)
            for topic, ids in by_topic.items()
            for qid in ids
        }
        return cls(
            meta=bank.meta,
            questions=bank.questions,
            by_topic={t: tuple(ids) for t, ids in by_topic.items()},
            weight=weight,
            value=value,
            chance={qid: chance_of_guess(q) for qid, q in bank.questions.items()},
            by_misconception={m: tuple(ids) for m, ids in by_mis.items()},
            topic_by_question={qid: q.topic for qid, q in bank.questions.items()},
        )

    # Derived once per bank load (the catalog keeps one Blueprint per loaded bank), so a pick
    # does not recompute what only a reload can change.
    @cached_property
    def mean_chance(self) -> float:
        """Mean probability of a blind guess over the bank."""
        return sum(self.chance.values()) / len(self.chance) if self.chance else 0.25

    @cached_property
    def pull(self) -> Mapping[str, float]:
        """Topic -> the exam share one of its questions carries (weight / questions)."""
        return {t: self.weight[t] / len(ids) for t, ids in self.by_topic.items() if ids}

    @cached_property
    def mean_pull(self) -> float:
        """Mean of `pull` over the topics that have questions."""
        return sum(self.pull.values()) / max(1, len(self.pull))

    @cached_property
    def in_order(self) -> tuple[str, ...]:
        """Question ids in bank order (the order the queue walks)."""
        return tuple(self.questions)

    @cached_property
    def in_order_by_topic(self) -> Mapping[str, tuple[str, ...]]:
        """Topic -> its question ids in bank order."""
        found: dict[str, list[str]] = {}
        for qid in self.questions:
            found.setdefault(self.topic_by_question[qid], []).append(qid)
        return {t: tuple(ids) for t, ids in found.items()}

    @cached_property
    def position(self) -> Mapping[str, int]:
        """Question id -> its place in `in_order`."""
        return {qid: i for i, qid in enumerate(self.in_order)}

    @cached_property
    def topic_sets(self) -> Mapping[str, frozenset[str]]:
        """Topic -> the set of its question ids."""
        return {t: frozenset(ids) for t, ids in self.by_topic.items()}

    def topic_of(self, question_id: str) -> str | None:
        """Topic of a question, None if the bank no longer has it."""
        return self.topic_by_question.get(question_id)

    @property
    def passing_score(self) -> float:
        """Passing score in percent."""
        return self.meta.passing_score
