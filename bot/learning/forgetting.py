"""Do a bank's learners forget faster or slower than FSRS assumes? The check that sets the
study queue's mode, pooled over every learner of the bank.

Each missed question's first spaced review (`MemoryState.probe_recall`: its second answer,
20 hours to 4 days after a wrong first one) is a small experiment: FSRS predicted a recall, the
learner was right or wrong. Over a bank's learners, right answers above the prediction
(corrected for lucky guesses) mean memories last longer than FSRS's default curve says; below
it, they fade faster. When memories last, every review at high recall is an answer not spent
on a question never met, so the queue meets every question first (cover-first). One learner's
few dozen such reviews cannot tell this before their exam is near; a bank's learners, who
share one kind of human memory, give hundreds a day.

Faster fading changes nothing: the study queue once relearned a missed question in the sitting
then (successive relearning), which on simulated learners helped some memory models (no
spacing effect) and cost others up to twice the answers to ready (a strong spacing effect),
and this check cannot tell the two apart. FSRS's own reviews, bent by each learner's measured
forgetting, come sooner instead.

Once cover-first is on, probes keep coming, more slowly: it brings one first-meeting miss in
eight back within the probe window for this purpose (it would bring none), so the evidence goes
on growing and a decision taken on the bank's first few hundred probes can be revised.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from bot.learning.memory import MemoryState

# Both are needed to act. |z|: the excess of right answers over FSRS's prediction in standard
# errors of the binomial (about a 1-in-40 chance each way of acting on noise at one look; the
# check is looked at on every pick, so more than that over a bank's life). The excess itself:
# with thousands of probes a difference too small to matter would be "significant", and the
# two modes are worth switching to only when memory departs from FSRS by a few points.
DECISIVE_Z = 2.0
MIN_EXCESS = 0.03


class QueueMode(StrEnum):
    STANDARD = "standard"  # FSRS's curve fits (or too little evidence yet): the study queue as is
    COVER = "cover"  # memories last longer than FSRS predicts: meet every question first


@dataclass(frozen=True, slots=True)
class ProbeTally:
    """First spaced reviews of a bank's questions, summed over its learners."""

    reviews: int = 0
    recall: float = 0.0  # sum of FSRS's predicted recall
    recall_squared: float = 0.0  # sum of its squares (for the binomial variance)
    right: int = 0

    @classmethod
    def of(cls, states: Iterable[MemoryState]) -> ProbeTally:
        """The tally over memory states (the storage layer sums the same columns in SQL)."""
        n = right = 0
        total = squares = 0.0
        for state in states:
            if state.probe_recall is not None:
                n += 1
                total += state.probe_recall
                squares += state.probe_recall * state.probe_recall
                right += state.probe_right
        return cls(n, total, squares, right)

    def __add__(self, other: ProbeTally) -> ProbeTally:
        return ProbeTally(
            self.reviews + other.reviews,
            self.recall + other.recall,
            self.recall_squared + other.recall_squared,
            self.right + other.right,
        )

    def excess(self, chance: float) -> float:
        """Mean right answers above the guess-corrected prediction (0 without reviews)."""
        if self.reviews == 0:
            return 0.0
        expected = self.reviews * chance + (1 - chance) * self.recall
        return (self.right - expected) / self.reviews

    def z(self, chance: float) -> float:
        """The excess in standard errors: right answers are Bernoulli with p = c + (1 - c)·R."""
        # sum of p(1 - p) with p = c + (1 - c) r, expanded so that sums of r and r² suffice.
        c, n, r, r2 = chance, self.reviews, self.recall, self.recall_squared
        variance = (1 - c) * (c * (n - r) + (1 - c) * (r - r2))
        if n == 0 or variance <= 0:
            return 0.0
        return self.excess(chance) * n / math.sqrt(variance)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The check as an operator reads it: the evidence and the mode it sets."""

    probes: int
    excess: float  # mean right answers above the guess-corrected prediction (0.05: 5 points)
    z: float
    mode: QueueMode


def verdict(tally: ProbeTally, chance: float) -> Verdict:
    """The bank's evidence and the study queue's mode it sets."""
    z, excess = tally.z(chance), tally.excess(chance)
    mode = QueueMode.STANDARD
    if z >= DECISIVE_Z and excess >= MIN_EXCESS:
        mode = QueueMode.COVER
    return Verdict(tally.reviews, excess, z, mode)


def queue_mode(tally: ProbeTally, chance: float) -> QueueMode:
    """The study queue's mode for a bank, from its learners' first spaced reviews."""
    return verdict(tally, chance).mode
