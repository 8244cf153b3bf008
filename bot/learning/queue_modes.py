"""What the study queue does differently when the bank-wide forgetting check
(`bot.learning.forgetting`) says memories last longer than predicted: cover the bank first."""

from __future__ import annotations

import datetime as dt
import random
import zlib
from collections.abc import Collection, Iterable, Mapping, Sequence

from bot.learning.blueprint import Blueprint
from bot.learning.memory import PROBE_DAYS, SITTING_GAP, MemoryState, micros

_US = dt.timedelta(microseconds=1)
_GAP_US = SITTING_GAP // _US
# A probe is picked up to a day before its window closes: the window is judged when it is
# answered, and a question sent (a daily question) may be answered hours later.
_PROBE_US = (PROBE_DAYS[0] // _US, (PROBE_DAYS[1] - dt.timedelta(days=1)) // _US)


def most_valuable(
    plan: Blueprint, unmet: Mapping[str, Sequence[str]], last: str | None, rng: random.Random
) -> str:
    """The unmet question carrying the largest share of the exam score, from another topic
    than the last question's while one is on offer (ties drawn at random)."""
    last_topic = plan.topic_of(last) if last else None
    topics = [t for t in unmet if t != last_topic] or list(unmet)
    return max((q for t in topics for q in unmet[t]), key=lambda q: (plan.value[q], rng.random()))


def most_at_risk(
    plan: Blueprint, pool: Collection[str], recall: Mapping[str, float], rng: random.Random
) -> str:
    """The met question whose forgetting costs the most exam score (value × (1 − recall))."""
    return max(pool, key=lambda q: (plan.value[q] * (1 - recall[q]), rng.random()))


def probe_to_ask(
    memory: Mapping[str, MemoryState], pool: Iterable[str], now: dt.datetime, share: int
) -> str | None:
    """A question missed at its first meeting and not seen since, one in `share` of them, that
    has waited PROBE_DAYS (up to a day before the window closes): its second answer is a probe
    of the bank-wide forgetting check (the one waiting longest first); None if there is none.

    Covering first asks nothing again within days, so without these the check's evidence would
    stop at the morning it chose cover-first and could never be revised. Which misses come back
    is drawn from the question and the time of the miss (a checksum, not Python's per-process
    hash), so that the same answers give the same picks and the probes are a fair sample."""
    now_us = micros(now)
    low, high = now_us - _PROBE_US[1], now_us - _PROBE_US[0]
    waiting = [
        (st.last_us, q)
        for q in pool
        if (st := memory.get(q)) is not None
        and st.reps == 1
        and not st.last_correct
        and low <= st.last_us <= high
        and zlib.crc32(f"{q}/{st.last_us}".encode()) % share == 0
    ]
    return min(waiting)[1] if waiting else None
