"""Rendered texts cached by value: equal questions share an entry, an edited one never meets
the old text."""

from __future__ import annotations

import json

from bot.telegram.views import faces, render
from tests import sample_bank


def test_verdict_is_the_rendered_text() -> None:
    bank = sample_bank.bank([sample_bank.question("q1")])
    q = bank.questions["q1"]
    chosen = frozenset({0})
    assert faces.verdict_text(bank, q, chosen, False) == render.verdict_html(
        bank, q, chosen, False
    )


def test_an_edited_question_gets_fresh_text_under_the_same_ids() -> None:
    before = sample_bank.bank([sample_bank.question("q1", stem="Old stem?")])
    after = sample_bank.bank([sample_bank.question("q1", stem="New stem?")])
    chosen = frozenset({1})
    old = faces.verdict_text(before, before.questions["q1"], chosen, True)
    new = faces.verdict_text(after, after.questions["q1"], chosen, True)
    assert "Old stem?" in old and "New stem?" in new
    assert (
        faces.private_push(after, after.questions["q1"])[0][0]
        != (faces.private_push(before, before.questions["q1"])[0][0])
    )


def test_equal_questions_are_one_cache_entry() -> None:
    a = sample_bank.bank([sample_bank.question("q2")])
    b = sample_bank.bank([sample_bank.question("q2")])
    assert faces.Shown(a, a.questions["q2"]) == faces.Shown(b, b.questions["q2"])
    assert faces.frozen(a.questions["q2"]) == faces.frozen(b.questions["q2"])


def test_push_keyboard_template_carries_the_stand_in_id_and_token() -> None:
    bank = sample_bank.bank([sample_bank.question("q3")])
    parts, template = faces.private_push(bank, bank.questions["q3"])
    assert parts[0].startswith("📅")
    buttons = json.loads(template)["inline_keyboard"][0]
    assert buttons[0]["callback_data"] == f"a:{faces.STAND_IN_KEY}:0"
