"""What is computed once per question object (its key, its options by misconception, its
pinned and free options) is what computing it afresh gives, for shown copies too."""

from __future__ import annotations

import random

from bot.bank.models import Question
from bot.domain import display
from bot.learning.misconceptions import tagged_options
from bot.learning.simulate.generated_bank import generate_bank


def _questions() -> list[Question]:
    bank = generate_bank(n_questions=40, n_topics=3, seed=41)
    found = []
    for i, q in enumerate(bank.questions.values()):
        if i % 3 == 1:  # the last option pinned ("None of the above")
            last = q.options[-1].model_copy(update={"pin": True})
            q = q.model_copy(update={"options": [*q.options[:-1], last]})
        elif i % 3 == 2:
            q = q.model_copy(update={"shuffle": False})
        found.append(q)
    return found


def _order_afresh(question: Question, rng: random.Random) -> display.Order:
    n = len(question.options)
    if not question.shuffle:
        return tuple(range(n))
    pinned = [i for i, o in enumerate(question.options) if o.pin]
    free = [i for i in range(n) if i not in pinned]
    rng.shuffle(free)
    return (*free, *pinned)


def test_orders_draw_as_computed_afresh_and_shown_copies_keep_their_own_key() -> None:
    questions = _questions()
    kept, fresh = random.Random(42), random.Random(42)
    for _ in range(5):
        for q in questions:
            order = display.shuffled_order(q, kept)
            assert order == _order_afresh(q, fresh)
            assert display.encode_order(order) == ",".join(map(str, order))
            shown = display.displayed(q, order)
            for question in (q, shown):  # the file-order question and its shown copy
                key = frozenset(p for p, o in enumerate(question.options) if o.correct)
                assert question.correct_indices == key
                assert question.select_count == len(key)
    assert kept.random() == fresh.random()  # the same draws, as many


def test_options_by_misconception_are_those_of_the_question() -> None:
    tagged_somewhere = 0
    for q in _questions():
        afresh: dict[str, set[int]] = {}
        for i, o in enumerate(q.options):
            if o.misconception is not None:
                afresh.setdefault(o.misconception, set()).add(i)
        for _ in range(2):
            assert dict(tagged_options(q)) == {m: frozenset(ix) for m, ix in afresh.items()}
        tagged_somewhere += bool(afresh)
    assert tagged_somewhere > 0
