"""Private-chat commands of the learning engine: /exam, /mistakes, /confidence."""

from __future__ import annotations

from telegram import Update

from bot.domain.exam_dates import DateProblem, parse_exam_date
from bot.domain.kinds import Source
from bot.telegram.context import QuizContext
from bot.telegram.handlers import beside_mock
from bot.telegram.handlers.common import effective, send_next_question
from bot.telegram.outbound.send import send_html
from bot.telegram.views import render, texts
from bot.telegram.views.render import clip, esc

PROBLEM_TEXTS = {
    DateProblem.MALFORMED: texts.EXAM_MALFORMED,
    DateProblem.PAST: texts.EXAM_PAST,
    DateProblem.TOO_FAR: texts.EXAM_TOO_FAR,
}


async def exam(update: Update, context: QuizContext) -> None:
    """/exam shows the date and days left; `/exam 2027-03-15` sets it; `/exam off` clears it."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    learning = context.services.practice.learning
    arg = " ".join(context.args or []).strip()
    if not arg:
        await send_html(context.bot, chat.id, render.exam_text(await learning.exam(user.id)))
        return
    if arg.lower() in {"off", "none", "clear"}:
        await learning.set_exam(user.id, None)
        await send_html(context.bot, chat.id, texts.EXAM_CLEARED)
        return
    info = await learning.exam(user.id)
    parsed = parse_exam_date(arg, info.today)
    if parsed.date is None:
        problem = parsed.problem or DateProblem.MALFORMED
        text = PROBLEM_TEXTS[problem].format(
            value=esc(clip(arg, 40)), example=render.example_date(info)
        )
        await send_html(context.bot, chat.id, text)
        return
    info = await learning.set_exam(user.id, parsed.date)
    assert info.days_left is not None
    if info.days_left == 0:
        text = texts.EXAM_SET_TODAY.format(date=parsed.date.isoformat())
    else:
        text = texts.EXAM_SET.format(
            date=parsed.date.isoformat(), days=render.days_text(info.days_left)
        )
    await send_html(context.bot, chat.id, text)


async def mistakes(update: Update, context: QuizContext) -> None:
    """/mistakes: only questions whose last answer was wrong, the most forgotten first."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    if await beside_mock.asked_first(context, chat.id, user.id, "mistakes"):
        return
    await send_next_question(context, chat.id, user, source=Source.MISTAKES)


async def confidence(update: Update, context: QuizContext) -> None:
    """/confidence on|off: ask Sure/Unsure after each pick (off by default)."""
    if (who := effective(update)) is None:
        return
    chat, user = who
    learning = context.services.practice.learning
    arg = (context.args[0] if context.args else "").lower()
    if arg in {"on", "off"}:
        await learning.set_confidence(user.id, arg == "on")
        await send_html(
            context.bot, chat.id, texts.CONFIDENCE_ON if arg == "on" else texts.CONFIDENCE_OFF
        )
        return
    state = "on" if await learning.confidence(user.id) else "off"
    await send_html(context.bot, chat.id, texts.CONFIDENCE_USAGE.format(state=state))
