"""Readiness: the predicted exam score with a range, and the probability of passing."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.learning.ability import topic_abilities
from bot.learning.blueprint import Blueprint
from bot.learning.memory import (
    DAY_SECONDS,
    MemoryState,
    calibration,
    recall_probability,
)

MIN_ANSWERS = 40
MIN_MET_PER_TOPIC = 3  # answered questions before a topic counts as met for the estimate
MIN_BLUEPRINT_MET = 0.5  # share of the blueprint weight in topics met
# Spread of the estimate that does not shrink with more answers: the memory model's parameters
# are not this learner's exactly, so recall itself is uncertain (in score points per unit of
# blueprint weight resting on memory rather than on first-attempt evidence). It is one error
# for every topic (the same curve and parameters), so the topics' shares add up, rather than
# averaging out as sampling errors do.
MODEL_SD = 0.06
Z90 = 1.645
# A thin-tailed alternative to FSRS-6's curve: exponential forgetting (Ebbinghaus; half-life
# regression), recall = TAIL_BASE ** (elapsed / stability), 90% at one stability like FSRS.
# FSRS-6's power-law tail is heavy: a question met once or twice and left for weeks keeps a
# predicted recall of 0.6-0.8. A learner's reviews, made when the queue chose, cannot tell the
# two shapes apart, but a learner whose reviews go worse than FSRS predicts (exponent g > 1)
# is the one for whom the heavy tail is least credible, so the estimate moves toward the thin
# tail by g - 1 (fully at g >= 2), and the lower end of the range always allows for it.
TAIL_BASE = 0.9


@dataclass(frozen=True, slots=True)
class MockResult:
    """A finished mock exam: right and asked per topic."""

    at: dt.datetime
    by_topic: Mapping[str, tuple[int, int]]


@dataclass(frozen=True, slots=True)
class TopicReadiness:
    """Predicted score on one topic (percent) and the share of its questions met."""

    score: float
    met: float


@dataclass(frozen=True, slots=True)
class Readiness:
    """The estimate, or what is missing for one (score fields None when not enough data)."""

    enough_data: bool
    score: float | None
    low: float | None
    high: float | None
    pass_probability: float | None
    passing_score: float
    topics: Mapping[str, TopicReadiness]
    answers: int
    answers_missing: int  # answers still needed before the estimate is shown
    topics_missing: tuple[str, ...]  # topics with too few answers, heaviest first


def p_right(recall: float, chance: float) -> float:
    """Probability of a right answer: recalled, or not recalled but guessed right."""
    return recall + (1.0 - recall) * chance


def _normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def readiness(
    plan: Blueprint,
    memory: Mapping[str, MemoryState],
    now: dt.datetime,
    at: dt.datetime | None = None,
    mocks: Sequence[MockResult] = (),
) -> Readiness:
    """Predicted blueprint-weighted exam score for an exam sat at `at` (default: now)."""
    when = at or now
    abilities = topic_abilities(plan, memory)
    # A question missed minutes ago is one FSRS counts as recalled: the learner saw the answer.
    # It counts at the share of that recall this learner has kept at the next sitting.
    cal = calibration(memory.values(), plan.mean_chance)
    g, kept = cal.g, cal.kept
    thin = thin_tail_weight(g)
    answers = sum(s.reps for q, s in memory.items() if q in plan.questions)
    topics: dict[str, TopicReadiness] = {}
    mean = var_sampling = sd_model = thin_tail = 0.0
    weight_total = sum(w for t, w in plan.weight.items() if plan.by_topic.get(t))
    for topic, ids in plan.by_topic.items():
        if not ids:
            continue
        a = abilities[topic]
        probs = []
        tail_gap = 0.0  # summed P(right) lost if memory decays exponentially, not as FSRS says
        for q in ids:
            state = memory.get(q)
            if state is None:
                probs.append(a.rate)
            else:
                share = 1.0 if state.last_correct else kept
                heavy = recall_probability(state, when) ** g
                r_thin = share * _thin_tail_recall(state, when)
                p = p_right(share * (1.0 - thin) * heavy + thin * r_thin, plan.chance[q])
                probs.append(p)
                tail_gap += max(0.0, p - p_right(r_thin, plan.chance[q]))
        score = sum(probs) / len(ids)
        right, asked = _mock_evidence(mocks, topic, now)
        if asked:
            # A mock is a direct sample of the topic score: pool it with the model as if the
            # model were worth MOCK_PSEUDO questions.
            score = (score * MOCK_PSEUDO + right) / (MOCK_PSEUDO + asked)
        topics[topic] = TopicReadiness(score=100 * score, met=a.met_share)
        w = plan.weight[topic] / weight_total
        mean += w * score
        thin_tail += w * tail_gap / len(ids)
        unmet = 1.0 - a.met_share
        var_sampling += (w * unmet) ** 2 * a.rate * (1 - a.rate) / (a.met + 5.0)
        sd_model += w * a.met_share * MODEL_SD
    missing = tuple(
        t
        for t in sorted(plan.by_topic, key=lambda t: -plan.weight[t])
        if plan.by_topic[t] and abilities[t].met < min(MIN_MET_PER_TOPIC, len(plan.by_topic[t]))
    )
    met_weight = sum(
        plan.weight[t] for t in plan.by_topic if plan.by_topic[t] and t not in missing
    )
    enough = answers >= MIN_ANSWERS and met_weight / weight_total >= MIN_BLUEPRINT_MET
    if not enough:
        return Readiness(
            False,
            None,
            None,
            None,
            None,
            plan.passing_score,
            topics,
            answers,
            max(0, MIN_ANSWERS - answers),
            missing,
        )
    var_model = sd_model**2
    sd = math.sqrt(var_sampling + var_model + (MODEL_SD / 3) ** 2)
    # The range's model error grows with g: the further the learner's reviews depart from
    # FSRS toward forgetting, the less its stabilities (not only its tail) can be trusted, and
    # that either way (a learner relearning in quick succession may hold on better than FSRS's
    # short-term stabilities say).
    sd_range = math.sqrt(var_sampling + (var_model + (MODEL_SD / 3) ** 2) * max(1.0, g) ** 2)
    score = 100 * mean
    z = (mean - plan.passing_score / 100) / sd
    return Readiness(
        True,
        score,
        max(0.0, 100 * (mean - thin_tail - Z90 * sd_range)),
        min(100.0, 100 * (mean + Z90 * sd_range)),
        _normal_cdf(z),
        plan.passing_score,
        topics,
        answers,
        0,
        missing,
    )


def thin_tail_weight(g: float) -> float:
    """Weight of the thin-tailed curve: 0 unless reviews show faster forgetting than FSRS."""
    return min(1.0, max(0.0, g - 1.0))


def _thin_tail_recall(state: MemoryState, at: dt.datetime) -> float:
    elapsed = max(0.0, (at - state.last_review).total_seconds() / DAY_SECONDS)
    return float(TAIL_BASE ** (elapsed / state.stability))


MOCK_PSEUDO = 10.0
MOCK_MAX_AGE = dt.timedelta(days=14)


def _mock_evidence(mocks: Sequence[MockResult], topic: str, now: dt.datetime) -> tuple[int, int]:
    right = asked = 0
    for mock in mocks:
        if now - mock.at <= MOCK_MAX_AGE and topic in mock.by_topic:
            r, n = mock.by_topic[topic]
            right, asked = right + r, asked + n
    return right, asked
