"""Drawing a mock exam: blueprint weights, largest remainders, difficulty mix, freshness."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bot.bank.models import Question
from bot.domain.display import shuffled_order
from bot.mock.blueprint import Draw, TooSmall, apportion, draw, plan
from bot.mock.models import ExamKind
from tests import sample_bank
from tests.mock_bank import bank, q, three_topics


def test_largest_remainder_rounding_of_the_blueprint() -> None:
    weights = {"ft": 18, "data": 14, "opt": 18, "eval": 16, "safety": 16, "prompt": 18}
    # Quotas 10.8, 8.4, 10.8, 9.6, 9.6, 10.8: floors give 56, the four largest remainders get
    # one more each (0.8 x3, then the first-listed 0.6).
    assert apportion(weights, 60) == {
        "ft": 11, "data": 8, "opt": 11, "eval": 10, "safety": 9, "prompt": 11,
    }  # fmt: skip
    assert sum(apportion(weights, 7).values()) == 7


def test_a_topic_short_of_questions_gives_its_share_to_the_others() -> None:
    shares = apportion({"a": 50, "b": 30, "c": 20}, 10, {"a": 2, "b": 10, "c": 10})
    assert shares == {"a": 2, "b": 5, "c": 3}  # 8 split 30:20 = 4.8 / 3.2
    with pytest.raises(ValueError):
        apportion({"a": 1}, 3, {"a": 2})


def test_draw_follows_weights_and_difficulty_mix_without_repeats() -> None:
    b = three_topics(per_topic=12)
    result = draw(b, 20, set(), random.Random(3))
    assert isinstance(result, Draw)
    ids = result.question_ids
    assert len(ids) == len(set(ids)) == 20
    topics = Counter(b.questions[i].topic for i in ids)
    assert topics == {"a": 10, "b": 6, "c": 4} == result.per_topic
    # Topic a: 6 easy, 3 medium, 3 hard in the bank; 10 of 12 drawn -> 5 / 2.5 / 2.5 -> 5, 3, 2
    # (the tie goes to the difficulty met first).
    mix_a = Counter(b.questions[i].difficulty.value for i in ids if b.questions[i].topic == "a")
    assert sorted(mix_a.values()) == [2, 3, 5] and mix_a["easy"] == 5


def test_draw_is_reproducible_from_its_seed_and_shuffles_topics() -> None:
    b = three_topics()
    one = draw(b, 15, set(), random.Random(42))
    two = draw(b, 15, set(), random.Random(42))
    other = draw(b, 15, set(), random.Random(43))
    assert isinstance(one, Draw) and isinstance(other, Draw)
    assert one == two and one.question_ids != other.question_ids
    assert [b.questions[i].topic for i in one.question_ids] != sorted(
        b.questions[i].topic for i in one.question_ids
    )


def test_questions_met_in_earlier_mocks_come_last() -> None:
    diffs = ["easy", "easy", "medium", "hard"]
    qs = [q(f"{t}{i:02d}", t, diffs[i % 4]) for t in "abc" for i in range(8)]
    # 24 questions, equal weights: each draw of 12 takes 4 per topic (2 easy, 1 medium, 1 hard).
    b = bank(qs, dict.fromkeys("abc", 100 / 3))
    first = draw(b, 12, set(), random.Random(1))
    assert isinstance(first, Draw)
    second = draw(b, 12, set(first.question_ids), random.Random(2))
    assert isinstance(second, Draw)
    # Two full draws cover the bank: nothing of the first is asked again while fresh ones remain
    # in the same topic and difficulty.
    assert not set(first.question_ids) & set(second.question_ids)
    assert set(first.question_ids) | set(second.question_ids) == set(b.questions)
    third = draw(b, 12, set(b.questions) - {"a00", "b01"}, random.Random(3))
    assert isinstance(third, Draw) and {"a00", "b01"} <= set(third.question_ids)


def test_bank_smaller_than_the_exam_says_how_many_it_can_give() -> None:
    b = three_topics(per_topic=3)
    assert draw(b, 10, set(), random.Random(0)) == TooSmall(requested=10, available=9)
    whole = draw(b, 9, set(), random.Random(0))
    assert isinstance(whole, Draw) and set(whole.question_ids) == set(b.questions)


def test_exam_plans_full_short_and_reduced() -> None:
    genai = bank([q("x", "a")], {"a": 100}, exam=(60, 90)).meta
    assert plan(genai) == plan(genai, ExamKind.FULL)
    assert (plan(genai).questions, plan(genai).seconds) == (60, 90 * 60)
    short = plan(genai, ExamKind.SHORT)
    assert (short.questions, short.seconds) == (15, 23 * 60)  # 22.5 minutes rounds up
    small = bank([q("x", "a")], {"a": 100}, exam=(10, 15)).meta
    assert (plan(small, ExamKind.SHORT).questions, plan(small, ExamKind.SHORT).seconds) == (3, 300)
    tiny = bank([q("x", "a")], {"a": 100}, exam=(1, 1)).meta
    assert (plan(tiny, ExamKind.SHORT).questions, plan(tiny, ExamKind.SHORT).seconds) == (1, 60)
    reduced = plan(genai, ExamKind.REDUCED, 45)
    assert (reduced.questions, reduced.seconds) == (45, 68 * 60)  # 67.5 minutes at the same pace
    with pytest.raises(ValueError):
        plan(genai, ExamKind.REDUCED)


def _pinned_question() -> Question:
    data = sample_bank.question("p1", n_options=5, shuffle=True).model_dump()
    data["options"][-1]["pin"] = True
    return Question.model_validate(data)


def test_option_order_keeps_a_pinned_option_last_and_respects_no_shuffle() -> None:
    pinned = _pinned_question()
    orders = {shuffled_order(pinned, random.Random(s)) for s in range(40)}
    assert all(o[-1] == 4 and sorted(o) == [0, 1, 2, 3, 4] for o in orders)
    assert len(orders) > 5  # the free options really are shuffled
    fixed = sample_bank.question("f1").model_copy(update={"shuffle": False})
    assert {shuffled_order(fixed, random.Random(s)) for s in range(10)} == {(0, 1, 2, 3)}
