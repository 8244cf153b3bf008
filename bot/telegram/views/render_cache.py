"""The daily push's question messages cached by value: every subscriber who gets the same
question gets the same HTML and keyboard, so a push to many renders each question once.

The cache key is the question's content (every field, recursively) and its topic's name, not
the objects' identity: a reloaded bank with an edited question meets a fresh entry, and a field
added to the bank format joins the key by itself. Computing that key walks the whole question,
so it is computed once per (frozen, immutable) question object and kept with it.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from bot.bank.models import Bank, Kind, Question
from bot.domain import display
from bot.telegram.views import keyboards, render, texts
from bot.telegram.views.html_split import split_html

STAND_IN_ID = 987654321987654321  # 18 digits: cannot collide with other callback text
STAND_IN_TOKEN = "zz00"
STAND_IN_KEY = f"{STAND_IN_ID}:{STAND_IN_TOKEN}"  # where each delivery's id:token goes
CACHE_SIZE = 4096


def frozen(value: Any) -> Hashable:
    """A hashable copy of a model's content: fields in order, lists as tuples."""
    if isinstance(value, BaseModel):
        return (
            type(value).__name__,
            *(frozen(getattr(value, f)) for f in type(value).model_fields),
        )
    if isinstance(value, list | tuple):
        return tuple(frozen(v) for v in value)
    return value  # type: ignore[no-any-return]


class Shown:
    """A question as shown in one bank: equal and hashed by content, carrying the objects."""

    __slots__ = ("_hash", "bank", "key", "question")
    key: tuple[str, Hashable]

    def __init__(self, bank: Bank, question: Question) -> None:
        topic = bank.meta.topic(question.topic)
        self.bank = bank
        self.question = question
        made = display.origin(question)
        # A shuffled copy is its file question in an order: keyed so, without a second walk.
        content = frozen(question) if made is None else (shown(bank, made[0]).key, made[1])
        self.key = (topic.name if topic else question.topic, content)
        self._hash = hash(self.key)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Shown) and self.key == other.key)

    def __hash__(self) -> int:
        return self._hash


# Bank and question objects are frozen: the key of one pair never changes. Both are kept in
# the Shown, so their ids cannot be reused while an entry lives.
_shown: dict[tuple[int, int], Shown] = {}


def shown(bank: Bank, question: Question) -> Shown:
    """The Shown of a question in a bank (its key computed once per object pair)."""
    found = _shown.get((id(bank), id(question)))
    if found is None or found.bank is not bank or found.question is not question:
        if len(_shown) >= CACHE_SIZE:
            _shown.clear()
        found = _shown[(id(bank), id(question))] = Shown(bank, question)
    return found


@lru_cache(maxsize=CACHE_SIZE)
def _push_parts(shown: Shown) -> tuple[str, ...]:
    return tuple(split_html(texts.DAILY_HEADER + render.question_text(shown.bank, shown.question)))


# The answer keyboard of a question depends on its kind and number of options only (letters in
# the order shown, callbacks by position): one JSON template per shape, however many questions
# and option orders a push sends, instead of keyboard objects built and serialised per send.
_keyboards: dict[tuple[Kind, int], str] = {}


def _keyboard_template(question: Question) -> str:
    shape = (question.kind, len(question.options))
    found = _keyboards.get(shape)
    if found is None:
        keyboard = keyboards.question_keyboard(STAND_IN_ID, question, token=STAND_IN_TOKEN)
        found = _keyboards[shape] = json.dumps(keyboard.to_dict())
    return found


def private_push(bank: Bank, question: Question) -> tuple[tuple[str, ...], str]:
    """A daily question's message parts (rendered once per question and option order) and its
    keyboard as JSON with STAND_IN_KEY where each delivery's id and token go (one per shape of
    question)."""
    return _push_parts(shown(bank, question)), _keyboard_template(question)
