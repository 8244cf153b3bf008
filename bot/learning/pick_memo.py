"""What a learner's picks computed, kept for their next pick (`queue.Learner.memo`).

Between two picks of one learner usually a single memory state changed (the question just
answered), and on a clock that did not move every other question's recall is the very same
float. The memo recomputes only what depends on a state it has not seen, the whole of it once
the time, the forgetting exponent, the bank's plan or the guessing chance changed, and gives
exactly what the study queue computes without it: the same floats, so the same choices.
States are told apart by identity (a state is immutable: the same object, the same fields).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence

from bot.learning.blueprint import Blueprint
from bot.learning.coverage_memo import Coverage
from bot.learning.memory import (
    Confidence,
    MemoryState,
    forgetting_exponent,
    micros,
    recall_at,
    replaced,
)

Urgency = tuple[int, float]  # review tier, then minus the exam share at risk
FEW_ABSENT = 8  # met questions outside the pool taken out one by one (more: the pool walked)


def tier(state: MemoryState) -> int:
    """A confident error first (0), then any error (1), then the rest (2)."""
    if state.last_correct:
        return 2
    return 0 if state.last_confidence is Confidence.SURE else 1


class PickMemo:
    """One learner's recalls, review urgencies and forgetting exponent, kept between picks."""

    __slots__ = (
        "_coverage", "_g", "_g_chance", "_g_keys", "_g_states", "_now_us", "_ordered",
        "_plan", "_power", "_r_keys", "_r_states", "_recall", "_seen", "_t_counts", "_t_keys",
        "_t_start", "_t_states", "_urgency",
    )  # fmt: skip

    def __init__(self) -> None:
        self._plan: Blueprint | None = None
        self._now_us = -1
        self._power = float("nan")
        self._seen: dict[str, MemoryState] = {}  # the state each recall below was computed of
        self._recall: dict[str, float] = {}
        self._urgency: dict[str, Urgency] = {}
        self._r_keys: list[str] = []  # the keys and states of the last `recalls`
        self._r_states: list[MemoryState] = []
        self._ordered: dict[str, float] = {}  # the recall of every met question, bank order
        self._coverage = Coverage()
        self._g_keys: list[str] = []
        self._g_states: list[MemoryState] = []
        self._g_chance = float("nan")
        self._g = 1.0
        self._t_keys: list[str] = []
        self._t_states: list[MemoryState] = []
        self._t_start = -1
        self._t_counts = (0, 0)

    def today(self, memory: Mapping[str, MemoryState], start_us: int) -> tuple[int, int]:
        """What `queue.today_from_memory` counts: the states last answered at or after
        `start_us`, and those of them met for the first time (integers: the states that
        changed are taken out and put back in)."""
        keys, states = list(memory), list(memory.values())
        if start_us == self._t_start and keys == self._t_keys:
            old = self._t_states
            answered, new = self._t_counts
            for now, was in replaced(zip(states, old, strict=True), states, old):
                if was.last_us >= start_us:
                    answered, new = answered - 1, new - (was.reps == 1)
                if now.last_us >= start_us:
                    answered, new = answered + 1, new + (now.reps == 1)
        else:
            answered = new = 0
            for state in states:
                if state.last_us >= start_us:
                    answered += 1
                    new += state.reps == 1
        self._t_keys, self._t_states, self._t_start = keys, states, start_us
        self._t_counts = (answered, new)
        return answered, new

    def exponent(self, memory: Mapping[str, MemoryState], chance: float) -> float:
        """What `forgetting_exponent(memory.values(), chance)` gives."""
        keys, states = list(memory), list(memory.values())
        old = self._g_states
        if chance == self._g_chance and keys == self._g_keys:
            # The exponent reads three fields of each state, summed in this order: where every
            # state that changed kept them, the sums and the exponent are the same.
            changed = replaced(zip(states, old, strict=True), states, old)
            if all(_same_evidence(new, was) for new, was in changed):
                self._g_states = states
                return self._g
        self._g = forgetting_exponent(states, chance)
        self._g_keys, self._g_states, self._g_chance = keys, states, chance
        return self._g

    def recalls(
        self,
        plan: Blueprint,
        memory: Mapping[str, MemoryState],
        ids: Sequence[str],
        at: dt.datetime,
        power: float,
        *,
        left_out: Collection[str] | None = None,
    ) -> dict[str, float]:
        """What `recalls(memory, ids, at, power)` gives, the same floats in the same order
        (`ids` in bank order, as `plan.in_order` lists them: every pool of the queue is).
        `left_out`: when given, `ids` is `plan.in_order` without these (no set of `ids` made)."""
        now_us = micros(at)
        if plan is not self._plan or now_us != self._now_us or power != self._power:
            self._plan, self._now_us, self._power = plan, now_us, power
            self._seen, self._recall, self._urgency = {}, {}, {}
            self._r_keys = []  # no state seen: all of them compared below
            self._ordered = {}  # none either: an empty memory takes the same-keys path below
        seen, recall, urgency, value = self._seen, self._recall, self._urgency, plan.value
        keys, states = list(memory), list(memory.values())
        same_keys = keys == self._r_keys
        changed: list[tuple[str, MemoryState]]
        if same_keys:
            was = self._r_states
            changed = list(replaced(zip(keys, states, strict=True), states, was))
        else:
            known = seen.get
            changed = [(q, s) for q, s in zip(keys, states, strict=True) if known(q) is not s]
        for q, state in changed:
            if q in value:  # still in the bank
                r = recall_at(state, now_us, power)
                seen[q], recall[q], urgency[q] = state, r, (tier(state), -value[q] * (1 - r))
        self._r_keys, self._r_states = keys, states
        ordered = self._ordered
        if same_keys:
            for q, _ in changed:
                if q in ordered:
                    ordered[q] = recall[q]
        else:
            # Every met question of the bank, in bank order: the pool's are a subsequence.
            position = plan.position
            met = sorted(filter(position.__contains__, keys), key=position.__getitem__)
            ordered = self._ordered = dict(zip(met, map(recall.__getitem__, met), strict=True))
        if left_out is not None:
            out = dict(ordered)
            for q in left_out:
                out.pop(q, None)
            return out
        absent = ordered.keys() - set(ids)
        if not absent:
            return dict(ordered)
        if len(absent) <= FEW_ABSENT:
            out = dict(ordered)
            for q in absent:
                del out[q]
            return out
        return {q: ordered[q] for q in ids if q in ordered}

    def coverage(self, plan: Blueprint, memory: Mapping[str, MemoryState]) -> Coverage:
        """The learner's questions met and unmet per topic, `memory` taken in."""
        return self._coverage.sync(plan, memory)

    def urgencies(self, ranked: Sequence[str]) -> list[Urgency]:
        """(tier, minus the exam share at risk) of each of `ranked`, as `queue._most_urgent`
        ranks them; every one of them met in the last `recalls`."""
        return list(map(self._urgency.__getitem__, ranked))


def _same_evidence(new: MemoryState, was: MemoryState) -> bool:
    return (
        new.spaced_reviews == was.spaced_reviews
        and new.predicted_recall == was.predicted_recall
        and new.review_right == was.review_right
    )
