"""The study queue: which question to ask next (the /mistakes queue: `bot.learning.mistakes`)."""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import filterfalse

from bot.learning.ability import topic_standing
from bot.learning.blueprint import Blueprint
from bot.learning.forgetting import COVER_DAYS, QueueMode
from bot.learning.memory import (
    Confidence,
    MemoryState,
    micros,
    recalls,
)
from bot.learning.misconceptions import MisconceptionState
from bot.learning.queue_modes import longest_unseen, most_at_risk, most_valuable

DEFAULT_HORIZON_DAYS = 30


@dataclass(frozen=True, slots=True)
class QueueSettings:
    """The few knobs of the study queue (defaults are what the bot uses)."""

    target_retention: float = 0.85  # a met question is due once its recall falls below this
    final_review_days: int = 3  # the last days before the exam introduce nothing new on pace
    default_horizon_days: int = DEFAULT_HORIZON_DAYS  # plan without an exam date
    weakness_boost: float = 1.0  # how much a weak topic is preferred for new questions
    retest_after_hours: float = 12.0  # a misconception is re-tested no sooner than this
    new_per_review_when_behind: int = 2  # behind the pace: this many new questions per review
    cover_review_every: int = 8  # covering first: one answer in this many reviews a week-old one


DEFAULT_SETTINGS = QueueSettings()


class Reason(StrEnum):
    MISCONCEPTION = "misconception"  # re-test of an active misconception
    REVIEW = "review"  # a met question whose recall fell below the target
    NEW = "new"  # a question never answered
    PRACTICE = "practice"  # nothing due or new: the most forgotten question


@dataclass(frozen=True, slots=True)
class Today:
    """The learner's current day: its local date, its start in UTC, what was answered so far."""

    date: dt.date
    start: dt.datetime
    answered: int = 0
    new: int = 0  # of those, questions met for the first time


@dataclass(frozen=True, slots=True)
class Pick:
    """The chosen question and why."""

    question_id: str
    reason: Reason


@dataclass(frozen=True, slots=True)
class Learner:
    """Everything the queue knows about one learner on one bank."""

    memory: Mapping[str, MemoryState]
    today: Today
    exam_date: dt.date | None = None
    topic: str | None = None  # the topic chosen in /topics (None: all)
    misconceptions: Mapping[str, MisconceptionState] = field(default_factory=dict)
    last_question_id: str | None = None


def today_from_memory(
    memory: Mapping[str, MemoryState],
    date: dt.date,
    start: dt.datetime,
) -> Today:
    """Today's counts derived from memory states (a question met today has one review)."""
    answered = new = 0
    start_us = micros(start)  # integers: the comparison of the two times, without datetimes
    for state in memory.values():
        if state.last_us >= start_us:
            answered += 1
            new += state.reps == 1
    return Today(date=date, start=start, answered=answered, new=new)


def days_left(exam_date: dt.date | None, today: dt.date, settings: QueueSettings) -> int:
    """Days of study left including today (the default horizon without an exam date)."""
    if exam_date is None:
        return settings.default_horizon_days
    return max(0, (exam_date - today).days)


def _exam_is_near(learner: Learner, s: QueueSettings) -> bool:
    """The learner set an exam date and is within its final review days."""
    if learner.exam_date is None:
        return False
    return days_left(learner.exam_date, learner.today.date, s) <= s.final_review_days


def _quota(unmet: int, learner: Learner, s: QueueSettings) -> int:
    study_days = days_left(learner.exam_date, learner.today.date, s) - s.final_review_days
    if study_days <= 0:
        return 0
    return math.ceil((unmet + learner.today.new) / study_days)


def _prefer_other_topic(plan: Blueprint, ids: Sequence[str], last: str | None) -> list[str]:
    # Interleaving: stay away from the topic just practised while another one is on offer.
    topic_of = plan.topic_by_question.get
    last_topic = topic_of(last) if last else None
    if last_topic is None:
        other = [q for q in ids if topic_of(q) is not None]
    else:
        # A question is of the last topic when it is in that topic's set (a set test in C).
        other = list(filterfalse(plan.topic_sets[last_topic].__contains__, ids))
    return other or list(ids)


def misconception_retest(
    plan: Blueprint,
    learner: Learner,
    pool_ids: Iterable[str],
    now: dt.datetime,
    s: QueueSettings,
    rng: random.Random,
) -> str | None:
    """A question re-testing an active misconception met before today and at least
    `retest_after_hours` ago, in another wording than the one that activated it; None if none."""
    waited = dt.timedelta(hours=s.retest_after_hours)
    due = [
        m
        for m in learner.misconceptions.values()
        if m.active and m.last_event_at < learner.today.start and now - m.last_event_at >= waited
    ]
    if not due:
        return None
    pool = set(pool_ids)
    for m in sorted(due, key=lambda m: (m.last_event_at, m.misconception_id)):
        ids = [
            q
            for q in plan.by_misconception.get(m.misconception_id, ())
            if q in pool and q != m.activated_by
        ]
        if ids:
            # Least recently met first, so the learner sees the idea in a fresh wording.
            far_past = dt.datetime.min.replace(tzinfo=dt.UTC)
            rng.shuffle(ids)
            return min(
                ids,
                key=lambda q: learner.memory[q].last_review if q in learner.memory else far_past,
            )
    return None


def _unmet_by_topic(
    plan: Blueprint, learner: Learner, pool: Collection[str]
) -> dict[str, list[str]]:
    """The pool's unmet questions per topic (topics with none left out), in bank order."""
    memory = learner.memory
    # The question just asked left the pool unless it was the only one.
    skip = None if learner.last_question_id in pool else learner.last_question_id
    groups = plan.in_order_by_topic
    if learner.topic is not None:
        groups = {learner.topic: groups.get(learner.topic, ())}
    found: dict[str, list[str]] = {}
    for topic, ids in groups.items():
        left = [q for q in ids if q not in memory]
        if skip in left:
            left.remove(skip)
        if left:
            found[topic] = left
    return found


def _new_question(
    plan: Blueprint,
    learner: Learner,
    unmet_in: Mapping[str, Sequence[str]],
    s: QueueSettings,
    rng: random.Random,
) -> str:
    standing = topic_standing(plan, learner.memory)
    # A topic's pull is the exam share one of its questions carries (weight / questions).
    per_question, mean_value = plan.pull, plan.mean_pull
    topics = sorted(unmet_in)
    last_topic = plan.topic_of(learner.last_question_id) if learner.last_question_id else None
    if len(topics) > 1 and last_topic in topics:
        topics.remove(last_topic)

    def lag(topic: str) -> float:
        # Coverage so far divided by how much the topic deserves: the most behind goes next.
        share, rate = standing(topic)
        boost = (per_question.get(topic, 0.0) / mean_value) * (1 + s.weakness_boost * (1 - rate))
        return share / boost if boost > 0 else math.inf

    rng.shuffle(topics)
    topic = min(topics, key=lag)
    return rng.choice(unmet_in[topic])


def choose_next(
    plan: Blueprint,
    learner: Learner,
    now: dt.datetime,
    rng: random.Random,
    settings: QueueSettings = DEFAULT_SETTINGS,
    mode: QueueMode = QueueMode.STANDARD,
) -> Pick | None:
    """The next question for a learner, or None when the chosen topic has no question.

    `mode` comes from the memory model the learner is on (`bot.learning.forgetting.mode_for`)."""
    s = settings
    if learner.topic is None:
        pool = list(plan.in_order)
    else:
        pool = list(plan.in_order_by_topic.get(learner.topic, ()))
    if len(pool) > 1 and learner.last_question_id in pool:
        pool.remove(learner.last_question_id)
    if not pool:
        return None
    memory = learner.memory
    unmet = _unmet_by_topic(plan, learner, pool)
    # The last days before an exam stay for review, as in the standard queue.
    cover = mode is QueueMode.COVER and not _exam_is_near(learner, s)
    if cover and unmet:
        # Covering first asks nothing again until the bank is met, so the nightly fit that
        # chose it would get no review at the lag it decided on and could not change its
        # mind: a few answers review the question met longest ago, once it is a week old.
        if s.cover_review_every and (learner.today.answered + 1) % s.cover_review_every == 0:
            stale = longest_unseen(memory, pool, now - dt.timedelta(days=COVER_DAYS))
            if stale is not None:
                return Pick(stale, Reason.REVIEW)
        return Pick(most_valuable(plan, unmet, learner.last_question_id, rng), Reason.NEW)
    # Covering first skips a misconception's re-test, an early review of the idea: when
    # memories last, its questions met and explained stay answered from memory, and the
    # exam share at risk (below) brings any of them back once it is being forgotten.
    if learner.misconceptions and not cover:
        retest = misconception_retest(plan, learner, pool, now, s, rng)
        if retest is not None:
            return Pick(retest, Reason.MISCONCEPTION)
    # Recall under the memory model the learner is on, fitted to the answers. Bending it
    # further by how the learner's reviews went (as readiness does) was level on the learner
    # panel and kept a cell lost: the fit has already read those reviews.
    recall = recalls(memory, pool, now)
    if cover:
        return Pick(most_at_risk(plan, pool, recall, rng), Reason.PRACTICE)
    target = s.target_retention
    due = [q for q, r in recall.items() if r < target]
    today = learner.today
    behind = today.new < _quota(sum(map(len, unmet.values())), learner, s)
    reviews_today = today.answered - today.new
    # While behind the day's pace of new questions, new ones come two for each review (the day
    # opens with a review), so due reviews can never crowd out the coverage of the blueprint.
    catch_up = behind and today.new < s.new_per_review_when_behind * reviews_today
    if unmet and (not due or catch_up):
        return Pick(_new_question(plan, learner, unmet, s, rng), Reason.NEW)

    ranked = _prefer_other_topic(plan, due or list(recall), learner.last_question_id)
    return Pick(
        _most_urgent(plan, memory, recall, ranked, rng),
        Reason.REVIEW if due else Reason.PRACTICE,
    )


def _most_urgent(
    plan: Blueprint,
    memory: Mapping[str, MemoryState],
    recall: Mapping[str, float],
    ranked: Sequence[str],
    rng: random.Random,
) -> str:
    """The first of `ranked` by urgency: a confident error, then any error, then the rest;
    within a tier the largest exam share at risk (value × forgetting); a random draw per
    question, in `ranked` order, breaks ties."""
    rand = rng.random
    value, sure = plan.value, Confidence.SURE
    # One flat tuple per question (tier, share at risk, draw, position): what a key function
    # returning ((tier, share), draw) would order, without two calls a question. The position
    # keeps min's choice of the first among equals.
    keys = [
        (
            (0 if s.last_confidence is sure else 1) if not (s := memory[q]).last_correct else 2,
            -value[q] * (1 - recall[q]),
            rand(),
            i,
        )
        for i, q in enumerate(ranked)
    ]
    return ranked[min(keys)[3]]
