"""Rendered texts cached by value: equal questions share an entry, an edited one never meets
the old text."""

from __future__ import annotations

import json
import random
from typing import Any

from bot.bank.loader import load_banks
from bot.bank.models import LETTERS, Bank, Question
from bot.config import BUNDLED_QUESTIONS
from bot.domain import display
from bot.telegram.views import render, render_cache
from tests import sample_bank


def test_verdict_is_the_rendered_text() -> None:
    bank = sample_bank.bank([sample_bank.question("q1")])
    q = bank.questions["q1"]
    chosen = frozenset({0})
    assert render_cache.verdict_text(bank, q, chosen, False) == render.verdict_html(
        bank, q, chosen, False
    )


def test_an_edited_question_gets_fresh_text_under_the_same_ids() -> None:
    before = sample_bank.bank([sample_bank.question("q1", stem="Old stem?")])
    after = sample_bank.bank([sample_bank.question("q1", stem="New stem?")])
    chosen = frozenset({1})
    old = render_cache.verdict_text(before, before.questions["q1"], chosen, True)
    new = render_cache.verdict_text(after, after.questions["q1"], chosen, True)
    assert "Old stem?" in old and "New stem?" in new
    assert (
        render_cache.private_push(after, after.questions["q1"])[0][0]
        != (render_cache.private_push(before, before.questions["q1"])[0][0])
    )


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


def _reference_verdict(bank: Bank, q: Question, chosen: frozenset[int], correct: bool) -> str:
    """The verdict rendered straight from the question (as shown), every piece escaped anew."""
    esc = render.esc
    right = render.letters(q.correct_indices)
    parts = [
        "✅ <b>Correct!</b>" if correct else f"❌ <b>Not quite.</b> The answer is <b>{right}</b>.",
        "",
        render.header(bank, q),
        esc(q.stem.strip()),
        "",
    ]
    for i, option in enumerate(q.options):
        mark = "✅" if option.correct else ("❌" if i in chosen else "▫️")
        mine = " ← <i>your answer</i>" if i in chosen else ""
        parts.append(f"{mark} <b>{LETTERS[i]}.</b> {esc(option.text.strip())}{mine}")
    parts.append("")
    label = "Your answer" if len(chosen) == 1 else "Your answers"
    for i in sorted(chosen):
        parts += [f"<b>{label}: {LETTERS[i]}</b>", esc(q.options[i].rationale.strip()), ""]
    if not correct:
        for i in sorted(q.correct_indices - chosen):
            rationale = esc(q.options[i].rationale.strip())
            parts += [f"<b>Correct answer: {LETTERS[i]}</b>", rationale, ""]
    parts += ["<b>Explanation</b>", esc(q.explanation.strip())]
    if q.trap:
        parts += ["", "⚠️ <b>Common exam trap</b>", esc(q.trap.strip())]
    return "\n".join(parts)


def test_verdicts_put_together_from_cached_pieces_equal_a_fresh_render() -> None:
    rng = random.Random(7)
    banks = list(load_banks([BUNDLED_QUESTIONS]).banks.values())
    banks.append(
        sample_bank.bank(
            [
                sample_bank.question("s1", correct=(0, 2), n_options=5, stem="1 < 2 & 3 > 2?"),
                sample_bank.question("s2", trap=None, shuffle=True),
                sample_bank.question("s3", n_options=2, correct=(1,)),
            ]
        )
    )
    checked = 0
    for bank in banks:
        for q in bank.questions.values():
            for _ in range(3):
                shown = display.displayed(q, display.shuffled_order(q, rng))
                n = len(q.options)
                for chosen in (
                    frozenset({rng.randrange(n)}),
                    frozenset(rng.sample(range(n), min(2, n))),
                    shown.correct_indices,
                ):
                    correct = chosen == shown.correct_indices
                    expected = _reference_verdict(bank, shown, chosen, correct)
                    assert render_cache.verdict_text(bank, shown, chosen, correct) == expected
                    assert render.verdict_html(bank, shown, chosen, correct) == expected
                    checked += 1
    assert checked > 1000


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
