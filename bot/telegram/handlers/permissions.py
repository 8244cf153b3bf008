"""Who may press which button: one table, checked for every press before its handler runs.

Each rule matches the command the button stands for: an answer is each member's own, so anyone
may press it; "Next question", "All options explained" and the daily-time buttons belong to a
learner's private practice (in a group they would post for everyone or change the group's
subscription); a topic or exam choice changes the chat's setting, so in a group or channel only
its admins may press it, as only they may send /topics there.
"""

from __future__ import annotations

from enum import Enum

from telegram import CallbackQuery
from telegram.constants import ChatType

from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import is_member_admin
from bot.telegram.handlers.common import query_message
from bot.telegram.views import texts


class Who(Enum):
    """Who may press a button, by where it sits."""

    ANYONE = "anyone; each member answers for themselves"
    PRIVATE = "only in a private chat"
    ADMINS = "in a private chat; in a group or channel only its admins"


# Callback-data prefix (before the first ':') -> who may press it. tests/test_abuse_buttons.py
# checks that every pattern in views/callbacks.py and views/mock_callbacks.py has a row here.
BUTTONS: dict[str, Who] = {
    "a": Who.ANYONE,  # answer a single-answer question
    "t": Who.ANYONE,  # toggle an option of a "select two" question
    "s": Who.ANYONE,  # submit the toggled options
    "n": Who.PRIVATE,  # next question
    "x": Who.PRIVATE,  # all options explained
    "c": Who.PRIVATE,  # sure / unsure after the pick (confidence is private practice)
    "cg": Who.PRIVATE,  # change the pick before sure / unsure
    "ex": Who.PRIVATE,  # the exam-date offer of /start
    "pq": Who.PRIVATE,  # back to normal practice (after /mistakes)
    "dl": Who.PRIVATE,  # daily-question time or Off
    "rs": Who.PRIVATE,  # confirm or cancel /reset
    "m": Who.PRIVATE,  # mock exam: move, answer, flag, finish (a learner's own exam)
    "mo": Who.PRIVATE,  # start the mock exam offered
    "mr": Who.PRIVATE,  # send a mock exam's mistake for review
    "mv": Who.PRIVATE,  # show a mock exam's mistake
    "pm": Who.PRIVATE,  # beside a running mock exam: back to it, or practice outside it
    "tp": Who.ADMINS,  # choose a topic
    "bk": Who.ADMINS,  # choose a bank (exam)
}


def prefix(data: str | None) -> str:
    return (data or "").split(":", 1)[0]


async def refusal(query: CallbackQuery, context: QuizContext) -> str | None:
    """Why this press may not act (a polite callback answer), or None when it may."""
    who = BUTTONS.get(prefix(query.data))
    message = query_message(query)
    if who is None or message is None:
        return texts.CB_UNKNOWN
    chat = message.chat
    if chat.type == ChatType.PRIVATE:
        # A private chat's buttons are its owner's; the chat id is the user's id.
        return None if chat.id == query.from_user.id else texts.CB_UNKNOWN
    if who is Who.ANYONE:
        return None
    if who is Who.PRIVATE:
        return texts.CB_PRIVATE_ONLY
    if await is_member_admin(context, chat.id, query.from_user.id):
        return None
    return texts.CB_ADMINS_ONLY
