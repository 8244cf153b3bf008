"""A question as one delivery shows it: its options in a stored order, and the version it was.

Answers are stored with FILE indices (item analysis and the memory model rely on that); the
chat works in DISPLAY positions (letters after the shuffle). `order[p]` is the file index of
the option shown at position p.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from functools import lru_cache

from bot.bank.models import Question
from bot.bank.numeric import ascending_order

Order = tuple[int, ...]


def shuffled_order(question: Question, rng: random.Random) -> Order:
    """Display order for one delivery: shuffled unless the question says not to, a pinned
    option ("None of the above") always last; options that are all numbers in one unit always
    from the smallest up."""
    n = len(question.options)
    found = _parts.get(id(question))
    if found is None or found[0] is not question:
        if len(_parts) >= CACHE_SIZE:
            _parts.clear()
        pinned = tuple(i for i, o in enumerate(question.options) if o.pin)
        fixed = ascending_order(question) or (None if question.shuffle else tuple(range(n)))
        kept = [i for i in range(n) if i not in pinned]
        found = _parts[id(question)] = (question, fixed, pinned, kept)
    _, fixed, pinned, kept = found
    if fixed is not None:
        return fixed
    free = kept.copy()
    rng.shuffle(free)
    return (*free, *pinned)


# Per question object (immutable): its fixed order (unshuffled, or numeric options from the
# smallest up, whatever the file says), else its pinned options and the others in file order,
# the others shuffled by every delivery.
_parts: dict[int, tuple[Question, Order | None, Order, list[int]]] = {}


@lru_cache(maxsize=1 << 12)  # a few orders per question are in use at once
def encode_order(order: Order) -> str:
    """Stored form: file indices in display order, comma-separated ('2,0,3,1')."""
    return ",".join(str(i) for i in order)


# Every answer decodes its delivery's order, and a question has a few orders in use at once.
@lru_cache(maxsize=1 << 14)
def decode_order(text: str | None, n_options: int) -> Order:
    """Inverse of encode_order; file order when nothing (or something unusable) is stored."""
    identity = tuple(range(n_options))
    if not text:
        return identity
    try:
        order = tuple(int(p) for p in text.split(","))
    except ValueError:
        return identity
    return order if sorted(order) == list(identity) else identity


def to_file(order: Order, shown: Iterable[int]) -> frozenset[int]:
    """Display positions to file indices (out-of-range positions are dropped)."""
    return frozenset(order[p] for p in shown if 0 <= p < len(order))


def to_display(order: Order, file_indices: Iterable[int]) -> frozenset[int]:
    """File indices to display positions."""
    where = {f: p for p, f in enumerate(order)}
    return frozenset(where[i] for i in file_indices if i in where)


# Permuted copies, one per (question object, order): a bank has a few orders per question in
# use at any time, and renders are cached by the copy's identity downstream.
_displayed: dict[tuple[int, Order], tuple[Question, Question]] = {}
_origins: dict[int, tuple[Question, Question, Order]] = {}  # id(copy) -> (copy, base, order)
CACHE_SIZE = 8192


def displayed(question: Question, order: Order) -> Question:
    """The question with its options in display order (the same object for file order)."""
    if order == tuple(range(len(question.options))):
        return question
    key = (id(question), order)
    found = _displayed.get(key)
    if found is not None and found[0] is question:
        return found[1]
    if len(_displayed) >= CACHE_SIZE:
        _displayed.clear()
        _origins.clear()
    copy = question.model_copy(update={"options": [question.options[i] for i in order]})
    _displayed[key] = (question, copy)
    _origins[id(copy)] = (copy, question, order)
    return copy


def origin(question: Question) -> tuple[Question, Order] | None:
    """The file-order question and order a `displayed` copy was made from (None otherwise):
    lets a cache key a copy by its origin instead of walking its content again."""
    found = _origins.get(id(question))
    return None if found is None or found[0] is not question else (found[1], found[2])


# Every delivery stores its question's version: hashed once per question object (a bank's
# questions are immutable and live as long as the bank is loaded).
_versions: dict[int, tuple[Question, str]] = {}


def question_version(question: Question) -> str:
    """Content hash of what grading depends on: stem, option texts and keys, in file order."""
    found = _versions.get(id(question))
    if found is not None and found[0] is question:
        return found[1]
    if len(_versions) >= CACHE_SIZE:
        _versions.clear()
    version = _version_of(question)
    _versions[id(question)] = (question, version)
    return version


def _version_of(question: Question) -> str:
    h = hashlib.blake2b(digest_size=8)
    h.update(question.stem.strip().encode())
    for option in question.options:
        h.update(b"\x00" + option.text.strip().encode() + (b"\x01" if option.correct else b"\x02"))
    return h.hexdigest()
