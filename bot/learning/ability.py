"""How well a learner does on questions not yet met, per topic, from their first attempts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.learning.blueprint import Blueprint
from bot.learning.memory import MemoryState

# Empirical-Bayes shrinkage: a topic's rate is pulled toward the learner's overall rate by this
# many pseudo-answers, and the overall rate toward PRIOR_RATE by GLOBAL_PSEUDO answers, so two
# lucky guesses do not make a topic look mastered.
TOPIC_PSEUDO = 5.0
GLOBAL_PSEUDO = 8.0
PRIOR_RATE = 0.5


@dataclass(frozen=True, slots=True)
class TopicAbility:
    """First-attempt evidence in one topic and the estimate it gives."""

    met: int  # questions of the topic the learner has answered at least once
    size: int  # questions of the topic in the bank
    first_right: int  # of those met, answered right the first time
    rate: float  # estimated probability of getting an unmet question of the topic right

    @property
    def met_share(self) -> float:
        """Share of the topic's questions met (0 when the topic has none)."""
        return self.met / self.size if self.size else 0.0


def topic_abilities(plan: Blueprint, memory: Mapping[str, MemoryState]) -> dict[str, TopicAbility]:
    """Per declared topic: how much was met and the shrunk first-attempt success rate."""
    met = dict.fromkeys(plan.by_topic, 0)
    right = dict.fromkeys(plan.by_topic, 0)
    for qid, state in memory.items():
        topic = plan.topic_of(qid)
        if topic is None or topic not in met:
            continue
        met[topic] += 1
        right[topic] += state.first_correct
    overall = overall_rate(sum(met.values()), sum(right.values()))
    return {
        t: TopicAbility(
            met=met[t],
            size=len(plan.by_topic[t]),
            first_right=right[t],
            rate=topic_rate(met[t], right[t], overall),
        )
        for t in plan.by_topic
    }


def topic_standing(
    plan: Blueprint, memory: Mapping[str, MemoryState]
) -> Callable[[str], tuple[float, float]]:
    """A topic's share of questions met and first-attempt rate (0 and 0.5 for a topic the
    bank does not have), as `topic_abilities` gives them."""
    abilities = topic_abilities(plan, memory)

    def standing(topic: str) -> tuple[float, float]:
        a = abilities.get(topic)
        return (a.met_share, a.rate) if a else (0.0, 0.5)

    return standing


def overall_rate(met: int, right: int) -> float:
    """The learner's shrunk first-attempt success rate over all topics."""
    return (right + GLOBAL_PSEUDO * PRIOR_RATE) / (met + GLOBAL_PSEUDO)


def topic_rate(met: int, right: int, overall: float) -> float:
    """A topic's first-attempt success rate, shrunk toward the learner's `overall` one."""
    return (right + TOPIC_PSEUDO * overall) / (met + TOPIC_PSEUDO)
