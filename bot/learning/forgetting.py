"""How long a first memory lasts under the memory model fitted to a bank's learners, and the
study queue's mode it sets.

When one right answer alone keeps a question above the queue's target recall for a week, a
review before then adds little and a question never met is a sure loss: the queue meets every
question first (cover-first). Otherwise it balances new questions and due reviews (standard).
The fitted weights (bot.learning.fit, stored nightly) decide, not a rule of thumb: on FSRS-6's
defaults a first right answer lasts a few days, so a bank starts in the standard mode until its
learners' answers show longer memories.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.learning.memory import DEFAULT_WEIGHTS, Weights, curve_factor

COVER_DAYS = 7.0
COVER_RECALL = 0.85


class QueueMode(StrEnum):
    STANDARD = "standard"  # new questions at the exam date's pace, due reviews between
    COVER = "cover"  # first memories outlast a week: meet every question first


@dataclass(frozen=True, slots=True)
class MemoryCheck:
    """The memory model a learner or bank is on, as an operator reads it."""

    reviews: int  # spaced reviews the weights were fitted on (0: FSRS-6's defaults)
    first_memory_days: float  # days a first right answer stays above COVER_RECALL
    mode: QueueMode


def first_memory_days(weights: Weights = DEFAULT_WEIGHTS, recall: float = COVER_RECALL) -> float:
    """Days until a question answered right at its first meeting falls to `recall`, under
    FSRS-6 with `weights` (w2: the stability of a first Good; w20: the curve's decay)."""
    decay = weights[20]
    return float(weights[2] * (recall ** (-1 / decay) - 1) / curve_factor(decay))


def mode_for(weights: Weights) -> QueueMode:
    """The study queue's mode under a memory model."""
    return QueueMode.COVER if first_memory_days(weights) >= COVER_DAYS else QueueMode.STANDARD


def memory_check(weights: Weights, reviews: int) -> MemoryCheck:
    """The model's first memory and the mode it sets, with the reviews behind it."""
    return MemoryCheck(reviews, first_memory_days(weights), mode_for(weights))
