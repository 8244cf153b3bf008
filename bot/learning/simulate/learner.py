"""A simulated learner: ability per topic, item difficulty, memory, guessing, misconceptions."""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations

from bot.learning.blueprint import Blueprint
from bot.learning.simulate.panel_models import make_memory
from bot.learning.simulate.truth import TrueMemory, logistic

DIFFICULTY_OFFSET = {"easy": -0.7, "medium": 0.0, "hard": 0.7}


@dataclass(frozen=True)
class LearnerParams:
    """Population the learners are drawn from (Rasch-style ability and difficulty)."""

    ability_sd: float = 0.7  # learner's general ability ~ N(0, sd)
    topic_sd: float = 0.5  # per-topic deviation ~ N(0, sd)
    item_sd: float = 0.6  # question difficulty ~ label offset + N(0, sd)
    prior_offset: float = 1.2  # P(known before study) = logistic(skill - prior_offset)
    prior_last_days: float = 30.0  # a known question was last used up to this long ago
    misconception_rate: float = 0.35  # chance of holding each misconception of the bank
    misconception_pull: float = 0.6  # not recalling: picks the tagged distractor this often
    misconception_cure: float = 0.3  # after picking it and seeing feedback, drops it this often


class SimLearner:
    """One learner; question indices follow `order` (the plan's question ids)."""

    def __init__(
        self, plan: Blueprint, truth: str, params: LearnerParams, rng: random.Random
    ) -> None:
        self.plan = plan
        self.rng = rng
        self.order = list(plan.questions)
        self.index = {q: i for i, q in enumerate(self.order)}
        general = rng.gauss(0, params.ability_sd)
        ability = {t: general + rng.gauss(0, params.topic_sd) for t in plan.by_topic}
        self.ability = ability
        self.skill = [
            ability[plan.questions[q].topic]
            - DIFFICULTY_OFFSET[plan.questions[q].difficulty.value]
            - rng.gauss(0, params.item_sd)
            for q in self.order
        ]
        self.p = params
        self.memory: TrueMemory = make_memory(truth)
        for i, s in enumerate(self.skill):
            if rng.random() < logistic(s - params.prior_offset):
                self.memory.learn_prior(i, -rng.uniform(0, params.prior_last_days), s)
        self.held = {
            m.id for m in plan.meta.misconceptions if rng.random() < params.misconception_rate
        }
        # Per question: the options tagged with a held misconception, and the guess chance.
        self._weights = [plan.value[q] for q in self.order]

    def _tagged_held(self, qid: str) -> list[int]:
        q = self.plan.questions[qid]
        return [i for i, o in enumerate(q.options) if o.misconception in self.held]

    def p_right(self, i: int, t: float) -> float:
        """True probability of answering question i right at time t."""
        qid = self.order[i]
        r = self.memory.recall(i, t)
        guess = self.plan.chance[qid]
        if self.held and self._tagged_held(qid):
            guess *= 1 - self.p.misconception_pull
        return r + (1 - r) * guess

    def true_score(self, t: float) -> float:
        """Expected exam score in percent at t: blueprint-weighted mean of P(right)."""
        total = sum(w * self.p_right(i, t) for i, w in enumerate(self._weights))
        return 100 * total / sum(self._weights)

    def answer(self, qid: str, t: float) -> tuple[frozenset[int], bool]:
        """Answer at t: the options picked (file order) and whether that is right; learns."""
        i = self.index[qid]
        q = self.plan.questions[qid]
        correct = q.correct_indices
        recalled = self.rng.random() < self.memory.recall(i, t)
        tagged = self._tagged_held(qid) if self.held else []
        if recalled:
            chosen = correct
        elif tagged and self.rng.random() < self.p.misconception_pull:
            chosen = frozenset(
                self.rng.sample(tagged, 1)
                if q.select_count == 1
                else [*self.rng.sample(tagged, 1), *self.rng.sample(sorted(correct), 1)]
            )
        else:
            chosen = frozenset(
                self.rng.choice(list(combinations(range(len(q.options)), q.select_count)))
            )
        picked_tags = {q.options[k].misconception for k in chosen} & self.held
        for m in picked_tags:
            if self.rng.random() < self.p.misconception_cure:
                self.held.discard(m)
        self.memory.update(i, t, recalled, self.skill[i])
        return chosen, chosen == correct
