"""Button presses in a private chat: answer, toggle, submit, next, all options explained, topic.

Answers, toggles and submits in groups and channels go on to group_answers, topic and bank
choices there to group_topics.
"""

from __future__ import annotations

from telegram import Update
from telegram.error import TelegramError

from bot.bank.models import Kind
from bot.domain.models import AnswerOutcome, AnswerStatus
from bot.learning.memory import Confidence
from bot.practice.chat_guards import EXPLAIN, NEXT, REVISED_COPY
from bot.telegram.context import QuizContext
from bot.telegram.handlers import group_answers, group_topics
from bot.telegram.handlers.buttons import Buttons, Press, Who
from bot.telegram.handlers.common import (
    REFUSALS,
    is_private,
    learner,
    message_lock,
    send_next_question,
    send_question,
)
from bot.telegram.outbound.json_api import answer_callback
from bot.telegram.outbound.pictures import edit_caption_json, send_picture
from bot.telegram.outbound.send import edit_html_json, edit_markup, edit_or_send, send_html
from bot.telegram.views import callbacks, keyboards, question_media, render, texts
from bot.telegram.views.render import clip, esc

BUTTONS = Buttons()


async def _show_verdict(press: Press, context: QuizContext, outcome: AnswerOutcome) -> None:
    """Answer the callback at once with the short verdict, then edit in the full one.

    A repeated tap edits too: if the first verdict edit was lost (a timeout, a 5xx), the
    learner still gets it; if it is in place, Telegram's "message is not modified" is ignored.
    The same tap handled again from the inbox (its process died after recording it) gets its
    verdict, not "you already answered".
    """
    query, message = press.query, press.message
    assert outcome.delivery is not None
    inbox = context.services.inbox
    replayed = inbox is not None and query.id in inbox.replayed_taps
    if outcome.status is AnswerStatus.ALREADY and not replayed:
        short = texts.CB_ALREADY.format(chosen=render.letters(outcome.chosen))
    else:
        short = render.callback_verdict(outcome)
    await answer_callback(context.bot, query.id, short)
    bank = context.services.catalog.bank(outcome.delivery.bank_id)
    # A question sent with a picture carries its buttons under the photo: the verdict
    # becomes its caption.
    edit = edit_caption_json if message.photo else edit_html_json
    await edit(
        context.bot,
        message.chat_id,
        message.message_id,
        render.verdict_html(bank, outcome.delivery.question, outcome.chosen, outcome.correct),
        keyboards.verdict_markup(outcome.delivery.id, outcome.delivery.token),
    )
    explained = question_media.explanation_picture(outcome.delivery.question)
    if explained is not None and outcome.status is not AnswerStatus.ALREADY:
        await send_picture(
            context.bot, context.services.media, message.chat_id, explained, texts.TYPESET
        )


async def _settle(press: Press, context: QuizContext, outcome: AnswerOutcome) -> None:
    """What a private answer, submit or confidence tap comes to, shown."""
    query = press.query
    if outcome.status in REFUSALS:
        await query.answer(REFUSALS[outcome.status])
    elif outcome.status is AnswerStatus.REVISED:
        # The options or key changed since this was shown, and that version is gone: grading
        # against today's file could misgrade, so the current version is sent instead.
        await query.answer(texts.CB_REVISED)
        delivery_id, chat_id = press.values[0], press.message.chat_id
        # One new copy per outdated message, however many of its letters are tapped.
        if not await context.services.guards.claim_button(chat_id, delivery_id, REVISED_COPY):
            return
        await edit_markup(context.bot, chat_id, press.message.message_id, None)
        again = await context.services.practice.redeliver(
            delivery_id, learner(query.from_user), chat_id
        )
        if again is not None:
            await send_question(context, again)
    elif outcome.status is AnswerStatus.EMPTY and outcome.delivery is not None:
        # Sure/Unsure with no pick held that fits (a /reset dropped it, another device ticked
        # a third option): nothing was recorded, so the letters come back, not a verdict.
        delivery = outcome.delivery
        await query.answer(texts.CB_PICK_AGAIN)
        await edit_markup(
            context.bot,
            press.message.chat_id,
            press.message.message_id,
            keyboards.question_keyboard(delivery.id, delivery.question, token=delivery.token),
        )
    elif outcome.status is AnswerStatus.CONFIRM:
        assert outcome.delivery is not None
        chosen = render.letters(outcome.chosen)
        await query.answer(texts.CB_HOW_SURE.format(chosen=chosen))
        await edit_markup(
            context.bot,
            press.message.chat_id,
            press.message.message_id,
            keyboards.confidence_keyboard(outcome.delivery.id, outcome.delivery.token, chosen),
        )
    else:
        await _show_verdict(press, context, outcome)


@BUTTONS.on(callbacks.ANSWER, Who.ANYONE)
async def on_answer(press: Press, context: QuizContext) -> None:
    """A tap on a letter of a single-answer question."""
    delivery_id, token, option = press.values
    outcome = await context.services.practice.answer(
        delivery_id,
        learner(press.query.from_user),
        press.message.chat_id,
        frozenset({option}),
        token=token,
        kind=Kind.SINGLE,
    )
    if not is_private(press.message.chat):
        return await group_answers.verdict(press.query, context, outcome)
    await _settle(press, context, outcome)


@BUTTONS.on(callbacks.CONFIDENCE, Who.PRIVATE)
async def on_confidence(press: Press, context: QuizContext) -> None:
    """Sure or Unsure after the pick (confidence on): now the answer is recorded."""
    delivery_id, token, flag = press.values
    sure = Confidence.SURE if flag == "s" else Confidence.UNSURE
    outcome = await context.services.practice.confirm(
        delivery_id, learner(press.query.from_user), press.message.chat_id, sure, token=token
    )
    await _settle(press, context, outcome)


@BUTTONS.on(callbacks.CHANGE, Who.PRIVATE)
async def on_change(press: Press, context: QuizContext) -> None:
    """ "Change answer" before Sure/Unsure: the letters come back, the held pick still ticked
    on a "select two" question."""
    query, message, (delivery_id, token) = press.query, press.message, press.values
    outcome = await context.services.practice.held_choice(
        delivery_id, query.from_user.id, message.chat_id, token=token
    )
    if outcome.status is not AnswerStatus.CONFIRM or outcome.delivery is None:
        await _settle(press, context, outcome)
        return
    delivery = outcome.delivery
    held = outcome.chosen if delivery.question.kind is Kind.MULTIPLE else frozenset()
    await query.answer(texts.CB_CHANGE)
    await edit_markup(
        context.bot,
        message.chat_id,
        message.message_id,
        keyboards.question_keyboard(delivery.id, delivery.question, held, delivery.token),
    )


@BUTTONS.on(callbacks.TOGGLE, Who.ANYONE)
async def on_toggle(press: Press, context: QuizContext) -> None:
    """A tap on a letter of a multiple-answer question: select or unselect it."""
    if not is_private(press.message.chat):
        return await group_answers.on_toggle(press, context)
    query, message, (delivery_id, token, option) = press.query, press.message, press.values
    # Two quick taps run concurrently: the lock keeps their keyboard edits in the order of
    # their writes, so the ticks shown are the selection Submit will grade.
    async with message_lock(message.chat_id, message.message_id):
        outcome = await context.services.practice.toggle(
            delivery_id, learner(query.from_user), message.chat_id, option, token=token
        )
        if outcome.status is not AnswerStatus.RECORDED:
            await _settle(press, context, outcome)
            return
        assert outcome.delivery is not None
        chosen = render.letters(outcome.chosen) or "nothing"
        await query.answer(texts.CB_TOGGLED.format(chosen=chosen))
        await edit_markup(
            context.bot,
            message.chat_id,
            message.message_id,
            keyboards.question_keyboard(
                delivery_id, outcome.delivery.question, outcome.chosen, outcome.delivery.token
            ),
        )


@BUTTONS.on(callbacks.SUBMIT, Who.ANYONE)
async def on_submit(press: Press, context: QuizContext) -> None:
    """Submit the selected options of a multiple-answer question."""
    query, (delivery_id, token) = press.query, press.values
    outcome = await context.services.practice.submit(
        delivery_id, learner(query.from_user), press.message.chat_id, token=token
    )
    if not is_private(press.message.chat):
        return await group_answers.verdict(query, context, outcome)
    if outcome.status is AnswerStatus.EMPTY and outcome.delivery is not None:
        count = outcome.delivery.question.select_count
        await query.answer(texts.CB_PICK_FIRST.format(count=render.NUMBER_WORDS.get(count, count)))
        return
    await _settle(press, context, outcome)


@BUTTONS.on(callbacks.NEXT, Who.PRIVATE)
async def on_next(press: Press, context: QuizContext) -> None:
    """ "Next question"."""
    guards = context.services.guards
    (delivery_id,) = press.values
    # One new question per button, however many taps (or replays) reach us.
    claimed = await guards.claim_button(press.message.chat_id, delivery_id, NEXT)
    if not claimed:
        await press.query.answer(texts.CB_UNKNOWN if claimed is None else texts.CB_NEXT_USED)
        return
    await press.query.answer()
    try:
        await send_next_question(
            context, press.message.chat_id, press.query.from_user, after=delivery_id
        )
    except TelegramError:
        await guards.release_button(delivery_id, NEXT)  # nothing was sent: may be tapped again
        raise


@BUTTONS.on(callbacks.EXPLAIN, Who.PRIVATE)
async def on_explain(press: Press, context: QuizContext) -> None:
    """ "All options explained": every option with why it is right or wrong."""
    query, message, (delivery_id, token) = press.query, press.message, press.values
    delivery, status = await context.services.practice.button_delivery(
        delivery_id, message.chat_id, token
    )
    if delivery is None:
        await query.answer(REFUSALS.get(status or AnswerStatus.UNKNOWN, texts.CB_UNKNOWN))
        return
    if not await context.services.guards.claim_button(message.chat_id, delivery.id, EXPLAIN):
        await query.answer(texts.CB_EXPLAIN_USED)
        return
    await query.answer()
    bank = context.services.catalog.bank(delivery.bank_id)
    await send_html(
        context.bot,
        message.chat_id,
        render.breakdown_text(bank, delivery.question),
        keyboards.next_keyboard(delivery.id),
        reply_to=message.message_id,
    )


@BUTTONS.on(callbacks.TOPIC, Who.ADMINS)
async def on_topic(press: Press, context: QuizContext) -> None:
    """A topic chosen from /topics: remember it and send its first question."""
    query, message, (chosen,) = press.query, press.message, press.values
    topic_id = None if chosen == callbacks.ALL_TOPICS else chosen
    if not is_private(message.chat):
        return await group_topics.on_topic(query, message, topic_id, context)
    services = context.services
    bank = await services.practice.current_bank(query.from_user.id)
    if not await services.practice.choose_topic(query.from_user.id, bank.id, topic_id):
        await query.answer(texts.TOPIC_GONE)
        return
    topic = bank.meta.topic(topic_id) if topic_id else None
    name = topic.name if topic else texts.ALL_TOPICS
    await query.answer(f"Topic: {name}"[:200])
    await edit_or_send(
        context.bot, message.chat_id, message.message_id, texts.TOPIC_SET.format(topic=esc(name))
    )
    await send_next_question(context, message.chat_id, query.from_user)


@BUTTONS.on(callbacks.BANK, Who.ADMINS)
async def on_bank(press: Press, context: QuizContext) -> None:
    """Another bank (exam) chosen from /topics: switch to it, all topics, and offer its topics."""
    query, message, services = press.query, press.message, context.services
    bank = services.catalog.banks.get(press.values[0])
    if bank is None:
        await query.answer(texts.BANK_GONE)
        return
    if not is_private(message.chat):
        return await group_topics.on_bank(query, message, bank.id, context)
    await services.practice.choose_topic(query.from_user.id, bank.id, None)
    await query.answer(clip(f"Now practising: {bank.meta.title}"))
    others = [b for b in services.catalog.banks.values() if b.id != bank.id]
    await edit_or_send(
        context.bot,
        message.chat_id,
        message.message_id,
        texts.CHOOSE_TOPIC.format(bank=esc(bank.meta.title)),
        keyboards.topics_keyboard(bank, None, others),
    )


@BUTTONS.on(callbacks.EXAM_OFFER, Who.PRIVATE)
async def on_exam_offer(press: Press, context: QuizContext) -> None:
    """A button of /start's exam-date offer: in 2 weeks, 1 month, 3 months, or no date."""
    (days,) = press.values
    learning = context.services.practice.learning
    info = await learning.set_exam_in(press.query.from_user.id, days or None)
    if info.date is None:
        await press.query.answer(texts.CB_EXAM_NONE)
    else:
        await press.query.answer(texts.CB_EXAM_SET.format(date=info.date.isoformat()))
    message = press.message
    text = render.exam_text(info)
    await edit_or_send(context.bot, message.chat_id, message.message_id, text)


@BUTTONS.on(callbacks.PRACTICE, Who.PRIVATE)
async def on_practice(press: Press, context: QuizContext) -> None:
    """ "Back to practice" under "No mistakes left": the normal next question."""
    await press.query.answer()
    await send_next_question(context, press.message.chat_id, press.query.from_user)


async def on_unknown_button(update: Update, context: QuizContext) -> None:
    """Callback data we never made (forged, or from an older version of the bot)."""
    if update.callback_query is not None:
        await update.callback_query.answer(texts.CB_UNKNOWN)
