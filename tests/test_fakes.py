"""The Telegram test doubles behave like the Bot API where our code depends on it."""

from __future__ import annotations

import asyncio
import datetime as dtm
import json
import threading
import time
import urllib.request
from collections.abc import AsyncIterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    InvalidToken,
    RetryAfter,
    TimedOut,
)
from telegram.ext import Application, CommandHandler, ContextTypes

from tests import factories
from tests.fakes import (
    BOT_ID,
    TOKEN,
    FakeBotApi,
    FakeBotApiServer,
    FakeRequest,
    decode_params,
    make_application,
    methods,
    post_webhook,
)
from tests.fakes.objects import MEMBER_STATUSES
from tests.fakes.server import parse_body
from tests.fakes.validation import html_to_plain

USER = 42
GROUP = -1001234567890


def keyboard(*data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d, callback_data=d) for d in data]])


@pytest.fixture
async def bot(api: FakeBotApi) -> AsyncIterator[Bot]:
    async with Bot(TOKEN, request=FakeRequest(api), get_updates_request=FakeRequest(api)) as b:
        yield b


# --------------------------------------------------------------------------- in-process bot
async def test_get_me(bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot, me.can_join_groups) == (
        BOT_ID,
        "quizbot_test_bot",
        True,
        True,
    )


async def test_send_message_with_keyboard_is_stored(api: FakeBotApi, bot: Bot) -> None:
    sent = await bot.send_message(USER, "<b>Q1</b> a &lt; b", "HTML", reply_markup=keyboard("a:1"))
    assert sent.text == "Q1 a < b"  # what the user sees, as Telegram returns it
    assert sent.reply_markup == keyboard("a:1")
    assert sent.chat.type == "private" and sent.from_user and sent.from_user.id == BOT_ID
    assert api.source_text(USER, sent.message_id) == "<b>Q1</b> a &lt; b"
    assert api.last_text(USER) == "Q1 a < b"
    assert api.send_counts[USER] == 1 and api.count("sendMessage", chat_id=USER) == 1
    second = await bot.send_message(USER, "next")
    assert second.message_id == sent.message_id + 1


async def test_edit_then_repeat_is_not_modified(api: FakeBotApi, bot: Bot) -> None:
    sent = await bot.send_message(USER, "question", reply_markup=keyboard("a:1"))
    edited = await bot.edit_message_text("answered", USER, sent.message_id)
    assert isinstance(edited, type(sent)) and edited.text == "answered"
    assert edited.reply_markup is None  # no markup in the edit removes the keyboard
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text("answered", USER, sent.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("x", USER, 999)
    api.mark_uneditable(USER, sent.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message can't be edited"):
        await bot.edit_message_text("later", USER, sent.message_id)


async def test_edit_reply_markup_and_delete(api: FakeBotApi, bot: Bot) -> None:
    sent = await bot.send_message(USER, "q", reply_markup=keyboard("a:1"))
    await bot.edit_message_reply_markup(USER, sent.message_id, reply_markup=keyboard("a:2"))
    assert api.message(USER, sent.message_id)["reply_markup"] == keyboard("a:2").to_dict()
    with pytest.raises(BadRequest, match=r"(?i)not modified"):
        await bot.edit_message_reply_markup(USER, sent.message_id, reply_markup=keyboard("a:2"))
    assert await bot.delete_message(USER, sent.message_id)
    assert api.messages_to(USER) == []
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await bot.delete_message(USER, sent.message_id)


async def test_rate_limit_raises_retry_after(
    api: FakeBotApi, bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # else reading retry_after warns
    api.rate_limit(retry_after=7, times=1)
    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(USER, "hi")
    assert caught.value.retry_after == dtm.timedelta(seconds=7)
    assert (await bot.send_message(USER, "hi")).text == "hi"
    assert api.send_counts[USER] == 1 and api.count("sendMessage") == 2


async def test_group_limit_answers_429_until_the_minute_frees_a_send(
    api: FakeBotApi, bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # else reading retry_after warns
    now = [1000.0]
    api.clock = lambda: now[0]
    api.limit_groups(2)
    await bot.send_message(GROUP, "a")
    now[0] += 10
    await bot.send_message(GROUP, "b")
    await bot.send_message(USER, "private chats are not counted")
    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(GROUP, "c")
    assert caught.value.retry_after == dtm.timedelta(seconds=50)
    now[0] += 51
    assert (await bot.send_message(GROUP, "c")).text == "c"


async def test_blocked_user_is_forbidden(api: FakeBotApi, bot: Bot) -> None:
    sent = await bot.send_message(USER, "hi")
    api.block(USER)
    with pytest.raises(Forbidden, match=r"(?i)bot was blocked by the user"):
        await bot.send_message(USER, "hi")
    with pytest.raises(Forbidden):
        await bot.edit_message_text("edit", USER, sent.message_id)
    api.unblock(USER)
    await bot.send_message(USER, "back")


async def test_migrated_group_raises_chat_migrated(api: FakeBotApi, bot: Bot) -> None:
    api.migrate(-555, GROUP)
    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(-555, "hi")
    assert caught.value.new_chat_id == GROUP
    assert (await bot.send_message(GROUP, "hi")).chat.type == "supergroup"


async def test_fail_next_targets_method_chat_and_count(api: FakeBotApi, bot: Bot) -> None:
    api.fail_next("SENDMESSAGE", 400, "Bad Request: chat not found", chat_id=7, times=2)
    await bot.send_message(8, "other chat is fine")
    for _ in range(2):
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await bot.send_message(7, "hi")
    await bot.send_message(7, "third works")


async def test_limits(bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)BUTTON_DATA_INVALID"):
        await bot.send_message(USER, "q", reply_markup=keyboard("x" * 65))
    await bot.send_message(USER, "q", reply_markup=keyboard("é" * 32))  # 64 bytes
    with pytest.raises(BadRequest, match=r"(?i)MESSAGE_TOO_LONG"):
        await bot.answer_callback_query("1", text="x" * 201)
    assert await bot.answer_callback_query("1", text="x" * 200)
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(USER, "<b>open", "HTML")
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.send_message(USER, "x" * 4097)
    # Length counts the parsed text: 4096 escaped characters fit.
    await bot.send_message(USER, "&lt;" * 4096, "HTML")


async def test_timeout_still_delivers(api: FakeBotApi) -> None:
    api.set_delay("sendMessage", 0.3)
    request = FakeRequest(api, read_timeout=0.05)
    async with Bot(TOKEN, request=request) as slow_bot:
        with pytest.raises(TimedOut):
            await slow_bot.send_message(USER, "maybe delivered")
    assert api.last_text(USER) == "maybe delivered"


async def test_polls_and_channels(api: FakeBotApi, bot: Bot) -> None:
    sent = await bot.send_poll(
        GROUP, "2+2?", ["3", "4"], type="quiz", correct_option_ids=[1], is_anonymous=False
    )
    assert sent.poll and sent.poll.correct_option_ids == (1,)
    assert api.poll(sent.poll.id)["is_closed"] is False
    stopped = await bot.stop_poll(GROUP, sent.message_id)
    assert stopped.is_closed and api.send_counts[GROUP] == 1
    api.set_chat(-100777, type="channel", title="Daily", username="daily_quiz")
    with pytest.raises(BadRequest, match=r"(?i)non-anonymous"):
        await bot.send_poll(-100777, "q", ["a", "b"], is_anonymous=False)
    post = await bot.send_message("@daily_quiz", "hello channel")
    assert post.sender_chat and post.sender_chat.id == -100777 and post.from_user is None


@pytest.mark.parametrize("status", MEMBER_STATUSES)
async def test_chat_member_statuses_parse(api: FakeBotApi, bot: Bot, status: str) -> None:
    api.set_member_status(GROUP, USER, status)
    member = await bot.get_chat_member(GROUP, USER)
    assert member.status == status and member.user.id == USER


async def test_chats_and_admins(api: FakeBotApi, bot: Bot) -> None:
    assert (await bot.get_chat_member(GROUP, 5)).status == "member"
    api.set_member_status(GROUP, 5, "creator")
    api.set_member_status(GROUP, BOT_ID, "administrator")
    admins = await bot.get_chat_administrators(GROUP)
    assert sorted(a.user.id for a in admins) == [5, BOT_ID]
    assert (await bot.get_chat(-42)).type == "group"
    assert await bot.leave_chat(GROUP)
    with pytest.raises(Forbidden, match=r"(?i)not a member"):
        await bot.send_message(GROUP, "still here?")


async def test_commands_and_webhook(api: FakeBotApi, bot: Bot) -> None:
    assert await bot.set_my_commands([("start", "Start practising")])
    assert [c.command for c in await bot.get_my_commands()] == ["start"]
    assert api.my_commands() == [{"command": "start", "description": "Start practising"}]
    assert await bot.delete_my_commands()
    assert await bot.get_my_commands() == ()
    await bot.set_webhook("https://example.test/hook", secret_token="s3cret")
    assert (api.webhook_url, api.webhook_secret) == ("https://example.test/hook", "s3cret")
    assert (await bot.get_webhook_info()).url == "https://example.test/hook"
    with pytest.raises(Conflict):
        await bot.get_updates()
    await bot.delete_webhook()
    assert await bot.get_updates() == ()
    assert await bot.close() and await bot.log_out()


def test_unknown_method_is_404_and_recorded(api: FakeBotApi) -> None:
    status, body = api.handle("sendSticker", {"chat_id": 1})
    assert status == 404
    assert body == {"ok": False, "error_code": 404, "description": "Not Found: method not found"}
    assert api.calls_of("sendsticker")[0].params == {"chat_id": 1}


def test_getupdates_offset_limit_and_long_poll(api: FakeBotApi) -> None:
    ids = [api.push_update({"message": {}}) for _ in range(3)]
    assert ids == [1, 2, 3]
    _, body = api.handle("getUpdates", {"offset": 2, "limit": 1})
    assert [u["update_id"] for u in body["result"]] == [2]
    assert api.pending_updates == 2  # update 1 was confirmed by offset=2
    api.handle("getUpdates", {"offset": 4})
    threading.Timer(0.1, api.push_update, [{"message": {}}]).start()
    started = time.monotonic()
    _, body = api.handle("getUpdates", {"offset": 4, "timeout": 30})
    assert [u["update_id"] for u in body["result"]] == [4]
    assert time.monotonic() - started < 0.9  # woke up on the push, not at the cap
    started = time.monotonic()
    api.handle("getUpdates", {"offset": 5, "timeout": 30})
    assert 0.9 < time.monotonic() - started < 2  # capped at 1 s


# --------------------------------------------------------------------------- wire formats
def test_decode_params_keeps_free_text() -> None:
    raw = {"chat_id": "123", "text": "123", "disable_notification": "true", "x": "@chan"}
    raw["reply_markup"] = '{"inline_keyboard": []}'
    assert decode_params(raw) == {
        "chat_id": 123,
        "text": "123",
        "disable_notification": True,
        "x": "@chan",
        "reply_markup": {"inline_keyboard": []},
    }


def test_parse_body_formats() -> None:
    form = b"chat_id=5&text=%3Cb%3Ehi%3C%2Fb%3E"
    assert parse_body("application/x-www-form-urlencoded", form, "") == {
        "chat_id": 5,
        "text": "<b>hi</b>",
    }
    assert parse_body("application/json", b'{"chat_id": 5, "text": "7"}', "") == {
        "chat_id": 5,
        "text": "7",
    }
    assert parse_body("", b"", "offset=3&timeout=0") == {"offset": 3, "timeout": 0}
    multipart = (
        b'--XX\r\nContent-Disposition: form-data; name="chat_id"\r\n\r\n5\r\n'
        b'--XX\r\nContent-Disposition: form-data; name="caption"\r\n\r\n12\r\n--XX--\r\n'
    )
    assert parse_body("multipart/form-data; boundary=XX", multipart, "") == {
        "chat_id": 5,
        "caption": "12",
    }


@pytest.mark.parametrize(
    ("html", "plain"),
    [
        ("<b>bold</b> &amp; <i>it</i>", "bold & it"),
        ('<a href="https://x.test/?a=1&amp;b=2">link</a>', "link"),
        ('<span class="tg-spoiler">s</span><tg-spoiler>t</tg-spoiler>', "st"),
        ('<pre><code class="language-python">x &lt; 1</code></pre>', "x < 1"),
        ("<blockquote>q</blockquote> AT&T &#60;", "q AT&T <"),
    ],
)
def test_html_accepts_telegram_subset(html: str, plain: str) -> None:
    assert html_to_plain(html) == plain


@pytest.mark.parametrize(
    "html", ["<b>open", "<b>x</i>", "x</b>", "<div>x</div>", "a < b", "<span>x</span>", "1<2"]
)
def test_html_rejects_what_telegram_rejects(api: FakeBotApi, html: str) -> None:
    status, body = api.handle("sendMessage", {"chat_id": 1, "text": html, "parse_mode": "HTML"})
    assert status == 400 and body["description"].startswith("Bad Request: can't parse entities")


# --------------------------------------------------------------------------- HTTP server
async def test_http_server_round_trip(api: FakeBotApi, bot_server: FakeBotApiServer) -> None:
    async with Bot(TOKEN, base_url=bot_server.url + "/bot") as http_bot:
        assert (await http_bot.get_me()).username == "quizbot_test_bot"
        sent = await http_bot.send_message(USER, "123", reply_markup=keyboard("a:1:0"))
        assert sent.reply_markup == keyboard("a:1:0")
        params = api.calls_of("sendMessage")[0].params
        assert params["chat_id"] == USER and params["text"] == "123"  # form fields decoded
        assert params["reply_markup"] == keyboard("a:1:0").to_dict()
        api.push_update(
            factories.text_message("hello", factories.user(USER), {"id": USER, "type": "private"})
        )
        updates = await http_bot.get_updates(timeout=5)
        assert [u.message.text for u in updates if u.message] == ["hello"]


async def test_http_server_rejects_wrong_token(bot_server: FakeBotApiServer) -> None:
    with pytest.raises(InvalidToken):
        async with Bot("999999:" + "B" * 35, base_url=bot_server.base_url):
            pass  # initialize() calls getMe
    status = await asyncio.to_thread(
        bot_server.post_webhook, f"{bot_server.url}/bot{TOKEN}/getMe", {}
    )
    assert status == 200
    assert bot_server.post_webhook(bot_server.url + "/nowhere", {"update_id": 1}, "s") == 404


async def test_polling_application_end_to_end(bot_server: FakeBotApiServer) -> None:
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message
        await update.effective_message.reply_text("Welcome!")

    app = Application.builder().token(TOKEN).base_url(bot_server.base_url).build()
    app.add_handler(CommandHandler("start", start))
    ada = factories.user(USER, "Ada")
    async with app:
        await app.start()
        assert app.updater
        await app.updater.start_polling(poll_interval=0, timeout=5)
        bot_server.api.push_update(factories.command("/start", ada, factories.private_chat(ada)))
        await bot_server.wait_for_async(lambda api: api.last_text(USER) == "Welcome!")
        started = time.monotonic()
        await app.updater.stop()
        await app.stop()
    assert time.monotonic() - started < 3  # the long poll is capped, so stopping is quick
    assert bot_server.api.count("deleteWebhook") == 1


def test_post_webhook_sends_secret_header() -> None:
    seen: list[tuple[str | None, bytes]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append((self.headers["X-Telegram-Bot-Api-Secret-Token"], body))
            self.send_response(200 if seen[-1][0] == "s3cret" else 403)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with HTTPServer(("127.0.0.1", 0), Hook) as hook:
        url = f"http://127.0.0.1:{hook.server_address[1]}/hook"
        thread = threading.Thread(target=hook.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        try:
            assert post_webhook(url, {"update_id": 9}, "s3cret") == 200
            assert post_webhook(url, {"update_id": 9}, None) == 403
        finally:
            hook.shutdown()
            thread.join()
    assert seen == [("s3cret", b'{"update_id": 9}'), (None, b'{"update_id": 9}')]


def test_wait_for_and_clean_shutdown(api: FakeBotApi) -> None:
    before = set(threading.enumerate())
    with FakeBotApiServer(api) as server:
        api.push_update({"message": {}})
        assert server.wait_for(lambda a: a.pending_updates) == 1
        with pytest.raises(AssertionError, match=r"(?i)last calls"):
            server.wait_for(lambda a: a.count("sendMessage"), timeout=0.1)
    assert set(threading.enumerate()) <= before


def test_server_shutdown_wakes_long_poll(api: FakeBotApi, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(methods, "LONG_POLL_CAP", 30.0)  # only the interrupt can end the poll
    results: list[Any] = []
    with FakeBotApiServer(api) as server:
        url = f"{server.url}/bot{TOKEN}/getUpdates?timeout=30"
        poller = threading.Thread(target=lambda: results.append(urllib.request.urlopen(url)))
        poller.start()
        server.wait_for(lambda a: a.count("getUpdates"))
        started = time.monotonic()
    assert time.monotonic() - started < 5
    poller.join()
    with results[0] as response:
        assert json.load(response) == {"ok": True, "result": []}


# --------------------------------------------------------------------------- factories
async def test_factories_parse_and_drive_an_application(api: FakeBotApi) -> None:
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message and context.args == ["now"]
        await update.effective_message.reply_text("Welcome!", reply_markup=keyboard("go"))

    app = make_application(api)
    app.add_handler(CommandHandler("start", start))
    ada = factories.user(USER, "Ada", "ada")
    chat = factories.private_chat(ada)
    async with app:
        await app.process_update(
            Update.de_json(factories.command("/start now", ada, chat), app.bot)
        )
        assert api.last_text(USER) == "Welcome!"
        sent = api.last_message(USER)
        assert sent is not None
        press = Update.de_json(factories.callback("go", ada, sent), app.bot)
        assert press.callback_query and press.callback_query.data == "go"
        assert press.callback_query.message and press.callback_query.message.chat.id == USER

    group = factories.group_chat(GROUP, "Study")
    with_bot = factories.command("/quiz@quizbot_test_bot 5", ada, group)
    entity = with_bot["message"]["entities"][0]
    assert entity["length"] == len("/quiz@quizbot_test_bot")
    member = Update.de_json(factories.my_chat_member(group, "left", "administrator", ada), None)
    assert (
        member.my_chat_member and member.my_chat_member.new_chat_member.status == "administrator"
    )
    moved = Update.de_json(factories.migrate_to_chat(-555, GROUP), None)
    assert moved.message and moved.message.migrate_to_chat_id == GROUP
    came = Update.de_json(factories.migrate_from_chat(GROUP, -555), None)
    assert came.message and came.message.migrate_from_chat_id == -555
    post = Update.de_json(factories.channel_post("hi", factories.channel(-100777, "C")), None)
    assert post.channel_post and post.channel_post.sender_chat
    answer = Update.de_json(factories.poll_answer("5000000001", ada, [1]), None)
    assert answer.poll_answer and answer.poll_answer.option_ids == (1,)
    assert moved.update_id > member.update_id
