"""Three ground-truth memory models kept out of the panel: the study queue's rules were chosen
on the panel's eight, never on these, so a run on them (`python -m tests.bench holdout`) says
how the queue does on learners it was not shaped for.

Each forgets and gains from spacing by a mechanism none of the panel's models uses: memory as
a performance equation over every practice's age and lags (PPE), an all-or-none Markov chain
(Atkinson), and a sampling of fluctuating context elements (Estes). Time is in days; each
follows `truth.TrueMemory`, every parameter a dataclass field.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from bot.learning.simulate.truth import TrueMemory, logistic

_HOURS = 24.0
_MIN_AGE_HOURS = 1 / 60  # a practice a minute old or less counts as a minute old


@dataclass(frozen=True)
class PpeParams:
    """The Predictive Performance Equation (Walsh, Gluck, Gunzelmann, Jastrzembski, Krusmark,
    Myung, Pitt & Zhou 2018, Journal of Experimental Psychology: General 147): activation
    M = N ** c * T ** -d, T the practices' ages (hours) averaged with weights age ** -x, and
    decay d = b + m * mean(1 / ln(lag + e)) over the lags between practices, so spaced
    practice decays slower; P(recall) = logistic((M - tau) / s + skill_effect * skill), tau set
    by `first_half_days`. A first practice decays as a massed one (d = b + m)."""

    first_half_days: float = 1.0  # one practice at skill 0 is recalled with p = 0.5 this late
    c: float = 0.1  # gain of practice count
    x: float = 0.6  # recency weighting of the ages
    b: float = 0.05  # decay floor
    m: float = 0.2  # decay added by short lags
    s: float = 0.06
    skill_effect: float = 0.8
    fail_weight: float = 0.6  # a practice after a failed recall counts this much in N
    prior_practices: int = 5  # a week apart, for a question known before studying


class PpeMemory:
    """Practices (time, weight) per question."""

    def __init__(self, p: PpeParams) -> None:
        self.p = p
        self.tau = (p.first_half_days * _HOURS) ** -(p.b + p.m)
        self.practices: dict[int, list[tuple[float, float]]] = {}
        self.skill: dict[int, float] = {}

    def recall(self, q: int, t: float) -> float:
        practices = [(at, w) for at, w in self.practices.get(q, ()) if at <= t]
        if not practices:
            return 0.0
        p = self.p
        ages = [max(_MIN_AGE_HOURS, (t - at) * _HOURS) for at, _ in practices]
        recency = [a**-p.x for a in ages]
        elapsed = sum(r * a for r, a in zip(recency, ages, strict=True)) / sum(recency)
        lags = [(b[0] - a[0]) * _HOURS for a, b in pairwise(practices)]
        spacing = sum(1 / math.log(lag + math.e) for lag in lags) / len(lags) if lags else 1.0
        activation = sum(w for _, w in practices) ** p.c * elapsed ** -(p.b + p.m * spacing)
        return logistic((activation - self.tau) / p.s + p.skill_effect * self.skill.get(q, 0.0))

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        self.skill[q] = skill
        self.practices[q] = [(t_last - 7 * k, 1.0) for k in range(self.p.prior_practices, 0, -1)]

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        self.skill[q] = skill
        failed = not recalled and q in self.practices  # a first practice is no failed recall
        self.practices.setdefault(q, []).append((t, self.p.fail_weight if failed else 1.0))


@dataclass(frozen=True)
class AtkinsonParams:
    """Atkinson's all-or-none model of vocabulary learning (Atkinson 1972, Journal of
    Experimental Psychology 96): a question is unlearned (U), learned for now (T) or learned
    for good (P). A study with feedback moves U to P or T, T to P; T falls back to U with a
    mean life of `temporary_days`, P with one of `permanent_days`. T and P are recalled, U is
    not. The learner's state is hidden: the model holds its probabilities and conditions them
    on each answer."""

    to_permanent: float = 0.3  # U -> P at a study, at skill 0
    to_temporary: float = 0.6  # U -> T at a study
    consolidate: float = 0.5  # T -> P at a study
    temporary_days: float = 1.0
    permanent_days: float = 365.0
    skill_effect: float = 0.6  # U -> P scales by exp(skill_effect * skill)
    fail_rate: float = 0.7  # a study after a failed recall moves U on at this share
    prior_permanent: float = 0.9  # P(P) of a question known before studying


class AtkinsonMemory:
    """P(T), P(P) and the time they hold at, per question."""

    def __init__(self, p: AtkinsonParams) -> None:
        self.p = p
        self.state: dict[int, tuple[float, float, float]] = {}  # (P(T), P(P), at)

    def _at(self, q: int, t: float) -> tuple[float, float]:
        temp, perm, at = self.state[q]
        elapsed = max(0.0, t - at)
        return (
            temp * math.exp(-elapsed / self.p.temporary_days),
            perm * math.exp(-elapsed / self.p.permanent_days),
        )

    def recall(self, q: int, t: float) -> float:
        return sum(self._at(q, t)) if q in self.state else 0.0

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        self.state[q] = (1.0 - self.p.prior_permanent, self.p.prior_permanent, t_last)

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        p = self.p
        met = q in self.state
        temp, perm = self._at(q, t) if met else (0.0, 0.0)
        if recalled:
            learned = temp + perm
            temp, perm = (temp / learned, perm / learned) if learned > 0 else (1.0, 0.0)
            unlearned = 0.0
        else:
            temp, perm, unlearned = 0.0, 0.0, 1.0
        rate = p.fail_rate if met and not recalled else 1.0
        to_p = min(0.95, p.to_permanent * math.exp(p.skill_effect * skill)) * rate
        to_t = min(1.0 - to_p, p.to_temporary * rate)
        self.state[q] = (
            temp * (1 - p.consolidate) + unlearned * to_t,
            perm + temp * p.consolidate + unlearned * to_p,
            t,
        )


@dataclass(frozen=True)
class EstesParams:
    """Estes's stimulus-fluctuation model (Estes 1955, Psychological Review 62): a question's
    cue is a set of elements, a share `active` of them sampled at any moment; a study with
    feedback conditions each active element with probability `learn`; elements swap between
    the active and the inactive sets at `exchange` per day, so what was conditioned drifts out
    of reach (forgetting) and a later study meets fresh elements (spacing). Conditioning is
    also lost at `loss` per day. P(recall) = (conditioned share of the active set) ** `readout`.
    """

    active: float = 0.5
    exchange: float = 1.0  # per day
    learn: float = 0.8  # at skill 0; 1 - (1 - learn) ** exp(skill_effect * skill) otherwise
    skill_effect: float = 0.6
    fail_rate: float = 0.7  # a study after a failed recall conditions at this share
    loss: float = 0.01  # per day
    readout: float = 0.75
    prior_conditioned: float = 0.95


class EstesMemory:
    """Conditioned shares of the active and inactive elements, and when, per question."""

    def __init__(self, p: EstesParams) -> None:
        self.p = p
        self.state: dict[int, tuple[float, float, float]] = {}  # (active, inactive, at)

    def _at(self, q: int, t: float) -> tuple[float, float]:
        active, inactive, at = self.state[q]
        elapsed = max(0.0, t - at)
        mean = self.p.active * active + (1 - self.p.active) * inactive
        mix, keep = math.exp(-self.p.exchange * elapsed), math.exp(-self.p.loss * elapsed)
        return (mean + (active - mean) * mix) * keep, (mean + (inactive - mean) * mix) * keep

    def recall(self, q: int, t: float) -> float:
        return float(self._at(q, t)[0] ** self.p.readout) if q in self.state else 0.0

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        c = self.p.prior_conditioned
        self.state[q] = (c, c, t_last)

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        p = self.p
        met = q in self.state
        active, inactive = self._at(q, t) if met else (0.0, 0.0)
        learn = 1 - (1 - p.learn) ** math.exp(p.skill_effect * skill)
        learn *= p.fail_rate if met and not recalled else 1.0
        self.state[q] = (active + learn * (1 - active), inactive, t)


# Each at its defaults and at the panel's two ends: "fast" (a first memory lasts hours, a
# spaced review gains little, a failure costs much) and "slow" (the other way).
HOLDOUT: dict[str, Callable[[], TrueMemory]] = {
    "ppe": lambda: PpeMemory(PpeParams()),
    "ppe/fast": lambda: PpeMemory(PpeParams(first_half_days=0.25, c=0.05, fail_weight=0.3)),
    "ppe/slow": lambda: PpeMemory(PpeParams(first_half_days=4.0, c=0.2, fail_weight=0.9)),
    "atkinson": lambda: AtkinsonMemory(AtkinsonParams()),
    "atkinson/fast": lambda: AtkinsonMemory(
        AtkinsonParams(temporary_days=0.1, consolidate=0.3, fail_rate=0.4, permanent_days=120)
    ),
    "atkinson/slow": lambda: AtkinsonMemory(
        AtkinsonParams(
            temporary_days=4.0,
            to_permanent=0.4,
            consolidate=0.6,
            fail_rate=1.0,
            permanent_days=730,
        )
    ),
    "estes": lambda: EstesMemory(EstesParams()),
    "estes/fast": lambda: EstesMemory(
        EstesParams(active=0.3, exchange=4.0, learn=0.6, fail_rate=0.4, loss=0.03)
    ),
    "estes/slow": lambda: EstesMemory(
        EstesParams(active=0.6, exchange=0.3, learn=0.9, fail_rate=0.9, loss=0.005)
    ),
}

HOLDOUT_MODELS = tuple(name for name in HOLDOUT if "/" not in name)
