"""A learner's misconceptions: picking a tagged distractor activates one, avoiding it resolves."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from bot.bank.models import Question

AVOIDANCES_TO_RESOLVE = 2


@dataclass(frozen=True, slots=True)
class MisconceptionState:
    """Where one learner stands with one misconception."""

    misconception_id: str
    active: bool
    activated_at: dt.datetime  # the last time a tagged distractor was picked
    activated_by: str  # question id of that answer: a re-test must use another question
    last_event_at: dt.datetime  # last answer to a question carrying this misconception
    avoidances: int  # avoidances in a row since the last activation
    resolved_at: dt.datetime | None = None


def tagged_options(question: Question) -> Mapping[str, frozenset[int]]:
    """Option indices of a question by the misconception they carry."""
    found = _TAGGED.get(id(question))
    if found is not None and found[0] is question:
        return found[1]
    if len(_TAGGED) >= TAGGED_KEPT:
        _TAGGED.clear()
    tags: dict[str, set[int]] = {}
    for i, option in enumerate(question.options):
        if option.misconception is not None:
            tags.setdefault(option.misconception, set()).add(i)
    tagged = MappingProxyType({m: frozenset(ix) for m, ix in tags.items()})
    _TAGGED[id(question)] = (question, tagged)
    return tagged


# Every answer asks which of its question's options carry a misconception: computed once per
# question object (immutable; a shuffled copy is an object of its own).
_TAGGED: dict[int, tuple[Question, Mapping[str, frozenset[int]]]] = {}
TAGGED_KEPT = 16_384


def after_answer(
    states: Mapping[str, MisconceptionState],
    question: Question,
    chosen: Collection[int],
    at: dt.datetime,
) -> dict[str, MisconceptionState]:
    """The states that change when the learner picks `chosen` (file order) on `question`.

    Picking an option tagged with M activates M (again). Answering another question tagged with
    an active M without picking M's option is an avoidance; two in a row resolve M. A question
    that carries no tag changes nothing.
    """
    changed: dict[str, MisconceptionState] = {}
    picked = set(chosen)
    for mid, options in tagged_options(question).items():
        old = states.get(mid)
        if picked & options:
            changed[mid] = MisconceptionState(
                misconception_id=mid,
                active=True,
                activated_at=at,
                activated_by=question.id,
                last_event_at=at,
                avoidances=0,
            )
        elif old is not None and old.active and question.id != old.activated_by:
            avoidances = old.avoidances + 1
            resolved = avoidances >= AVOIDANCES_TO_RESOLVE
            changed[mid] = replace(
                old,
                active=not resolved,
                last_event_at=at,
                avoidances=avoidances,
                resolved_at=at if resolved else None,
            )
    return changed


def active(states: Mapping[str, MisconceptionState]) -> list[MisconceptionState]:
    """Active misconceptions, the most recently activated first (what /stats lists)."""
    live = [s for s in states.values() if s.active]
    return sorted(live, key=lambda s: s.activated_at, reverse=True)
