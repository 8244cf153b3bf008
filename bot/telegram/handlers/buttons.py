"""Buttons as their handlers declare them (`@BUTTONS.on(callbacks.TOPIC, Who.ADMINS)`): the
data each takes, who may press it, and what it does. The routes (bot/telegram/routes.py) and
the permission check are built from these declarations: a new button is its data in
views/callbacks.py, its decorated handler, and the keyboard that shows it.

The data's format sits in views/ rather than here because keyboards are drawn below the
handlers too (the live answer count and the push redraw the answer buttons).

Each rule matches the command the button stands for: an answer is each member's own, so anyone
may press it; "Next question", "All options explained", the daily-time buttons and the mock
exam belong to a learner's private practice (in a group they would post for everyone or change
the group's subscription); a topic or exam choice changes the chat's setting, so in a group or
channel only its admins may press it, as only they may send /topics there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from telegram import CallbackQuery, Chat, Message, Update
from telegram.constants import ChatType
from telegram.ext import CallbackQueryHandler

from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import is_member_admin
from bot.telegram.handlers.common import query_message
from bot.telegram.views import texts
from bot.telegram.views.callbacks import CallbackData


class Who(Enum):
    """Who may press a button, by where it sits."""

    ANYONE = "anyone; each member answers for themselves"
    PRIVATE = "only in a private chat"
    ADMINS = "in a private chat; in a group or channel only its admins"

    async def refusal(self, chat: Chat, user_id: int, context: QuizContext) -> str | None:
        """Why this user may not press such a button in this chat (a polite answer), or None."""
        if chat.type == ChatType.PRIVATE:
            # A private chat's buttons are its owner's; the chat id is the user's id.
            return None if chat.id == user_id else texts.CB_UNKNOWN
        if self is Who.ANYONE:
            return None
        if self is Who.PRIVATE:
            return texts.CB_PRIVATE_ONLY
        if await is_member_admin(context, chat.id, user_id):
            return None
        return texts.CB_ADMINS_ONLY


@dataclass(frozen=True, slots=True)
class Press:
    """A press of a declared button: the query, the message it sits under, its data's parts."""

    query: CallbackQuery
    message: Message
    values: tuple[Any, ...]


PressHandler = Callable[[Press, QuizContext], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Button:
    """One kind of button: its data, who may press it, and its handler."""

    data: CallbackData
    who: Who
    handler: PressHandler

    def route(self) -> CallbackQueryHandler[QuizContext, None]:
        return CallbackQueryHandler(self.press, pattern=self.data.pattern)

    async def press(self, update: Update, context: QuizContext) -> None:
        """Hand a press to the handler, or answer politely why it may not act."""
        query = update.callback_query
        assert query is not None  # routed by a CallbackQueryHandler
        values, message = self.data.parse(query.data or ""), query_message(query)
        if values is None or message is None:
            await query.answer(texts.CB_UNKNOWN)
        elif why := await self.who.refusal(message.chat, query.from_user.id, context):
            await query.answer(why)
        else:
            await self.handler(Press(query, message, values), context)


class Buttons(list[Button]):
    """The buttons one handler module declares, in the order they are tried."""

    def on(self, data: CallbackData, who: Who) -> Callable[[PressHandler], PressHandler]:
        """Declare the decorated handler as the one for `data`, pressed by `who`."""

        def declare(handler: PressHandler) -> PressHandler:
            self.append(Button(data, who, handler))
            return handler

        return declare
