"""The push's rendered texts cached by value: equal questions share an entry, an edited one
never meets the old text."""

from __future__ import annotations

import json

from bot.telegram.views import render_cache
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
