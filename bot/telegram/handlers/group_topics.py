"""/topics in a group or channel (admins): the exam and topic the chat's questions come from.

The buttons are the private menu's (`tp:`, `bk:`, declared in handlers/answers.py for admins
only in a group or channel); here they set the chat's choice instead of the presser's.
"""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update

from bot.telegram.context import QuizContext
from bot.telegram.handlers.chat_admins import is_admin, refuse
from bot.telegram.handlers.common import thread_of
from bot.telegram.outbound.guarded import guarded
from bot.telegram.outbound.send import edit_or_send, send_html
from bot.telegram.views import keyboards, texts
from bot.telegram.views.render import clip, esc


async def topics(update: Update, context: QuizContext) -> None:
    """/topics (admins): offer the topics of the chat's bank, and the other banks."""
    chat = update.effective_chat
    if chat is None:
        return
    if not await is_admin(update, context):
        await refuse(update, context, texts.GROUP_TOPICS_ADMINS)
        return
    services = context.services
    await services.groups.register(chat.id, chat.type, chat.title)
    settings = await services.groups.settings(chat.id)
    bank = services.catalog.bank(settings.bank_id)
    others = [b for b in services.catalog.banks.values() if b.id != bank.id]
    text = texts.GROUP_CHOOSE_TOPIC.format(bank=esc(bank.meta.title))
    markup = keyboards.topics_keyboard(bank, settings.topic, others)
    thread = thread_of(update)
    await guarded(
        services, chat.id, lambda cid: send_html(context.bot, cid, text, markup, thread=thread)
    )


async def on_topic(
    query: CallbackQuery, message: Message, topic_id: str | None, context: QuizContext
) -> None:
    """A group admin chose a topic: the chat's next questions come from it."""
    services = context.services
    settings = await services.groups.settings(message.chat_id)
    bank = services.catalog.bank(settings.bank_id)
    if not await services.groups.choose_topic(message.chat_id, bank.id, topic_id):
        await query.answer(texts.TOPIC_GONE)
        return
    topic = bank.meta.topic(topic_id) if topic_id else None
    name = topic.name if topic else texts.ALL_TOPICS
    await query.answer(clip(f"Topic: {name}"))
    text = texts.GROUP_TOPIC_SET.format(topic=esc(name), bank=esc(bank.meta.title))
    await guarded(
        services,
        message.chat_id,
        lambda cid: edit_or_send(context.bot, cid, message.message_id, text),
    )


async def on_bank(
    query: CallbackQuery, message: Message, bank_id: str, context: QuizContext
) -> None:
    """A group admin chose another exam: all its topics, and its topic menu in place."""
    services = context.services
    bank = services.catalog.banks.get(bank_id)
    if bank is None:
        await query.answer(texts.BANK_GONE)
        return
    await services.groups.choose_topic(message.chat_id, bank.id, None)
    await query.answer(clip(f"Now asking: {bank.meta.title}"))
    others = [b for b in services.catalog.banks.values() if b.id != bank.id]
    text = texts.GROUP_CHOOSE_TOPIC.format(bank=esc(bank.meta.title))
    markup = keyboards.topics_keyboard(bank, None, others)
    await guarded(
        services,
        message.chat_id,
        lambda cid: edit_or_send(context.bot, cid, message.message_id, text, markup),
    )
