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
from collections.abc import Mapping, Sequence
from itertools import compress
from operator import is_not

from bot.learning.blueprint import Blueprint
from bot.learning.memory import Confidence, MemoryState, forgetting_exponent, micros, recall_at

Urgency = tuple[int, float]  # review tier, then minus the exam share at risk


def tier(state: MemoryState) -> int:
    """A confident error first (0), then any error (1), then the rest (2)."""
    if state.last_correct:
        return 2
    return 0 if state.last_confidence is Confidence.SURE else 1


class PickMemo:
    """One learner's recalls, review urgencies and forgetting exponent, kept between picks."""

    __slots__ = (
        "_g", "_g_chance", "_g_keys", "_g_states", "_now_us", "_plan", "_power",
        "_recall", "_seen", "_t_counts", "_t_keys", "_t_start", "_t_states", "_urgency",
    )  # fmt: skip

    def __init__(self) -> None:
        self._plan: Blueprint | None = None
        self._now_us = -1
        self._power = float("nan")
        self._seen: dict[str, MemoryState] = {}  # the state each recall below was computed of
        self._recall: dict[str, float] = {}
        self._urgency: dict[str, Urgency] = {}
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
            for now, was in compress(zip(states, old, strict=True), map(is_not, states, old)):
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
            changed = compress(zip(states, old, strict=True), map(is_not, states, old))
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
    ) -> dict[str, float]:
        """What `recalls(memory, ids, at, power)` gives, the same floats in the same order."""
        now_us = micros(at)
        if plan is not self._plan or now_us != self._now_us or power != self._power:
            self._plan, self._now_us, self._power = plan, now_us, power
            self._seen, self._recall, self._urgency = {}, {}, {}
        seen, recall, urgency, value = self._seen, self._recall, self._urgency, plan.value
        get, known = memory.get, seen.get
        out: dict[str, float] = {}
        for q in ids:
            state = get(q)
            if state is None:
                continue
            if known(q) is not state:
                r = recall_at(state, now_us, power)
                seen[q], recall[q], urgency[q] = state, r, (tier(state), -value[q] * (1 - r))
            out[q] = recall[q]
        return out

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
