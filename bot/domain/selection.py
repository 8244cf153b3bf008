"""What to ask next: unseen questions first, then the ones answered wrong, then the oldest."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Seen:
    """A learner's history with one question."""

    last_seen: float  # last time it was sent to or answered by the learner
    last_correct: bool | None  # None: sent but never answered


def choose_next(
    candidates: Sequence[str], history: Mapping[str, Seen], rng: random.Random
) -> str | None:
    """Pick the next question id among candidates.

    1. A question the learner has never been shown, at random: no repeat until the learner has
       seen the rest of the topic.
    2. Then the questions whose last answer was wrong (or never came), least recent first:
       mistakes come back before anything answered right.
    3. Then the question answered right longest ago.
    The question seen last is never picked twice in a row while another one exists.
    """
    if not candidates:
        return None
    unseen = [q for q in candidates if q not in history]
    if unseen:
        return rng.choice(unseen)
    latest = max(candidates, key=lambda q: history[q].last_seen)
    pool = [q for q in candidates if q != latest] or [latest]
    wrong = [q for q in pool if history[q].last_correct is not True]
    ranked = wrong or pool
    return min(ranked, key=lambda q: (history[q].last_seen, q))
