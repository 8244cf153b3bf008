"""This learner's forgetting curve: FSRS-6's curve reshaped and rescaled from their own reviews."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot.learning.memory import SCHEDULER, Answer, MemoryState, review

DAY_SECONDS = 86_400.0
DEFAULT_DECAY = float(SCHEDULER.parameters[20])
# Candidate curve shapes and scales. FSRS-6's recall is R = (1 + f·t/(m·S))^(-d), with f set so
# that R = 90% at t = m·S. The decay d sets the SHAPE: FSRS's default 0.15 is a long flat tail
# (a population average of mixed learners); large d tends to an exponential (one learner's
# own memory in half-life regression). The multiplier m sets the SCALE (faster or slower
# forgetting). A grid keeps the Bayesian update exact and cheap: one likelihood per point.
DECAYS = tuple(DEFAULT_DECAY * 2.0**k for k in range(-2, 6))
SCALES = tuple(2.0 ** (j / 2) for j in range(-4, 3))
# Prior centred on FSRS's default: log-normal, wide enough that ~20 reviews can move it.
PRIOR_SD_LOG_DECAY = 1.2
PRIOR_SD_LOG_SCALE = 0.6
GRID = tuple((d, m) for d in DECAYS for m in SCALES)


def _factor(decay: float) -> float:
    return float(0.9 ** (-1 / decay) - 1)


_FACTORS = tuple(_factor(d) for d, _ in GRID)


def _log_prior(decay: float, scale: float) -> float:
    a = math.log(decay / DEFAULT_DECAY) / PRIOR_SD_LOG_DECAY
    b = math.log(scale) / PRIOR_SD_LOG_SCALE
    return -0.5 * (a * a + b * b)


_PRIOR = tuple(_log_prior(d, m) for d, m in GRID)


@dataclass(frozen=True, slots=True)
class Forgetting:
    """Log-likelihood of each candidate curve given the learner's reviews so far (per bank)."""

    loglik: tuple[float, ...] = (0.0,) * len(GRID)
    reviews: int = 0

    def observe(
        self, state: MemoryState, at: dt.datetime, correct: bool, chance: float
    ) -> Forgetting:
        """Add one re-exposure: an answer to a question already seen, right or wrong."""
        days = max(0.0, (at - state.last_review).total_seconds() / DAY_SECONDS)
        s = state.stability
        out = []
        for (decay, scale), f, ll in zip(GRID, _FACTORS, self.loglik, strict=True):
            r = (1 + f * days / (scale * s)) ** -decay
            p = r + (1 - r) * chance
            p = min(max(p, 1e-4), 1 - 1e-4)
            out.append(ll + math.log(p if correct else 1 - p))
        return Forgetting(tuple(out), self.reviews + 1)

    def curve(self) -> tuple[float, float]:
        """(decay, scale): the posterior mean on the log scale (the prior without reviews)."""
        logpost = [ll + pr for ll, pr in zip(self.loglik, _PRIOR, strict=True)]
        top = max(logpost)
        weights = [math.exp(v - top) for v in logpost]
        total = sum(weights)
        log_d = sum(w * math.log(d) for w, (d, _) in zip(weights, GRID, strict=True)) / total
        log_m = sum(w * math.log(m) for w, (_, m) in zip(weights, GRID, strict=True)) / total
        return math.exp(log_d), math.exp(log_m)

    def to_json(self) -> str:
        """Compact text for a per-learner row."""
        return json.dumps({"loglik": [round(v, 6) for v in self.loglik], "reviews": self.reviews})

    @classmethod
    def from_json(cls, text: str) -> Forgetting:
        """Inverse of `to_json` (an unknown grid size starts over from the prior)."""
        data = json.loads(text)
        loglik = tuple(float(v) for v in data["loglik"])
        if len(loglik) != len(GRID):
            return cls()
        return cls(loglik, int(data["reviews"]))


@dataclass(frozen=True, slots=True)
class Curve:
    """A fitted forgetting curve, ready to evaluate many times."""

    decay: float = DEFAULT_DECAY
    scale: float = 1.0

    @classmethod
    def of(cls, forgetting: Forgetting | None) -> Curve:
        """The curve to use for a learner (FSRS's default without a record)."""
        if forgetting is None:
            return cls()
        decay, scale = forgetting.curve()
        return cls(decay, scale)

    def recall_after_days(self, stability: float, days: float) -> float:
        """Recall `days` after a review that left `stability`."""
        f = 0.9 ** (-1 / self.decay) - 1
        return float((1 + f * max(0.0, days) / (self.scale * stability)) ** -self.decay)

    def recall(self, state: MemoryState, at: dt.datetime) -> float:
        """Recall of a met question at `at`."""
        days = (at - state.last_review).total_seconds() / DAY_SECONDS
        return self.recall_after_days(state.stability, days)


def fit_forgetting(history: Iterable[Answer], chance: Mapping[str, float]) -> Forgetting:
    """Replay a learner's answers on one bank into a record (backfill; `observe` adds one)."""
    states: dict[str, MemoryState] = {}
    record = Forgetting()
    for answer in sorted(history, key=lambda a: a.at):
        state = states.get(answer.question_id)
        if state is not None:
            c = chance.get(answer.question_id, 0.25)
            record = record.observe(state, answer.at, answer.correct, c)
        states[answer.question_id] = review(state, answer)
    return record
