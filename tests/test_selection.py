"""choose_next, the what-to-ask-next rule, as a plain function."""

from __future__ import annotations

import random

from bot.domain.selection import Seen, choose_next

RNG = random.Random(0)


def test_no_candidates_gives_none() -> None:
    assert choose_next([], {}, RNG) is None


def test_unseen_questions_come_first() -> None:
    history = {"a": Seen(10.0, False), "b": Seen(5.0, True)}
    picks = {choose_next(["a", "b", "c", "d"], history, random.Random(i)) for i in range(30)}
    assert picks == {"c", "d"}


def test_then_wrong_or_unanswered_least_recent_first() -> None:
    history = {
        "right-old": Seen(1.0, True),
        "wrong-new": Seen(30.0, False),
        "unanswered": Seen(20.0, None),
        "latest": Seen(40.0, True),
    }
    assert choose_next(list(history), history, RNG) == "unanswered"


def test_then_the_right_answer_longest_ago() -> None:
    history = {"a": Seen(3.0, True), "b": Seen(1.0, True), "c": Seen(2.0, True)}
    assert choose_next(["a", "b", "c"], history, RNG) == "b"


def test_the_question_seen_last_never_comes_twice_in_a_row() -> None:
    history = {"only-wrong": Seen(9.0, False), "right": Seen(1.0, True)}
    assert choose_next(["only-wrong", "right"], history, RNG) == "right"


def test_a_single_seen_question_is_asked_again() -> None:
    assert choose_next(["a"], {"a": Seen(1.0, True)}, RNG) == "a"


def test_ties_break_on_the_id() -> None:
    history = {"b": Seen(1.0, False), "a": Seen(1.0, False), "z": Seen(5.0, True)}
    assert choose_next(["b", "a", "z"], history, RNG) == "a"
