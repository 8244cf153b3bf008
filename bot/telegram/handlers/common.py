"""Small helpers shared by handlers: who is talking, where, and the question message itself."""

from __future__ import annotations

import asyncio
import weakref

from telegram import CallbackQuery, Chat, Message, Update, User
from telegram.constants import ChatType

from bot.domain.kinds import Source
from bot.domain.models import AnswerStatus, Delivery, Learner
from bot.telegram.context import QuizContext
from bot.telegram.outbound.pictures import send_with_pictures
from bot.telegram.outbound.send import send_html
from bot.telegram.views import keyboards, question_media, render, texts


def learner(user: User) -> Learner:
    """The domain's view of a Telegram user."""
    return Learner(user.id, user.first_name or "", user.username, user.language_code)


def thread_of(update: Update) -> int | None:
    """The forum topic a group's message was sent in (None: not in a topic), so that what
    answers it goes there rather than to the group's General topic."""
    message = update.effective_message
    if message is None or not message.is_topic_message:
        return None
    return message.message_thread_id


def is_private(chat: Chat | None) -> bool:
    return chat is not None and chat.type == ChatType.PRIVATE


def query_message(query: CallbackQuery) -> Message | None:
    """The message a button sits under, if the bot can still see it (not inline, not too old)."""
    message = query.message
    return message if isinstance(message, Message) else None


def is_own_button(query: CallbackQuery, message: Message) -> bool:
    """Whether the press names a button of the message it came with: Telegram sends the
    message as it stands, so data a modified client made up matches none of its buttons."""
    markup = message.reply_markup
    if markup is None:
        return False
    return any(b.callback_data == query.data for row in markup.inline_keyboard for b in row)


# What a press that cannot count is told, in private chats and groups alike.
REFUSALS = {
    AnswerStatus.UNKNOWN: texts.CB_UNKNOWN,
    AnswerStatus.REMOVED: texts.CB_REMOVED,
    AnswerStatus.CLOSED: texts.CB_CLOSED,
    AnswerStatus.STALE: texts.CB_STALE,
    AnswerStatus.IN_EXAM: texts.CB_IN_EXAM,
}


_message_locks: weakref.WeakValueDictionary[tuple[int, int], asyncio.Lock] = (
    weakref.WeakValueDictionary()
)


def message_lock(chat_id: int, message_id: int) -> asyncio.Lock:
    """A lock per message, alive while someone holds or waits for it."""
    key = (chat_id, message_id)
    lock = _message_locks.get(key)
    if lock is None:
        lock = _message_locks[key] = asyncio.Lock()
    return lock


async def send_question(context: QuizContext, delivery: Delivery) -> Message:
    """Send a delivery's question with its answer buttons and remember the message id."""
    services = context.services
    bank = services.catalog.bank(delivery.bank_id)

    async def attach(message: Message) -> None:
        await services.practice.attach_message(delivery.id, message.message_id)

    text = render.question_text(bank, delivery.question)
    markup = keyboards.question_keyboard(delivery.id, delivery.question, token=delivery.token)
    shown = question_media.pictures(bank, delivery.question)
    # `then`: a send retried in the background after a 429 attaches it too.
    if shown:
        message = await send_with_pictures(
            context.bot, services.media, delivery.chat_id, shown, text, markup, then=attach
        )
    else:
        message = await send_html(context.bot, delivery.chat_id, text, markup, then=attach)
    await attach(message)
    return message


async def send_next_question(
    context: QuizContext,
    chat_id: int,
    user: User,
    *,
    after: int | None = None,
    source: Source = Source.QUIZ,
) -> None:
    """Pick and send the learner's next question in a private chat (`after`: the delivery
    whose Next button was tapped; a /mistakes round stays one)."""
    practice = context.services.practice
    delivery = await practice.next_delivery(chat_id, learner(user), source=source, after=after)
    if delivery is None:
        if source is Source.MISTAKES or (
            after is not None and await practice.is_mistakes_round(after)
        ):
            text = texts.NO_MISTAKES
            prefs = await practice.prefs(chat_id)
            bank = context.services.catalog.bank(prefs.bank_id)
            if prefs.topic is not None and (topic := bank.meta.topic(prefs.topic)) is not None:
                # Mistakes of other topics may be waiting: say whose are done.
                text = texts.NO_MISTAKES_IN_TOPIC.format(topic=render.esc(topic.name))
            await send_html(context.bot, chat_id, text, keyboards.practice_keyboard())
            return
        await send_html(context.bot, chat_id, texts.NO_QUESTIONS)
        return
    await send_question(context, delivery)


def effective(update: Update) -> tuple[Chat, User] | None:
    """The chat and user of an update, when it has both."""
    if update.effective_chat is None or update.effective_user is None:
        return None
    return update.effective_chat, update.effective_user
