"""Inline keyboards for questions, verdicts and topic choice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.bank.models import LETTERS, Bank, Kind, Question
from bot.telegram.views import callbacks, texts

ROW = 4  # letter buttons per row: up to 12 options make three tidy rows


def _button(text: str, data: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, callback_data=data)


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
            _button(LETTERS[i], callbacks.ANSWER(delivery_id, token, i))
            for i in range(len(question.options))
        ]
        return InlineKeyboardMarkup(_rows(buttons))
    buttons = [
        _button(
            f"☑️ {LETTERS[i]}" if i in selected else LETTERS[i],
            callbacks.TOGGLE(delivery_id, token, i),
        )
        for i in range(len(question.options))
    ]
    submit = _button("Submit ✔️", callbacks.SUBMIT(delivery_id, token))
    return InlineKeyboardMarkup([*_rows(buttons), [submit]])


def confidence_keyboard(delivery_id: int, token: str | None, chosen: str) -> InlineKeyboardMarkup:
    """After the pick, with confidence on: how sure is the learner of `chosen` (letters)?"""
    sure, unsure = (
        texts.SURE_BUTTON.format(chosen=chosen),
        texts.UNSURE_BUTTON.format(chosen=chosen),
    )
    return InlineKeyboardMarkup(
        [
            [
                _button(sure, callbacks.CONFIDENCE(delivery_id, token, "s")),
                _button(unsure, callbacks.CONFIDENCE(delivery_id, token, "u")),
            ],
            [_button(texts.CHANGE_BUTTON, callbacks.CHANGE(delivery_id, token))],
        ]
    )


def verdict_markup(delivery_id: int, token: str | None = None) -> dict[str, Any]:
    """After an answer: the next question, every option explained, or report the question.

    As Bot API JSON, not PTB objects: it goes under every verdict, and objects would be built
    only to be serialised again.
    """
    return {
        "inline_keyboard": [
            [
                {"text": "Next question ▶️", "callback_data": callbacks.NEXT(delivery_id)},
                {
                    "text": "All options explained",
                    "callback_data": callbacks.EXPLAIN(delivery_id, token),
                },
            ],
            [{"text": texts.REPORT_BUTTON, "callback_data": callbacks.REPORT(delivery_id, token)}],
        ]
    }


def report_reasons_keyboard(delivery_id: int, token: str | None) -> InlineKeyboardMarkup:
    """Why the learner reports the question: one button per reason."""
    return InlineKeyboardMarkup.from_column(
        [
            _button(label, callbacks.REPORT_WHY(delivery_id, reason, token))
            for reason, label in texts.REPORT_REASONS.items()
        ]
    )


EXAM_OFFER_DAYS = ((14, "In 2 weeks"), (30, "In 1 month"), (90, "In 3 months"))


def exam_offer_keyboard() -> InlineKeyboardMarkup:
    """/start's one-time offer: an exam date in 2 weeks, 1 month, 3 months, or none."""
    buttons = [_button(label, callbacks.EXAM_OFFER(days)) for days, label in EXAM_OFFER_DAYS]
    none = _button(texts.EXAM_NO_DATE_BUTTON, callbacks.EXAM_OFFER(0))
    return InlineKeyboardMarkup([buttons, [none]])


def reset_keyboard(bank_id: str) -> InlineKeyboardMarkup:
    """/reset's confirmation: Yes (names the exam, so a later switch cannot change it) or
    Cancel."""
    yes = _button(texts.RESET_YES, callbacks.RESET(bank_id))
    return InlineKeyboardMarkup.from_column(
        [yes, _button(texts.RESET_NO, callbacks.RESET(callbacks.RESET_CANCEL))]
    )


def practice_keyboard() -> InlineKeyboardMarkup:
    """Back to normal practice (when /mistakes has nothing left)."""
    return InlineKeyboardMarkup.from_button(
        _button(texts.PRACTICE_BUTTON, callbacks.PRACTICE("go"))
    )


def next_keyboard(delivery_id: int) -> InlineKeyboardMarkup:
    """Just the Next button (under a breakdown)."""
    return InlineKeyboardMarkup.from_button(
        _button("Next question ▶️", callbacks.NEXT(delivery_id))
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
        [_button(label(t.name, t.id == current), callbacks.TOPIC(t.id))]
        for t in bank.topics_with_questions()
    ]
    buttons.append(
        [_button(label(texts.ALL_TOPICS, current is None), callbacks.TOPIC(callbacks.ALL_TOPICS))]
    )
    buttons += [[_button(f"📚 {b.meta.title}", callbacks.BANK(b.id))] for b in others]
    return InlineKeyboardMarkup(buttons)


def why_keyboard(url: str) -> InlineKeyboardMarkup:
    """Under a revealed group question: a deep link to the member's own breakdown."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(texts.WHY_BUTTON, url=url)]])


DAILY_TIMES = ("07:00", "08:00", "12:00", "18:00", "20:00", "21:30")


def daily_free_keyboard(free: str) -> InlineKeyboardMarkup:
    """One button that takes the nearest daily time with room (HH:MM)."""
    take = _button(
        texts.DAILY_TAKE_BUTTON.format(free=free), callbacks.DAILY(free.replace(":", ""))
    )
    return InlineKeyboardMarkup([[take]])


def daily_keyboard(current: str | None) -> InlineKeyboardMarkup:
    """A few common times (the current one marked) and Off."""
    buttons = [
        _button(f"• {t} •" if t == current else t, callbacks.DAILY(t.replace(":", "")))
        for t in DAILY_TIMES
    ]
    off = _button(texts.DAILY_OFF_BUTTON, callbacks.DAILY("off"))
    return InlineKeyboardMarkup([*_rows(buttons, 3), [off]])
