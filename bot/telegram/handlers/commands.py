"""Private-chat commands: /start, /quiz, /topics, /stats, /help (groups and channels too),
and what is not a command."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatAction, ChatType

from bot.bank.limits import TELEGRAM_CAPTION_CHARS
from bot.bank.models import Bank, Topic
from bot.practice.catalog import Catalog
from bot.practice.fitting import describe
from bot.telegram.context import QuizContext
from bot.telegram.handlers import beside_mock
from bot.telegram.handlers.chat_admins import reply
from bot.telegram.handlers.common import effective, learner, send_next_question
from bot.telegram.outbound.photos import send_png, show_action
from bot.telegram.outbound.send import send_html
from bot.telegram.views import group_render, keyboards, mock_texts, render, texts
from bot.telegram.views import readiness_render as stats_views
from bot.telegram.views.html_split import visible_length
from bot.telegram.views.render import esc


async def start(update: Update, context: QuizContext) -> None:
    """Welcome; `/start <topic>` (a deep link) starts that topic at once."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    services = context.services
    await services.practice.register(learner(user), started=True)
    await services.practice.register_chat(chat.id, chat.type, None)
    bank = await services.practice.current_bank(user.id)
    arg = context.args[0] if context.args else ""
    if arg.lower() == group_render.STATS_PAYLOAD:
        await stats(update, context)
        return
    if arg:
        found = deep_link_topic(services.catalog, bank, arg)
        if found is not None:
            topic_bank, topic = found
            await services.practice.choose_topic(user.id, topic_bank.id, topic.id)
            await send_html(context.bot, chat.id, texts.TOPIC_SET.format(topic=esc(topic.name)))
            await send_next_question(context, chat.id, user)
            return
        # Clipped: a forged /start can carry any text.
        await send_html(context.bot, chat.id, texts.TOPIC_NOT_FOUND.format(value=esc(arg[:64])))
    text = texts.WELCOME.format(name=esc(user.first_name or "there"), bank=esc(bank.meta.title))
    await send_html(context.bot, chat.id, text)
    # Once per learner, and never in the way: /quiz works whether or not they answer it.
    if await services.practice.learning.offer_exam(user.id):
        await send_html(context.bot, chat.id, texts.EXAM_OFFER, keyboards.exam_offer_keyboard())


def deep_link_topic(catalog: Catalog, bank: Bank, arg: str) -> tuple[Bank, Topic] | None:
    """The topic a deep link names, in any case: the learner's bank first, then the others."""
    wanted = arg.lower()
    for candidate in (bank, *(b for b in catalog.banks.values() if b.id != bank.id)):
        topic = candidate.meta.topic(wanted)
        if topic is not None and candidate.in_topic(topic.id):
            return candidate, topic
    return None


async def quiz(update: Update, context: QuizContext) -> None:
    """Send the next question (while a mock exam runs, ask first)."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    if await beside_mock.asked_first(context, chat.id, user.id, "quiz"):
        return
    await send_next_question(context, chat.id, user)


async def topics(update: Update, context: QuizContext) -> None:
    """Offer the topics of the learner's bank as buttons."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    services = context.services
    prefs = await services.practice.prefs(user.id)
    bank = services.catalog.bank(prefs.bank_id)
    others = [b for b in services.catalog.banks.values() if b.id != bank.id]
    await send_html(
        context.bot,
        chat.id,
        texts.CHOOSE_TOPIC.format(bank=esc(bank.meta.title)),
        keyboards.topics_keyboard(bank, prefs.topic, others),
    )


async def stats(update: Update, context: QuizContext) -> None:
    """The learner's readiness, progress and last mock exams, with the chart (a PNG)."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    services = context.services
    result = await services.practice.stats(user.id)
    report = await services.readiness.report(user.id)
    text = stats_views.stats_text(report, result)
    if result.answered:
        wrong_ideas = render.misconceptions_text(
            await services.practice.learning.misconceptions(user.id)
        )
        text = f"{text}\n\n{wrong_ideas}" if wrong_ideas else text
    if user.id in services.settings.admins:
        # Operators see which fitted memory model they are on (their own, the bank's, none).
        params = await services.fits.params_for(user.id, report.bank_id)
        text = f"{text}\n\n<i>{esc(describe(params))}</i>"
    if not result.answered:
        await send_html(context.bot, chat.id, text)
        return
    # The chart belongs to the reply: rendered first (the learner sees "sending a photo" while
    # it renders), then sent with the text as its caption, or right after the text when that
    # is too long for one. Sent after the text, the render let a later command's reply in
    # between them.
    await show_action(context.bot, chat.id, ChatAction.UPLOAD_PHOTO)
    png = await services.readiness.chart(report)
    if visible_length(text) <= TELEGRAM_CAPTION_CHARS:
        await send_png(context.bot, chat.id, png, text, filename="stats.png")
        return
    await send_html(context.bot, chat.id, text)
    await send_png(context.bot, chat.id, png, mock_texts.STATS_CAPTION, filename="stats.png")


async def help_command(update: Update, context: QuizContext) -> None:
    """How the bot works; in a group or channel, only the commands that work there."""
    chat = update.effective_chat
    if chat is None:
        return
    if chat.type == ChatType.PRIVATE:
        await send_html(context.bot, chat.id, texts.HELP)
        return
    await reply(update, context, texts.GROUP_HELP)


async def unknown_command(update: Update, context: QuizContext) -> None:
    """A command we do not have."""
    if update.effective_chat is not None:
        await send_html(context.bot, update.effective_chat.id, texts.UNKNOWN_COMMAND)


async def free_text(update: Update, context: QuizContext) -> None:
    """Plain text in a private chat: point to the buttons."""
    if update.effective_chat is not None:
        await send_html(context.bot, update.effective_chat.id, texts.FREE_TEXT)
