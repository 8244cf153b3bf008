"""Inline keyboards of mock exams: letters, moves, the jump grid (paged), Finish, confirmations.

Telegram allows at most 100 buttons in a keyboard and 8 in a row: the grid shows GRID_PAGE
questions at a time, so the largest screen (12 letters, moves, a grid page, its pager, Finish)
stays under 50 buttons whatever the exam's size.
"""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.bank.models import LETTERS
from bot.mock.models import Exam
from bot.plural import plural
from bot.telegram.views import mock_texts
from bot.telegram.views.callbacks import (
    BACK_TO_EXAM,
    BESIDE_MOCK,
    MOCK_MOVE,
    MOCK_OFFER,
    MOCK_REVIEW,
    MOCK_REVIEW_SHOWN,
    PAUSE_MOCK,
)

LETTER_ROW = 4
GRID_ROW = 5
GRID_PAGE = 20


def _button(text: str, data: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, callback_data=data)


def _move(exam: Exam, action: str, number: int | str = "") -> str:
    """A button acting on the exam as shown at its current question."""
    return MOCK_MOVE(exam.id, exam.current, f"{action}{number}", exam.token)


def grid_page_of(position: int) -> int:
    """The grid page that holds a question."""
    return position // GRID_PAGE


def _grid_label(exam: Exam, q: int) -> str:
    item = exam.items[q]
    mark = ("✓" if item.answered else "") + ("🚩" if item.flagged else "")
    label = f"{q + 1}{mark}"
    return f"·{label}·" if q == exam.current else label


def _key(text: str, data: str) -> dict[str, str]:
    return {"text": text, "callback_data": data}


def screen_markup(exam: Exam, page: int | None = None) -> dict[str, Any]:
    """Letters (ticked when chosen), ◀ Prev · 🚩 Flag · Next ▶, a page of the grid, Finish.

    As Bot API JSON, not PTB objects: a tap re-renders some 30 buttons, and building them as
    objects (then parsing them back from the edited message) cost more than the rest of a tap.
    """
    pos = exam.current
    item = exam.items[pos]
    chosen = item.chosen_display
    multiple = item.select_count > 1
    letters = []
    for d in range(len(item.order)):
        on = d in chosen
        data = _move(exam, "r" if on and multiple else "a", d)
        letters.append(_key(f"☑️ {LETTERS[d]}" if on else LETTERS[d], data))
    rows = [letters[i : i + LETTER_ROW] for i in range(0, len(letters), LETTER_ROW)]
    moves = []
    if pos > 0:
        moves.append(_key("◀ Prev", _move(exam, "p")))
    flag = ("🚩 Unflag", "u") if item.flagged else ("🚩 Flag", "f")
    moves.append(_key(flag[0], _move(exam, flag[1])))
    if pos < exam.size - 1:
        moves.append(_key("Next ▶", _move(exam, "n")))
    rows.append(moves)
    pages = (exam.size + GRID_PAGE - 1) // GRID_PAGE
    page = min(max(grid_page_of(pos) if page is None else page, 0), pages - 1)
    first = page * GRID_PAGE
    grid = [
        _key(_grid_label(exam, q), _move(exam, "g", q))
        for q in range(first, min(first + GRID_PAGE, exam.size))
    ]
    rows += [grid[i : i + GRID_ROW] for i in range(0, len(grid), GRID_ROW)]
    if pages > 1:
        pager = []
        if page > 0:
            back = f"« {first - GRID_PAGE + 1}–{first}"
            pager.append(_key(back, _move(exam, "v", page - 1)))
        if page < pages - 1:
            ahead = f"{first + GRID_PAGE + 1}–{min(first + 2 * GRID_PAGE, exam.size)} »"
            pager.append(_key(ahead, _move(exam, "v", page + 1)))
        rows.append(pager)
    rows.append([_key("🏁 Finish", _move(exam, "e"))])
    return {"inline_keyboard": rows}


def confirm_keyboard(exam: Exam) -> InlineKeyboardMarkup:
    """Finish anyway, or back to the question."""
    finish, back = _move(exam, "y"), _move(exam, "b")
    return InlineKeyboardMarkup.from_row(
        [_button("🏁 Finish now", finish), _button("◀ Back to the exam", back)]
    )


def beside_keyboard(exam: Exam, practice: str) -> InlineKeyboardMarkup:
    """While an exam runs, /quiz or /mistakes (`practice`): back to the exam, pause it and
    practise, or practise beside it; practice leaves the exam's questions out either way."""
    return InlineKeyboardMarkup(
        [
            [_button(mock_texts.BACK_TO_EXAM_BUTTON, BESIDE_MOCK(BACK_TO_EXAM))],
            [_button(mock_texts.PAUSE_EXAM_BUTTON, PAUSE_MOCK(exam.id, practice, exam.token))],
            [_button(mock_texts.OUTSIDE_EXAM_BUTTON, BESIDE_MOCK(practice))],
        ]
    )


def stop_keyboard(exam: Exam) -> InlineKeyboardMarkup:
    """Abandon, or keep going."""
    abandon, keep = _move(exam, "x"), _move(exam, "c")
    return InlineKeyboardMarkup.from_row(
        [_button("Yes, abandon it", abandon), _button("No, keep going", keep)]
    )


def offer_keyboard(questions: int, minutes: int) -> InlineKeyboardMarkup:
    """Start the shorter exam the bank can give."""
    label = f"Start {plural(questions, 'question')} · {minutes} min"
    return InlineKeyboardMarkup([[_button(label, MOCK_OFFER(questions))]])


def review_start_keyboard(exam_id: int, mistakes: int) -> InlineKeyboardMarkup | None:
    """ "Review mistakes" under a result (none when every answer was right)."""
    if not mistakes:
        return None
    return InlineKeyboardMarkup(
        [[_button(mock_texts.MOCK_REVIEW_BUTTON.format(n=mistakes), MOCK_REVIEW(exam_id, 0))]]
    )


def review_keyboard(exam_id: int, index: int, total: int) -> InlineKeyboardMarkup | None:
    """◀ ▶ between mistakes, edited in place."""
    row = []
    if index > 0:
        row.append(_button("◀ Previous", MOCK_REVIEW_SHOWN(exam_id, index - 1)))
    if index < total - 1:
        row.append(_button("Next mistake ▶", MOCK_REVIEW_SHOWN(exam_id, index + 1)))
    return InlineKeyboardMarkup([row]) if row else None
