"""Inline keyboards for questions, verdicts and topic choice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.bank.models import LETTERS, Bank, Kind, Question
from bot.telegram.views import callbacks, texts

ROW = 4  # letter buttons per row: up to 12 options make three tidy rows


def _rows(
    buttons: list[InlineKeyboardButton], width: int = ROW
) -> list[list[InlineKeyboardButton]]:
    return [buttons[i : i + width] for i in range(0, len(buttons), width)]


def question_keyboard(
    delivery_id: int,
    question: Question,
    selected: frozenset[int] = frozenset(),
    token: str | None = None,
) -> InlineKeyboardMarkup:
    """One button per option letter (of the question as shown); multiple-answer questions
    toggle and then Submit."""
    if question.kind is Kind.SINGLE:
        buttons = [
            InlineKeyboardButton(LETTERS[i], callback_data=callbacks.answer(delivery_id, i, token))
            for i in range(len(question.options))
        ]
        return InlineKeyboardMarkup(_rows(buttons))
    buttons = [
        InlineKeyboardButton(
            f"☑️ {LETTERS[i]}" if i in selected else LETTERS[i],
            callback_data=callbacks.toggle(delivery_id, i, token),
        )
        for i in range(len(question.options))
    ]
    submit = InlineKeyboardButton("Submit ✔️", callback_data=callbacks.submit(delivery_id, token))
    return InlineKeyboardMarkup([*_rows(buttons), [submit]])


def confidence_keyboard(delivery_id: int, token: str | None, chosen: str) -> InlineKeyboardMarkup:
    """After the pick, with confidence on: how sure is the learner of `chosen` (letters)?"""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    texts.SURE_BUTTON.format(chosen=chosen),
                    callback_data=callbacks.confidence(delivery_id, token, True),
                ),
                InlineKeyboardButton(
                    texts.UNSURE_BUTTON.format(chosen=chosen),
                    callback_data=callbacks.confidence(delivery_id, token, False),
                ),
            ],
            [
                InlineKeyboardButton(
                    texts.CHANGE_BUTTON, callback_data=callbacks.change(delivery_id, token)
                )
            ],
        ]
    )


def verdict_markup(delivery_id: int, token: str | None = None) -> dict[str, Any]:
    """After an answer: the next question, or every option explained.

    As Bot API JSON, not PTB objects: it goes under every verdict, and building its two buttons
    as objects (then serialising them) was a tenth of the answer path's CPU.
    """
    return {
        "inline_keyboard": [
            [
                {"text": "Next question ▶️", "callback_data": callbacks.next_question(delivery_id)},
                {
                    "text": "All options explained",
                    "callback_data": callbacks.explain(delivery_id, token),
                },
            ]
        ]
    }


EXAM_OFFER_DAYS = ((14, "In 2 weeks"), (30, "In 1 month"), (90, "In 3 months"))


def exam_offer_keyboard() -> InlineKeyboardMarkup:
    """/start's one-time offer: an exam date in 2 weeks, 1 month, 3 months, or none."""
    buttons = [
        InlineKeyboardButton(label, callback_data=callbacks.exam_offer(days))
        for days, label in EXAM_OFFER_DAYS
    ]
    none = InlineKeyboardButton(texts.EXAM_NO_DATE_BUTTON, callback_data=callbacks.exam_offer(0))
    return InlineKeyboardMarkup([buttons, [none]])


def reset_keyboard(bank_id: str) -> InlineKeyboardMarkup:
    """/reset's confirmation: Yes (names the exam, so a later switch cannot change it) or
    Cancel."""
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(texts.RESET_YES, callback_data=callbacks.reset(bank_id))],
            [InlineKeyboardButton(texts.RESET_NO, callback_data=callbacks.reset(None))],
        ]
    )


def practice_keyboard() -> InlineKeyboardMarkup:
    """Back to normal practice (when /mistakes has nothing left)."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(texts.PRACTICE_BUTTON, callback_data=callbacks.practice())]]
    )


def next_keyboard(delivery_id: int) -> InlineKeyboardMarkup:
    """Just the Next button (under a breakdown)."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    "Next question ▶️", callback_data=callbacks.next_question(delivery_id)
                )
            ]
        ]
    )


def topics_keyboard(
    bank: Bank, current: str | None, others: Sequence[Bank] = ()
) -> InlineKeyboardMarkup:
    """A button per topic of the bank, and All topics; the current choice is ticked.

    When the bot serves several banks (exams), a button per other bank switches to it.
    """

    def label(name: str, on: bool) -> str:
        return f"• {name} •" if on else name

    # Topics without a question would answer "no questions": they are left out.
    buttons = [
        [InlineKeyboardButton(label(t.name, t.id == current), callback_data=callbacks.topic(t.id))]
        for t in bank.topics_with_questions()
    ]
    buttons.append(
        [
            InlineKeyboardButton(
                label(texts.ALL_TOPICS, current is None), callback_data=callbacks.topic(None)
            )
        ]
    )
    buttons += [
        [InlineKeyboardButton(f"📚 {b.meta.title}", callback_data=callbacks.bank(b.id))]
        for b in others
    ]
    return InlineKeyboardMarkup(buttons)


def why_keyboard(url: str) -> InlineKeyboardMarkup:
    """Under a revealed group question: a deep link to the member's own breakdown."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(texts.WHY_BUTTON, url=url)]])


DAILY_TIMES = ("07:00", "08:00", "12:00", "18:00", "20:00", "21:30")


def daily_keyboard(current: str | None) -> InlineKeyboardMarkup:
    """A few common times (the current one marked) and Off."""
    buttons = [
        InlineKeyboardButton(f"• {t} •" if t == current else t, callback_data=callbacks.daily(t))
        for t in DAILY_TIMES
    ]
    off = InlineKeyboardButton(texts.DAILY_OFF_BUTTON, callback_data=callbacks.daily(None))
    return InlineKeyboardMarkup([*_rows(buttons, 3), [off]])
