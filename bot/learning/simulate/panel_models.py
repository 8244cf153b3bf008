"""Six more ground-truth memory models from the literature, for the panel the study queue is
checked on (the project's first two are in `truth`). None of them is FSRS.

Time is in days; each model follows `truth.TrueMemory`. Every parameter is a dataclass field,
and each model names the three the panel sweeps: how long a first memory lasts (`first`), how
much a spaced review gains (`gain`) and how much a failure costs (`cost`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from bot.learning.simulate.holdout_models import HOLDOUT
from bot.learning.simulate.truth import (
    HalfLifeMemory,
    HalfLifeParams,
    PowerLawMemory,
    PowerLawParams,
    TrueMemory,
    logistic,
)

_MINUTES = 1440.0  # ACT-R reads ages in minutes, at least one (so age ** -d stays at most 1)


@dataclass(frozen=True)
class ActRParams:
    """ACT-R declarative memory with activation-dependent decay (Pavlik & Anderson 2005,
    Cognitive Science 29): m = ln sum_j w_j * age_j ** -d_j (ages in minutes), d_j = c *
    exp(m at study j) + a; P(recall) = logistic((m - tau) / s), tau set by `first_half_days`.
    A trace laid down after a failed recall counts `fail_weight`.
    """

    decay_scale: float = 0.217  # c: the stronger the memory at a study, the faster it decays
    decay_floor: float = 0.177  # a
    noise: float = 0.255  # s
    first_half_days: float = 1.0  # one study at skill 0 is recalled with p = 0.5 this late
    skill_effect: float = 0.25  # activation added per unit of skill
    fail_weight: float = 0.6  # strength of the trace laid down after a failed recall
    prior_traces: int = 6  # studies, a week apart, of a question known before studying


class ActRMemory:
    """Traces (time, decay, weight) per question."""

    def __init__(self, p: ActRParams) -> None:
        self.p = p
        self.tau = -p.decay_floor * math.log(p.first_half_days * _MINUTES)
        self.traces: dict[int, list[tuple[float, float, float]]] = {}
        self.skill: dict[int, float] = {}

    def _activation(self, q: int, t: float) -> float:
        total = sum(
            w * max(1.0, (t - at) * _MINUTES) ** -d
            for at, d, w in self.traces.get(q, ())
            if at <= t
        )
        if total <= 0:
            return -math.inf
        return math.log(total) + self.p.skill_effect * self.skill.get(q, 0.0)

    def recall(self, q: int, t: float) -> float:
        m = self._activation(q, t)
        return 0.0 if m == -math.inf else logistic((m - self.tau) / self.p.noise)

    def _study(self, q: int, t: float, weight: float) -> None:
        m = self._activation(q, t)
        d = self.p.decay_floor + (0.0 if m == -math.inf else self.p.decay_scale * math.exp(m))
        self.traces.setdefault(q, []).append((t, d, weight))

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        self.skill[q] = skill
        for k in range(self.p.prior_traces, 0, -1):
            self._study(q, t_last - 7 * (k - 1), 1.0)

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        self.skill[q] = skill
        # A first study is no failed recall: nothing was there to recall.
        failed = not recalled and q in self.traces
        self._study(q, t, self.p.fail_weight if failed else 1.0)


@dataclass(frozen=True)
class DashParams:
    """DASH (Lindsey, Shroyer, Pashler & Mozer 2014, Psychological Science 25): recall is
    logistic in ability, difficulty and log counts of study and right answers in windows of
    time before now (1 hour, 1 day, 1 week, 1 month, all time): counts leave the short windows
    as time passes, which is forgetting, and long windows fill only with spaced practice."""

    windows: tuple[float, ...] = (1 / 24, 1.0, 7.0, 30.0, math.inf)
    study_weights: tuple[float, ...] = (2.0, 1.2, 0.6, 0.4, 0.2)
    right_weights: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.5)
    bias: float = -1.2
    skill_effect: float = 0.8
    fail_penalty: float = 0.3  # subtracted per log count of failed recalls, all time
    prior_right: int = 5  # right answers credited, spread over the month before, when known


class DashMemory:
    """Study events (time, right) per question."""

    def __init__(self, p: DashParams) -> None:
        self.p = p
        self.events: dict[int, list[tuple[float, bool]]] = {}
        self.skill: dict[int, float] = {}

    def recall(self, q: int, t: float) -> float:
        events = self.events.get(q)
        if not events:
            return 0.0
        p = self.p
        x = p.bias + p.skill_effect * self.skill.get(q, 0.0)
        for window, ws, wr in zip(p.windows, p.study_weights, p.right_weights, strict=True):
            inside = [ok for at, ok in events if 0 <= t - at <= window]
            x += ws * math.log1p(len(inside)) + wr * math.log1p(sum(inside))
        x -= p.fail_penalty * math.log1p(sum(not ok for _, ok in events))
        return logistic(x)

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        self.skill[q] = skill
        self.events[q] = [(t_last - 30 * k / self.p.prior_right, True) for k in range(5)]

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        self.skill[q] = skill
        self.events.setdefault(q, []).append((t, recalled))


@dataclass(frozen=True)
class McmParams:
    """Multiscale Context Model (Mozer, Pashler, Cepeda, Lindsey & Vul 2009, NIPS 22): traces
    at time scales spaced geometrically decay exponentially; a study raises each trace by the
    error left by the faster ones (so a review while memory is strong adds little: the spacing
    effect), and recall reads their weighted sum."""

    first_scale_days: float = 0.05  # time constant of the fastest trace; others x `ratio`
    ratio: float = 6.0
    traces: int = 5
    weight_decay: float = 0.8  # trace i weighs weight_decay ** i
    learning_rate: float = 0.7  # epsilon of the error-correcting increment
    fail_rate: float = 0.5  # increment multiplier after a failed recall
    skill_effect: float = 0.4  # learning rate scales by exp(skill_effect * skill), at most 1
    readout: float = 2.5  # recall = min(1, readout * weighted strength)


class McmMemory:
    """Trace strengths and the time they were last updated, per question."""

    def __init__(self, p: McmParams) -> None:
        self.p = p
        self.scales = [p.first_scale_days * p.ratio**i for i in range(p.traces)]
        self.weights = [p.weight_decay**i for i in range(p.traces)]
        self.strength: dict[int, list[float]] = {}
        self.last: dict[int, float] = {}

    def _now(self, q: int, t: float) -> list[float]:
        age = max(0.0, t - self.last[q])
        return [x * math.exp(-age / s) for x, s in zip(self.strength[q], self.scales, strict=True)]

    def recall(self, q: int, t: float) -> float:
        if q not in self.strength:
            return 0.0
        xs = self._now(q, t)
        strength = sum(w * x for w, x in zip(self.weights, xs, strict=True)) / sum(self.weights)
        return min(1.0, self.p.readout * strength)

    def _study(self, q: int, t: float, rate: float) -> None:
        xs = self._now(q, t) if q in self.strength else [0.0] * self.p.traces
        total = weight = 0.0
        for i, w in enumerate(self.weights):
            # The error left by the faster traces (already updated) and this one.
            error = 1.0 - (total + w * xs[i]) / (weight + w)
            xs[i] = min(1.0, xs[i] + rate * max(0.0, error))
            total, weight = total + w * xs[i], weight + w
        self.strength[q], self.last[q] = xs, t

    def _rate(self, skill: float) -> float:
        return min(1.0, self.p.learning_rate * math.exp(self.p.skill_effect * skill))

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        for k in range(4, -1, -1):
            self._study(q, t_last - 7 * k, self._rate(skill))

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        failed = not recalled and q in self.strength  # a first study is no failed recall
        self._study(q, t, self._rate(skill) * (self.p.fail_rate if failed else 1.0))


@dataclass(frozen=True)
class TwoComponentParams:
    """Wozniak's two-component model of long-term memory (Wozniak, Gorzelanczyk & Murakowski
    1995, Acta Neurobiologiae Experimentalis 55): retrievability R = exp(-ln 2 * t / S) and
    stability S; a recall multiplies S by an increase that grows as R fell (spacing) and shrinks
    as S grows; a lapse keeps only a share of S."""

    first_stability: float = 1.0  # days of half-life after a first study, at skill 0
    skill_effect: float = 0.6
    gain: float = 5.0  # SInc = 1 + gain * S ** -0.2 * (exp(2 * (1 - R)) - 1)
    lapse_keep: float = 0.3  # share of S kept after a failed recall (never below first)
    prior_stability: float = 40.0


class TwoComponentMemory:
    """Stability and time of the last review per question."""

    def __init__(self, p: TwoComponentParams) -> None:
        self.p = p
        self.stability: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def recall(self, q: int, t: float) -> float:
        s = self.stability.get(q)
        return 0.0 if s is None else 2.0 ** (-max(0.0, t - self.last[q]) / s)

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
            new = s * (1 + p.gain * s**-0.2 * (math.exp(2 * (1 - r)) - 1))
        else:
            new = max(first, s * p.lapse_keep)
        self.stability[q], self.last[q] = new, t


@dataclass(frozen=True)
class ExponentialParams:
    """Ebbinghaus's exponential forgetting curve with no spacing effect (Ebbinghaus 1885;
    the exponential form of Loftus 1985): R = exp(-t / h); every right answer multiplies h by
    `gain` and every failure by `cost`, whenever they happen (massed practice counts as much
    as spaced)."""

    first_days: float = 1.0  # h after a first study, at skill 0
    skill_effect: float = 0.6
    gain: float = 2.2
    cost: float = 0.7
    prior_days: float = 60.0


class ExponentialMemory:
    """Time constant and time of the last review per question."""

    def __init__(self, p: ExponentialParams) -> None:
        self.p = p
        self.h: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def recall(self, q: int, t: float) -> float:
        h = self.h.get(q)
        return 0.0 if h is None else math.exp(-max(0.0, t - self.last[q]) / h)

    def learn_prior(self, q: int, t_last: float, skill: float) -> None:
        self.h[q] = self.p.prior_days * math.exp(self.p.skill_effect * skill)
        self.last[q] = t_last

    def update(self, q: int, t: float, recalled: bool, skill: float) -> None:
        p = self.p
        h = self.h.get(q)
        if h is None:
            new = p.first_days * math.exp(p.skill_effect * skill)
        else:
            new = h * (p.gain if recalled else p.cost)
        self.h[q], self.last[q] = new, t


@dataclass(frozen=True)
class StrongSpacingParams:
    """A strong spacing effect (the lag effect of Cepeda, Pashler, Vul, Wixted & Rohrer 2006,
    Psychological Bulletin 132, taken to its limit): a right answer adds to stability in
    proportion to the time since the last study, so massed repetition gains nothing and a
    review late in the curve gains most; power-law forgetting R = (1 + t / (9 S)) ** -1."""

    first_stability: float = 0.5  # days, at skill 0
    skill_effect: float = 0.6
    gain: float = 1.5  # S += gain * elapsed days * R
    lapse_keep: float = 0.4
    prior_stability: float = 30.0


class StrongSpacingMemory:
    """Stability and time of the last review per question."""

    def __init__(self, p: StrongSpacingParams) -> None:
        self.p = p
        self.stability: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def recall(self, q: int, t: float) -> float:
        s = self.stability.get(q)
        return 0.0 if s is None else 1.0 / (1.0 + max(0.0, t - self.last[q]) / (9 * s))

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
            elapsed = max(0.0, t - self.last[q])
            new = s + p.gain * elapsed * self.recall(q, t)
        else:
            new = max(first, s * p.lapse_keep)
        self.stability[q], self.last[q] = new, t


# The panel's sweep: each model at its defaults and at two ends of its key parameters, "fast"
# (a first memory lasts hours, a spaced review gains little, a failure costs much) and "slow"
# (a first memory lasts days, reviews gain much, failures cost little).
PANEL: dict[str, Callable[[], TrueMemory]] = {
    "power-law": lambda: PowerLawMemory(PowerLawParams()),
    "power-law/fast": lambda: PowerLawMemory(
        PowerLawParams(first_stability=0.1, growth=8.0, relearn_factor=0.05)
    ),
    "power-law/slow": lambda: PowerLawMemory(
        PowerLawParams(first_stability=3.0, growth=35.0, relearn_factor=0.8)
    ),
    "half-life": lambda: HalfLifeMemory(HalfLifeParams()),
    "half-life/fast": lambda: HalfLifeMemory(HalfLifeParams(bias=-3.5, w_right=2.8, w_wrong=-0.8)),
    "half-life/slow": lambda: HalfLifeMemory(HalfLifeParams(bias=-0.5, w_right=3.3, w_wrong=-0.1)),
    "act-r": lambda: ActRMemory(ActRParams()),
    "act-r/fast": lambda: ActRMemory(
        ActRParams(first_half_days=0.1, decay_scale=0.35, fail_weight=0.3)
    ),
    "act-r/slow": lambda: ActRMemory(
        ActRParams(first_half_days=4.0, decay_scale=0.12, fail_weight=0.9)
    ),
    "dash": lambda: DashMemory(DashParams()),
    "dash/fast": lambda: DashMemory(
        DashParams(bias=-2.5, right_weights=(0.0, 0.1, 0.2, 0.3, 0.25), fail_penalty=0.8)
    ),
    "dash/slow": lambda: DashMemory(
        DashParams(bias=-0.3, right_weights=(0.0, 0.3, 0.6, 0.9, 0.75), fail_penalty=0.1)
    ),
    "mcm": lambda: McmMemory(McmParams()),
    "mcm/fast": lambda: McmMemory(
        McmParams(first_scale_days=0.01, learning_rate=0.5, fail_rate=0.2)
    ),
    "mcm/slow": lambda: McmMemory(
        McmParams(first_scale_days=0.2, learning_rate=0.85, fail_rate=0.8)
    ),
    "two-component": lambda: TwoComponentMemory(TwoComponentParams()),
    "two-component/fast": lambda: TwoComponentMemory(
        TwoComponentParams(first_stability=0.15, gain=2.0, lapse_keep=0.1)
    ),
    "two-component/slow": lambda: TwoComponentMemory(
        TwoComponentParams(first_stability=4.0, gain=8.0, lapse_keep=0.6)
    ),
    "exponential": lambda: ExponentialMemory(ExponentialParams()),
    "exponential/fast": lambda: ExponentialMemory(
        ExponentialParams(first_days=0.3, gain=1.8, cost=0.5)
    ),
    "exponential/slow": lambda: ExponentialMemory(
        ExponentialParams(first_days=4.0, gain=3.0, cost=0.9)
    ),
    "strong-spacing": lambda: StrongSpacingMemory(StrongSpacingParams()),
    "strong-spacing/fast": lambda: StrongSpacingMemory(
        StrongSpacingParams(first_stability=0.08, gain=0.7, lapse_keep=0.15)
    ),
    "strong-spacing/slow": lambda: StrongSpacingMemory(
        StrongSpacingParams(first_stability=2.0, gain=3.0, lapse_keep=0.7)
    ),
}

MODELS = tuple(name for name in PANEL if "/" not in name)


TRUTH_NAMES = (*PANEL, *HOLDOUT)


def make_memory(truth: str) -> TrueMemory:
    """A fresh ground-truth memory of a panel or held-out model, e.g. "act-r/fast"."""
    model = PANEL.get(truth) or HOLDOUT.get(truth)
    if model is None:
        raise ValueError(f"unknown ground truth {truth!r}; choose from {', '.join(TRUTH_NAMES)}")
    return model()
