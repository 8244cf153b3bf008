"""The push's rendered texts cached by value: equal questions share an entry, an edited one
never meets the old text."""

from __future__ import annotations

import json
import random
from typing import Any

from bot.bank.loader import load_banks
from bot.config import BUNDLED_QUESTIONS
from bot.domain import display
from bot.telegram.views import render, render_cache
from tests import sample_bank


def test_an_edited_question_gets_a_fresh_push_text_under_the_same_ids() -> None:
    before = sample_bank.bank([sample_bank.question("q1", stem="Old stem?")])
    after = sample_bank.bank([sample_bank.question("q1", stem="New stem?")])
    old = render_cache.private_push(before, before.questions["q1"])[0][0]
    new = render_cache.private_push(after, after.questions["q1"])[0][0]
    assert "Old stem?" in old and "New stem?" in new


def test_equal_questions_are_one_cache_entry() -> None:
    a = sample_bank.bank([sample_bank.question("q2")])
    b = sample_bank.bank([sample_bank.question("q2")])
    assert render_cache.Shown(a, a.questions["q2"]) == render_cache.Shown(b, b.questions["q2"])
    assert render_cache.frozen(a.questions["q2"]) == render_cache.frozen(b.questions["q2"])


def test_push_keyboard_template_carries_the_stand_in_id_and_token() -> None:
    bank = sample_bank.bank([sample_bank.question("q3")])
    parts, template = render_cache.private_push(bank, bank.questions["q3"])
    assert parts[0].startswith("📅")
    buttons = json.loads(template)["inline_keyboard"][0]
    assert buttons[0]["callback_data"] == f"a:{render_cache.STAND_IN_KEY}:0"


def test_a_push_keyboard_is_built_once_per_shape_of_question(monkeypatch: Any) -> None:
    from bot.telegram.views import keyboards

    bank = load_banks([BUNDLED_QUESTIONS]).banks["genai-llm"]
    built: list[str] = []
    real = keyboards.question_keyboard

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(args[1].id)
        return real(*args, **kwargs)

    monkeypatch.setattr(keyboards, "question_keyboard", counting)
    render_cache._keyboards.clear()
    rng = random.Random(4)
    pushed = []
    for question in list(bank.questions.values())[:60]:
        order = display.shuffled_order(question, rng)
        shown = display.displayed(question, order)
        parts, template = render_cache.private_push(bank, shown)
        key = "12:ab12"
        markup = json.loads(template.replace(render_cache.STAND_IN_KEY, key))
        assert markup == real(12, shown, token="ab12").to_dict()
        assert parts and render.question_text(bank, shown) in "".join(parts)
        pushed.append((shown.kind, len(shown.options)))
    # Sixty questions in their own orders, a handful of shapes: one keyboard built per shape.
    assert len(built) == len(set(pushed)) < 10
