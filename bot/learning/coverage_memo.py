"""Per topic, what a learner's picks of new questions read, kept between picks
(`pick_memo.PickMemo.coverage`): the questions met, the first attempts right and the unmet
questions in bank order.

Between two picks usually one state changed or was added (the question just answered): the
counts and lists are updated from the states that changed, integers and list removals, so they
are exactly what `ability.topic_abilities` and the study queue's unmet questions per topic
compute afresh. States are told apart by identity (a state is immutable).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.learning.ability import overall_rate, topic_rate
from bot.learning.blueprint import Blueprint
from bot.learning.memory import MemoryState, replaced


class Coverage:
    """One learner's questions met, first attempts right and unmet questions, per topic."""

    __slots__ = (
        "_keys", "_met", "_overall", "_plan", "_right", "_sizes", "_states", "_unmet",
    )  # fmt: skip

    def __init__(self) -> None:
        self._plan: Blueprint | None = None
        self._keys: list[str] = []  # the questions and states the counts below were taken of
        self._states: list[MemoryState] = []
        self._met: dict[str, int] = {}
        self._right: dict[str, int] = {}
        self._unmet: dict[str, list[str]] = {}
        self._sizes: dict[str, int] = {}
        self._overall: float | None = None

    def sync(self, plan: Blueprint, memory: Mapping[str, MemoryState]) -> Coverage:
        """Take in the states that changed since the last sync (all of them for a new plan)."""
        if plan is not self._plan:
            self._plan, self._keys, self._states = plan, [], []
            self._met = dict.fromkeys(plan.by_topic, 0)
            self._right = dict.fromkeys(plan.by_topic, 0)
            self._unmet = {t: list(ids) for t, ids in plan.in_order_by_topic.items()}
            self._sizes = {t: len(ids) for t, ids in plan.by_topic.items()}
            self._overall = None
        keys, states, was = list(memory), list(memory.values()), self._states
        changed: list[tuple[str, MemoryState, MemoryState | None]]
        if keys == self._keys:
            changed = list(replaced(zip(keys, states, was, strict=True), states, was))
        else:
            get = dict(zip(self._keys, was, strict=True)).get
            pairs = zip(keys, states, strict=True)
            changed = [(q, s, get(q)) for q, s in pairs if get(q) is not s]
            added = sum(old is None for _, _, old in changed)
            if len(was) + added != len(states):  # a state was dropped: count afresh
                self._plan = None
                return self.sync(plan, memory)
        topic_of, met, right, unmet = plan.topic_of, self._met, self._right, self._unmet
        for q, state, old in changed:
            topic = topic_of(q)
            if topic is None or topic not in met:
                continue  # a question that left the bank
            if old is None:
                met[topic] += 1
                right[topic] += state.first_correct
                unmet[topic].remove(q)
            else:
                right[topic] += state.first_correct - old.first_correct
            self._overall = None
        self._keys, self._states = keys, states
        return self

    def standing(self, topic: str) -> tuple[float, float]:
        """A topic's `TopicAbility.met_share` and `rate` for the memory last synced, the same
        floats (0 and 0.5 for a topic the bank does not have)."""
        met = self._met.get(topic)
        if met is None:
            return 0.0, 0.5
        if self._overall is None:
            self._overall = overall_rate(sum(self._met.values()), sum(self._right.values()))
        size = self._sizes[topic]
        return met / size if size else 0.0, topic_rate(met, self._right[topic], self._overall)

    def unmet(self, topic: str | None, skip: str | None) -> dict[str, Sequence[str]]:
        """The unmet questions per topic (only `topic`'s when given; without `skip`; topics
        with none left out), in bank order."""
        unmet = self._unmet
        groups = unmet if topic is None else {topic: unmet.get(topic, [])}
        found: dict[str, Sequence[str]] = {}
        for t, ids in groups.items():
            if ids:
                if skip in ids:
                    left = list(ids)
                    left.remove(skip)
                    if not left:
                        continue
                    found[t] = left
                else:
                    found[t] = tuple(ids)
        return found
