"""Contract of the one private PTB API the bot uses (Bot._post, behind outbound/json_api.py).

If python-telegram-bot renames `_post`, changes its arguments, or stops raising the usual
errors through it, these tests fail: fix bot/telegram/outbound/json_api.py (or go back to
`send_message`) before moving the PTB pin in pyproject.toml.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator

import pytest
import telegram
from telegram.error import BadRequest, Forbidden, RetryAfter
from telegram.ext import ExtBot

from bot.telegram.outbound.json_api import send_message_json
from tests.fakes import TOKEN, FakeBotApi, FakeRequest

MARKUP = {"inline_keyboard": [[{"text": "A", "callback_data": "a:7:0"}]]}


@pytest.fixture
def api() -> FakeBotApi:
    return FakeBotApi()


@pytest.fixture
async def bot(api: FakeBotApi) -> AsyncIterator[ExtBot[None]]:
    async with ExtBot(TOKEN, request=FakeRequest(api), get_updates_request=FakeRequest(api)) as b:
        yield b


def test_ptb_is_the_major_version_the_fast_path_was_written_for() -> None:
    assert telegram.__version_info__[0] == 22


def test_post_keeps_its_name_and_arguments() -> None:
    params = list(inspect.signature(telegram.Bot._post).parameters)
    assert params[:3] == ["self", "endpoint", "data"]
    assert inspect.iscoroutinefunction(telegram.Bot._post)


async def test_json_api_returns_the_message_id_and_sends_html_and_markup(
    api: FakeBotApi, bot: ExtBot[None]
) -> None:
    params = {"chat_id": 42, "text": "<b>Q</b>", "parse_mode": "HTML", "reply_markup": MARKUP}
    message_id = await send_message_json(bot, params)
    (sent,) = api.messages_to(42)
    assert sent["message_id"] == message_id
    assert sent["text"] == "Q"
    assert sent["reply_markup"] == MARKUP


async def test_json_api_raises_the_errors_send_message_raises(
    api: FakeBotApi, bot: ExtBot[None]
) -> None:
    api.block(43)
    with pytest.raises(Forbidden):
        await send_message_json(bot, {"chat_id": 43, "text": "hi"})
    api.fail_next("sendMessage", 400, "Bad Request: chat not found", chat_id=44)
    with pytest.raises(BadRequest):
        await send_message_json(bot, {"chat_id": 44, "text": "hi"})
    api.rate_limit(retry_after=3, times=1, method="sendMessage")
    with pytest.raises(RetryAfter):
        await send_message_json(bot, {"chat_id": 45, "text": "hi"})


async def test_raw_edit_edits_text_and_keyboard_and_raises_as_edit_message_text(
    api: FakeBotApi, bot: ExtBot[None]
) -> None:
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup

    from bot.telegram.outbound.json_api import edit_text_raw

    message_id = await send_message_json(bot, {"chat_id": 46, "text": "question"})
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Next", callback_data="n:1")]])
    assert await edit_text_raw(bot, 46, message_id, "<b>Right</b> &amp; why", markup) is None
    edited = api.message(46, message_id)
    assert edited["text"] == "Right & why"
    assert edited["reply_markup"] == {
        "inline_keyboard": [[{"text": "Next", "callback_data": "n:1"}]]
    }
    with pytest.raises(BadRequest, match="not modified"):
        await edit_text_raw(bot, 46, message_id, "<b>Right</b> &amp; why", markup)
    api.mark_uneditable(46, message_id)
    with pytest.raises(BadRequest, match="can't be edited"):
        await edit_text_raw(bot, 46, message_id, "again", None)


def test_markup_json_is_what_ptb_would_send_for_every_keyboard_the_bot_builds() -> None:
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup, LoginUrl

    from bot.telegram.outbound.json_api import markup_json
    from bot.telegram.views import keyboards

    built = [
        keyboards.next_keyboard(7),
        keyboards.why_keyboard("https://t.me/quizbot_test_bot?start=why_7"),
        InlineKeyboardMarkup(
            [
                [InlineKeyboardButton("é ✔️", callback_data="x:1")],
                [InlineKeyboardButton("u", url="https://example.org")],
            ]
        ),
        # A field the fast path does not know goes through PTB's own serialiser.
        InlineKeyboardMarkup(
            [[InlineKeyboardButton("login", login_url=LoginUrl("https://example.org"))]]
        ),
    ]
    for markup in built:
        assert markup_json(markup) == markup.to_dict()


def test_the_verdict_keyboard_json_is_what_ptb_would_send_for_it() -> None:
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup

    from bot.telegram.views import callbacks, keyboards

    for delivery_id, token in ((7, "tok1"), (123456789012345678, "zz99"), (8, None)):
        as_ptb = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        "Next question ▶️", callback_data=callbacks.NEXT(delivery_id)
                    ),
                    InlineKeyboardButton(
                        "All options explained",
                        callback_data=callbacks.EXPLAIN(delivery_id, token),
                    ),
                ],
                [
                    InlineKeyboardButton(
                        "⚑ Report", callback_data=callbacks.REPORT(delivery_id, token)
                    )
                ],
            ]
        )
        assert keyboards.verdict_markup(delivery_id, token) == as_ptb.to_dict()


async def test_fast_callback_answer_sends_what_callback_query_answer_sends(
    api: FakeBotApi, bot: ExtBot[None]
) -> None:
    from telegram import CallbackQuery, User

    from bot.telegram.outbound.json_api import answer_callback

    query = CallbackQuery("q1", User(5, "Ann", False), "ci", data="a:1:0")
    query.set_bot(bot)
    for text in ("✅ Correct!", None):
        await query.answer(text)
        await answer_callback(bot, "q1", text)
    ptb_1, fast_1, ptb_2, fast_2 = (c.params for c in api.calls_of("answerCallbackQuery"))
    assert ptb_1 == fast_1 == {"callback_query_id": "q1", "text": "✅ Correct!"}
    assert ptb_2 == fast_2 == {"callback_query_id": "q1"}


async def test_fast_callback_answer_raises_what_callback_query_answer_raises(
    api: FakeBotApi, bot: ExtBot[None]
) -> None:
    from bot.telegram.outbound.json_api import answer_callback

    too_old = "Bad Request: query is too old and response timeout expired or query id is invalid"
    api.fail_next("answerCallbackQuery", 400, too_old)
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await answer_callback(bot, "q2", "late")
    with pytest.raises(BadRequest, match=r"(?i)message_too_long"):
        await answer_callback(bot, "q3", "x" * 201)
    api.rate_limit(retry_after=2, times=1, method="answerCallbackQuery")
    with pytest.raises(RetryAfter):
        await answer_callback(bot, "q4", "hi")
