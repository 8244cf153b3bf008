"""Ground-truth memory of a simulated learner: two different models, neither the engine's own.

Time is in days since the start of the simulation. Each model answers one question: how likely
is the learner to recall question q at time t, and how does that change after an answer with
feedback (the bot always shows the right answer and the explanation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol


def logistic(x: float) -> float:
    """The logistic function, 1 / (1 + e^-x): the memory models' and the learner's link."""
    return 1.0 / (1.0 + math.exp(-x))


class TrueMemory(Protocol):
    """What the simulator needs of a ground-truth memory model for one learner."""

    def recall(self, q: int, t: float) -> float:
        """Probability of recalling question q at time t (0 if never learned)."""
        ...

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        """The learner already knew q before the simulation, last used at t_last (<= 0)."""
        ...

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        """After an answer at t with feedback; `skill` is ability minus question difficulty."""
        ...


@dataclass(frozen=True)
class PowerLawParams:
    """FSRS-4.5-like forgetting curve and stability updates (Ye, Su & Cao 2022; open-spaced-
    repetition's FSRS papers), with a steeper decay than the engine's FSRS-6 default."""

    decay: float = 0.5  # R = (1 + factor * t / S) ** -decay; FSRS-6's default is 0.154
    first_stability: float = 0.8  # days, after first seeing the answer, at skill 0
    skill_effect: float = 0.6  # stability scales by exp(skill_effect * skill)
    growth: float = 20.0  # recall success: S *= 1 + growth * S**-0.15 * (exp(1 - R) - 1)
    relearn_factor: float = 0.3  # lapse: S = first * (1 + relearn_factor * ln(1 + S_old))
    prior_stability: float = 30.0  # days, for questions known before studying


class PowerLawMemory:
    """Stability per question; spacing matters (more growth when recall had dropped)."""

    def __init__(self, params: PowerLawParams) -> None:
        self.p = params
        self.factor = 0.9 ** (-1 / params.decay) - 1  # so that R(S) = 0.9
        self.stability: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def recall(self, q: int, t: float) -> float:
        s = self.stability.get(q)
        if s is None:
            return 0.0
        return float((1 + self.factor * max(0.0, t - self.last[q]) / s) ** -self.p.decay)

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        self.stability[q] = self.p.prior_stability * math.exp(self.p.skill_effect * skill)
        self.last[q] = t_last

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        p = self.p
        first = p.first_stability * math.exp(p.skill_effect * skill)
        s = self.stability.get(q)
        if s is None:
            new = first
        elif recalled:
            r = self.recall(q, t)
            new = s * (1 + p.growth * s**-0.15 * (math.exp(1 - r) - 1))
        else:
            new = max(first, first * (1 + p.relearn_factor * math.log1p(s)))
        self.stability[q] = new
        self.last[q] = t


@dataclass(frozen=True)
class HalfLifeParams:
    """Half-life regression (Settles & Meeder 2016, Duolingo): p = 2 ** (-elapsed / h),
    log2 h = bias + w_right * sqrt(1 + right) + w_wrong * sqrt(1 + wrong) + w_skill * skill.
    No spacing effect: every exposure counts the same whenever it happens."""

    bias: float = -1.5
    w_right: float = 3.0
    w_wrong: float = -0.3
    w_skill: float = 0.8
    prior_right: int = 8  # exposures credited to a question known before studying


class HalfLifeMemory:
    """Right/wrong exposure counts per question and the time of the last one."""

    def __init__(self, params: HalfLifeParams) -> None:
        self.p = params
        self.right: dict[int, int] = {}
        self.wrong: dict[int, int] = {}
        self.last: dict[int, float] = {}
        self.half_life: dict[int, float] = {}

    def recall(self, q: int, t: float) -> float:
        h = self.half_life.get(q)
        if h is None:
            return 0.0
        return float(2.0 ** (-max(0.0, t - self.last[q]) / h))

    def _refresh(self, q: int, skill: float) -> None:
        p = self.p
        log2h = (
            p.bias
            + p.w_right * math.sqrt(1 + self.right.get(q, 0))
            + p.w_wrong * math.sqrt(1 + self.wrong.get(q, 0))
            + p.w_skill * skill
        )
        self.half_life[q] = 2.0**log2h

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        self.right[q] = self.p.prior_right
        self.last[q] = t_last
        self._refresh(q, skill)

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        if recalled:
            self.right[q] = self.right.get(q, 0) + 1
        else:
            self.wrong[q] = self.wrong.get(q, 0) + 1
        self.last[q] = t
        self._refresh(q, skill)


TRUTHS = ("power-law", "half-life")  # the two the CLI runs by default ("both")
